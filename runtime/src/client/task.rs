//! Tasks from the client's side, one API in both eras.
//!
//! 2025-11-25 tasks: `tools/call` with `task: {ttl}` answers a `CreateTaskResult`,
//! `tasks/get` polls, `tasks/result` waits for the result (the server's questions arrive as
//! requests on that call and reach the client's handlers), `tasks/cancel`, and
//! `notifications/tasks/status` on the session.
//!
//! 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a client that
//! declares it ([`ClientBuilder::tasks_extension`](super::ClientBuilder::tasks_extension))
//! may get `resultType: "task"` back from `tools/call`; `tasks/get` carries the status and,
//! inline, the result, the error or the `inputRequests`; `tasks/update` delivers
//! `inputResponses`; `tasks/cancel` is acknowledged only; `notifications/tasks` arrive on a
//! `subscriptions/listen` stream.
//!
//! [`TaskHandle`] hides the difference: [`poll`](TaskHandle::poll),
//! [`result`](TaskHandle::result), [`cancel`](TaskHandle::cancel) and
//! [`updates`](TaskHandle::updates) behave the same in both eras.

use super::{Client, Subscription, SubscriptionFilter, answer};
use crate::peer::RequestError;
use crate::protocol::*;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::broadcast;

/// The tasks extension's identifier (the key under `capabilities.extensions`).
///
/// ```
/// assert_eq!(tracksuit::client::TASKS_EXTENSION, "io.modelcontextprotocol/tasks");
/// ```
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// `tasks/update` (tasks extension).
///
/// ```
/// assert_eq!(tracksuit::client::TASKS_UPDATE, "tasks/update");
/// ```
pub const TASKS_UPDATE: &str = "tasks/update";
/// `notifications/tasks` (tasks extension, on a `subscriptions/listen` stream).
///
/// ```
/// assert_eq!(tracksuit::client::TASKS_NOTIFICATION, "notifications/tasks");
/// ```
pub const TASKS_NOTIFICATION: &str = "notifications/tasks";

/// How often to poll when the server suggests no interval.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// With a notification stream open, polling is only a backstop: this many intervals apart.
const BACKSTOP_FACTOR: u32 = 10;

/// What a task looks like at one moment, in either era.
///
/// ```
/// use tracksuit::client::TaskState;
/// use tracksuit::protocol::TaskStatus;
/// let state = TaskState::from_extension(&serde_json::json!({
///     "taskId": "t1", "status": "completed", "ttlMs": 60000, "pollIntervalMs": 500,
///     "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:01Z",
///     "result": {"content": [{"type": "text", "text": "42"}]}
/// })).unwrap();
/// assert_eq!(state.status(), TaskStatus::Completed);
/// assert!(state.is_terminal());
/// assert_eq!(state.task.poll_interval, Some(500));
/// assert!(state.result.is_some());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskState {
    /// The task's fields (`ttl` and `poll_interval` in milliseconds in both eras).
    pub task: Task,
    /// What the server waits on (tasks extension, `input_required`): key → request.
    /// Empty otherwise; 2025 tasks ask through requests on the session instead.
    pub input_requests: JsonObject,
    /// The request's result, inline (tasks extension, `completed`).
    pub result: Option<JsonObject>,
    /// The JSON-RPC error, inline (tasks extension, `failed`).
    pub error: Option<ErrorObject>,
}

/// A task as the extension spells it (`DetailedTask`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Detailed {
    task_id: String,
    status: TaskStatus,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default)]
    created_at: String,
    #[serde(default)]
    last_updated_at: String,
    #[serde(default)]
    ttl_ms: Option<u64>,
    #[serde(default)]
    poll_interval_ms: Option<u64>,
    #[serde(default)]
    input_requests: Option<JsonObject>,
    #[serde(default)]
    result: Option<JsonObject>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

impl TaskState {
    /// A 2025-11-25 task (`tasks/get`, `notifications/tasks/status`).
    pub fn from_task(task: Task) -> Self {
        TaskState {
            task,
            input_requests: JsonObject::new(),
            result: None,
            error: None,
        }
    }

    /// A tasks-extension task (`CreateTaskResult`, `tasks/get`, `notifications/tasks`).
    pub fn from_extension(value: &Value) -> Result<Self, RequestError> {
        let d = Detailed::deserialize(value).map_err(|e| RequestError::Decode(e.to_string()))?;
        Ok(TaskState {
            task: Task {
                task_id: d.task_id,
                status: d.status,
                status_message: d.status_message,
                created_at: d.created_at,
                last_updated_at: d.last_updated_at,
                ttl: d.ttl_ms,
                poll_interval: d.poll_interval_ms,
            },
            input_requests: d.input_requests.unwrap_or_default(),
            result: d.result,
            error: d.error,
        })
    }

    /// The task's status.
    pub fn status(&self) -> TaskStatus {
        self.task.status
    }

    /// Whether the task is over (`completed`, `failed` or `cancelled`).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.task.status,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    fn poll_interval(&self) -> Duration {
        self.task
            .poll_interval
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_POLL)
    }
}

/// Which protocol a task lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// 2025-11-25 tasks.
    Core,
    /// The 2026-07-28 tasks extension.
    Extension,
}

/// What [`Client::call_tool_task`] got back: a task, or (the server's choice in the tasks
/// extension) the result at once.
///
/// ```
/// use tracksuit::{Server, ToolFn, client::{Client, TaskCall}, protocol::*};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut tool = Tool::new("render", Default::default());
/// tool.execution = Some(ToolExecution { task_support: Some(TaskSupport::Optional) });
/// let tool = ToolFn::new(tool, |_ctx, _args| async { Ok(CallToolResult::text("done")) });
/// let server = Server::new(tracksuit::crate_info!()).tool(tool).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// // A 2025-11-25 session always gets a task back when it asks for one.
/// let call = client.call_tool_task("render", serde_json::json!({}), Some(60_000)).await?;
/// assert!(matches!(call, TaskCall::Task(_)));
/// assert_eq!(call.result().await?.content[0].as_text(), Some("done"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub enum TaskCall<'c> {
    /// The server runs the call as a task.
    Task(TaskHandle<'c>),
    /// The server answered at once.
    Done(CallToolResult),
}

impl<'c> TaskCall<'c> {
    /// The tool's result, waiting for the task if there is one (see [`TaskHandle::result`]).
    pub async fn result(self) -> Result<CallToolResult, RequestError> {
        match self {
            TaskCall::Task(task) => task.result().await,
            TaskCall::Done(result) => Ok(result),
        }
    }

    /// The task, if the server made one.
    pub fn task(&self) -> Option<&TaskHandle<'c>> {
        match self {
            TaskCall::Task(task) => Some(task),
            TaskCall::Done(_) => None,
        }
    }

    /// The task, if the server made one (consuming the call).
    pub fn into_task(self) -> Option<TaskHandle<'c>> {
        match self {
            TaskCall::Task(task) => Some(task),
            TaskCall::Done(_) => None,
        }
    }
}

/// A task on the server, the same in both eras: [`poll`](Self::poll) it,
/// [`result`](Self::result) waits for its end (answering its questions with the client's
/// handlers), [`update`](Self::update) answers explicitly, [`cancel`](Self::cancel) asks
/// the server to stop, [`updates`](Self::updates) streams its states.
///
/// ```
/// use tracksuit::{Server, ToolFn, client::Client, protocol::*};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut tool = Tool::new("render", Default::default());
/// tool.execution = Some(ToolExecution { task_support: Some(TaskSupport::Required) });
/// let tool = ToolFn::new(tool, |_ctx, _args| async { Ok(CallToolResult::text("done")) });
/// let server = Server::new(tracksuit::crate_info!()).tool(tool).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let call = client.call_tool_task("render", serde_json::json!({}), None).await?;
/// let task = call.into_task().unwrap();
/// assert!(!task.is_extension()); // a 2025-11-25 task
/// assert_eq!(task.result().await?.content[0].as_text(), Some("done"));
/// assert_eq!(task.poll().await?.status(), TaskStatus::Completed);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct TaskHandle<'c> {
    client: &'c Client,
    kind: Kind,
    created: Box<TaskState>,
    /// `inputRequests` keys already answered (never answered twice).
    answered: Mutex<HashSet<String>>,
}

impl<'c> TaskHandle<'c> {
    fn new(client: &'c Client, kind: Kind, created: TaskState) -> Self {
        TaskHandle {
            client,
            kind,
            created: Box::new(created),
            answered: Mutex::new(HashSet::new()),
        }
    }

    /// The task's id (keep it to find the task again with [`Client::task`]).
    pub fn id(&self) -> &str {
        &self.created.task.task_id
    }

    /// The task as the server created it (or as first seen, for [`Client::task`]).
    pub fn created(&self) -> &TaskState {
        &self.created
    }

    /// Whether the task belongs to the 2026-07-28 tasks extension (else 2025-11-25 tasks).
    pub fn is_extension(&self) -> bool {
        self.kind == Kind::Extension
    }

    /// `tasks/get`: the task's state now (with the inline result, error or
    /// `inputRequests` in the tasks extension).
    pub async fn poll(&self) -> Result<TaskState, RequestError> {
        poll(self.client, self.kind, self.id()).await
    }

    /// `tasks/update` with `responses` (key of an `inputRequests` entry → the answer), for a
    /// host that answers the task's questions itself rather than through the client's
    /// handlers. The server only acknowledges; the task moves on later.
    /// 2025-11-25 tasks ask through requests on the session instead:
    /// [`RequestError::Unsupported`].
    pub async fn update(&self, responses: JsonObject) -> Result<(), RequestError> {
        if self.kind == Kind::Core {
            return Err(RequestError::Unsupported);
        }
        self.answered_lock().extend(responses.keys().cloned());
        let params = json!({ "taskId": self.id(), "inputResponses": responses });
        let _: Value = self.client.request(TASKS_UPDATE, params).await?;
        Ok(())
    }

    /// Answers the questions of `state` not answered yet with the client's handlers (the
    /// same `on_sampling`, `on_elicitation` and `roots` that answer MRTR rounds and 2025
    /// server requests) and sends them in one `tasks/update`. Returns how many were
    /// answered. A handler's error fails it (nothing is sent).
    pub async fn answer(&self, state: &TaskState) -> Result<usize, RequestError> {
        let pending: Vec<(String, Value)> = {
            let answered = self.answered_lock();
            state
                .input_requests
                .iter()
                .filter(|(key, _)| !answered.contains(*key))
                .map(|(key, request)| (key.clone(), request.clone()))
                .collect()
        };
        if pending.is_empty() {
            return Ok(0);
        }
        let handlers = &self.client.handlers;
        let asked = pending.into_iter().map(|(key, request)| async move {
            let method = request.get("method").and_then(Value::as_str).unwrap_or("");
            let params = request.get("params").cloned();
            Ok::<_, ErrorObject>((key, answer(handlers, method, params).await?))
        });
        let responses = futures::future::join_all(asked)
            .await
            .into_iter()
            .collect::<Result<JsonObject, _>>()
            .map_err(RequestError::Peer)?;
        let n = responses.len();
        self.update(responses).await?;
        Ok(n)
    }

    /// Waits until the task ends and returns what the `tools/call` would have.
    ///
    /// 2025-11-25: `tasks/result` (the server's questions reach the client's handlers on
    /// that call). Tasks extension: the task's [`updates`](Self::updates) are followed and
    /// every `input_required` state is [`answer`](Self::answer)ed with the handlers. In both
    /// eras a `failed` task (a JSON-RPC error) is [`RequestError::Peer`] with that error,
    /// and a cancelled one is a `-32602` error.
    pub async fn result(&self) -> Result<CallToolResult, RequestError> {
        if self.kind == Kind::Core {
            return self.client.task_result(self.id()).await;
        }
        let mut updates = self.updates();
        while let Some(state) = updates.next().await {
            let state = state?;
            match state.status() {
                TaskStatus::InputRequired => {
                    self.answer(&state).await?;
                }
                TaskStatus::Working => {}
                TaskStatus::Completed => return self.completed(state).await,
                TaskStatus::Failed => {
                    return Err(RequestError::Peer(state.error.unwrap_or_else(|| {
                        ErrorObject::internal("the task failed without an error")
                    })));
                }
                TaskStatus::Cancelled => {
                    let message = format!("task {} was cancelled", self.id());
                    let data = json!({ "taskId": self.id(), "status": "cancelled" });
                    return Err(RequestError::Peer(
                        ErrorObject::invalid_params(message).with_data(data),
                    ));
                }
            }
        }
        Err(RequestError::Closed)
    }

    /// The result of a completed task (asked again if a notification left it out).
    async fn completed(&self, state: TaskState) -> Result<CallToolResult, RequestError> {
        let result = match state.result {
            Some(result) => result,
            None => self.poll().await?.result.ok_or_else(|| {
                RequestError::Decode("a completed task without its `result`".into())
            })?,
        };
        serde_json::from_value(Value::Object(result))
            .map_err(|e| RequestError::Decode(e.to_string()))
    }

    /// `tasks/cancel`. In the tasks extension the server only acknowledges (the task may
    /// still end otherwise); in 2025-11-25 it answers the cancelled task, and refuses a
    /// task already over.
    pub async fn cancel(&self) -> Result<(), RequestError> {
        let _: Value = self
            .client
            .request(methods::TASKS_CANCEL, json!({ "taskId": self.id() }))
            .await?;
        Ok(())
    }

    /// The task's states as they change (see [`TaskUpdates`]).
    pub fn updates(&self) -> TaskUpdates<'c> {
        TaskUpdates::new(self.client, self.kind, self.id().to_owned(), &self.created)
    }

    fn answered_lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.answered.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `tasks/get` in either era.
async fn poll(client: &Client, kind: Kind, task_id: &str) -> Result<TaskState, RequestError> {
    let params = json!({ "taskId": task_id });
    match kind {
        Kind::Core => {
            let got: GetTaskResult = client.request(methods::TASKS_GET, params).await?;
            Ok(TaskState::from_task(got.task))
        }
        Kind::Extension => {
            let got: Value = client.request(methods::TASKS_GET, params).await?;
            TaskState::from_extension(&got)
        }
    }
}

/// A task's states as they change, starting with its state now, ending after a terminal
/// state (or when the connection closes).
///
/// They come from the server's notifications — `notifications/tasks/status` on a 2025
/// session, `notifications/tasks` on a `subscriptions/listen` stream in the tasks extension
/// (opened on the first [`next`](Self::next), closed when this is dropped) — and from
/// `tasks/get` polls at the server's `pollInterval`, which alone carry them when the server
/// sends no notifications (with notifications, polls are a rarer backstop).
///
/// ```
/// use tracksuit::{Server, ToolFn, client::Client, protocol::*};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut tool = Tool::new("render", Default::default());
/// tool.execution = Some(ToolExecution { task_support: Some(TaskSupport::Required) });
/// let tool = ToolFn::new(tool, |_ctx, _args| async { Ok(CallToolResult::text("done")) });
/// let server = Server::new(tracksuit::crate_info!()).tool(tool).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let task = client.call_tool_task("render", serde_json::json!({}), None).await?.into_task().unwrap();
/// let mut updates = task.updates();
/// let mut last = None;
/// while let Some(state) = updates.next().await {
///     last = Some(state?.status());
/// }
/// assert_eq!(last, Some(TaskStatus::Completed)); // the stream ends after a terminal state
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct TaskUpdates<'c> {
    client: &'c Client,
    kind: Kind,
    task_id: String,
    notifications: broadcast::Receiver<JsonRpcNotification>,
    listen: Option<Subscription>,
    started: bool,
    last: Option<TaskState>,
    interval: Duration,
    done: bool,
}

impl<'c> TaskUpdates<'c> {
    fn new(client: &'c Client, kind: Kind, task_id: String, seed: &TaskState) -> Self {
        TaskUpdates {
            client,
            kind,
            task_id,
            // Subscribed now: nothing sent after this is missed.
            notifications: client.notifications.subscribe(),
            listen: None,
            started: false,
            last: None,
            interval: seed.poll_interval(),
            done: false,
        }
    }

    /// The task's next state, `None` after a terminal one; an error (a failed poll) ends
    /// the stream.
    pub async fn next(&mut self) -> Option<Result<TaskState, RequestError>> {
        if self.done {
            return None;
        }
        if !self.started {
            self.started = true;
            if self.kind == Kind::Extension {
                let filter = SubscriptionFilter::default().task(self.task_id.clone());
                // A server without task notifications refuses, or leaves the task out of
                // its acknowledgement: polling alone, then.
                self.listen = (self.client.subscribe_to(filter).await.ok())
                    .filter(|listen| listen.honours_task(&self.task_id));
            }
            if self.listen.is_none() {
                let now = poll(self.client, self.kind, &self.task_id).await;
                if let Some(out) = self.offer(now) {
                    return Some(out);
                }
            }
        }
        loop {
            let wait = match self.listen {
                Some(_) => self.interval * BACKSTOP_FACTOR,
                None => self.interval,
            };
            let seen = tokio::select! {
                n = self.notifications.recv() => match n {
                    Ok(n) => match self.parse(&n) {
                        Some(state) => state,
                        None => continue,
                    },
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        poll(self.client, self.kind, &self.task_id).await
                    }
                    Err(broadcast::error::RecvError::Closed) => {
                        self.done = true;
                        return None;
                    }
                },
                _ = tokio::time::sleep(wait) => poll(self.client, self.kind, &self.task_id).await,
            };
            if let Some(out) = self.offer(seen) {
                return Some(out);
            }
        }
    }

    /// The state of this task a notification carries, if it is about this task.
    fn parse(&self, n: &JsonRpcNotification) -> Option<Result<TaskState, RequestError>> {
        let params = n.params.as_ref()?;
        if params.get("taskId").and_then(Value::as_str) != Some(self.task_id.as_str()) {
            return None;
        }
        match (self.kind, n.method.as_str()) {
            (Kind::Core, methods::TASKS_STATUS) => Some(
                serde_json::from_value::<Task>(params.clone())
                    .map(TaskState::from_task)
                    .map_err(|e| RequestError::Decode(e.to_string())),
            ),
            (Kind::Extension, TASKS_NOTIFICATION) => Some(TaskState::from_extension(params)),
            _ => None,
        }
    }

    /// What to yield for `seen`: nothing if it is the state last yielded.
    fn offer(
        &mut self,
        seen: Result<TaskState, RequestError>,
    ) -> Option<Result<TaskState, RequestError>> {
        match seen {
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
            Ok(state) if self.last.as_ref() == Some(&state) => None,
            Ok(state) => {
                self.interval = state.poll_interval();
                self.done = state.is_terminal();
                self.last = Some(state.clone());
                Some(Ok(state))
            }
        }
    }
}

impl Client {
    /// Calls tool `name` as a task, in either era.
    ///
    /// 2025-11-25: `tools/call` with `task: {ttl}` (`ttl` in milliseconds, `None` for the
    /// server's default). Tasks extension: a plain `tools/call` — the server decides whether
    /// it becomes a task (`ttl` is not sent), so the result may come at once
    /// ([`TaskCall::Done`]); without [`ClientBuilder::tasks_extension`](super::ClientBuilder::tasks_extension)
    /// the server never makes one.
    ///
    /// ```
    /// use tracksuit::{Server, ToolFn, client::{Client, Era}, protocol::*};
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let mut tool = Tool::new("slow", Default::default());
    /// tool.execution = Some(ToolExecution { task_support: Some(TaskSupport::Optional) });
    /// let server = Server::new(Implementation::new("demo", "1.0.0"))
    ///     .tool(ToolFn::new(tool, |_ctx, _args| async { Ok(CallToolResult::text("done")) }))
    ///     .build()
    ///     .unwrap();
    /// let builder = Client::builder().era(Era::Stateless).tasks_extension();
    /// let client = tracksuit::host::connect_in_memory(server, builder).await.unwrap();
    /// let call = client.call_tool_task("slow", serde_json::json!({}), None).await.unwrap();
    /// if let Some(task) = call.task() {
    ///     println!("task {} is {:?}", task.id(), task.poll().await.unwrap().status());
    /// }
    /// let result = call.result().await.unwrap();
    /// assert_eq!(result.content.len(), 1);
    /// # }
    /// ```
    pub async fn call_tool_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<u64>,
    ) -> Result<TaskCall<'_>, RequestError> {
        let mut params = json!({ "name": name, "arguments": arguments });
        let kind = self.task_kind();
        if kind == Kind::Core {
            params["task"] = json!(TaskMetadata { ttl });
        }
        let result = self.request_payload(methods::TOOLS_CALL, params).await?;
        self.task_or_result(kind, result)
    }

    /// A handle on task `task_id` created earlier (perhaps by another connection: task ids
    /// are meant to be kept), in this client's era.
    pub fn task(&self, task_id: &str) -> TaskHandle<'_> {
        let seed = TaskState::from_task(Task {
            task_id: task_id.to_owned(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: String::new(),
            last_updated_at: String::new(),
            ttl: None,
            poll_interval: None,
        });
        TaskHandle::new(self, self.task_kind(), seed)
    }

    /// The states of task `task_id` as they change (see [`TaskUpdates`]).
    pub fn task_updates(&self, task_id: &str) -> TaskUpdates<'_> {
        self.task(task_id).updates()
    }

    fn task_kind(&self) -> Kind {
        match self.stamp {
            Some(_) => Kind::Extension,
            None => Kind::Core,
        }
    }

    /// A `tools/call` result: a task handle, or the result itself.
    fn task_or_result(
        &self,
        kind: Kind,
        result: ResultPayload,
    ) -> Result<TaskCall<'_>, RequestError> {
        let decode = |e: serde_json::Error| RequestError::Decode(e.to_string());
        match kind {
            Kind::Extension if result.result_type().as_deref() == Some("task") => {
                let value: Value = result.to_value().map_err(decode)?;
                let state = TaskState::from_extension(&value)?;
                Ok(TaskCall::Task(TaskHandle::new(self, kind, state)))
            }
            Kind::Core if result.has_member("task") => {
                let created: CreateTaskResult = result.into_decoded().map_err(decode)?;
                let state = TaskState::from_task(created.task);
                Ok(TaskCall::Task(TaskHandle::new(self, kind, state)))
            }
            _ => Ok(TaskCall::Done(result.into_decoded().map_err(decode)?)),
        }
    }

    /// `tools/call` whose result may be a task (tasks extension): the task is followed to
    /// its end, so callers get the tool's result either way.
    pub(super) async fn call_tool_value(
        &self,
        params: Value,
    ) -> Result<CallToolResult, RequestError> {
        let result = self.request_payload(methods::TOOLS_CALL, params).await?;
        self.task_or_result(Kind::Extension, result)?.result().await
    }
}
