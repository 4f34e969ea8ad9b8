//! The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663) on the
//! Streamable HTTP endpoint, driven through the axum `Router` as a tower service: task
//! creation only for clients that declare the extension, `tasks/get` with the inline result,
//! error or `inputRequests`, a tool that elicits and samples continuing (not replayed) after
//! `tasks/update`, acknowledge-only `tasks/cancel`, `-32021` gating, `Mcp-Name` routing
//! checks, MRTR rounds before a task, and `notifications/tasks` on a listen stream.

use axum::body::Body;
use axum::http::{Request, Response, StatusCode};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use tower::ServiceExt;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{Ctx, Elicits, PhaseCtx, Server, ServerHandle, ToolError, ToolFn, mcp_tool};
use tracksuit_tests::support::{wait_for, within};

static ASKER_STARTS: AtomicUsize = AtomicUsize::new(0);
static BEFORE: AtomicUsize = AtomicUsize::new(0);
static AFTER: AtomicUsize = AtomicUsize::new(0);

/// A word.
#[derive(serde::Deserialize, Elicits)]
struct Word {
    /// A word
    word: String,
}

/// Doubles `n` as a task when it can.
#[mcp_tool(task_support = "optional")]
async fn double(n: i64) -> String {
    (n * 2).to_string()
}

/// Must run as a task; answers the id of the task it runs as.
#[mcp_tool(task_support = "required")]
async fn only_task(ctx: &Ctx) -> String {
    ctx.task_id().unwrap_or("no task").to_owned()
}

/// Fails as a tool.
#[mcp_tool(task_support = "optional")]
async fn tool_error() -> Result<String, ToolError> {
    Err(ToolError::new("no luck"))
}

/// Fails with a JSON-RPC error.
#[mcp_tool(task_support = "optional")]
async fn rpc_error() -> Result<String, ToolError> {
    Err(ToolError::protocol(ErrorObject::invalid_params("bad day")))
}

/// Waits until cancelled.
#[mcp_tool(task_support = "optional")]
async fn forever(ctx: &Ctx) -> &'static str {
    ctx.cancelled().await;
    "cancelled"
}

/// Asks a word, then the client's model, then another word; counts its starts.
#[mcp_tool(task_support = "optional")]
async fn asker(ctx: &Ctx) -> Result<String, ToolError> {
    ASKER_STARTS.fetch_add(1, Ordering::SeqCst);
    let first = ctx.elicit_form::<Word>("first word?").await?;
    let reply = ctx
        .create_message(CreateMessageRequestParams {
            messages: vec![SamplingMessage::user_text("a rhyme?")],
            max_tokens: 10,
            ..Default::default()
        })
        .await?;
    let rhyme: String = reply
        .content
        .iter()
        .filter_map(SamplingMessageContentBlock::as_text)
        .collect();
    let (second, third) = tokio::join!(
        ctx.elicit_form::<Word>("second word?"),
        ctx.elicit_form::<Word>("third word?"),
    );
    let w = |e: tracksuit::Elicited<Word>| e.accepted().map(|w| w.word).unwrap_or_default();
    Ok(format!("{} {rhyme} {} {}", w(first), w(second?), w(third?)))
}

/// A handoff tool run as a task: `before` and `after` count their runs.
struct Pair;

/// Asks two words between a counted `before` and `after`.
#[mcp_tool(name = "pair", task_support = "optional")]
impl Pair {
    async fn before(_args: NoArgs, _ctx: &PhaseCtx) -> Result<Opening, ToolError> {
        BEFORE.fetch_add(1, Ordering::SeqCst);
        Ok(Opening("from before".into()))
    }

    async fn client(state: &Opening, ctx: &Ctx) -> Result<Vec<String>, ToolError> {
        let mut words = vec![state.0.clone()];
        for n in 1..=2 {
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

/// Asks a word in MRTR rounds, then becomes a task.
fn rounds_then_task() -> impl tracksuit::ToolHandler {
    let mut tool = Tool::new(
        "rounds_then_task",
        json!({"type": "object"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    tool.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
    });
    ToolFn::new(tool, |ctx: Ctx, _| async move {
        let word = ctx.elicit_form::<Word>("a word first?").await?;
        ctx.become_task().await;
        let last = ctx.elicit_form::<Word>("and in the task?").await?;
        let w = |e: tracksuit::Elicited<Word>| e.accepted().map(|w| w.word).unwrap_or_default();
        Ok(CallToolResult::text(format!(
            "{} then {}",
            w(word),
            w(last)
        )))
    })
    .input_before_task_then()
}

fn server() -> ServerHandle {
    Server::new(Implementation::new("tasks-ext-test", "1"))
        .tool(double)
        .tool(only_task)
        .tool(tool_error)
        .tool(rpc_error)
        .tool(forever)
        .tool(asker)
        .tool(Pair)
        .tool(rounds_then_task())
        .build()
        .expect("distinct names")
}

fn app_of(server: &ServerHandle) -> axum::Router {
    StreamableHttp::new(server.clone(), HttpOptions::default()).router("/mcp")
}

/// Client capabilities with (or without) the tasks extension.
fn capabilities(extension: bool) -> Value {
    let mut caps = json!({"elicitation": {"form": {}}, "sampling": {}});
    if extension {
        caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    caps
}

/// A modern request of `method`, its headers mirroring the body; `name` is the `Mcp-Name`
/// header (`None`: left out).
fn rpc(
    id: i64,
    method: &str,
    mut params: Value,
    extension: bool,
    name: Option<&str>,
) -> Request<Body> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities(extension),
    });
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    request.body(Body::from(body.to_string())).expect("request")
}

fn call(id: i64, name: &str, arguments: Value, extension: bool) -> Request<Body> {
    rpc(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
        extension,
        Some(name),
    )
}

/// A `tasks/*` request for `task`, with `Mcp-Name` set to it.
fn on_task(id: i64, method: &str, task: &str, extra: Value) -> Request<Body> {
    let mut params = json!({"taskId": task});
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    rpc(id, method, params, true, Some(task))
}

async fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, Value) {
    let resp: Response<Body> = within("the response", app.clone().oneshot(req))
        .await
        .expect("infallible");
    let status = resp.status();
    let bytes = within("the body", axum::body::to_bytes(resp.into_body(), 1 << 22))
        .await
        .expect("body");
    (status, serde_json::from_slice(&bytes).expect("a JSON body"))
}

/// Starts `name` as a task and returns its id (checking the `CreateTaskResult`).
async fn start(app: &axum::Router, name: &str, arguments: Value) -> String {
    let (status, created) = send(app, call(1, name, arguments, true)).await;
    assert_eq!(status, StatusCode::OK, "{created}");
    let result = &created["result"];
    assert_eq!(result["resultType"], "task", "{created}");
    assert_eq!(result["status"], "working", "{created}");
    for absent in [
        "task",
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
    ] {
        assert!(result.get(absent).is_none(), "`{absent}` in {created}");
    }
    assert!(result["ttlMs"].as_u64().is_some_and(|t| t > 0), "{created}");
    assert!(result["pollIntervalMs"].as_u64().is_some(), "{created}");
    result["taskId"].as_str().expect("taskId").to_owned()
}

/// `tasks/get` of `task`.
async fn get(app: &axum::Router, task: &str) -> Value {
    let (status, got) = send(app, on_task(2, "tasks/get", task, json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{got}");
    assert_eq!(got["result"]["resultType"], "complete", "{got}");
    assert_eq!(got["result"]["taskId"], task, "{got}");
    assert!(got["result"].get("requestState").is_none(), "{got}");
    got["result"].clone()
}

/// Polls `tasks/get` until the task's status is `status`.
async fn until(app: &axum::Router, task: &str, status: &str) -> Value {
    wait_for(&format!("task {task} is {status}"), || async {
        let got = get(app, task).await;
        (got["status"] == status).then_some(got)
    })
    .await
}

/// Polls `tasks/get` until the task waits on exactly `n` questions.
async fn asking(app: &axum::Router, task: &str, n: usize) -> JsonObject {
    wait_for(&format!("task {task} asks {n} question(s)"), || async {
        let got = get(app, task).await;
        let requests = got["inputRequests"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        (got["status"] == "input_required" && requests.len() == n).then_some(requests)
    })
    .await
}

async fn update(app: &axum::Router, task: &str, responses: Value) {
    let (status, ack) = send(
        app,
        on_task(
            3,
            "tasks/update",
            task,
            json!({ "inputResponses": responses }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{ack}");
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    for absent in ["taskId", "status", "inputRequests"] {
        assert!(ack["result"].get(absent).is_none(), "{ack}");
    }
}

fn word(w: &str) -> Value {
    json!({"action": "accept", "content": {"word": w}})
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_task_completes_with_its_result_inline_and_ids_are_unguessable() {
    let server = server();
    let app = app_of(&server);
    let (status, discover) = send(&app, rpc(9, "server/discover", json!({}), false, None)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({}),
        "{discover}"
    );
    assert!(discover["result"]["capabilities"].get("tasks").is_none());

    let a = start(&app, "double", json!({"n": 21})).await;
    let b = start(&app, "double", json!({"n": 1})).await;
    assert_ne!(a, b);
    // The tool sees the id of the task it runs as.
    let own = start(&app, "only_task", json!({})).await;
    assert_eq!(
        text_of(&until(&app, &own, "completed").await["result"]),
        own
    );
    // Random v4 UUIDs: 122 random bits, not a counter.
    for id in [&a, &b] {
        assert_eq!(id.len(), 36, "{id}");
        assert_eq!(id.as_bytes()[14], b'4', "{id}");
    }
    let doubled = until(&app, &a, "completed").await;
    assert_eq!(text_of(&doubled["result"]), "42", "{doubled}");
    assert!(doubled.get("error").is_none());
    assert!(
        doubled["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );
    // A tool error completes (isError); a JSON-RPC error fails with the error inline.
    let failed_tool = start(&app, "tool_error", json!({})).await;
    let done = until(&app, &failed_tool, "completed").await;
    assert_eq!(done["result"]["isError"], true, "{done}");
    let failed_rpc = start(&app, "rpc_error", json!({})).await;
    let failed = until(&app, &failed_rpc, "failed").await;
    assert_eq!(failed["error"]["code"], INVALID_PARAMS, "{failed}");
    assert!(failed.get("result").is_none(), "{failed}");
    // A terminal task stays as it was.
    assert_eq!(get(&app, &a).await, doubled);
    wait_for("no task runs", || async {
        (server.running_tasks() == 0).then_some(())
    })
    .await;
}

#[tokio::test]
async fn an_eliciting_and_sampling_task_waits_for_tasks_update_and_is_not_replayed() {
    let server = server();
    let app = app_of(&server);
    let before = ASKER_STARTS.load(Ordering::SeqCst);
    let task = start(&app, "asker", json!({})).await;
    let first = asking(&app, &task, 1).await;
    let (key, request) = first.iter().next().expect("one");
    assert_eq!(request["method"], "elicitation/create", "{request}");
    assert_eq!(request["params"]["message"], "first word?");
    // Answers to keys nobody asked are ignored; the task stays where it is.
    update(&app, &task, json!({"nobody-asked": word("x")})).await;
    assert_eq!(get(&app, &task).await["status"], "input_required");
    update(&app, &task, json!({ key.clone(): word("moon") })).await;
    let sampling = asking(&app, &task, 1).await;
    let (sample_key, request) = sampling.iter().next().expect("one");
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    assert_ne!(sample_key, key, "keys are unique over the task's life");
    update(
        &app,
        &task,
        json!({ sample_key.clone(): {
            "role": "assistant",
            "content": {"type": "text", "text": "spoon"},
            "model": "m",
            "stopReason": "endTurn",
        }}),
    )
    .await;
    // Two questions at once; answered one at a time.
    let both = asking(&app, &task, 2).await;
    let keys: Vec<String> = both.keys().cloned().collect();
    update(&app, &task, json!({ keys[0].clone(): word("june") })).await;
    let left = get(&app, &task).await;
    assert_eq!(left["status"], "input_required", "{left}");
    let left: Vec<&String> = left["inputRequests"]
        .as_object()
        .expect("map")
        .keys()
        .collect();
    assert_eq!(left, vec![&keys[1]], "only the unanswered key remains");
    update(&app, &task, json!({ keys[1].clone(): word("tune") })).await;
    let done = until(&app, &task, "completed").await;
    let text = text_of(&done["result"]);
    assert!(text.starts_with("moon spoon "), "{text}");
    assert!(text.contains("june") && text.contains("tune"), "{text}");
    assert_eq!(
        ASKER_STARTS.load(Ordering::SeqCst) - before,
        1,
        "the tool continued after each answer instead of running again"
    );
    // Answers after the end are acknowledged and ignored.
    update(&app, &task, json!({ keys[1].clone(): word("late") })).await;
    assert_eq!(until(&app, &task, "completed").await, done);
}

#[tokio::test]
async fn a_handoff_tool_as_a_task_runs_before_and_after_once() {
    let app = app_of(&server());
    let (b, a) = (BEFORE.load(Ordering::SeqCst), AFTER.load(Ordering::SeqCst));
    let task = start(&app, "pair", json!({})).await;
    for w in ["one", "two"] {
        let asked = asking(&app, &task, 1).await;
        let key = asked.keys().next().expect("a key").clone();
        update(&app, &task, json!({ key: word(w) })).await;
    }
    let done = until(&app, &task, "completed").await;
    assert_eq!(text_of(&done["result"]), "from before / one / two");
    assert_eq!(BEFORE.load(Ordering::SeqCst) - b, 1);
    assert_eq!(AFTER.load(Ordering::SeqCst) - a, 1);
}

#[tokio::test]
async fn without_the_extension_calls_run_inline_or_fail_with_32021() {
    let app = app_of(&server());
    let (status, inline) = send(&app, call(1, "double", json!({"n": 2}), false)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(inline["result"]["resultType"], "complete", "{inline}");
    assert_eq!(text_of(&inline["result"]), "4");
    assert!(inline["result"].get("taskId").is_none());

    let required = |value: &Value| {
        assert_eq!(
            value["error"]["code"], MISSING_REQUIRED_CLIENT_CAPABILITY,
            "{value}"
        );
        assert_eq!(
            value["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
            json!({}),
            "{value}"
        );
    };
    let (status, refused) = send(&app, call(2, "only_task", json!({}), false)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    required(&refused);
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let req = rpc(
            3,
            method,
            json!({"taskId": "t", "inputResponses": {}}),
            false,
            Some("t"),
        );
        let (status, refused) = send(&app, req).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{method}");
        required(&refused);
    }
    let listen = rpc(
        4,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": ["t"]}}),
        false,
        None,
    );
    let (_, refused) = send(&app, listen).await;
    required(&refused);
    // With the extension, the legacy `task` param neither fails nor makes a task of a
    // tool that does not support one; removed methods stay removed.
    let legacy = rpc(
        5,
        "tools/call",
        json!({"name": "double", "arguments": {"n": 3}, "task": {"ttl": 1000}}),
        true,
        Some("double"),
    );
    let (_, created) = send(&app, legacy).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    for removed in ["tasks/result", "tasks/list"] {
        let (status, answer) =
            send(&app, rpc(6, removed, json!({"taskId": "t"}), true, None)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{removed}");
        assert_eq!(answer["error"]["code"], METHOD_NOT_FOUND);
    }
}

#[tokio::test]
async fn cancel_acknowledges_and_the_task_ends_cancelled() {
    let server = server();
    let app = app_of(&server);
    let task = start(&app, "forever", json!({})).await;
    assert_eq!(get(&app, &task).await["status"], "working");
    let (status, ack) = send(&app, on_task(7, "tasks/cancel", &task, json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none(), "{ack}");
    until(&app, &task, "cancelled").await;
    // Cancelling a terminal task acknowledges again; an unknown id is -32602.
    let (_, again) = send(&app, on_task(8, "tasks/cancel", &task, json!({}))).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
        let (status, unknown) = send(&app, on_task(9, method, "no-such-task", json!({}))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{method}");
        assert_eq!(
            unknown["error"]["code"], INVALID_PARAMS,
            "{method}: {unknown}"
        );
    }
    wait_for("the cancelled task stops", || async {
        (server.running_tasks() == 0).then_some(())
    })
    .await;
}

#[tokio::test]
async fn mcp_name_must_carry_the_task_id() {
    let app = app_of(&server());
    let task = start(&app, "forever", json!({})).await;
    let params = json!({"taskId": task});
    for header in [Some("another-task"), None] {
        let (status, refused) = send(&app, rpc(1, "tasks/get", params.clone(), true, header)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{header:?}");
        assert_eq!(refused["error"]["code"], HEADER_MISMATCH, "{refused}");
    }
    let (_, ack) = send(&app, on_task(2, "tasks/cancel", &task, json!({}))).await;
    assert_eq!(ack["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_tool_can_ask_in_rounds_before_it_becomes_a_task() {
    let app = app_of(&server());
    let (_, first) = send(&app, call(1, "rounds_then_task", json!({}), true)).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert!(result.get("taskId").is_none());
    let (key, _) = result["inputRequests"]
        .as_object()
        .and_then(|r| r.iter().next())
        .expect("a question");
    let mut retry = call(2, "rounds_then_task", json!({}), true);
    let body = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {
            "name": "rounds_then_task", "arguments": {},
            "inputResponses": { key.clone(): word("early") },
            "requestState": result["requestState"],
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities(true),
            },
        },
    });
    *retry.body_mut() = Body::from(body.to_string());
    let (_, created) = send(&app, retry).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert!(created["result"].get("requestState").is_none(), "{created}");
    let task = created["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();
    let asked = asking(&app, &task, 1).await;
    let key = asked.keys().next().expect("a key").clone();
    update(&app, &task, json!({ key: word("late") })).await;
    let done = until(&app, &task, "completed").await;
    assert_eq!(text_of(&done["result"]), "early then late");
}

#[tokio::test]
async fn a_listen_stream_carries_task_status_notifications() {
    use futures::StreamExt;
    let server = server();
    let app = app_of(&server);
    let task = start(&app, "asker", json!({})).await;
    asking(&app, &task, 1).await;
    let listen = rpc(
        11,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [task]}}),
        true,
        None,
    );
    let resp = within("the listen stream opens", app.clone().oneshot(listen))
        .await
        .expect("infallible");
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut body = resp.into_body().into_data_stream();
    let mut pending = String::new();
    let mut next = async || loop {
        if let Some(end) = pending.find("\n\n") {
            let event: String = pending.drain(..end + 2).collect();
            if let Some(line) = event.lines().find_map(|l| l.strip_prefix("data: ")) {
                return serde_json::from_str::<Value>(line).expect("JSON");
            }
            continue;
        }
        let chunk = within("an event", body.next())
            .await
            .expect("open")
            .expect("chunk");
        pending.push_str(&String::from_utf8_lossy(&chunk));
    };
    let ack = next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([task]));
    // The task's state now, then its changes.
    let now = next().await;
    assert_eq!(now["method"], "notifications/tasks", "{now}");
    assert_eq!(now["params"]["taskId"], task.as_str());
    assert_eq!(now["params"]["status"], "input_required");
    assert_eq!(
        now["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        11
    );
    let key = now["params"]["inputRequests"]
        .as_object()
        .and_then(|r| r.keys().next().cloned())
        .expect("a key");
    update(&app, &task, json!({ key: word("moon") })).await;
    let changed = within("a notification naming the sampling question", async {
        loop {
            let note = next().await;
            let sampling = note["params"]["inputRequests"]
                .as_object()
                .is_some_and(|r| r.values().any(|q| q["method"] == "sampling/createMessage"));
            if sampling {
                break note;
            }
        }
    })
    .await;
    assert_eq!(changed["params"]["status"], "input_required", "{changed}");
    let (_, ack) = send(&app, on_task(12, "tasks/cancel", &task, json!({}))).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    let last = within("the cancelled notification", async {
        loop {
            let note = next().await;
            if note["params"]["status"] == "cancelled" {
                break note;
            }
        }
    })
    .await;
    assert_eq!(last["params"]["taskId"], task.as_str());
}

/// `request` as `user` sends it: the `Principal` an authentication layer would have put in.
fn as_user(mut request: Request<Body>, user: &str) -> Request<Body> {
    request
        .extensions_mut()
        .insert(tracksuit::Principal::new(user).with_issuer("https://issuer.test"));
    request
}

#[tokio::test]
async fn one_principal_cannot_fill_the_running_tasks_for_everyone() {
    let options = tracksuit::ServerOptions::default()
        .tasks(tracksuit::task::TaskOptions::default().max_running_per_caller(2));
    let server = Server::with_options(Implementation::new("quota", "1"), options)
        .tool(forever)
        .build()
        .expect("one tool");
    let app = app_of(&server);
    let start_as = |user: &'static str| {
        let app = app.clone();
        async move {
            send(&app, as_user(call(1, "forever", json!({}), true), user))
                .await
                .1
        }
    };
    for _ in 0..2 {
        let created = start_as("mallory").await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
    }
    let refused = start_as("mallory").await;
    assert_eq!(refused["error"]["code"], INTERNAL_ERROR, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("max_running_per_caller"), "{refused}");
    let theirs = start_as("alice").await;
    assert_eq!(theirs["result"]["resultType"], "task", "{theirs}");
}
