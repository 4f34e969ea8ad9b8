//! Drives the tracksuit conformance example with the official Rust SDK's client (crates.io
//! `rmcp` =3.11.0), speaking MCP 2026-07-28 (stateless, multi round-trip requests) and then
//! 2025-11-25 (rmcp's default `.serve()`, the initialize handshake), and checks that the same
//! tool code answers both.
//!
//! Usage:
//!   tracksuit-interop-rmcp --url http://127.0.0.1:PORT/mcp
//!   tracksuit-interop-rmcp --stdio CMD [ARGS...]    (everything after --stdio is the server command)
//!
//! Prints PASS/FAIL per check; exits 1 if any check failed or a step errored. When a step
//! fails (or with INTEROP_WIRE=1 set), the JSON-RPC messages of its connection are printed
//! to stderr (the wire capture, as rmcp parsed them).

#![allow(deprecated)] // rmcp marks the sampling types #[deprecated] (SEP-2577); they still work

use std::{
    borrow::Cow,
    future::Future,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig,
        CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
        ElicitationAction, Implementation, ProtocolVersion, SamplingMessage,
        SamplingMessageContentBlock,
    },
    service::{RequestContext, RoleClient, RunningService, RxJsonRpcMessage, TxJsonRpcMessage},
    transport::{
        StreamableHttpClientTransport, TokioChildProcess, Transport,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const TRIP_TEXT: &str = "2 days in Lisbon: Belem, Alfama; booked=true";
const INVALID_PLAN: &str = "I think Lisbon is nice";
const VALID_PLAN: &str = r#"{"city":"Lisbon","sights":["Belem","Alfama"]}"#;
/// Per connection: rmcp has no request timeout of its own.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

static FAILURES: AtomicUsize = AtomicUsize::new(0);

fn check(name: &str, ok: bool, detail: impl std::fmt::Display) -> bool {
    let detail = detail.to_string();
    let detail = if detail.is_empty() {
        detail
    } else {
        format!(" — {detail}")
    };
    if ok {
        println!("PASS {name}{detail}");
    } else {
        FAILURES.fetch_add(1, Ordering::SeqCst);
        println!("FAIL {name}{detail}");
    }
    ok
}

// --- the wire log: a transport wrapper that records every JSON-RPC message ---------------

type Wire = Arc<Mutex<Vec<(&'static str, Value)>>>;

/// Records every message it carries (`"out"` to the server, `"in"` from it).
struct Logged<T> {
    inner: T,
    wire: Wire,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Logged<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let Ok(v) = serde_json::to_value(&item) {
            self.wire.lock().unwrap().push(("out", v));
        }
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let wire = self.wire.clone();
        let next = self.inner.receive();
        async move {
            let message = next.await;
            if let Some(v) = message.as_ref().and_then(|m| serde_json::to_value(m).ok()) {
                wire.lock().unwrap().push(("in", v));
            }
            message
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// One `tools/call` request on the wire and the answer to it.
#[derive(Debug)]
struct Round {
    /// Keys of the `inputResponses` the request carried.
    sent: Vec<String>,
    sent_state: Option<String>,
    /// `resultType` of the answer (`complete`, `input_required`, or `error`).
    result_type: String,
    /// Keys (and methods) of the answer's `inputRequests`.
    asked: Vec<(String, String)>,
    state: Option<String>,
}

/// The `tools/call` rounds for `tool` in `wire[from..]`, in order.
fn rounds(wire: &Wire, from: usize, tool: &str) -> Vec<Round> {
    let wire = wire.lock().unwrap();
    let msgs = &wire[from.min(wire.len())..];
    let mut out = Vec::new();
    for (dir, m) in msgs {
        if *dir != "out" || m["method"] != "tools/call" || m["params"]["name"] != tool {
            continue;
        }
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v
                .as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default();
            k.sort();
            k
        };
        let answer = msgs
            .iter()
            .find(|(d, r)| *d == "in" && r.get("method").is_none() && r["id"] == m["id"]);
        let (result_type, asked, state) = match answer {
            Some((_, r)) if r.get("result").is_some() => {
                let res = &r["result"];
                let mut asked: Vec<(String, String)> = res["inputRequests"]
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(k, v)| {
                                (k.clone(), v["method"].as_str().unwrap_or("?").to_string())
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                asked.sort();
                (
                    res["resultType"].as_str().unwrap_or("(none)").to_string(),
                    asked,
                    res["requestState"].as_str().map(String::from),
                )
            }
            Some(_) => ("error".to_string(), vec![], None),
            None => ("(no answer)".to_string(), vec![], None),
        };
        out.push(Round {
            sent: keys(&m["params"]["inputResponses"]),
            sent_state: m["params"]["requestState"].as_str().map(String::from),
            result_type,
            asked,
            state,
        });
    }
    out
}

fn describe(rounds: &[Round]) -> String {
    rounds
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let asked: Vec<String> = r.asked.iter().map(|(k, m)| format!("{k}:{m}")).collect();
            format!(
                "#{} sent{:?}→{}{}",
                i + 1,
                r.sent,
                r.result_type,
                if asked.is_empty() {
                    String::new()
                } else {
                    format!("{asked:?}")
                }
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn dump_wire(label: &str, wire: &Wire) {
    eprintln!("--- wire capture for {label}");
    for (dir, m) in wire.lock().unwrap().iter() {
        eprintln!("{dir} {m}");
    }
}

// --- the client's handlers ----------------------------------------------------------------

#[derive(Default)]
struct Log {
    /// (request id or MRTR key, requested property names)
    elicitations: Vec<(String, Vec<String>)>,
    /// Each sampling request: message count and the last message's text.
    sampling: Vec<(usize, String)>,
}

#[derive(Clone, Default)]
struct Interop {
    log: Arc<Mutex<Log>>,
}

impl ClientHandler for Interop {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            // (ClientCapabilities::builder() is only compiled with rmcp's server/macros features.)
            serde_json::from_value::<ClientCapabilities>(
                json!({"elicitation": {"form": {}}, "sampling": {}}),
            )
            .expect("static capabilities"),
            Implementation::new("tracksuit-interop-rmcp", "0.1.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let mut props = Vec::new();
        if let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = &request
        {
            let schema = serde_json::to_value(requested_schema).unwrap_or(Value::Null);
            if let Some(p) = schema["properties"].as_object() {
                props = p.keys().cloned().collect();
                props.sort();
            }
        }
        let id = match &context.id {
            rmcp::model::NumberOrString::String(s) => s.to_string(),
            rmcp::model::NumberOrString::Number(n) => n.to_string(),
        };
        self.log
            .lock()
            .unwrap()
            .elicitations
            .push((id, props.clone()));
        let has = |k: &str| props.iter().any(|p| p == k);
        let content = if has("city") {
            json!({"city": "Lisbon"}) // trip_planner's keyed pick_destination
        } else if has("ok") {
            json!({"ok": true}) // trip_planner's Confirm form
        } else if has("name") {
            json!({"name": "Ada"}) // test_input_required_result_elicitation's user_name
        } else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let last = request
            .messages
            .last()
            .map(|m| {
                m.content
                    .clone()
                    .into_vec()
                    .into_iter()
                    .map(|b| match b {
                        SamplingMessageContentBlock::Text(t) => t.text,
                        other => format!("{other:?}"),
                    })
                    .collect::<String>()
            })
            .unwrap_or_default();
        let n = {
            let mut log = self.log.lock().unwrap();
            log.sampling.push((request.messages.len(), last));
            log.sampling.len()
        };
        // First answer is not JSON (the server must retry with feedback), then a valid plan.
        let text = if n == 1 { INVALID_PLAN } else { VALID_PLAN };
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text(text),
            "scripted-model".into(),
        )
        .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
    }
}

// --- scenarios ----------------------------------------------------------------------------

type Client = RunningService<RoleClient, Interop>;
type Res<T> = Result<T, String>;

#[derive(Clone)]
enum Target {
    Url(String),
    Stdio(Vec<String>),
}

async fn connect(
    target: &Target,
    mode: Option<ClientLifecycleMode>,
    handler: Interop,
    wire: Wire,
) -> Res<Client> {
    macro_rules! serve {
        ($t:expr) => {{
            let t = Logged { inner: $t, wire };
            match mode {
                Some(mode) => handler.serve_with_lifecycle(t, mode).await,
                None => handler.serve(t).await, // rmcp's default: the 2025 initialize handshake
            }
        }};
    }
    let client = match target {
        Target::Url(url) => serve!(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.clone())
        )),
        Target::Stdio(cmd) => {
            let mut c = tokio::process::Command::new(&cmd[0]);
            c.args(&cmd[1..]);
            serve!(TokioChildProcess::new(c).map_err(|e| format!("spawn {cmd:?}: {e}"))?)
        }
    };
    client.map_err(|e| format!("connect: {e}"))
}

fn negotiated(client: &Client) -> String {
    client
        .peer_info()
        .map(|i| i.protocol_version.to_string())
        .unwrap_or_else(|| "(none)".into())
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect()
}

async fn call(client: &Client, tool: &str, args: Value) -> Res<CallToolResult> {
    let mut params = CallToolRequestParams::new(Cow::Owned(tool.to_string()));
    if let Value::Object(a) = args {
        params = params.with_arguments(a);
    }
    // RunningService::call_tool drives MRTR rounds (Peer::call_tool would not).
    client
        .call_tool(params)
        .await
        .map_err(|e| format!("tools/call {tool}: {e}"))
}

async fn phase_counts(client: &Client) -> Res<(u64, u64)> {
    let text = text_of(&call(client, "phase_counts", json!({})).await?);
    let v: Value =
        serde_json::from_str(&text).map_err(|e| format!("phase_counts {text:?}: {e}"))?;
    Ok((
        v["before"].as_u64().unwrap_or(u64::MAX),
        v["after"].as_u64().unwrap_or(u64::MAX),
    ))
}

/// Calls trip_planner {days:2}; checks everything but the comparison between eras.
async fn trip(
    label: &str,
    client: &Client,
    handler: &Interop,
    wire: &Wire,
    modern: bool,
) -> Res<String> {
    let (b0, a0) = phase_counts(client).await?;
    let mark = wire.lock().unwrap().len();
    let started = Instant::now();
    let result = call(client, "trip_planner", json!({"days": 2})).await?;
    let took = started.elapsed();
    let text = text_of(&result);
    check(
        &format!("{label}: trip_planner result text"),
        text == TRIP_TEXT && result.is_error != Some(true),
        format!("{text:?}"),
    );
    let log = std::mem::take(&mut *handler.log.lock().unwrap());
    check(
        &format!("{label}: sampling handler called exactly twice"),
        log.sampling.len() == 2,
        log.sampling.len(),
    );
    if let [(n1, _), (n2, feedback)] = log.sampling.as_slice() {
        check(
            &format!("{label}: second sampling request carries the feedback (more messages)"),
            n2 > n1,
            format!("{n1} → {n2} messages"),
        );
        println!("     feedback the model saw: {feedback:?}");
    }
    let props: Vec<&Vec<String>> = log.elicitations.iter().map(|(_, p)| p).collect();
    check(
        &format!("{label}: elicitations pick_destination then Confirm"),
        props == [&vec!["city".to_string()], &vec!["ok".to_string()]],
        format!("{props:?}"),
    );
    if modern {
        let r = rounds(wire, mark, "trip_planner");
        println!("     rounds: {}", describe(&r));
        check(
            &format!("{label}: at least 3 rounds (tools/call requests)"),
            r.len() >= 3,
            r.len(),
        );
        check(
            &format!("{label}: round 1 asks the keyed elicitation pick_destination"),
            r.first().is_some_and(|r| {
                r.asked
                    .iter()
                    .any(|(k, m)| k == "pick_destination" && m == "elicitation/create")
            }),
            format!("{:?}", r.first().map(|r| &r.asked)),
        );
        check(
            &format!("{label}: the handler saw the key pick_destination"),
            log.elicitations
                .first()
                .is_some_and(|(k, _)| k == "pick_destination"),
            format!("{:?}", log.elicitations.first().map(|(k, _)| k)),
        );
        let echoed = r.windows(2).all(|w| {
            w[1].sent_state == w[0].state
                && w[1].sent
                    == w[0]
                        .asked
                        .iter()
                        .map(|(k, _)| k.clone())
                        .collect::<Vec<_>>()
        });
        check(
            &format!("{label}: every retry echoes requestState and answers every key asked"),
            echoed,
            "",
        );
        let types: Vec<&str> = r.iter().map(|r| r.result_type.as_str()).collect();
        let mut expected = vec!["input_required"; r.len().saturating_sub(1)];
        expected.push("complete");
        check(
            &format!("{label}: only the last round completes"),
            types == expected,
            format!("{types:?}"),
        );
    }
    let (b1, a1) = phase_counts(client).await?;
    check(
        &format!("{label}: before/after phases ran exactly once"),
        b1 == b0 + 1 && a1 == a0 + 1,
        format!("before {b0}→{b1}, after {a0}→{a1}"),
    );
    println!("     trip_planner took {} ms", took.as_millis());
    Ok(text)
}

async fn modern(target: &Target, label: &str, wire: &Wire) -> Res<String> {
    let handler = Interop::default();
    let mode = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = connect(target, Some(mode), handler.clone(), wire.clone()).await?;
    check(
        &format!("{label}: negotiated protocol version (server/discover)"),
        negotiated(&client) == MODERN,
        negotiated(&client),
    );

    let tools = client
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    check(
        &format!("{label}: tools/list has trip_planner"),
        tools.iter().any(|t| t.name == "trip_planner"),
        format!("{} tools", tools.len()),
    );

    let simple = text_of(&call(&client, "test_simple_text", json!({})).await?);
    check(
        &format!("{label}: test_simple_text"),
        simple == "This is a simple text response for testing.",
        &simple,
    );

    let mark = wire.lock().unwrap().len();
    let hello = text_of(&call(&client, "test_input_required_result_elicitation", json!({})).await?);
    check(
        &format!("{label}: keyed elicitation answered"),
        hello == "Hello, Ada!",
        &hello,
    );
    let r = rounds(wire, mark, "test_input_required_result_elicitation");
    let seen = std::mem::take(&mut handler.log.lock().unwrap().elicitations);
    check(
        &format!("{label}: the elicitation came under the key user_name"),
        r.len() == 2
            && r[0].asked == [("user_name".to_string(), "elicitation/create".to_string())]
            && r[1].sent == ["user_name"]
            && seen.len() == 1
            && seen[0].0 == "user_name",
        describe(&r),
    );

    let text = trip(label, &client, &handler, wire, true).await;
    client.cancel().await.ok();
    text
}

async fn auto(target: &Target, label: &str, wire: &Wire) -> Res<()> {
    let mode = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    };
    let client = connect(target, Some(mode), Interop::default(), wire.clone()).await?;
    check(
        &format!("{label}: negotiated protocol version (auto)"),
        negotiated(&client) == MODERN,
        negotiated(&client),
    );
    client.cancel().await.ok();
    Ok(())
}

async fn legacy(target: &Target, label: &str, wire: &Wire) -> Res<String> {
    let handler = Interop::default();
    let client = connect(target, None, handler.clone(), wire.clone()).await?;
    check(
        &format!("{label}: negotiated protocol version (.serve(), initialize)"),
        negotiated(&client) == LEGACY,
        negotiated(&client),
    );
    let text = trip(label, &client, &handler, wire, false).await;
    client.cancel().await.ok();
    text
}

/// Runs one connection's scenario with a timeout; on failure prints its wire capture.
async fn step<T, F: Future<Output = Res<T>>>(
    label: &str,
    f: impl FnOnce(Wire, String) -> F,
) -> Option<T> {
    let wire: Wire = Default::default();
    let before = FAILURES.load(Ordering::SeqCst);
    let out = match tokio::time::timeout(STEP_TIMEOUT, f(wire.clone(), label.to_string())).await {
        Ok(Ok(v)) => Some(v),
        Ok(Err(e)) => {
            check(&format!("{label}: completed without error"), false, e);
            None
        }
        Err(_) => {
            check(
                &format!("{label}: completed within {STEP_TIMEOUT:?}"),
                false,
                "",
            );
            None
        }
    };
    if FAILURES.load(Ordering::SeqCst) > before || std::env::var_os("INTEROP_WIRE").is_some() {
        dump_wire(label, &wire);
    }
    out
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (target, where_) = match argv.first().map(String::as_str) {
        Some("--url") if argv.len() == 2 => (Target::Url(argv[1].clone()), "http"),
        Some("--stdio") if argv.len() >= 2 => (Target::Stdio(argv[1..].to_vec()), "stdio"),
        _ => {
            eprintln!("usage: tracksuit-interop-rmcp --url URL | --stdio CMD [ARGS...]");
            std::process::exit(2);
        }
    };
    let started = Instant::now();
    let target = &target;
    let modern_text = step(&format!("{where_} {MODERN}"), |w, l| async move {
        modern(target, &l, &w).await
    })
    .await;
    step(&format!("{where_} auto"), |w, l| async move {
        auto(target, &l, &w).await
    })
    .await;
    let legacy_text = step(&format!("{where_} {LEGACY}"), |w, l| async move {
        legacy(target, &l, &w).await
    })
    .await;
    check(
        &format!("{where_}: 2025-11-25 and 2026-07-28 give the same trip_planner text"),
        modern_text.is_some() && modern_text == legacy_text,
        format!("{modern_text:?} vs {legacy_text:?}"),
    );
    let failures = FAILURES.load(Ordering::SeqCst);
    println!(
        "{where_}: {failures} failed, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    std::process::exit(if failures > 0 { 1 } else { 0 });
}
