//! Tasks: task-augmented `tools/call`, the status machine, `tasks/get|list|cancel|result`,
//! status notifications, `input_required` with related-task metadata, ttl expiry, the
//! SQLite store across servers, and handoff / branching tools run as tasks.

use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracksuit::client::{Client, ClientBuilder};
use tracksuit::host::connect_in_memory;
use tracksuit::protocol::*;
use tracksuit::task::{
    InMemoryTaskStore, SqliteTaskStore, TaskOptions, TaskPage, TaskRecord, TaskStore,
    TaskStoreError,
};
use tracksuit::{Ctx, Json, PhaseCtx, RequestError, Server, ServerOptions, ToolError, mcp_tool};

/// Waits `ms` milliseconds, then echoes `text`.
#[mcp_tool(task_support = "optional")]
async fn slow_echo(text: String, ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
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

static STOPPED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop(&'static AtomicBool);
impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Runs until cancelled.
#[mcp_tool(task_support = "optional")]
async fn forever() -> &'static str {
    let _flag = SetOnDrop(&STOPPED);
    std::future::pending::<()>().await;
    "never"
}

/// Asks the model, reporting progress first.
#[mcp_tool(task_support = "optional")]
async fn asks(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.progress(1.0, Some(2.0), Some("asking")).await;
    Ok(ctx.sample().prompt("hi").await?.text())
}

/// Two branches sample at the same time.
#[mcp_tool(task_support = "optional")]
async fn both(ctx: &Ctx) -> Result<String, ToolError> {
    let (a, b) = tokio::try_join!(
        ctx.branch(|b| async move { b.sample().prompt("for").await }),
        ctx.branch(|b| async move { b.sample().prompt("against").await }),
    )?;
    Ok(format!("{}+{}", a?.text(), b?.text()))
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
    .tool(slow_echo)
    .tool(must_task)
    .tool(plain)
    .tool(fails)
    .tool(rejects)
    .tool(forever)
    .tool(asks)
    .tool(both)
    .tool(Flow)
}

fn fast() -> TaskOptions {
    TaskOptions::default().poll_interval(Duration::from_millis(20))
}

/// A model that answers every sampling request with "ok", after `gate` opens (if any),
/// recording the requests' params.
#[derive(Clone, Default)]
struct Model {
    seen: Arc<Mutex<Vec<CreateMessageRequestParams>>>,
    gate: Option<Arc<tokio::sync::Semaphore>>,
}

impl Model {
    fn gated() -> Self {
        Model {
            seen: Arc::default(),
            gate: Some(Arc::new(tokio::sync::Semaphore::new(0))),
        }
    }

    fn client(&self) -> ClientBuilder {
        let me = self.clone();
        Client::builder().on_sampling(move |p| {
            let me = me.clone();
            async move {
                me.seen.lock().expect("lock").push(p);
                if let Some(gate) = &me.gate {
                    let _ = gate.acquire().await.map(|p| p.forget());
                }
                serde_json::from_value(
                    json!({"role":"assistant","model":"m","content":{"type":"text","text":"ok"}}),
                )
                .map_err(ErrorObject::internal)
            }
        })
    }

    fn count(&self) -> usize {
        self.seen.lock().expect("lock").len()
    }
}

async fn connect(server: Server) -> Client {
    connect_in_memory(server, Model::default().client())
        .await
        .expect("connects")
}

fn text(r: &CallToolResult) -> String {
    r.content.iter().filter_map(ContentBlock::as_text).collect()
}

fn code(e: RequestError) -> (i64, String) {
    match e {
        RequestError::Peer(e) => (e.code, e.message),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

async fn wait_for_status(c: &Client, id: &str, want: TaskStatus) -> Task {
    for _ in 0..500 {
        let t = c.get_task(id).await.expect("get").task;
        if t.status == want {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never became {want:?}");
}

#[tokio::test]
async fn capabilities_and_tool_level_support_are_published() {
    let c = connect(server(fast())).await;
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
    assert_eq!(support("slow_echo"), json!({"taskSupport": "optional"}));
    assert_eq!(support("must_task"), json!({"taskSupport": "required"}));
    assert_eq!(support("plain"), Value::Null);
    assert_eq!(support("flow"), json!({"taskSupport": "optional"}));

    let off = Server::with_options(
        tracksuit::crate_info!(),
        ServerOptions::default().tasks(TaskOptions::default().list(false)),
    );
    let c = connect(off).await;
    let caps = serde_json::to_value(&c.server_init().expect("init").capabilities).expect("json");
    assert_eq!(caps["tasks"].get("list"), None);
    let e = c.list_tasks(None).await.expect_err("no listing");
    assert_eq!(code(e).0, METHOD_NOT_FOUND);
}

#[tokio::test]
async fn a_task_runs_in_the_background_and_its_result_waits() {
    let c = connect(server(fast())).await;
    let mut notes = c.notifications();
    let created = c
        .call_tool_as_task("slow_echo", json!({"text": "hi", "ms": 150}), Some(60_000))
        .await
        .expect("created")
        .task;
    assert_eq!(created.status, TaskStatus::Working);
    assert_eq!(created.ttl, Some(60_000));
    assert_eq!(created.poll_interval, Some(20));
    assert!(created.created_at.ends_with('Z'));
    assert_eq!(created.task_id.len(), 36, "a UUID");
    // It is still running: tasks/get says working, tasks/result blocks until it ends.
    assert_eq!(
        c.get_task(&created.task_id).await.expect("get").task.status,
        TaskStatus::Working
    );
    let raw: Value = c
        .request("tasks/result", json!({"taskId": created.task_id}))
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
    let note = tokio::time::timeout(Duration::from_secs(2), async {
        loop {
            let n = notes.recv().await.expect("open");
            if n.method == "notifications/tasks/status" {
                return n.params.expect("params");
            }
        }
    })
    .await
    .expect("a status notification");
    assert_eq!(note["taskId"], json!(created.task_id));
    assert_eq!(note["status"], "completed");
    assert!(note.get("_meta").is_none());
    // A second tasks/result gives the same answer.
    let again = c.task_result(&created.task_id).await.expect("again");
    assert_eq!(text(&again), "hi");
}

#[tokio::test]
async fn tool_level_negotiation_errors() {
    let c = connect(server(fast())).await;
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
        .call_tool("slow_echo", json!({"text": "x", "ms": 0}))
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
        .call_tool_as_task("slow_echo", json!({"text": 3}), None)
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
    let c = connect(server(fast())).await;
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
    let server = server(fast());
    let c = Arc::new(connect(server.clone()).await);
    let t = c
        .call_tool_as_task("forever", json!({}), None)
        .await
        .expect("task")
        .task;
    // A tasks/result already waiting is answered when the task is cancelled.
    let waiting = {
        let c2 = c.clone();
        let id = t.task_id.clone();
        tokio::spawn(async move { c2.task_result(&id).await })
    };
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(server.running_tasks(), 1);
    let cancelled = c.cancel_task(&t.task_id).await.expect("cancel").task;
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    assert_eq!(
        cancelled.status_message.as_deref(),
        Some("The task was cancelled by request.")
    );
    let (n, m) = code(waiting.await.expect("join").expect_err("no result"));
    assert_eq!(n, INVALID_PARAMS);
    assert!(m.contains("cancelled"), "{m}");
    for _ in 0..100 {
        if STOPPED.load(Ordering::SeqCst) && server.running_tasks() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        STOPPED.load(Ordering::SeqCst),
        "the tool's future was dropped"
    );
    assert_eq!(server.running_tasks(), 0);
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
    let c = connect_in_memory(server, model.client())
        .await
        .expect("connects");
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
    {
        let seen = model.seen.lock().expect("lock");
        let meta = seen[0].meta.as_ref().expect("meta");
        assert_eq!(
            meta.get("io.modelcontextprotocol/related-task"),
            Some(&json!({"taskId": t.task_id})),
            "the sampling request names its task"
        );
    }
    model.gate.as_ref().expect("gate").add_permits(1);
    let r = c.task_result(&t.task_id).await.expect("result");
    assert_eq!(text(&r), "ok");
    // Status notifications walked working → input_required → working → completed, and
    // the progress notification carried the related-task metadata.
    let mut statuses = Vec::new();
    let mut progress_meta = None;
    while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_millis(200), notes.recv()).await {
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
    let c = connect(server(fast())).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let t = c
            .call_tool_as_task("slow_echo", json!({"text": format!("{i}"), "ms": 0}), None)
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
    let server = server(fast());
    let c = connect(server.clone()).await;
    let done = c
        .call_tool_as_task("slow_echo", json!({"text": "x", "ms": 0}), Some(100))
        .await
        .expect("task")
        .task;
    assert_eq!(done.ttl, Some(100));
    let running = c
        .call_tool_as_task("forever", json!({}), Some(100))
        .await
        .expect("task")
        .task;
    tokio::time::sleep(Duration::from_millis(250)).await;
    for id in [&done.task_id, &running.task_id] {
        let (n, m) = code(c.get_task(id).await.expect_err("expired"));
        assert_eq!(n, INVALID_PARAMS);
        assert!(m.contains("expired") || m.contains("not found"), "{m}");
    }
    assert_eq!(server.running_tasks(), 0, "the running one was stopped");
    // The ttl a client asks for is capped by the server's maximum.
    let capped = Server::with_options(
        tracksuit::crate_info!(),
        ServerOptions::default()
            .tasks(TaskOptions::default().max_ttl(Some(Duration::from_secs(5)))),
    )
    .tool(must_task);
    let c = connect(capped).await;
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
    let c = connect(server(fast()).task_store(store.clone())).await;
    for ttl in [100, 150, 200] {
        c.call_tool_as_task("slow_echo", json!({"text": "x", "ms": 0}), Some(ttl))
            .await
            .expect("task");
    }
    let stored = || async { store.0.list(None, 10).await.expect("list").records.len() };
    assert_eq!(stored().await, 3);
    // No request from here on: only the server's own sweeper can delete them.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while stored().await > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(stored().await, 0, "deleted once their ttl ran out");
}

#[tokio::test]
async fn handoff_and_branching_tools_run_as_tasks() {
    let c = connect(server(fast())).await;
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
    let server = server(fast());
    let c = connect_in_memory(server.clone(), model.client())
        .await
        .expect("connects");
    let mut notes = c.notifications();
    let t = c
        .call_tool_as_task("both", json!({}), None)
        .await
        .expect("task")
        .task;
    for _ in 0..200 {
        if model.count() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(model.count(), 2, "both branches are sampling");
    c.cancel_task(&t.task_id).await.expect("cancel");
    let mut withdrawn = 0;
    while withdrawn < 2 {
        let n = tokio::time::timeout(Duration::from_secs(5), notes.recv())
            .await
            .expect("in time")
            .expect("open");
        if n.method == "notifications/cancelled" {
            withdrawn += 1;
        }
    }
    assert_eq!(server.running_tasks(), 0);
    model.gate.as_ref().expect("gate").add_permits(2);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(model.count(), 2, "nothing sampled after the cancel");
}

#[tokio::test]
async fn sqlite_keeps_results_for_the_next_server() {
    let dir = std::env::temp_dir().join(format!("tracksuit-tasks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("tasks.db");
    let _ = std::fs::remove_file(&path);
    let first = server(fast()).task_store(SqliteTaskStore::open(&path).expect("open"));
    let c = connect(first).await;
    let t = c
        .call_tool_as_task("slow_echo", json!({"text": "kept", "ms": 0}), None)
        .await
        .expect("task")
        .task;
    assert_eq!(
        text(&c.task_result(&t.task_id).await.expect("result")),
        "kept"
    );
    let listed = c.list_tasks(None).await.expect("list").tasks;
    assert_eq!(listed.len(), 1);

    let second = server(fast()).task_store(SqliteTaskStore::open(&path).expect("reopen"));
    let c = connect(second).await;
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
