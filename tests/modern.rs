//! MCP 2026-07-28 on the Streamable HTTP endpoint, driven through the axum `Router` as a
//! tower service: multi round-trip calls replayed from the sealed `requestState` (a handoff
//! tool's `before` and `after` run once), divergent replays, every kind of bad
//! `requestState`, and cancellation by closing the response stream.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use tower::ServiceExt;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{Ctx, Elicits, PhaseCtx, Server, ServerHandle, ServerOptions, ToolError, mcp_tool};
use tracksuit_tests::support::{wait_until, within};

#[path = "mrtr.rs"]
mod mrtr;
use mrtr::{asked, call, keys, send, word};

static BEFORE: AtomicUsize = AtomicUsize::new(0);
static AFTER: AtomicUsize = AtomicUsize::new(0);
static COUNTED_RUNS: AtomicUsize = AtomicUsize::new(0);
static HANG_STARTED: AtomicBool = AtomicBool::new(false);
static HANG_DROPPED: AtomicUsize = AtomicUsize::new(0);
static ASK_OTHER: AtomicBool = AtomicBool::new(false);
static LINGER_STARTED: AtomicBool = AtomicBool::new(false);
static LINGER_DROPPED: AtomicUsize = AtomicUsize::new(0);
static WATCH_STARTED: AtomicBool = AtomicBool::new(false);
static WATCH_CANCELLED: AtomicBool = AtomicBool::new(false);
static STALL_STARTED: AtomicBool = AtomicBool::new(false);
static STALL_CANCELLED: AtomicBool = AtomicBool::new(false);

/// A word.
#[derive(serde::Deserialize, Elicits)]
struct Word {
    /// A word
    word: String,
}

/// Three questions in a row, between a `before` and an `after` that count their runs.
struct Three;

/// Asks three words.
#[mcp_tool(name = "three")]
impl Three {
    async fn before(_args: NoArgs, _ctx: &PhaseCtx) -> Result<Opening, ToolError> {
        BEFORE.fetch_add(1, Ordering::SeqCst);
        Ok(Opening("state from before".into()))
    }

    async fn client(state: &Opening, ctx: &Ctx) -> Result<Vec<String>, ToolError> {
        let mut words = vec![state.0.clone()];
        for n in 1..=3 {
            let answer = ctx.elicit_form::<Word>(format!("word {n}?")).await?;
            words.push(answer.accepted().map(|w| w.word).unwrap_or_default());
        }
        Ok(words)
    }

    async fn after(_state: Opening, words: Vec<String>, _ctx: &PhaseCtx) -> String {
        AFTER.fetch_add(1, Ordering::SeqCst);
        words.join(" / ")
    }
}

/// What `before` hands on.
#[derive(serde::Serialize, serde::Deserialize)]
struct Opening(String);

/// No arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// Counts how often it starts, then asks one word.
#[mcp_tool]
async fn counted(
    ctx: &Ctx,
    /// Any text
    text: String,
) -> Result<String, ToolError> {
    COUNTED_RUNS.fetch_add(1, Ordering::SeqCst);
    let w = ctx
        .elicit_form::<Word>(format!("a word for {text}?"))
        .await?;
    Ok(w.accepted().map(|w| w.word).unwrap_or_default())
}

/// The same as `counted`, under another name.
#[mcp_tool]
async fn counted_again(
    ctx: &Ctx,
    /// Any text
    text: String,
) -> Result<String, ToolError> {
    counted_body(ctx, text).await
}

async fn counted_body(ctx: &Ctx, text: String) -> Result<String, ToolError> {
    COUNTED_RUNS.fetch_add(1, Ordering::SeqCst);
    let w = ctx
        .elicit_form::<Word>(format!("a word for {text}?"))
        .await?;
    Ok(w.accepted().map(|w| w.word).unwrap_or_default())
}

/// Asks one thing, then, on replay, something else if `ASK_OTHER` is set: not deterministic.
#[mcp_tool]
async fn fickle(ctx: &Ctx) -> Result<String, ToolError> {
    let message = if ASK_OTHER.load(Ordering::SeqCst) {
        "other?"
    } else {
        "first?"
    };
    let a = ctx.elicit_form::<Word>(message).await?;
    let b = ctx.elicit_form::<Word>("second?").await?;
    Ok(format!(
        "{:?} {:?}",
        a.accepted().map(|w| w.word),
        b.accepted().map(|w| w.word)
    ))
}

/// `hang` for the line test (its own counters: tests run in parallel).
#[mcp_tool]
async fn linger() -> &'static str {
    run_until_dropped(&LINGER_STARTED, &LINGER_DROPPED).await
}

/// Marks `started`, then waits forever; counts in `dropped` when its future is dropped.
async fn run_until_dropped(started: &AtomicBool, dropped: &'static AtomicUsize) -> &'static str {
    struct Dropped(&'static AtomicUsize);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let _guard = Dropped(dropped);
    started.store(true, Ordering::SeqCst);
    std::future::pending::<()>().await;
    "never"
}

/// Has the user open a URL (URL-mode elicitation, a fresh elicitation id each run).
#[mcp_tool]
async fn login(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx
        .elicit_url("Sign in", "https://example.com/login")
        .await?;
    ctx.notify_elicitation_complete(&out.elicitation_id).await;
    Ok(format!("{:?}", out.action))
}

/// Fails the 2025 way: the user must open a URL first (-32042).
#[mcp_tool]
async fn gated() -> Result<String, ToolError> {
    Err(tracksuit::elicitation::url_elicitation_required(vec![(
        "Sign in first",
        "https://example.com/login",
    )]))
}

/// Asks a word, then has the model recap it with the answered elicitation in its history
/// (the pattern docs/elicitation.md recommends).
#[mcp_tool]
async fn recap(ctx: &Ctx) -> Result<String, ToolError> {
    let tracksuit::Elicited::Accept { exchange, .. } = ctx.elicit_form::<Word>("word?").await?
    else {
        return Ok("declined".into());
    };
    let reply = ctx
        .sample()
        .history(exchange.messages())
        .prompt("recap")
        .await?;
    Ok(reply.text())
}

/// Two branches ask the model at the same time.
#[mcp_tool]
async fn debate(ctx: &Ctx) -> Result<String, ToolError> {
    let (pro, con) = tokio::try_join!(
        ctx.branch(|b| async move { b.sample().prompt("Argue for").await }),
        ctx.branch(|b| async move { b.sample().prompt("Argue against").await }),
    )?;
    Ok(format!("{} / {}", pro?.text(), con?.text()))
}

/// Runs until cancelled, counting the drop of its future.
#[mcp_tool]
async fn hang() -> &'static str {
    run_until_dropped(&HANG_STARTED, &HANG_DROPPED).await
}

/// Hands its cancellation token to a watcher of its own, then runs until cancelled: a
/// tool without a `Ctx`, so a modern call of it is a plain call.
#[mcp_tool]
async fn watch(cancel: tokio_util::sync::CancellationToken) -> &'static str {
    tokio::spawn(async move {
        cancel.cancelled().await;
        WATCH_CANCELLED.store(true, Ordering::SeqCst);
    });
    WATCH_STARTED.store(true, Ordering::SeqCst);
    std::future::pending().await
}

/// Panics: a plain call still answers, with the panic's message.
#[mcp_tool]
async fn explode() -> &'static str {
    panic!("the tool exploded")
}

/// Reports progress twice, then answers: an asking tool (it has a `Ctx`) whose modern call
/// streams its notifications before its result.
#[mcp_tool]
async fn chatty(ctx: &Ctx) -> &'static str {
    ctx.progress(1.0, Some(2.0), Some("half")).await;
    ctx.progress(2.0, Some(2.0), None).await;
    "done talking"
}

/// Waits for its cancellation, watched from a task of its own: an asking tool.
#[mcp_tool]
async fn stall(ctx: &Ctx) -> &'static str {
    let cancel = ctx.cancellation_token();
    tokio::spawn(async move {
        cancel.cancelled().await;
        STALL_CANCELLED.store(true, Ordering::SeqCst);
    });
    STALL_STARTED.store(true, Ordering::SeqCst);
    std::future::pending().await
}

/// Panics before it asks anything: an asking tool (its `Ctx` is what makes it one).
#[mcp_tool]
async fn implode(_ctx: &Ctx) -> &'static str {
    panic!("the tool imploded")
}

fn server_with(options: ServerOptions) -> ServerHandle {
    Server::with_options(Implementation::new("modern-test", "1"), options)
        .tool(Three)
        .tool(counted)
        .tool(counted_again)
        .tool(fickle)
        .tool(hang)
        .tool(watch)
        .tool(explode)
        .tool(chatty)
        .tool(stall)
        .tool(implode)
        .tool(linger)
        .tool(debate)
        .tool(recap)
        .tool(login)
        .tool(gated)
        .build()
        .expect("distinct names")
}

fn app_with(options: ServerOptions) -> axum::Router {
    StreamableHttp::new(server_with(options), HttpOptions::default()).router("/mcp")
}

fn app() -> axum::Router {
    app_with(ServerOptions::default().state_keys(keys(1)))
}

#[tokio::test]
async fn a_handoff_call_of_four_rounds_runs_before_and_after_exactly_once() {
    let app = app();
    let (before, after) = (BEFORE.load(Ordering::SeqCst), AFTER.load(Ordering::SeqCst));
    let (_, first) = send(&app, call(1, "three", json!({}), json!({}))).await;
    let (mut key, message, mut state) = asked(&first);
    assert_eq!(message, "word 1?");
    let mut states = vec![state.clone()];
    for (n, w) in ["alpha", "beta"].iter().enumerate() {
        let retry = json!({"inputResponses": {key.clone(): word(w)}, "requestState": state});
        let (status, v) = send(&app, call(2 + n as i64, "three", json!({}), retry)).await;
        assert_eq!(status, StatusCode::OK);
        let (k, message, s) = asked(&v);
        assert_eq!(message, format!("word {}?", n + 2));
        assert!(!states.contains(&s), "every round seals a new state");
        (key, state) = (k, s);
        states.push(state.clone());
    }
    let retry = json!({"inputResponses": {key: word("gamma")}, "requestState": state});
    let (_, done) = send(&app, call(9, "three", json!({}), retry)).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "state from before / alpha / beta / gamma"
    );
    assert_eq!(BEFORE.load(Ordering::SeqCst) - before, 1, "before ran once");
    assert_eq!(AFTER.load(Ordering::SeqCst) - after, 1, "after ran once");
}

#[tokio::test]
async fn a_missing_answer_is_asked_again_and_extra_ones_are_ignored() {
    let app = app();
    let (_, first) = send(&app, call(1, "counted", json!({"text": "x"}), json!({}))).await;
    let (key, _, state) = asked(&first);
    let retry = json!({"inputResponses": {"unrelated": word("no")}, "requestState": state});
    let (_, again) = send(&app, call(2, "counted", json!({"text": "x"}), retry)).await;
    let (same_key, _, state) = asked(&again);
    assert_eq!(same_key, key);
    let retry = json!({"inputResponses": {key: word("yes"), "extra": 1}, "requestState": state});
    let (_, done) = send(&app, call(3, "counted", json!({"text": "x"}), retry)).await;
    assert_eq!(done["result"]["content"][0]["text"], "yes", "{done}");
}

#[tokio::test]
async fn a_replay_that_asks_something_else_fails_naming_the_tool_and_the_position() {
    let app = app();
    let (_, first) = send(&app, call(1, "fickle", json!({}), json!({}))).await;
    let (key, _, state) = asked(&first);
    let retry = json!({"inputResponses": {key.clone(): word("one")}, "requestState": state});
    let (_, second) = send(&app, call(2, "fickle", json!({}), retry)).await;
    let (key2, _, state) = asked(&second);
    // The tool now asks something else first: the logged answer must not be fed to it.
    ASK_OTHER.store(true, Ordering::SeqCst);
    let retry = json!({"inputResponses": {key2: word("two")}, "requestState": state});
    let (_, failed) = send(&app, call(3, "fickle", json!({}), retry)).await;
    ASK_OTHER.store(false, Ordering::SeqCst);
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("tool `fickle`") && message.contains(&format!("`{key}`")),
        "{failed}"
    );
    assert!(failed.get("result").is_none());
}

#[tokio::test]
async fn a_malformed_answer_fails_the_call_naming_its_key() {
    let app = app();
    let (_, first) = send(&app, call(1, "counted", json!({"text": "m"}), json!({}))).await;
    let (key, _, state) = asked(&first);
    let bad = json!({"action": "maybe"});
    let retry = json!({"inputResponses": {key.clone(): bad}, "requestState": state});
    let (_, failed) = send(&app, call(2, "counted", json!({"text": "m"}), retry)).await;
    assert_eq!(failed["error"]["code"], -32602, "{failed}");
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    // Worded as a value's deserializer words it: no positions in the carried JSON text.
    assert!(
        message.contains(&key)
            && message
                .contains("is not a valid elicitation/create result: unknown variant `maybe`")
            && !message.contains(" at line "),
        "{failed}"
    );
}

#[tokio::test]
async fn bad_request_state_is_refused_before_the_tool_runs_and_the_server_keeps_serving() {
    let app = app();
    let args = json!({"text": "x"});
    let (_, first) = send(&app, call(1, "counted", args.clone(), json!({}))).await;
    let (key, _, state) = asked(&first);
    let answer = json!({key.clone(): word("w")});
    let flipped = {
        let mut b = state.clone().into_bytes();
        let i = b.len() / 2;
        b[i] = if b[i] == b'A' { b'B' } else { b'A' };
        String::from_utf8(b).expect("ascii")
    };
    // Sealed by another deployment's key, and sealed with no time to live.
    let foreign = app_with(ServerOptions::default().state_keys(keys(2)));
    let (_, other) = send(&foreign, call(1, "counted", args.clone(), json!({}))).await;
    let other_state = asked(&other).2;
    let stale = app_with(
        ServerOptions::default()
            .state_keys(keys(1))
            .request_state_ttl(Duration::ZERO),
    );
    let (_, expired) = send(&stale, call(1, "counted", args.clone(), json!({}))).await;
    let expired_state = asked(&expired).2;
    let cases: Vec<(&str, &str, Value, Value)> = vec![
        ("a flipped byte", "counted", args.clone(), json!(flipped)),
        (
            "truncated",
            "counted",
            args.clone(),
            json!(state[..state.len() / 2]),
        ),
        (
            "not base64",
            "counted",
            args.clone(),
            json!("%%%not-a-state%%%"),
        ),
        ("another key", "counted", args.clone(), json!(other_state)),
        ("another tool", "counted_again", args.clone(), json!(state)),
        (
            "other arguments",
            "counted",
            json!({"text": "y"}),
            json!(state),
        ),
        ("expired", "counted", args.clone(), json!(expired_state)),
        (
            "oversized",
            "counted",
            args.clone(),
            json!("A".repeat(600 * 1024)),
        ),
        ("not a string", "counted", args.clone(), json!(42)),
    ];
    for (what, tool, arguments, bad) in cases {
        let runs = COUNTED_RUNS.load(Ordering::SeqCst);
        let extra = json!({"inputResponses": answer, "requestState": bad});
        let (status, v) = send(&app, call(7, tool, arguments, extra)).await;
        assert_eq!(v["id"], 7, "{what}: the error carries the request id: {v}");
        assert_eq!(v["error"]["code"], INVALID_PARAMS, "{what}: {v}");
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}");
        assert!(v.get("result").is_none(), "{what}: {v}");
        assert_eq!(
            COUNTED_RUNS.load(Ordering::SeqCst),
            runs,
            "{what}: the tool ran"
        );
    }
    // 10 MB of garbage is refused at the door (413), with the JSON-RPC error shape.
    let garbage = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .body(Body::from(vec![b'x'; 10 * 1024 * 1024]))
        .expect("request");
    let (status, v) = send(&app, garbage).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(v["id"], Value::Null, "{v}");
    // The genuine state still works.
    let retry = json!({"inputResponses": answer, "requestState": state});
    let (_, done) = send(&app, call(8, "counted", args, retry)).await;
    assert_eq!(done["result"]["content"][0]["text"], "w", "{done}");
}

#[tokio::test]
async fn closing_the_response_stream_cancels_the_request() {
    let app = app();
    let dropped = HANG_DROPPED.load(Ordering::SeqCst);
    let call = tokio::spawn({
        let app = app.clone();
        async move { app.oneshot(call(1, "hang", json!({}), json!({}))).await }
    });
    wait_until(|| HANG_STARTED.load(Ordering::SeqCst), "the tool starts").await;
    call.abort();
    wait_until(
        || HANG_DROPPED.load(Ordering::SeqCst) > dropped,
        "the tool's future is dropped",
    )
    .await;
}

/// Calls `tool` (which sets `started`, then runs until cancelled, setting `cancelled` when
/// its token fires), closes the response stream, and waits for the token to fire.
async fn closing_the_stream_fires_the_token(
    tool: &'static str,
    started: &'static AtomicBool,
    cancelled: &'static AtomicBool,
) {
    let app = app();
    let call = tokio::spawn({
        let app = app.clone();
        async move { app.oneshot(call(1, tool, json!({}), json!({}))).await }
    });
    wait_until(|| started.load(Ordering::SeqCst), "the tool starts").await;
    assert!(
        !cancelled.load(Ordering::SeqCst),
        "not cancelled while it runs"
    );
    call.abort();
    wait_until(
        || cancelled.load(Ordering::SeqCst),
        "the tool's cancellation token fires",
    )
    .await;
}

#[tokio::test]
async fn closing_the_stream_of_a_plain_call_fires_its_cancellation_token() {
    closing_the_stream_fires_the_token("watch", &WATCH_STARTED, &WATCH_CANCELLED).await;
}

#[tokio::test]
async fn a_plain_call_that_panics_is_answered_without_the_panic_message() {
    let (status, reply) = send(&app(), call(1, "explode", json!({}), json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["id"], 1, "{reply}");
    let result = &reply["result"];
    assert_eq!(result["isError"], true, "{reply}");
    assert_eq!(result["resultType"], "complete", "{reply}");
    let said = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        said.contains("panicked") && !said.contains("exploded"),
        "{reply}"
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "modern-test",
        "{reply}"
    );
}

#[tokio::test]
async fn closing_the_stream_of_an_asking_call_fires_its_cancellation_token() {
    closing_the_stream_fires_the_token("stall", &STALL_STARTED, &STALL_CANCELLED).await;
}

#[tokio::test]
async fn an_asking_call_that_panics_is_answered_without_the_panic_message() {
    let (status, reply) = send(&app(), call(3, "implode", json!({}), json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["id"], 3, "{reply}");
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .or_else(|| reply["error"]["message"].as_str())
        .unwrap_or_default();
    assert!(
        text.contains("panicked") && !text.contains("imploded"),
        "{reply}"
    );
}

#[tokio::test]
async fn notifications_before_the_result_turn_the_response_into_an_sse_stream() {
    use futures::StreamExt;
    let token = json!({"progressToken": "p1"});
    let mut req = call(5, "chatty", json!({}), json!({}));
    // The progress token goes into the request's `_meta` beside the modern fields.
    let body = within(
        "the body",
        axum::body::to_bytes(std::mem::take(req.body_mut()), 1 << 20),
    )
    .await
    .expect("body");
    let mut body: Value = serde_json::from_slice(&body).expect("JSON");
    body["params"]["_meta"]["progressToken"] = token["progressToken"].clone();
    *req.body_mut() = Body::from(body.to_string());
    let resp = within("the response", app().oneshot(req))
        .await
        .expect("infallible");
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut chunks = resp.into_body().into_data_stream();
    let mut events = Vec::new();
    // The stream ends after the result: collecting it finishes.
    while let Some(chunk) = within("a chunk", chunks.next()).await {
        let chunk = chunk.expect("chunk");
        let text = String::from_utf8_lossy(&chunk).into_owned();
        for line in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
            events.push(serde_json::from_str::<Value>(line).expect("JSON event"));
        }
    }
    assert_eq!(events.len(), 3, "{events:?}");
    for (event, progress) in events.iter().zip([1.0, 2.0]) {
        assert_eq!(event["method"], "notifications/progress", "{event}");
        assert_eq!(event["params"]["progressToken"], "p1", "{event}");
        assert_eq!(event["params"]["progress"], progress, "{event}");
    }
    let last = &events[2];
    assert_eq!(last["id"], 5, "{last}");
    assert_eq!(
        last["result"]["content"][0]["text"], "done talking",
        "{last}"
    );
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
}

/// A modern request of `method` with `params` (the `_meta` added), headers mirroring it.
fn request(id: i64, method: &str, mut params: Value) -> Request<Body> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .body(Body::from(body.to_string()))
        .expect("request")
}

#[tokio::test(start_paused = true)]
async fn a_listen_stream_acknowledges_filters_tags_and_keeps_alive() {
    use futures::StreamExt;
    let server = server_with(ServerOptions::default().state_keys(keys(1)));
    let app = StreamableHttp::new(server.clone(), HttpOptions::default()).router("/mcp");
    let listen = request(
        41,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["file:///r"]}}),
    );
    let resp = within("the listen stream opens", app.clone().oneshot(listen))
        .await
        .expect("infallible");
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut body = resp.into_body().into_data_stream();
    let mut next = async || {
        let chunk = within("a chunk", body.next())
            .await
            .expect("open")
            .expect("chunk");
        String::from_utf8_lossy(&chunk).into_owned()
    };
    let data = |chunk: &str| -> Value {
        let line = chunk
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .expect("an event");
        serde_json::from_str(line).expect("JSON")
    };
    let ack = data(&next().await);
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        41
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///r"]})
    );
    // A listen stream is a request, not a session.
    assert_eq!(server.session_count(), 0);
    // Not asked for: nothing arrives; asked for: arrives tagged.
    server.notify_prompts_list_changed();
    server.notify_tools_list_changed();
    let note = data(&next().await);
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        41
    );
    // Updates of the subscribed resource only, tagged too.
    server.notify_resource_updated("file:///other");
    server.notify_resource_updated("file:///r");
    let updated = data(&next().await);
    assert_eq!(
        updated["method"], "notifications/resources/updated",
        "{updated}"
    );
    assert_eq!(updated["params"]["uri"], "file:///r", "{updated}");
    assert_eq!(
        updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        41
    );
    // A quiet stream gets a comment line (time is paused: this is the 15 s interval, so the
    // wait is longer than `within`'s).
    let quiet = tokio::time::timeout(Duration::from_secs(20), body.next()).await;
    let comment = quiet
        .expect("a keep-alive within 20 s")
        .expect("open")
        .expect("chunk");
    assert_eq!(&comment[..], b":\n\n");
}

#[tokio::test]
async fn concurrent_branches_ask_in_one_round() {
    let app = app();
    let (_, first) = send(&app, call(1, "debate", json!({}), json!({}))).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    let mut keys: Vec<&String> = requests.keys().collect();
    keys.sort();
    assert_eq!(keys, ["b0.sample-0", "b1.sample-0"], "{first}");
    let reply = |text: &str| json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"});
    let retry = json!({
        "inputResponses": {"b0.sample-0": reply("yes"), "b1.sample-0": reply("no")},
        "requestState": result["requestState"],
    });
    let (_, done) = send(&app, call(2, "debate", json!({}), retry)).await;
    assert_eq!(done["result"]["content"][0]["text"], "yes / no", "{done}");
}

#[tokio::test]
async fn url_elicitation_replays_and_url_required_errors_become_input_requests() {
    let app = app();
    let (_, first) = send(&app, call(1, "login", json!({}), json!({}))).await;
    let params = &first["result"]["inputRequests"]["elicit-0"]["params"];
    assert_eq!(params["mode"], "url", "{first}");
    assert!(
        params.get("elicitationId").is_none(),
        "2026-07-28 has no ids: {first}"
    );
    let retry = json!({
        "inputResponses": {"elicit-0": {"action": "accept"}},
        "requestState": first["result"]["requestState"],
    });
    let (_, done) = send(&app, call(2, "login", json!({}), retry)).await;
    assert_eq!(done["result"]["content"][0]["text"], "Accept", "{done}");

    let (status, refused) = send(&app, call(3, "gated", json!({}), json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        refused.get("error").is_none(),
        "-32042 is not a 2026 error: {refused}"
    );
    let request = &refused["result"]["inputRequests"]["url-0"];
    assert_eq!(
        refused["result"]["resultType"], "input_required",
        "{refused}"
    );
    assert_eq!(
        request["params"]["url"], "https://example.com/login",
        "{refused}"
    );
}

#[tokio::test]
async fn history_built_from_an_answer_replays_identically() {
    let app = app();
    let (_, first) = send(&app, call(1, "recap", json!({}), json!({}))).await;
    let retry = json!({
        "inputResponses": {"elicit-0": word("tea")},
        "requestState": first["result"]["requestState"],
    });
    let (_, second) = send(&app, call(2, "recap", json!({}), retry)).await;
    let sample = &second["result"]["inputRequests"]["sample-1"];
    assert_eq!(sample["method"], "sampling/createMessage", "{second}");
    let reply = json!({"role": "assistant", "content": {"type": "text", "text": "tea it is"}, "model": "m"});
    let retry = json!({
        "inputResponses": {"sample-1": reply},
        "requestState": second["result"]["requestState"],
    });
    let (_, done) = send(&app, call(3, "recap", json!({}), retry)).await;
    assert_eq!(done["result"]["content"][0]["text"], "tea it is", "{done}");
}

/// A modern message with `_meta` (for requests on a line).
fn line_request(id: i64, method: &str, mut params: Value) -> JsonRpcMessage {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    serde_json::from_value(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .expect("a request")
}

#[tokio::test]
async fn a_line_whose_first_message_is_modern_serves_modern_requests_and_cancels_by_id() {
    use tracksuit::transport::{MessageSink, MessageStream, Transport, memory};
    let server = server_with(ServerOptions::default().state_keys(keys(1)));
    let (ours, theirs) = memory::pair();
    tokio::spawn(server.serve(theirs));
    let (mut from_server, mut to_server) = ours.split();
    let mut next = async || match within("a message", from_server.next()).await {
        Some(Ok(message)) => serde_json::to_value(message).expect("JSON"),
        other => panic!("expected a message, got {other:?}"),
    };
    to_server
        .send(line_request(1, "server/discover", json!({})))
        .await
        .expect("send");
    let discovered = next().await;
    assert_eq!(
        discovered["result"]["supportedVersions"],
        json!(["2026-07-28"]),
        "{discovered}"
    );
    // A method the revision removed: -32601 with the request's id.
    to_server
        .send(line_request(2, "ping", json!({})))
        .await
        .expect("send");
    let refused = next().await;
    assert_eq!(
        (refused["id"].clone(), refused["error"]["code"].clone()),
        (json!(2), json!(-32601))
    );
    // A running request is cancelled by id.
    let dropped = LINGER_DROPPED.load(Ordering::SeqCst);
    let call = line_request(3, "tools/call", json!({"name": "linger", "arguments": {}}));
    to_server.send(call).await.expect("send");
    wait_until(|| LINGER_STARTED.load(Ordering::SeqCst), "the tool starts").await;
    let cancel = serde_json::from_value(json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3},
    }))
    .expect("a notification");
    to_server.send(cancel).await.expect("send");
    wait_until(
        || LINGER_DROPPED.load(Ordering::SeqCst) > dropped,
        "the cancelled call's future is dropped",
    )
    .await;
    // The line goes on serving: cancelling one request does not stop its driver.
    to_server
        .send(line_request(4, "server/discover", json!({})))
        .await
        .expect("send");
    let after = next().await;
    assert_eq!(after["id"], json!(4), "{after}");
    assert!(after["result"]["supportedVersions"].is_array(), "{after}");
    // An id still in flight is not served twice: the second request is refused (-32600)
    // and the first still answers to its id (here: is cancelled by it).
    let dropped = LINGER_DROPPED.load(Ordering::SeqCst);
    let call = line_request(5, "tools/call", json!({"name": "linger", "arguments": {}}));
    to_server.send(call).await.expect("send");
    to_server
        .send(line_request(5, "server/discover", json!({})))
        .await
        .expect("send");
    let duplicate = next().await;
    assert_eq!(
        (duplicate["id"].clone(), duplicate["error"]["code"].clone()),
        (json!(5), json!(-32600)),
        "{duplicate}"
    );
    let cancel = serde_json::from_value(json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5},
    }))
    .expect("a notification");
    to_server.send(cancel).await.expect("send");
    wait_until(
        || LINGER_DROPPED.load(Ordering::SeqCst) > dropped,
        "the first request with the id is the one cancelled",
    )
    .await;
}
