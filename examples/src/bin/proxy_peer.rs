//! tracksuit's proxy in front of servers nobody here wrote, driven by tracksuit's client in
//! both eras; started by `scripts/proxy.sh`.
//!
//! Remotes: the TypeScript SDK's `simpleStreamableHttp` example (Streamable HTTP, at
//! `PROXY_TS_URL`), its `progressExample` (stdio: `NODE PROXY_TS_PROGRESS`), a FastMCP
//! server (stdio: `PYTHON PROXY_FASTMCP`, tests/interop/proxy/fastmcp_server.py) — all
//! 2025-11-25 — and a Python `mcp` 2.x `MCPServer` speaking 2026-07-28 (stdio: `PYTHON2
//! PROXY_MCP2`, tests/interop/proxy/mcp2_server.py). The proxy serves them under the
//! prefixes `ts`, `tsp`, `py` and `py2` on `127.0.0.1:PROXY_PORT` over
//! Streamable HTTP; a 2025-11-25 caller and a 2026-07-28 caller each check listing, calls,
//! progress, cancellation reaching the remote, elicitation and sampling relayed,
//! `list_changed` relayed, and errors mapped (a TypeScript and a FastMCP `isError` result,
//! a FastMCP JSON-RPC error). Prints `N passed, N failed`.

use serde_json::{Value, json};
use std::process::ExitCode;
use std::time::Duration;
use tracksuit::client::{Client, Era, HttpTransport, SubscriptionFilter};
use tracksuit::protocol::*;
use tracksuit::proxy::{Attach, Remote};

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}

#[tokio::main]
async fn main() -> ExitCode {
    match tokio::time::timeout(Duration::from_secs(90), run()).await {
        Ok(Ok(0)) => ExitCode::SUCCESS,
        Ok(Ok(_)) => ExitCode::FAILURE,
        Ok(Err(why)) => {
            eprintln!("proxy peer: {why}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("proxy peer: no outcome within 90 s");
            ExitCode::FAILURE
        }
    }
}

/// Sets the proxy up and runs the checks in both eras; the number of failures.
async fn run() -> Result<usize, String> {
    let (node, python) = (env("NODE")?, env("PYTHON")?);
    let port = env("PROXY_PORT").unwrap_or_else(|_| "4240".into());
    let server = tracksuit::Server::new(Implementation::new("proxy-peer", "1.0.0"))
        .build()
        .map_err(|e| e.to_string())?;
    let ts = Remote::http(&env("PROXY_TS_URL")?)
        .await
        .map_err(|e| format!("ts: {e}"))?;
    let tsp = Remote::stdio(&node, [env("PROXY_TS_PROGRESS")?])
        .await
        .map_err(|e| format!("tsp: {e}"))?;
    let py = Remote::stdio(&python, [env("PROXY_FASTMCP")?])
        .await
        .map_err(|e| format!("py: {e}"))?;
    let modern = Remote::stdio(&env("PYTHON2")?, [env("PROXY_MCP2")?])
        .await
        .map_err(|e| format!("py2: {e}"))?;
    if modern.client().era() != Era::Stateless {
        return Err("the mcp 2.x server did not negotiate 2026-07-28".into());
    }
    let remotes = [(&ts, "ts"), (&tsp, "tsp"), (&py, "py"), (&modern, "py2")];
    for (remote, prefix) in remotes {
        println!(
            "remote `{}` ({prefix}) speaks {:?}",
            remote.name(),
            remote.client().era()
        );
        let attached = remote
            .attach(&server, Attach::default().prefix(prefix))
            .await;
        std::mem::forget(attached.map_err(|e| format!("{prefix}: {e}"))?);
    }
    let address = format!("127.0.0.1:{port}");
    tokio::spawn(server.serve_http(address.clone()));
    let url = format!("http://{address}/mcp");
    let mut checks = Checks::default();
    for era in [Era::Session, Era::Stateless] {
        let caller = connect(&url, era).await?;
        println!("--- caller {era:?}");
        checks.era(&caller, era).await;
    }
    println!("proxy: {} passed, {} failed", checks.passed, checks.failed);
    Ok(checks.failed)
}

/// A caller of the proxy, answering elicitation and sampling itself; retried while the
/// proxy starts listening.
async fn connect(url: &str, era: Era) -> Result<Client, String> {
    let mut last = String::new();
    for _ in 0..100 {
        let builder = Client::builder()
            .era(era)
            .on_elicitation(|_params| async {
                Ok(ElicitResult {
                    action: ElicitAction::Accept,
                    content: json!({"name": "Ada", "email": "ada@example.com"})
                        .as_object()
                        .cloned(),
                    meta: None,
                    extra: Default::default(),
                })
            })
            .on_sampling(|_params| async {
                Ok(CreateMessageResult {
                    role: Role::Assistant,
                    content: SamplingMessageContentBlock::text("yes").into(),
                    model: "proxy-peer".into(),
                    stop_reason: Some(StopReason::EndTurn),
                    meta: None,
                    extra: Default::default(),
                })
            });
        let transport = HttpTransport::new(url).map_err(|e| e.to_string())?;
        match builder.connect(transport).await {
            Ok(client) => return Ok(client),
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("the proxy at {url} never answered: {last}"))
}

#[derive(Default)]
struct Checks {
    passed: usize,
    failed: usize,
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect()
}

impl Checks {
    fn check(&mut self, name: &str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => {
                self.passed += 1;
                println!("ok   {name}");
            }
            Err(why) => {
                self.failed += 1;
                println!("FAIL {name}: {why}");
            }
        }
    }

    async fn era(&mut self, caller: &Client, era: Era) {
        self.check("listing (all remotes)", listing(caller).await);
        let greet = call(caller, "ts_greet", json!({"name": "Ada"})).await;
        self.check("ts: a call", expect(greet, "Hello, Ada!"));
        let info = call(
            caller,
            "ts_collect-user-info",
            json!({"infoType": "contact"}),
        )
        .await;
        self.check("ts: elicitation relayed", contains(info, "ada@example.com"));
        self.check("ts: isError stays isError", ts_invalid(caller).await);
        self.check("ts: a resource read", ts_resource(caller).await);
        self.check(
            "tsp (stdio): progress relayed",
            progress(caller, "tsp_count", json!({"n": 3}), 3).await,
        );
        self.check(
            "py: a call",
            expect(call(caller, "py_add", json!({"a": 2, "b": 3})).await, "5"),
        );
        self.check(
            "py: progress relayed",
            progress(caller, "py_slow", json!({"steps": 3}), 3).await,
        );
        self.check(
            "py: elicitation relayed",
            expect(call(caller, "py_ask", json!({})).await, "hello Ada"),
        );
        self.check(
            "py: sampling relayed",
            expect(call(caller, "py_sample", json!({})).await, "model said yes"),
        );
        self.check("py: isError stays isError", py_fail(caller).await);
        self.check(
            "py: a JSON-RPC error keeps code and message",
            py_error(caller).await,
        );
        self.check(
            "py: prompt and template",
            py_prompt_and_template(caller).await,
        );
        self.check(
            "py: overlapping calls reach one process",
            py_one_process(caller).await,
        );
        self.check(
            "py: cancellation reaches the remote",
            py_cancel(caller).await,
        );
        let add = call(caller, "py2_add", json!({"a": 2, "b": 3})).await;
        self.check("py2 (2026): a call", expect(add, "5"));
        let ask = call(caller, "py2_ask", json!({})).await;
        self.check("py2 (2026): elicitation relayed", expect(ask, "hello Ada"));
        let sample = call(caller, "py2_sample", json!({})).await;
        self.check(
            "py2 (2026): sampling relayed",
            expect(sample, "model said yes"),
        );
        let slow = progress(caller, "py2_slow", json!({"steps": 3}), 3).await;
        self.check("py2 (2026): progress relayed", slow);
        let grown = if era == Era::Session {
            "grown_a"
        } else {
            "grown_b"
        };
        self.check(
            "py: list_changed relayed",
            py_list_changed(caller, grown).await,
        );
    }
}

async fn call(caller: &Client, name: &str, args: Value) -> Result<CallToolResult, String> {
    caller
        .call_tool(name, args)
        .await
        .map_err(|e| e.to_string())
}

fn expect(result: Result<CallToolResult, String>, want: &str) -> Result<(), String> {
    let got = text(&result?);
    (got == want)
        .then_some(())
        .ok_or(format!("got {got:?}, want {want:?}"))
}

fn contains(result: Result<CallToolResult, String>, want: &str) -> Result<(), String> {
    let got = text(&result?);
    got.contains(want)
        .then_some(())
        .ok_or(format!("got {got:?}, want {want:?} in it"))
}

async fn listing(caller: &Client) -> Result<(), String> {
    let tools = caller.list_tools(None).await.map_err(|e| e.to_string())?;
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    for want in [
        "ts_greet",
        "ts_collect-user-info",
        "tsp_count",
        "py_add",
        "py_hang",
        "py_grow",
    ] {
        if !names.contains(&want) {
            return Err(format!("no {want} in {names:?}"));
        }
    }
    let prompts = caller.list_prompts(None).await.map_err(|e| e.to_string())?;
    let prompts: Vec<&str> = prompts.prompts.iter().map(|p| p.name.as_str()).collect();
    if !prompts.contains(&"ts_greeting-template") || !prompts.contains(&"py_greet") {
        return Err(format!("prompts: {prompts:?}"));
    }
    let resources = caller
        .list_resources(None)
        .await
        .map_err(|e| e.to_string())?;
    let uris: Vec<&str> = resources.resources.iter().map(|r| r.uri.as_str()).collect();
    if !uris.contains(&"memo://motd") || !uris.contains(&"https://example.com/greetings/default") {
        return Err(format!("resources: {uris:?}"));
    }
    let templates = caller
        .list_resource_templates(None)
        .await
        .map_err(|e| e.to_string())?;
    match templates
        .resource_templates
        .iter()
        .any(|t| t.uri_template == "memo://notes/{id}")
    {
        true => Ok(()),
        false => Err("no memo://notes/{id} template".into()),
    }
}

async fn ts_invalid(caller: &Client) -> Result<(), String> {
    // The TypeScript server checks the arguments itself and answers with a tool error.
    let result = call(caller, "ts_greet", json!({"name": 7})).await?;
    match (result.is_error, text(&result)) {
        (Some(true), t) if t.contains("validation") => Ok(()),
        other => Err(format!("got {other:?}")),
    }
}

async fn py_error(caller: &Client) -> Result<(), String> {
    // FastMCP answers a failed prompt with a JSON-RPC error of code 0.
    match caller.get_prompt("py_broken", json!({})).await {
        Err(tracksuit::RequestError::Peer(e))
            if e.code == 0 && e.message.contains("this prompt is broken") =>
        {
            Ok(())
        }
        other => Err(format!("got {other:?}, want FastMCP's error")),
    }
}

async fn ts_resource(caller: &Client) -> Result<(), String> {
    let read = caller
        .read_resource("https://example.com/greetings/default")
        .await
        .map_err(|e| e.to_string())?;
    let text = serde_json::to_value(&read.contents[..]).map_err(|e| e.to_string())?;
    match text.pointer("/0/text").and_then(Value::as_str) {
        Some("Hello, world!") => Ok(()),
        other => Err(format!("read {other:?}")),
    }
}

/// Calls `tool` with a progress token; `want` notifications must arrive before its result.
async fn progress(caller: &Client, tool: &str, args: Value, want: usize) -> Result<(), String> {
    let mut notes = caller.notifications();
    let token = ProgressToken::String(format!("{tool}-progress"));
    caller
        .call_tool_with_progress(tool, args, token.clone())
        .await
        .map_err(|e| e.to_string())?;
    let mut seen = 0;
    while let Ok(note) = notes.try_recv() {
        let params = note.params.unwrap_or_default();
        if note.method == methods::PROGRESS && params["progressToken"] == json!(token) {
            seen += 1;
        }
    }
    (seen == want)
        .then_some(())
        .ok_or(format!("{seen} progress notifications, want {want}"))
}

async fn py_fail(caller: &Client) -> Result<(), String> {
    let result = call(caller, "py_fail", json!({})).await?;
    match (result.is_error, text(&result)) {
        (Some(true), t) if t.contains("bad input") => Ok(()),
        other => Err(format!("got {other:?}")),
    }
}

async fn py_prompt_and_template(caller: &Client) -> Result<(), String> {
    let prompt = caller
        .get_prompt("py_greet", json!({"name": "Ada"}))
        .await
        .map_err(|e| e.to_string())?;
    let prompt = serde_json::to_value(&prompt.messages).map_err(|e| e.to_string())?;
    if prompt.pointer("/0/content/text").and_then(Value::as_str) != Some("Say hello to Ada") {
        return Err(format!("prompt: {prompt}"));
    }
    let read = caller
        .read_resource("memo://notes/7")
        .await
        .map_err(|e| e.to_string())?;
    let read = serde_json::to_value(&read.contents).map_err(|e| e.to_string())?;
    match read.pointer("/0/text").and_then(Value::as_str) {
        Some("note 7") => Ok(()),
        _ => Err(format!("template read: {read}")),
    }
}

/// Two calls that overlap (one naps at the remote) and one after them: a stdio remote is
/// one process, whose state (the counter, tools added at run time) every call shares.
async fn py_one_process(caller: &Client) -> Result<(), String> {
    let (napping, quick) = tokio::join!(
        call(caller, "py_pid", json!({"nap": 0.3})),
        call(caller, "py_pid", json!({}))
    );
    let after = call(caller, "py_pid", json!({})).await?;
    let pids = [text(&napping?), text(&quick?), text(&after)];
    match pids.iter().all(|p| *p == pids[0]) {
        true => Ok(()),
        false => Err(format!("the calls reached processes {pids:?}")),
    }
}

async fn cancellations(caller: &Client) -> Result<String, String> {
    Ok(text(&call(caller, "py_cancellations", json!({})).await?))
}

/// Starts `hang`, waits for its "started" progress, drops the call, then waits (bounded)
/// until the FastMCP server counts one more cancellation.
async fn py_cancel(caller: &Client) -> Result<(), String> {
    let before: u64 = cancellations(caller)
        .await?
        .parse()
        .map_err(|e| format!("{e}"))?;
    let mut notes = caller.notifications();
    let token = ProgressToken::String("hang".into());
    let hang = caller.call_tool_with_progress("py_hang", json!({}), token);
    let started = async {
        while let Ok(note) = notes.recv().await {
            if note.method == methods::PROGRESS {
                return;
            }
        }
    };
    tokio::select! {
        outcome = hang => return Err(format!("hang ended: {outcome:?}")),
        _ = started => {}
    }
    // The call's future is dropped: its request is cancelled.
    for _ in 0..200 {
        if cancellations(caller).await? == (before + 1).to_string() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    Err("the remote never saw the cancellation".into())
}

async fn py_list_changed(caller: &Client, name: &str) -> Result<(), String> {
    let filter = SubscriptionFilter::default().tools_list_changed();
    let mut changes = caller
        .subscribe_to(filter)
        .await
        .map_err(|e| e.to_string())?;
    expect(
        call(caller, "py_grow", json!({"name": name})).await,
        &format!("grew {name}"),
    )?;
    let changed = async {
        while let Some(note) = changes.next().await {
            if note.method == methods::TOOLS_LIST_CHANGED {
                return true;
            }
        }
        false
    };
    match tokio::time::timeout(Duration::from_secs(10), changed).await {
        Ok(true) => {}
        _ => return Err("no notifications/tools/list_changed".into()),
    }
    expect(
        call(caller, &format!("py_{name}"), json!({})).await,
        "grown here",
    )
}
