//! Tasks: task-augmented `tools/call`, the status machine, `tasks/get|list|cancel|result`,
//! status notifications, `input_required` with related-task metadata, ttl expiry, the
//! SQLite store across servers, and handoff / branching tools run as tasks.

use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracksuit::client::Client;
use tracksuit::protocol::*;
use tracksuit::task::{
    InMemoryTaskStore, SqliteTaskStore, TaskOptions, TaskPage, TaskRecord, TaskStore,
    TaskStoreError,
};
use tracksuit::{Ctx, Json, PhaseCtx, RequestError, Server, ServerOptions, ToolError, mcp_tool};
use tracksuit_tests::support::{
    Model, Running, both, cancelled_ids, connect, next_notification, text, wait_for, wait_until,
    within,
};

/// Echoes `text`.
#[mcp_tool(task_support = "optional")]
async fn echo(text: String) -> String {
    text
}

/// What holds `held_echo` back; the one test that calls it adds the permit.
static HELD: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);

/// Echoes `text` once the test lets it through.
#[mcp_tool(task_support = "optional")]
async fn held_echo(text: String) -> String {
    let _ = HELD.acquire().await.map(|p| p.forget());
    text
}

/// Only runs as a task.
#[mcp_tool(task_support = "required")]
async fn must_task() -> &'static str {
    "done"
}

/// Never runs as a task (the default).
#[mcp_tool]
async fn plain() -> &'static str {
    "plain"
}

/// Fails as a tool (`isError`).
#[mcp_tool(task_support = "optional")]
async fn fails() -> Result<String, ToolError> {
    Err(ToolError::new("the disk is full"))
}

/// Fails with a JSON-RPC error.
#[mcp_tool(task_support = "optional")]
async fn rejects() -> Result<String, ToolError> {
    Err(ToolError::protocol(ErrorObject::new(
        -32042,
        "go elsewhere",
    )))
}

/// The keys of the `forever` calls whose future was dropped (each test uses its own key:
/// the tests of this file run side by side).
static STOPPED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn stopped(key: &str) -> bool {
    STOPPED.lock().expect("lock").iter().any(|k| k == key)
}

struct SetOnDrop(String);
impl Drop for SetOnDrop {
    fn drop(&mut self) {
        STOPPED
            .lock()
            .expect("lock")
            .push(std::mem::take(&mut self.0));
    }
}

/// Runs until cancelled; `key` is added to `STOPPED` when its future is dropped.
#[mcp_tool(task_support = "optional")]
async fn forever(key: String) -> &'static str {
    let _flag = SetOnDrop(key);
    std::future::pending::<()>().await;
    "never"
}

/// Asks the model, reporting progress first.
#[mcp_tool(task_support = "optional")]
async fn asks(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.progress(1.0, Some(2.0), Some("asking")).await;
    Ok(ctx.sample().prompt("hi").await?.text())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    seed: u32,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Report {
    seed: u32,
    said: String,
}

/// A handoff tool: before, client (samples), after.
struct Flow;

/// Three phases.
#[mcp_tool(name = "flow", task_support = "optional")]
impl Flow {
    async fn before(start: Start, _ctx: &PhaseCtx) -> Result<u32, ToolError> {
        Ok(start.seed)
    }

    async fn client(seed: &u32, ctx: &Ctx) -> Result<String, ToolError> {
        Ok(ctx.sample().prompt(format!("seed {seed}")).await?.text())
    }

    async fn after(seed: u32, said: String, _ctx: &PhaseCtx) -> Json<Report> {
        Json(Report { seed, said })
    }
}

fn server(options: TaskOptions) -> Server {
    Server::with_options(
        tracksuit::crate_info!(),
        ServerOptions::default().page_size(2).tasks(options),
    )
    .tool(echo)
    .tool(held_echo)
    .tool(must_task)
    .tool(plain)
    .tool(fails)
    .tool(rejects)
    .tool(forever)
    .tool(asks)
    .tool(both)
    .tool(Flow)
}

/// Quick polls, and `tasks/list` on (it is off by default).
fn fast() -> TaskOptions {
    TaskOptions::default()
        .poll_interval(Duration::from_millis(20))
        .list(true)
}

/// A client whose model answers at once.
async fn client(server: impl Running) -> Client {
    connect(server, Model::answering().client()).await
}

fn code(e: RequestError) -> (i64, String) {
    match e {
        RequestError::Peer(e) => (e.code, e.message),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

async fn wait_for_status(c: &Client, id: &str, want: TaskStatus) -> Task {
    wait_for(&format!("task {id} is {want:?}"), || async {
        let t = c.get_task(id).await.expect("get").task;
        (t.status == want).then_some(t)
    })
    .await
}

/// Sends `request` (its first poll does) and checks that the server has it and holds the
/// answer back: a tasks/get of the running task `id`, sent after it, is answered (working)
/// while `request` still is not.
async fn sent_and_waiting<F: Future>(c: &Client, id: &str, mut request: Pin<&mut F>) {
    assert!(
        futures::poll!(request.as_mut()).is_pending(),
        "sent, not answered"
    );
    assert_eq!(
        c.get_task(id).await.expect("get").task.status,
        TaskStatus::Working
    );
    assert!(
        futures::poll!(request.as_mut()).is_pending(),
        "tasks/result waits while the task runs"
    );
}

#[tokio::test]
async fn capabilities_and_tool_level_support_are_published() {
    let c = client(server(fast())).await;
    let caps = serde_json::to_value(&c.server_init().expect("init").capabilities).expect("json");
    assert_eq!(
        caps["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let page = c.list_tools(cursor).await.expect("list");
        cursor = page.next_cursor;
        all.extend(page.tools);
        if cursor.is_none() {
            break;
        }
    }
    let support = |name: &str| {
        let t = all.iter().find(|t| t.name == name).expect("tool");
        serde_json::to_value(&t.execution).expect("json")
    };
    assert_eq!(support("echo"), json!({"taskSupport": "optional"}));
    assert_eq!(support("must_task"), json!({"taskSupport": "required"}));
    assert_eq!(support("plain"), Value::Null);
    assert_eq!(support("flow"), json!({"taskSupport": "optional"}));

    let off = Server::with_options(
        tracksuit::crate_info!(),
        ServerOptions::default().tasks(TaskOptions::default()),
    );
    let c = client(off).await;
    let caps = serde_json::to_value(&c.server_init().expect("init").capabilities).expect("json");
    assert_eq!(caps["tasks"].get("list"), None);
    let e = c.list_tasks(None).await.expect_err("no listing");
    assert_eq!(code(e).0, METHOD_NOT_FOUND);
}

#[tokio::test]
async fn a_task_runs_in_the_background_and_its_result_waits() {
    let c = client(server(fast())).await;
    let mut notes = c.notifications();
    let created = c
        .call_tool_as_task("held_echo", json!({"text": "hi"}), Some(60_000))
        .await
        .expect("created")
        .task;
    assert_eq!(created.status, TaskStatus::Working);
    assert_eq!(created.ttl, Some(60_000));
    assert_eq!(created.poll_interval, Some(20));
    assert!(created.created_at.ends_with('Z'));
    assert_eq!(created.task_id.len(), 36, "a UUID");
    // The tool is held back, so the task runs until the test lets it through: a
    // tasks/result sent meanwhile is not answered (the server has it by the time it
    // answers the tasks/get sent after it), and tasks/get says working.
    let result = c.request::<_, Value>("tasks/result", json!({"taskId": created.task_id}));
    tokio::pin!(result);
    sent_and_waiting(&c, &created.task_id, result.as_mut()).await;
    HELD.add_permits(1);
    let raw = within("tasks/result answers once the task ends", result)
        .await
        .expect("result");
    assert_eq!(raw["content"][0]["text"], "hi");
    assert_ne!(raw["isError"], json!(true));
    assert_eq!(
        raw["_meta"]["io.modelcontextprotocol/related-task"],
        json!({"taskId": created.task_id})
    );
    let done = c.get_task(&created.task_id).await.expect("get").task;
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.created_at, created.created_at);
    assert!(done.last_updated_at >= created.last_updated_at);
    // notifications/tasks/status announced the transition, without related-task meta.
    let note = next_notification(&mut notes, "notifications/tasks/status")
        .await
        .params
        .expect("params");
    assert_eq!(note["taskId"], json!(created.task_id));
    assert_eq!(note["status"], "completed");
    assert!(note.get("_meta").is_none());
    // A second tasks/result gives the same answer.
    let again = c.task_result(&created.task_id).await.expect("again");
    assert_eq!(text(&again), "hi");
}

#[tokio::test]
async fn tool_level_negotiation_errors() {
    let c = client(server(fast())).await;
    let e = c
        .call_tool("must_task", json!({}))
        .await
        .expect_err("needs a task");
    let (n, m) = code(e);
    assert_eq!(n, METHOD_NOT_FOUND);
    assert!(m.contains("must run as a task"), "{m}");
    let e = c
        .call_tool_as_task("plain", json!({}), None)
        .await
        .expect_err("forbidden");
    let (n, m) = code(e);
    assert_eq!(n, METHOD_NOT_FOUND);
    assert!(m.contains("cannot run as a task"), "{m}");
    // Optional tools still work as plain calls; required ones as tasks.
    let r = c
        .call_tool("echo", json!({"text": "x"}))
        .await
        .expect("plain call");
    assert_eq!(text(&r), "x");
    let t = c
        .call_tool_as_task("must_task", json!({}), None)
        .await
        .expect("task")
        .task;
    assert_eq!(
        text(&c.task_result(&t.task_id).await.expect("result")),
        "done"
    );
    // Default ttl: the server's (an hour), since the request named none.
    assert_eq!(t.ttl, Some(3_600_000));
    // Bad arguments: the task fails with the same isError result a plain call gets.
    let t = c
        .call_tool_as_task("echo", json!({"text": 3}), None)
        .await
        .expect("task")
        .task;
    let r = c.task_result(&t.task_id).await.expect("result");
    assert_eq!(r.is_error, Some(true));
    let t = c.get_task(&t.task_id).await.expect("get").task;
    assert_eq!(t.status, TaskStatus::Failed);
    assert!(t.status_message.unwrap_or_default().contains("text"));
}

#[tokio::test]
async fn failures_are_failed_tasks_with_the_calls_own_answer() {
    let c = client(server(fast())).await;
    let t = c
        .call_tool_as_task("fails", json!({}), None)
        .await
        .expect("task")
        .task;
    let r = c.task_result(&t.task_id).await.expect("an isError result");
    assert_eq!(r.is_error, Some(true));
    assert_eq!(text(&r), "the disk is full");
    let t = c.get_task(&t.task_id).await.expect("get").task;
    assert_eq!(t.status, TaskStatus::Failed);
    assert_eq!(t.status_message.as_deref(), Some("the disk is full"));

    let t = c
        .call_tool_as_task("rejects", json!({}), None)
        .await
        .expect("task")
        .task;
    let (n, m) = code(
        c.task_result(&t.task_id)
            .await
            .expect_err("the JSON-RPC error"),
    );
    assert_eq!((n, m.as_str()), (-32042, "go elsewhere"));
    assert_eq!(
        c.get_task(&t.task_id).await.expect("get").task.status,
        TaskStatus::Failed
    );
}

#[tokio::test]
async fn cancelling_stops_the_work_and_bad_ids_are_invalid_params() {
    let server = server(fast()).running();
    let c = client(server.clone()).await;
    let t = c
        .call_tool_as_task("forever", json!({"key": "cancelled"}), None)
        .await
        .expect("task")
        .task;
    // A tasks/result already waiting is answered when the task is cancelled: it is sent
    // first, and the server has it by the time it answers the tasks/get sent after it.
    let waiting = c.task_result(&t.task_id);
    tokio::pin!(waiting);
    sent_and_waiting(&c, &t.task_id, waiting.as_mut()).await;
    assert_eq!(server.running_tasks(), 1);
    let cancelled = c.cancel_task(&t.task_id).await.expect("cancel").task;
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    assert_eq!(
        cancelled.status_message.as_deref(),
        Some("The task was cancelled by request.")
    );
    let (n, m) = code(
        within("the waiting tasks/result is answered", waiting)
            .await
            .expect_err("no result"),
    );
    assert_eq!(n, INVALID_PARAMS);
    assert!(m.contains("cancelled"), "{m}");
    wait_until(
        || stopped("cancelled") && server.running_tasks() == 0,
        "the cancelled tool's future is dropped and the task is gone",
    )
    .await;
    // It stays cancelled; cancelling again, or asking for its result, is invalid.
    assert_eq!(
        c.get_task(&t.task_id).await.expect("get").task.status,
        TaskStatus::Cancelled
    );
    let (n, m) = code(c.cancel_task(&t.task_id).await.expect_err("terminal"));
    assert_eq!(n, INVALID_PARAMS);
    assert!(m.contains("already in terminal status 'cancelled'"), "{m}");
    let (n, _) = code(c.task_result(&t.task_id).await.expect_err("cancelled"));
    assert_eq!(n, INVALID_PARAMS);
    // Cancelling a completed task is refused too.
    let done = c
        .call_tool_as_task("must_task", json!({}), None)
        .await
        .expect("task")
        .task;
    c.task_result(&done.task_id).await.expect("result");
    let (n, m) = code(c.cancel_task(&done.task_id).await.expect_err("terminal"));
    assert_eq!(n, INVALID_PARAMS);
    assert!(m.contains("'completed'"), "{m}");
    // Unknown ids.
    for e in [
        c.get_task("nope").await.map(|_| ()),
        c.task_result("nope").await.map(|_| ()),
        c.cancel_task("nope").await.map(|_| ()),
    ] {
        let (n, m) = code(e.expect_err("unknown"));
        assert_eq!(n, INVALID_PARAMS);
        assert!(m.contains("Task not found"), "{m}");
    }
    let e: Result<Value, _> = c.request("tasks/get", json!({})).await;
    assert_eq!(code(e.expect_err("no taskId")).0, INVALID_PARAMS);
}

#[tokio::test]
async fn a_task_waiting_on_the_client_is_input_required() {
    let model = Model::gated();
    let server = server(fast());
    let c = connect(server, model.client()).await;
    let mut notes = c.notifications();
    let created: CreateTaskResult = c
        .request(
            "tools/call",
            json!({"name": "asks", "arguments": {}, "task": {}, "_meta": {"progressToken": "p1"}}),
        )
        .await
        .expect("task");
    let t = created.task;
    let waiting = wait_for_status(&c, &t.task_id, TaskStatus::InputRequired).await;
    assert_eq!(waiting.status, TaskStatus::InputRequired);
    let asked = model.requests();
    let meta = asked[0].meta.as_ref().expect("meta");
    assert_eq!(
        meta.get("io.modelcontextprotocol/related-task"),
        Some(&json!({"taskId": t.task_id})),
        "the sampling request names its task"
    );
    model.open(1);
    let r = c.task_result(&t.task_id).await.expect("result");
    assert_eq!(text(&r), "ok");
    // Status notifications walked working → input_required → working → completed, and
    // the progress notification carried the related-task metadata: read until the
    // completed status, which comes last.
    let mut statuses = Vec::new();
    let mut progress_meta = None;
    while statuses.last().map(String::as_str) != Some("completed") {
        let n = within("the task's notifications arrive", notes.recv())
            .await
            .expect("open");
        let p = n.params.unwrap_or_default();
        match n.method.as_str() {
            "notifications/tasks/status" => {
                statuses.push(p["status"].as_str().unwrap_or("").to_owned())
            }
            "notifications/progress" => progress_meta = Some(p["_meta"].clone()),
            _ => {}
        }
    }
    assert_eq!(statuses, ["input_required", "working", "completed"]);
    assert_eq!(
        progress_meta,
        Some(json!({"io.modelcontextprotocol/related-task": {"taskId": t.task_id}}))
    );
}

#[tokio::test]
async fn tasks_list_pages_through_every_task() {
    let c = client(server(fast())).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let t = c
            .call_tool_as_task("echo", json!({"text": format!("{i}")}), None)
            .await
            .expect("task")
            .task;
        ids.push(t.task_id);
    }
    let mut listed = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = c.list_tasks(cursor).await.expect("list");
        pages += 1;
        assert!(page.tasks.len() <= 2, "the page size holds");
        listed.extend(page.tasks.into_iter().map(|t| t.task_id));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(listed, ids, "every task, in creation order");
    let (n, _) = code(
        c.list_tasks(Some("not-a-cursor".into()))
            .await
            .expect_err("bad cursor"),
    );
    assert_eq!(n, INVALID_PARAMS);
}

#[tokio::test]
async fn tasks_expire_after_their_ttl() {
    let server = server(fast()).running();
    let c = client(server.clone()).await;
    let done = c
        .call_tool_as_task("echo", json!({"text": "x"}), Some(100))
        .await
        .expect("task")
        .task;
    assert_eq!(done.ttl, Some(100));
    let running = c
        .call_tool_as_task("forever", json!({"key": "expired"}), Some(100))
        .await
        .expect("task")
        .task;
    wait_until(
        || stopped("expired") && server.running_tasks() == 0,
        "the running task is stopped when its ttl runs out",
    )
    .await;
    for id in [&done.task_id, &running.task_id] {
        let e = wait_for(&format!("task {id} has expired"), || async {
            c.get_task(id).await.err()
        })
        .await;
        let (n, m) = code(e);
        assert_eq!(n, INVALID_PARAMS);
        assert!(m.contains("expired") || m.contains("not found"), "{m}");
    }
    // The ttl a client asks for is capped by the server's maximum.
    let capped = Server::with_options(
        tracksuit::crate_info!(),
        ServerOptions::default()
            .tasks(TaskOptions::default().max_ttl(Some(Duration::from_secs(5)))),
    )
    .tool(must_task);
    let c = client(capped).await;
    let t = c
        .call_tool_as_task("must_task", json!({}), Some(60_000))
        .await
        .expect("task")
        .task;
    assert_eq!(t.ttl, Some(5_000));
}

/// An in-memory store the test can look into while a server uses it.
#[derive(Clone, Default)]
struct Visible(Arc<InMemoryTaskStore>);

impl TaskStore for Visible {
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        self.0.put(record)
    }
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        self.0.get(id)
    }
    fn list<'a>(
        &'a self,
        after: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        self.0.list(after, limit)
    }
    fn remove_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        self.0.remove_expired(now_ms)
    }
}

/// Before, expired records were deleted only when the next task request came, so an idle
/// server kept every result of a burst of tasks for as long as it stayed idle.
#[tokio::test]
async fn expired_tasks_leave_the_store_without_further_requests() {
    let store = Visible::default();
    let c = client(server(fast()).task_store(store.clone())).await;
    for ttl in [100, 150, 200] {
        c.call_tool_as_task("echo", json!({"text": "x"}), Some(ttl))
            .await
            .expect("task");
    }
    let stored = || async { store.0.list(None, 10).await.expect("list").records.len() };
    assert_eq!(stored().await, 3);
    // No request from here on: only the server's own sweeper can delete them.
    wait_for("the sweeper deleted the expired records", || async {
        (stored().await == 0).then_some(())
    })
    .await;
}

#[tokio::test]
async fn handoff_and_branching_tools_run_as_tasks() {
    let c = client(server(fast())).await;
    let t = c
        .call_tool_as_task("flow", json!({"seed": 9}), None)
        .await
        .expect("task")
        .task;
    let r = c.task_result(&t.task_id).await.expect("result");
    assert_eq!(
        serde_json::to_value(r.structured_content).expect("json"),
        json!({"seed": 9, "said": "ok"})
    );
    let t = c
        .call_tool_as_task("both", json!({}), None)
        .await
        .expect("task")
        .task;
    assert_eq!(
        text(&c.task_result(&t.task_id).await.expect("result")),
        "ok+ok"
    );
}

#[tokio::test]
async fn cancelling_a_task_cancels_its_branches() {
    let model = Model::gated();
    let server = server(fast()).running();
    let c = connect(server.clone(), model.client()).await;
    let mut notes = c.notifications();
    let t = c
        .call_tool_as_task("both", json!({}), None)
        .await
        .expect("task")
        .task;
    wait_until(|| model.count() == 2, "both branches are sampling").await;
    c.cancel_task(&t.task_id).await.expect("cancel");
    assert_eq!(
        cancelled_ids(&mut notes, 2).await.len(),
        2,
        "both branches' requests were withdrawn"
    );
    wait_until(|| server.running_tasks() == 0, "the task is gone").await;
    // Anything the server sent before answering this ping has reached the client by now:
    // no further sampling request came, and the task stayed cancelled.
    c.ping().await.expect("ping");
    assert_eq!(model.count(), 2, "nothing sampled after the cancel");
    assert_eq!(
        c.get_task(&t.task_id).await.expect("get").task.status,
        TaskStatus::Cancelled
    );
}

#[tokio::test]
async fn sqlite_keeps_results_for_the_next_server() {
    let dir = std::env::temp_dir().join(format!("tracksuit-tasks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("tasks.db");
    let _ = std::fs::remove_file(&path);
    let first = server(fast()).task_store(SqliteTaskStore::open(&path).expect("open"));
    let c = client(first).await;
    let t = c
        .call_tool_as_task("echo", json!({"text": "kept"}), None)
        .await
        .expect("task")
        .task;
    assert_eq!(
        text(&c.task_result(&t.task_id).await.expect("result")),
        "kept"
    );
    let listed = c.list_tasks(None).await.expect("list").tasks;
    assert_eq!(listed.len(), 1);

    // One live server per database file: the next one opens it once the first is gone.
    drop(c);
    let reopened = wait_for("the first server released the database file", || async {
        SqliteTaskStore::open(&path).ok()
    })
    .await;
    let second = server(fast()).task_store(reopened);
    let c = client(second).await;
    let r: Value = c
        .request("tasks/result", json!({"taskId": t.task_id}))
        .await
        .expect("result from the file");
    assert_eq!(r["content"][0]["text"], "kept");
    assert_eq!(
        c.get_task(&t.task_id).await.expect("get").task.status,
        TaskStatus::Completed
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Starts `forever` with `key` as a task.
async fn start(c: &Client, key: &str) -> Result<CreateTaskResult, RequestError> {
    c.call_tool_as_task("forever", json!({ "key": key }), None)
        .await
}

#[tokio::test]
async fn one_session_cannot_fill_the_running_tasks_for_everyone() {
    let server = server(fast().max_running(10).max_running_per_caller(2)).running();
    let greedy = client(server.clone()).await;
    let other = client(server.clone()).await;
    let first = start(&greedy, "quota-1")
        .await
        .expect("within the quota")
        .task;
    start(&greedy, "quota-2").await.expect("within the quota");
    // The third is refused with an error naming the limit; another session starts its own.
    let (n, m) = code(start(&greedy, "quota-3").await.expect_err("over the quota"));
    assert_eq!(n, INTERNAL_ERROR);
    assert!(m.contains("max_running_per_caller"), "{m}");
    let theirs = start(&other, "quota-other")
        .await
        .expect("another caller")
        .task;
    // Ending one of its tasks makes room again.
    greedy.cancel_task(&first.task_id).await.expect("cancel");
    wait_until(|| stopped("quota-1"), "the cancelled task stopped").await;
    start(&greedy, "quota-4").await.expect("room again");
    other.cancel_task(&theirs.task_id).await.expect("cancel");
}
