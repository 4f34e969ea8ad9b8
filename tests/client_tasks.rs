//! tracksuit's client driving tasks on tracksuit's own servers, one API in both eras: the
//! 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`) and 2025-11-25 tasks, over
//! Streamable HTTP on a loopback socket, a stdio child process and in memory. Questions a task
//! asks are answered by the client's handlers (or explicitly with `tasks/update`); a
//! cancelled task ends the call with -32602; states stream from `subscriptions/listen` or
//! `notifications/tasks/status`.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::net::TcpListener;
use tracksuit::client::{ChildTransport, Client, ClientBuilder, Era, HttpTransport, TaskCall};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{Ctx, Elicits, RequestError, Server, ServerHandle, ServerOptions, ToolError};
use tracksuit_tests::support::{text, wait_for, within};

/// A word.
#[derive(serde::Deserialize, Elicits)]
struct Word {
    /// A word
    word: String,
}

static ASKER_STARTS: AtomicUsize = AtomicUsize::new(0);

/// Asks a word, then the client's model, then two words at once; counts its starts.
#[tracksuit::mcp_tool(task_support = "optional")]
async fn asker(ctx: &Ctx) -> Result<String, ToolError> {
    ASKER_STARTS.fetch_add(1, Ordering::SeqCst);
    let w = |e: tracksuit::Elicited<Word>| e.accepted().map(|w| w.word).unwrap_or_default();
    let first = w(ctx.elicit_form::<Word>("first word?").await?);
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
    Ok(format!("{first} {rhyme} {} {}", w(second?), w(third?)))
}

/// Asks one word.
#[tracksuit::mcp_tool(task_support = "optional")]
async fn one_word(ctx: &Ctx) -> Result<String, ToolError> {
    let word = ctx.elicit_form::<Word>("a word?").await?;
    Ok(format!(
        "got {}",
        word.accepted().map(|w| w.word).unwrap_or_default()
    ))
}

/// Counts the `forever` tools whose future was dropped.
static STOPPED: AtomicUsize = AtomicUsize::new(0);

struct CountOnDrop;

impl Drop for CountOnDrop {
    fn drop(&mut self) {
        STOPPED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Runs until cancelled.
#[tracksuit::mcp_tool(task_support = "optional")]
async fn forever() -> &'static str {
    let _count = CountOnDrop;
    std::future::pending::<()>().await;
    "never"
}

/// Fails with a JSON-RPC error.
#[tracksuit::mcp_tool(task_support = "optional")]
async fn rpc_error() -> Result<String, ToolError> {
    Err(ToolError::protocol(ErrorObject::invalid_params("bad day")))
}

/// A server running tasks in both eras (2025 tasks need `TaskOptions`; the extension is
/// always on).
fn server() -> ServerHandle {
    let options = ServerOptions::default().tasks(tracksuit::task::TaskOptions::default());
    Server::with_options(Implementation::new("client-tasks-test", "1"), options)
        .tool(asker)
        .tool(one_word)
        .tool(forever)
        .tool(rpc_error)
        .build()
        .expect("distinct names")
}

/// Serves `server` on a loopback port; returns the endpoint URL.
async fn start(server: ServerHandle) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = StreamableHttp::new(server, HttpOptions::default()).router("/mcp");
    tokio::spawn(tracksuit::host::http::serve(listener, app));
    format!("http://{addr}/mcp")
}

/// Counts what the client's handlers were asked.
#[derive(Clone, Default)]
struct Asked {
    elicitations: Arc<AtomicUsize>,
    samplings: Arc<AtomicUsize>,
}

impl Asked {
    /// A client in `era` declaring the tasks extension, answering every elicitation with
    /// its count as the word and every sampling request with "spoon".
    fn client(&self, era: Era) -> ClientBuilder {
        let (elicitations, samplings) = (self.elicitations.clone(), self.samplings.clone());
        Client::builder()
            .era(era)
            .tasks_extension()
            .on_elicitation(move |_params| {
                let n = elicitations.fetch_add(1, Ordering::SeqCst) + 1;
                async move {
                    Ok(ElicitResult {
                        action: ElicitAction::Accept,
                        content: Some(obj(json!({ "word": format!("w{n}") }))),
                        meta: None,
                        extra: Default::default(),
                    })
                }
            })
            .on_sampling(move |_params| {
                samplings.fetch_add(1, Ordering::SeqCst);
                async move {
                    let reply = json!({"role": "assistant", "model": "m",
                        "content": {"type": "text", "text": "spoon"}, "stopReason": "endTurn"});
                    serde_json::from_value(reply).map_err(ErrorObject::internal)
                }
            })
    }
}

fn obj(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap_or_default()
}

async fn connect(url: &str, builder: ClientBuilder) -> Client {
    let transport = HttpTransport::new(url).expect("url");
    within("connect", builder.connect(transport))
        .await
        .expect("connected")
}

/// The task of a call the server must have made a task.
fn task_of<'c>(call: TaskCall<'c>) -> tracksuit::client::TaskHandle<'c> {
    match call {
        TaskCall::Task(task) => task,
        TaskCall::Done(result) => panic!("expected a task, got the result {result:?}"),
    }
}

#[tokio::test]
async fn an_eliciting_extension_task_is_driven_to_completion_by_the_handlers() {
    let url = start(server()).await;
    let asked = Asked::default();
    let client = connect(&url, asked.client(Era::Stateless)).await;
    assert_eq!(client.era(), Era::Stateless);
    let before = ASKER_STARTS.load(Ordering::SeqCst);
    let call = within(
        "tools/call",
        client.call_tool_task("asker", json!({}), None),
    )
    .await;
    let task = task_of(call.expect("created"));
    assert!(task.is_extension());
    assert_eq!(task.created().status(), TaskStatus::Working);
    assert!(task.created().task.ttl.is_some_and(|t| t > 0));
    assert!(task.created().task.poll_interval.is_some());
    let result = within("the task's result", task.result()).await;
    let text = text(&result.expect("completed"));
    // Three words, each asked once (no key answered twice), and one sampling.
    assert!(text.starts_with("w1 spoon "), "{text}");
    assert!(text.contains("w2") && text.contains("w3"), "{text}");
    assert_eq!(asked.elicitations.load(Ordering::SeqCst), 3);
    assert_eq!(asked.samplings.load(Ordering::SeqCst), 1);
    assert_eq!(
        ASKER_STARTS.load(Ordering::SeqCst) - before,
        1,
        "not replayed"
    );
    // Polling after the end: completed, the result inline.
    let done = task.poll().await.expect("polled");
    assert_eq!(done.status(), TaskStatus::Completed);
    assert!(done.is_terminal());
    assert!(done.input_requests.is_empty());
    assert_eq!(
        done.result
            .as_ref()
            .map(|r| r["content"][0]["text"].clone()),
        Some(json!(text))
    );
    // A plain call_tool follows the task the server makes to its end.
    let plain = within("call_tool", client.call_tool("one_word", json!({}))).await;
    assert_eq!(self::text(&plain.expect("result")), "got w4");
}

#[tokio::test]
async fn an_extension_task_takes_explicit_answers_and_streams_its_states() {
    let url = start(server()).await;
    let asked = Asked::default();
    let client = connect(&url, asked.client(Era::Stateless)).await;
    let call = within(
        "tools/call",
        client.call_tool_task("one_word", json!({}), None),
    )
    .await;
    let task = task_of(call.expect("created"));
    let mut updates = task.updates();
    // The states come from the subscriptions/listen stream (or polls): wait for the question.
    let question = within("input_required", async {
        loop {
            let state = updates.next().await.expect("open").expect("a state");
            assert_eq!(state.task.task_id, task.id());
            if state.status() == TaskStatus::InputRequired {
                break state;
            }
        }
    })
    .await;
    assert_eq!(question.input_requests.len(), 1, "{question:?}");
    let (key, request) = question.input_requests.iter().next().expect("one");
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "a word?");
    // Answered by the host itself, not by the handlers.
    let answer = json!({"action": "accept", "content": {"word": "mine"}});
    task.update(obj(json!({ key.clone(): answer })))
        .await
        .expect("acknowledged");
    let last = within("completed", async {
        loop {
            let state = updates.next().await.expect("open").expect("a state");
            if state.is_terminal() {
                break state;
            }
        }
    })
    .await;
    assert_eq!(last.status(), TaskStatus::Completed, "{last:?}");
    let result = last.result.expect("the result inline");
    assert_eq!(result["content"][0]["text"], "got mine");
    assert!(
        updates.next().await.is_none(),
        "the stream ends after a terminal state"
    );
    assert_eq!(asked.elicitations.load(Ordering::SeqCst), 0);
    // The result, once more, from the handle.
    assert_eq!(text(&task.result().await.expect("result")), "got mine");
}

#[tokio::test]
async fn a_cancelled_task_ends_its_result_in_both_eras() {
    for era in [Era::Stateless, Era::Session] {
        let server = server();
        let url = start(server.clone()).await;
        let client = connect(&url, Asked::default().client(era)).await;
        let stopped = STOPPED.load(Ordering::SeqCst);
        let call = client.call_tool_task("forever", json!({}), Some(60_000));
        let task = task_of(within("tools/call", call).await.expect("created"));
        assert_eq!(task.is_extension(), era == Era::Stateless);
        let (outcome, cancelled) = within("result and cancel", async {
            tokio::join!(task.result(), async {
                wait_for("the task is working", || async {
                    let state = task.poll().await.expect("polled");
                    (state.status() == TaskStatus::Working).then_some(())
                })
                .await;
                task.cancel().await
            })
        })
        .await;
        cancelled.expect("cancel acknowledged");
        match outcome {
            Err(RequestError::Peer(e)) => assert_eq!(e.code, INVALID_PARAMS, "{era:?}: {e}"),
            other => panic!("{era:?}: expected a cancelled task's error, got {other:?}"),
        }
        assert_eq!(
            task.poll().await.expect("polled").status(),
            TaskStatus::Cancelled
        );
        tracksuit_tests::support::wait_until(
            || STOPPED.load(Ordering::SeqCst) > stopped && server.running_tasks() == 0,
            "the cancelled tool's future is dropped",
        )
        .await;
    }
}

#[tokio::test]
async fn a_failed_task_is_its_json_rpc_error_in_both_eras() {
    for era in [Era::Stateless, Era::Session] {
        let url = start(server()).await;
        let client = connect(&url, Asked::default().client(era)).await;
        let call = within(
            "tools/call",
            client.call_tool_task("rpc_error", json!({}), None),
        )
        .await;
        let outcome = within("the result", call.expect("created").result()).await;
        match outcome {
            Err(RequestError::Peer(e)) => {
                assert_eq!(e.code, INVALID_PARAMS, "{era:?}: {e}");
                assert!(e.message.contains("bad day"), "{era:?}: {e}");
            }
            other => panic!("{era:?}: expected the tool's error, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_2025_task_with_input_over_http() {
    let url = start(server()).await;
    let asked = Asked::default();
    let client = connect(&url, asked.client(Era::Session)).await;
    assert_eq!(client.era(), Era::Session);
    let before = ASKER_STARTS.load(Ordering::SeqCst);
    let call = client.call_tool_task("asker", json!({}), Some(60_000));
    let task = task_of(within("tools/call", call).await.expect("created"));
    assert!(!task.is_extension());
    assert_eq!(task.created().status(), TaskStatus::Working);
    // tasks/result: the questions arrive on its stream and reach the same handlers.
    let result = within("the task's result", task.result()).await;
    let text = text(&result.expect("completed"));
    assert!(text.starts_with("w1 spoon "), "{text}");
    assert!(text.contains("w2") && text.contains("w3"), "{text}");
    assert_eq!(asked.elicitations.load(Ordering::SeqCst), 3);
    assert_eq!(asked.samplings.load(Ordering::SeqCst), 1);
    assert_eq!(ASKER_STARTS.load(Ordering::SeqCst) - before, 1);
    assert_eq!(
        task.poll().await.expect("polled").status(),
        TaskStatus::Completed
    );
    // Explicit answers are the extension's: a 2025 task refuses them.
    let refused = task.update(JsonObject::new()).await;
    assert!(
        matches!(refused, Err(RequestError::Unsupported)),
        "{refused:?}"
    );
    // The same task, found again by its id, streams its (terminal) state and ends.
    let again = client.task(task.id());
    let mut updates = again.updates();
    let state = within("a state", updates.next()).await;
    assert_eq!(
        state.expect("a state").expect("polled").status(),
        TaskStatus::Completed
    );
    assert!(updates.next().await.is_none());
}

#[tokio::test]
async fn the_same_task_api_on_every_transport_in_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        // In memory.
        let asked = Asked::default();
        let client = within(
            "connect in memory",
            tracksuit::host::connect_in_memory(server(), asked.client(era)),
        )
        .await
        .expect("connected");
        let call = within(
            "tools/call",
            client.call_tool_task("one_word", json!({}), None),
        )
        .await;
        let task = task_of(call.expect("created"));
        assert_eq!(task.is_extension(), era == Era::Stateless, "{era:?}");
        let result = within("in memory", task.result()).await;
        assert_eq!(text(&result.expect("result")), "got w1", "{era:?}");

        // A stdio child process (its `ask_task` samples).
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_stdio_server"));
        let transport = ChildTransport::spawn(command).expect("spawned");
        let asked = Asked::default();
        let client = within("connect", asked.client(era).connect(transport))
            .await
            .expect("connected");
        let call = within(
            "tools/call",
            client.call_tool_task("ask_task", json!({}), None),
        )
        .await;
        let task = task_of(call.expect("created"));
        assert_eq!(task.is_extension(), era == Era::Stateless, "{era:?}");
        let result = within("over stdio", task.result()).await;
        assert_eq!(
            text(&result.expect("result")),
            "model said spoon",
            "{era:?}"
        );
        assert_eq!(asked.samplings.load(Ordering::SeqCst), 1);
    }
}

#[tokio::test]
async fn without_the_extension_a_stateless_call_is_not_a_task() {
    let url = start(server()).await;
    let builder = Client::builder()
        .era(Era::Stateless)
        .on_elicitation(|_| async {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: Some(obj(json!({"word": "plain"}))),
                meta: None,
                extra: Default::default(),
            })
        });
    let client = connect(&url, builder).await;
    // The server answers through MRTR rounds instead, and the call completes at once.
    let call = within(
        "tools/call",
        client.call_tool_task("one_word", json!({}), None),
    )
    .await;
    match call.expect("answered") {
        TaskCall::Done(result) => assert_eq!(text(&result), "got plain"),
        TaskCall::Task(task) => panic!("a task for a client without the extension: {task:?}"),
    }
}

#[tokio::test]
async fn each_question_is_answered_once_and_task_states_arrive_on_a_listen_stream() {
    use tracksuit::client::SubscriptionFilter;
    let url = start(server()).await;
    let asked = Asked::default();
    let client = connect(&url, asked.client(Era::Stateless)).await;
    let call = within(
        "tools/call",
        client.call_tool_task("one_word", json!({}), None),
    )
    .await;
    let task = task_of(call.expect("created"));
    // subscriptions/listen with the task's id: acknowledged, then its state now.
    let mut listen = within(
        "listen",
        client.subscribe_to(SubscriptionFilter::default().task(task.id())),
    )
    .await
    .expect("acknowledged");
    assert!(
        listen.honours_task(task.id()),
        "{:?}",
        listen.acknowledged()
    );
    assert!(!listen.honours_task("another-task"));
    let note = within("notifications/tasks", listen.next())
        .await
        .expect("open");
    assert_eq!(note.method, "notifications/tasks");
    assert_eq!(note.params.as_ref().expect("params")["taskId"], task.id());
    let question = wait_for("the question", || async {
        let state = task.poll().await.expect("polled");
        (state.status() == TaskStatus::InputRequired).then_some(state)
    })
    .await;
    // The same state seen twice (a poll racing the server) is answered once.
    assert_eq!(task.answer(&question).await.expect("answered"), 1);
    assert_eq!(task.answer(&question).await.expect("nothing new"), 0);
    assert_eq!(asked.elicitations.load(Ordering::SeqCst), 1);
    let result = within("the result", task.result()).await;
    assert_eq!(text(&result.expect("completed")), "got w1");
    assert_eq!(asked.elicitations.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn without_task_notifications_the_states_come_from_polls() {
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use axum::response::IntoResponse;
    use tower::ServiceExt;
    // A front refusing `subscriptions/listen`; everything else goes to tracksuit's server.
    let listens = Arc::new(AtomicUsize::new(0));
    let seen = listens.clone();
    let inner = StreamableHttp::new(server(), HttpOptions::default()).router("/mcp");
    let front = axum::Router::new().fallback(move |request: Request<Body>| {
        let (inner, seen) = (inner.clone(), seen.clone());
        async move {
            let (parts, body) = request.into_parts();
            let bytes = to_bytes(body, 1 << 20).await.unwrap_or_default();
            let message: Value = serde_json::from_slice(&bytes).unwrap_or_default();
            if message["method"] == "subscriptions/listen" {
                seen.fetch_add(1, Ordering::SeqCst);
                let error = json!({"jsonrpc": "2.0", "id": message["id"],
                    "error": {"code": -32601, "message": "Method not found"}});
                return axum::Json(error).into_response();
            }
            match inner
                .oneshot(Request::from_parts(parts, Body::from(bytes)))
                .await
            {
                Ok(response) => response.into_response(),
                Err(never) => match never {},
            }
        }
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    tokio::spawn(tracksuit::host::http::serve(listener, front));
    let asked = Asked::default();
    let client = connect(&url, asked.client(Era::Stateless)).await;
    let call = client.call_tool_task("asker", json!({}), None);
    let task = task_of(within("tools/call", call).await.expect("created"));
    let result = within("the task's result, by polling", task.result()).await;
    let text = text(&result.expect("completed"));
    assert!(text.starts_with("w1 spoon "), "{text}");
    assert_eq!(asked.elicitations.load(Ordering::SeqCst), 3);
    assert_eq!(
        listens.load(Ordering::SeqCst),
        1,
        "one listen tried, then polls"
    );
}
