//! The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663): a
//! `tools/call` from a client that declared the extension may be answered with a
//! `CreateTaskResult` (`resultType: "task"`) while the tool runs in the background; the
//! client polls `tasks/get` (status with the inline result, error or `inputRequests`),
//! answers questions with `tasks/update` and asks for cancellation with `tasks/cancel`
//! (acknowledge-only). There is no `tasks/result` and no `tasks/list`.
//!
//! A running task is a call in live MRTR mode (see `context::rounds`): a question the tool
//! asks is recorded as outstanding, the task becomes `input_required` with the question in
//! its `inputRequests`, and the asking future waits until `tasks/update` delivers the
//! answer. Every change is written to the server's [`TaskStore`](super::TaskStore) before
//! it is observable, so `tasks/get` right after a `CreateTaskResult` (or a `tasks/update`
//! acknowledgement) sees it.
//!
//! A task also keeps a sealed replay record in its store record (the call, every answer so
//! far and a handoff tool's `before` state; see [`TaskRecord::resume`]), rewritten after
//! every exchange. When a process finds a task that is not finished and that no process
//! runs any more (its own died: on SQLite the file lock says so), it resumes it by replay:
//! the tool runs again from the top against the logged answers — a handoff tool's `before`
//! state is restored instead of run — and continues live from the first unanswered
//! question. Without a usable replay record (other keys, a tool that is gone) the task is
//! settled as `failed`.

mod requests;

use super::engine::{TaskEngine, now_ms, timestamp};
use super::store::{TaskOutcome, TaskRecord};
use crate::context::{Carried, Question, Rounds};
use crate::peer::sync::lock;
use crate::protocol::*;
use crate::seal::{Binding, StateKeys, digest_json};
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio_util::sync::CancellationToken;

/// What the server gives its task engine so that an extension task can outlive its process.
pub(crate) trait Resumer: Send + Sync {
    /// The keys replay records are sealed with (shared by every replica of a deployment).
    fn keys(&self) -> StateKeys;

    /// Rebuilds the call described by `call` (what [`start_extension`] was given) so that
    /// it asks through `rounds`; `None` if it cannot (the tool is gone).
    ///
    /// [`start_extension`]: TaskEngine::start_extension
    fn restart(
        &self,
        call: &Value,
        rounds: Arc<Rounds>,
        cancel: CancellationToken,
    ) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>>;
}

/// A task's replay record, before sealing.
#[derive(serde::Serialize, serde::Deserialize)]
struct Replay {
    /// The call: tool name, arguments, the client's capabilities.
    call: Value,
    /// The answers so far, the questions outstanding, the kept `before` state.
    carried: Carried,
}

/// The binding of a task's replay record: only that task's record opens it.
fn replay_binding(task_id: &str) -> Binding<'_> {
    Binding {
        method: "tasks/replay",
        name: task_id,
        params_digest: digest_json(&Value::Null),
        principal: None,
    }
}

/// The extension's identifier.
///
/// ```
/// use tracksuit::{Server, client::{Client, Era}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).build()?;
/// let builder = Client::builder().era(Era::Stateless);
/// let client = tracksuit::host::connect_in_memory(server, builder).await?;
/// // Every server offers the 2026-07-28 tasks extension under this key.
/// let caps = &client.discovered().unwrap().capabilities;
/// assert!(caps.extra["extensions"].get(tracksuit::task::TASKS_EXTENSION).is_some());
/// # Ok(())
/// # }
/// ```
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// `tasks/get`
pub(crate) const TASKS_GET: &str = "tasks/get";
/// `tasks/update`
pub(crate) const TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel`
pub(crate) const TASKS_CANCEL: &str = "tasks/cancel";

/// Whether a client's capabilities declare the extension.
pub(crate) fn declared(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extra
        .get("extensions")
        .and_then(Value::as_object)
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// `-32021` naming the extension, for a client that did not declare it.
pub(crate) fn missing_extension(what: &str) -> ErrorObject {
    ErrorObject::missing_capability(
        format!("Missing required client capability: {what} needs the {TASKS_EXTENSION} extension"),
        json!({ "extensions": { TASKS_EXTENSION: {} } }),
    )
}

/// A task of the extension running in this process.
pub(crate) struct Running {
    rounds: Arc<Rounds>,
    cancel: CancellationToken,
    /// This process lost the task's lease: the run stops without writing anything.
    lost: CancellationToken,
    /// The call, for the replay record (`None`: the task is not resumable).
    call: Option<Value>,
    /// The record as stored; holding the lock serialises the task's writes.
    pub(super) record: tokio::sync::Mutex<TaskRecord>,
    /// Who created it (the record's owner), for the per-caller limit.
    pub(super) owner: Option<String>,
}

/// The wire name of a status.
fn status_name(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
    }
}

/// The `Task` fields of a record, as the extension spells them (`ttlMs`, `pollIntervalMs`).
fn task_fields(task: &Task) -> JsonObject {
    let mut map = JsonObject::new();
    map.insert("taskId".into(), task.task_id.clone().into());
    map.insert("status".into(), status_name(task.status).into());
    if let Some(message) = &task.status_message {
        map.insert("statusMessage".into(), message.clone().into());
    }
    map.insert("createdAt".into(), task.created_at.clone().into());
    map.insert("lastUpdatedAt".into(), task.last_updated_at.clone().into());
    map.insert("ttlMs".into(), task.ttl.map_or(Value::Null, Value::from));
    if let Some(interval) = task.poll_interval {
        map.insert("pollIntervalMs".into(), interval.into());
    }
    map
}

/// The `DetailedTask` of a record: what `tasks/get` answers and `notifications/tasks`
/// carries.
pub(crate) fn detailed(record: &TaskRecord) -> Value {
    let mut map = task_fields(&record.task);
    match (record.task.status, &record.outcome) {
        (TaskStatus::InputRequired, _) => {
            map.insert(
                "inputRequests".into(),
                Value::Object(record.input_requests.clone().unwrap_or_default()),
            );
        }
        (TaskStatus::Completed, Some(TaskOutcome::Result(result))) => {
            map.insert("result".into(), result.clone());
        }
        (TaskStatus::Failed, Some(TaskOutcome::Error(error))) => {
            map.insert(
                "error".into(),
                serde_json::to_value(error).unwrap_or(Value::Null),
            );
        }
        (TaskStatus::Failed, _) => {
            let error = ErrorObject::internal(
                record
                    .task
                    .status_message
                    .clone()
                    .unwrap_or_else(|| "the task failed".into()),
            );
            map.insert(
                "error".into(),
                serde_json::to_value(error).unwrap_or(Value::Null),
            );
        }
        _ => {}
    }
    Value::Object(map)
}

impl TaskEngine {
    /// Starts `work` — a `tools/call` whose context asks through `rounds` — as a task of the
    /// extension. The record is stored before this returns, so the `CreateTaskResult` it
    /// returns can be polled at once.
    pub(crate) async fn start_extension(
        self: &Arc<Self>,
        rounds: Arc<Rounds>,
        cancel: CancellationToken,
        work: BoxFuture<'static, Result<Value, ErrorObject>>,
        call: Option<Value>,
        owner: Option<String>,
    ) -> Result<Value, ErrorObject> {
        self.purge().await;
        self.admit_task(owner.as_deref(), None).await?;
        let ttl = self.options().ttl_for(None);
        let created = timestamp();
        let task = Task {
            task_id: uuid::Uuid::new_v4().to_string(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: created.clone(),
            last_updated_at: created,
            ttl,
            poll_interval: Some(self.options().poll_interval.as_millis() as u64),
        };
        let expires_at = ttl.map(|ms| now_ms().saturating_add(ms));
        rounds.become_task(&task.task_id);
        let mut record = TaskRecord {
            task: task.clone(),
            method: methods::TOOLS_CALL.to_owned(),
            outcome: None,
            expires_at,
            input_requests: None,
            resume: None,
            // Only this principal finds it (tasks/get, tasks/update, tasks/cancel, listen).
            owner,
        };
        record.resume = self.seal_replay(&record, call.as_ref(), &rounds);
        self.store()
            .put(record.clone())
            .await
            .map_err(ErrorObject::internal)?;
        if let Some(at) = expires_at {
            self.expire_at(at);
        }
        let running = Arc::new(Running {
            rounds,
            cancel,
            lost: CancellationToken::new(),
            call,
            owner: record.owner.clone(),
            record: tokio::sync::Mutex::new(record),
        });
        lock(&self.extension).insert(task.task_id.clone(), running.clone());
        self.launch(running, expires_at, work);
        let mut created = task_fields(&task);
        created.insert("resultType".into(), "task".into());
        Ok(Value::Object(created))
    }

    /// Runs `work` for `running` in the background; the task leaves the running set when
    /// it ends.
    fn launch(
        self: &Arc<Self>,
        running: Arc<Running>,
        expires_at: Option<u64>,
        work: BoxFuture<'static, Result<Value, ErrorObject>>,
    ) {
        let engine = self.clone();
        // The task's work runs in the call's OpenTelemetry context (feature `otel`).
        #[cfg(feature = "otel")]
        let work = Box::pin(opentelemetry::trace::FutureExt::with_context(
            work,
            opentelemetry::Context::current(),
        ));
        tokio::spawn(async move {
            engine.drive(&running, expires_at, work).await;
            running.cancel.cancel();
            // A write may still hang on the record (a store cut off): not waited for.
            let ended = running
                .record
                .try_lock()
                .is_ok_and(|record| record.is_terminal());
            let id = running.rounds.task_id().unwrap_or_default().to_owned();
            crate::capacity::remove(&mut lock(&engine.extension), &id);
            if !ended {
                // Stopped because its lease was lost: whoever holds the task now resumes it
                // (releasing it lets them start at once).
                if let Err(e) = engine.store().release(&id).await {
                    tracing::debug!(task = %id, error = %e, "could not release a lost lease");
                }
            }
        });
    }

    /// The sealed replay record of a task whose call is `call`, as `rounds` stand now.
    fn seal_replay(
        &self,
        record: &TaskRecord,
        call: Option<&Value>,
        rounds: &Rounds,
    ) -> Option<String> {
        self.seal_carried(record, call, rounds.snapshot())
    }

    /// The sealed replay record of a task whose call is `call`, with `carried`.
    fn seal_carried(
        &self,
        record: &TaskRecord,
        call: Option<&Value>,
        carried: Carried,
    ) -> Option<String> {
        let call = call?.clone();
        let keys = self.resumer.get()?.keys();
        let payload = serde_json::to_vec(&Replay { call, carried }).ok()?;
        let ttl = match record.expires_at {
            Some(at) => Duration::from_millis(at.saturating_sub(now_ms())),
            None => Duration::from_secs(365 * 24 * 3600),
        };
        let id = &record.task.task_id;
        match keys.seal(&replay_binding(id), ttl, SystemTime::now(), &payload) {
            Ok(token) => Some(token),
            Err(e) => {
                tracing::warn!(task = %id, error = %e, "could not seal the task's replay record; it will not survive its process");
                None
            }
        }
    }

    /// Resumes by replay a task that no process runs any more, if its replay record opens
    /// here and its tool exists. Returns the task, now running here.
    async fn resume(self: &Arc<Self>, record: &TaskRecord) -> Option<Arc<Running>> {
        let resumer = self.resumer.get()?.clone();
        let id = record.task.task_id.clone();
        let bytes = resumer
            .keys()
            .open(&replay_binding(&id), record.resume.as_deref()?, SystemTime::now())
            .map_err(|e| tracing::warn!(task = %id, error = %e, "a task's replay record does not open here"))
            .ok()?;
        let replay: Replay = serde_json::from_slice(&bytes).ok()?;
        let name = replay.call.get("name").and_then(Value::as_str)?.to_owned();
        let mut carried = replay.carried;
        let pending = std::mem::take(&mut carried.pending);
        let rounds = Arc::new(Rounds::new(format!("tool `{name}`"), carried));
        let shown = record.input_requests.clone().unwrap_or_default();
        rounds.expect(
            pending
                .into_iter()
                .filter_map(|(key, digest)| {
                    let request = serde_json::value::to_raw_value(shown.get(&key)?).ok()?;
                    Some(Question {
                        key,
                        digest,
                        request,
                    })
                })
                .collect(),
        );
        rounds.become_task(&id);
        let cancel = CancellationToken::new();
        let work = resumer.restart(&replay.call, rounds.clone(), cancel.clone())?;
        let running = Arc::new(Running {
            rounds,
            cancel,
            lost: CancellationToken::new(),
            call: Some(replay.call),
            owner: record.owner.clone(),
            record: tokio::sync::Mutex::new(record.clone()),
        });
        {
            let mut map = lock(&self.extension);
            if let Some(other) = map.get(&id) {
                // Another request resumed it first.
                return Some(other.clone());
            }
            map.insert(id.clone(), running.clone());
        }
        tracing::info!(task = %id, tool = %name, "resuming a task by replay");
        self.launch(running.clone(), record.expires_at, work);
        Some(running)
    }

    /// Runs a task's work to its end, keeping its record in step: questions make it
    /// `input_required`, answers `working` again, and the end a terminal status.
    async fn drive(
        &self,
        running: &Running,
        expires_at: Option<u64>,
        work: BoxFuture<'static, Result<Value, ErrorObject>>,
    ) {
        let mut work = AssertUnwindSafe(work).catch_unwind();
        let deadline = async {
            match expires_at {
                Some(at) => {
                    tokio::time::sleep(Duration::from_millis(at.saturating_sub(now_ms()))).await
                }
                None => std::future::pending().await,
            }
        };
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                biased;
                _ = running.cancel.cancelled() => {
                    self.settle(running, TaskStatus::Cancelled, Some("The task was cancelled by request.".into()), None).await;
                    return;
                }
                _ = &mut deadline => {
                    let error = ErrorObject::internal("the task's ttl ran out before it finished");
                    self.settle(running, TaskStatus::Failed, Some(error.message.clone()), Some(TaskOutcome::Error(error))).await;
                    return;
                }
                outcome = &mut work => {
                    let (status, message, outcome) = match outcome {
                        // A tool result, `isError` or not, completes the task.
                        Ok(Ok(result)) => (TaskStatus::Completed, None, TaskOutcome::Result(result)),
                        Ok(Err(error)) => (TaskStatus::Failed, Some(error.message.clone()), TaskOutcome::Error(error)),
                        Err(_) => {
                            let error = ErrorObject::internal("the tool panicked");
                            (TaskStatus::Failed, Some(error.message.clone()), TaskOutcome::Error(error))
                        }
                    };
                    self.settle(running, status, message, Some(outcome)).await;
                    return;
                }
                // The lease was lost: another process resumes the task from its record.
                _ = running.lost.cancelled() => return,
                _ = running.rounds.changed() => {
                    if let Some(error) = running.rounds.failure() {
                        self.settle(running, TaskStatus::Failed, Some(error.message.clone()), Some(TaskOutcome::Error(error))).await;
                        return;
                    }
                    // A store or bus cut off may hold this up: the lease's loss does not wait.
                    tokio::select! {
                        biased;
                        _ = running.lost.cancelled() => return,
                        _ = self.sync_questions(running) => {}
                    }
                }
            }
        }
    }

    /// Brings a running task's status and `inputRequests` in line with its outstanding
    /// questions.
    async fn sync_questions(&self, running: &Running) {
        let mut record = running.record.lock().await;
        if record.is_terminal() {
            return;
        }
        let outstanding = running.rounds.outstanding();
        let requests: JsonObject = outstanding
            .iter()
            .map(|q| {
                let request = serde_json::from_str(q.request.get()).unwrap_or(Value::Null);
                (q.key.clone(), request)
            })
            .collect();
        let (status, requests) = if requests.is_empty() {
            (TaskStatus::Working, None)
        } else {
            (TaskStatus::InputRequired, Some(requests))
        };
        let resume = self.seal_replay(&record, running.call.as_ref(), &running.rounds);
        if record.task.status == status && record.input_requests == requests && resume.is_none() {
            return;
        }
        let mut next = record.clone();
        if next.task.status != status || next.input_requests != requests {
            next.task.status = status;
            next.task.status_message = None;
            next.task.last_updated_at = timestamp();
            next.input_requests = requests;
        }
        next.resume = resume;
        match self.store().put(next.clone()).await {
            Ok(()) => {
                *record = next.clone();
                drop(record);
                self.announce(&next).await;
            }
            Err(super::TaskStoreError::Fenced(_)) => running.lost.cancel(),
            Err(e) => {
                tracing::error!(task = %record.task.task_id, error = %e, "could not store a task change")
            }
        }
    }

    /// Delivers `responses` to the questions `running` waits on, write-ahead: the record
    /// with the answers in its replay log is written under the task's lease first, and
    /// only then do the answers reach the tool (whose `after` may follow at once). A write
    /// that fails — the store is down, or another process holds the task now — delivers
    /// nothing and is an error, so an answer acknowledged here survives this process.
    async fn deliver(&self, running: &Running, responses: &JsonObject) -> Result<(), ErrorObject> {
        let mut record = running.record.lock().await;
        if record.is_terminal() {
            return Ok(());
        }
        let mut carried = running.rounds.snapshot();
        if carried.answer_pending(responses).is_empty() {
            return Ok(());
        }
        if running.lost.is_cancelled() {
            return Err(ErrorObject::internal(
                "the task is moving to another server process: send the answers again",
            ));
        }
        let mut next = record.clone();
        next.resume = self.seal_carried(&next, running.call.as_ref(), carried);
        if let Err(e) = self.store().put(next.clone()).await {
            if matches!(e, super::TaskStoreError::Fenced(_)) {
                running.lost.cancel();
            }
            return Err(ErrorObject::internal(format!(
                "the answers could not be recorded ({e}): send them again"
            )));
        }
        *record = next;
        drop(record);
        running.rounds.answer(responses);
        self.sync_questions(running).await;
        Ok(())
    }

    /// Stops task `id` running here because its lease was lost (a finished task goes on
    /// writing its end). Returns whether it runs here.
    pub(super) fn lose_extension(&self, id: &str) -> bool {
        match self.running_extension(id) {
            Some(running) => {
                running.lost.cancel();
                true
            }
            None => false,
        }
    }

    /// Moves a running task to a terminal status (unless it already has one): in memory
    /// first (`tasks/get` answers from there), then durably in the store.
    async fn settle(
        &self,
        running: &Running,
        status: TaskStatus,
        message: Option<String>,
        outcome: Option<TaskOutcome>,
    ) {
        let next = {
            let mut record = running.record.lock().await;
            if record.is_terminal() {
                return;
            }
            let mut next = record.clone();
            next.task.status = status;
            next.task.status_message = message;
            next.task.last_updated_at = timestamp();
            next.input_requests = None;
            next.resume = None;
            next.outcome = outcome;
            *record = next.clone();
            next
        };
        let id = &next.task.task_id;
        match self.write_durably(&next).await {
            Ok(()) => self.announce(&next).await,
            Err(e) => {
                // Settled elsewhere, or another process holds it now: the store's record
                // stands, and this one is dropped.
                tracing::error!(task = %id, error = %e, "the task's end here was not stored");
                if let Ok(Some(stored)) = self.store().get(id).await {
                    *running.record.lock().await = stored;
                }
            }
        }
    }

    /// Every later change of an extension task, as `(task id, DetailedTask)`.
    pub(crate) fn task_statuses(&self) -> tokio::sync::broadcast::Receiver<(String, Value)> {
        self.statuses.subscribe()
    }

    /// The current `DetailedTask` of `id`, if it is known to `owner`.
    pub(crate) async fn extension_detail(
        self: &Arc<Self>,
        id: &str,
        owner: Option<&str>,
    ) -> Option<Value> {
        match self.find(id, owner).await.ok()? {
            Found::Running(running) => Some(detailed(&*running.record.lock().await)),
            Found::Stored(record) | Found::Elsewhere(record) => Some(detailed(&record)),
        }
    }

    fn running_extension(&self, id: &str) -> Option<Arc<Running>> {
        lock(&self.extension).get(id).cloned()
    }

    /// Whether task `id` is known and belongs to a caller other than `owner`.
    pub(crate) async fn extension_foreign(&self, id: &str, owner: Option<&str>) -> bool {
        let task_owner = match self.running_extension(id) {
            Some(running) => running.record.lock().await.owner.clone(),
            None => match self.store().get(id).await {
                Ok(Some(record)) => record.owner,
                _ => return false,
            },
        };
        task_owner.as_deref() != owner
    }

    /// The task `id` as `owner` may see it: another principal's task is not found, as an
    /// unknown one.
    async fn find(self: &Arc<Self>, id: &str, owner: Option<&str>) -> Result<Found, ErrorObject> {
        let found = self.find_any(id).await?;
        let task_owner = match &found {
            Found::Running(running) => running.record.lock().await.owner.clone(),
            Found::Stored(record) | Found::Elsewhere(record) => record.owner.clone(),
        };
        if task_owner.as_deref() != owner {
            return Err(ErrorObject::task_not_found(id));
        }
        Ok(found)
    }

    /// The task `id`: running here (perhaps resumed just now), running on another replica
    /// (its stored record), or its stored record (not found if unknown or expired; a task no
    /// process runs and that cannot be resumed is settled as failed).
    ///
    /// A task that is not finished and does not run here is claimed first
    /// ([`TaskStore::claim`](super::TaskStore::claim)): only the process that gets its lease
    /// resumes it, so exactly one replica runs it; while another live replica holds it, it
    /// is answered from the store.
    async fn find_any(self: &Arc<Self>, id: &str) -> Result<Found, ErrorObject> {
        if let Some(running) = self.running_extension(id) {
            return Ok(Found::Running(running));
        }
        self.purge().await;
        let record = self
            .store()
            .get(id)
            .await
            .map_err(ErrorObject::internal)?
            .ok_or_else(|| ErrorObject::task_not_found(id))?;
        if record.is_expired(now_ms()) {
            return Err(ErrorObject::task_not_found(id));
        }
        if record.is_terminal() {
            return Ok(Found::Stored(Box::new(record)));
        }
        if let Some(running) = self.running_extension(id) {
            return Ok(Found::Running(running));
        }
        match self
            .store()
            .claim(id)
            .await
            .map_err(ErrorObject::internal)?
        {
            Some(claim) => self.adopt(claim.record, claim.cancel_requested).await,
            // A live replica runs it (or it finished just now): the record read above is
            // its state as of this request (a finished task ignores answers and
            // cancellation, which the store checks).
            None => Ok(Found::Elsewhere(Box::new(record))),
        }
    }

    /// Runs here a task whose lease this process just took (its holder died, or the store
    /// has one process): cancelled if that was asked, else resumed by replay, else (no
    /// usable replay record: a 2025-11-25 task, other keys, a tool that is gone) failed.
    pub(super) async fn adopt(
        self: &Arc<Self>,
        record: TaskRecord,
        cancel_requested: bool,
    ) -> Result<Found, ErrorObject> {
        let id = record.task.task_id.clone();
        if let Some(running) = self.running_extension(&id) {
            return Ok(Found::Running(running));
        }
        if cancel_requested {
            let mut next = record.clone();
            next.task.status = TaskStatus::Cancelled;
            next.task.status_message = Some("The task was cancelled by request.".into());
            next.task.last_updated_at = timestamp();
            next.input_requests = None;
            next.resume = None;
            next.outcome = None;
            return match self.store().put(next.clone()).await {
                Ok(()) => {
                    self.announce(&next).await;
                    Ok(Found::Stored(Box::new(next)))
                }
                Err(super::TaskStoreError::Terminal(_)) => Ok(Found::Stored(Box::new(
                    self.store()
                        .get(&id)
                        .await
                        .map_err(ErrorObject::internal)?
                        .unwrap_or(record),
                ))),
                Err(e) => Err(ErrorObject::internal(e)),
            };
        }
        if record.resume.is_some()
            && let Some(running) = self.resume(&record).await
        {
            // Answers posted while nobody ran it wait in the store.
            self.collect_input(&id).await;
            return Ok(Found::Running(running));
        }
        Ok(Found::Stored(Box::new(self.settle_orphan(record).await?)))
    }

    /// Delivers the `inputResponses` another replica left in the store for task `id`, if
    /// it runs here (an `Event::TaskInputPosted`, or the store's notice at a lease renewal).
    pub(crate) async fn collect_input(self: &Arc<Self>, id: &str) {
        let Some(running) = self.running_extension(id) else {
            return;
        };
        let responses = match self.store().peek_input(id).await {
            Ok(Some(responses)) => responses,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(task = %id, error = %e, "could not collect posted input");
                return;
            }
        };
        // Taken out of the inbox only once the task's record holds them.
        match self.deliver(&running, &responses).await {
            Ok(()) => {
                let keys: Vec<String> = responses.keys().cloned().collect();
                if let Err(e) = self.store().ack_input(id, &keys).await {
                    tracing::debug!(task = %id, error = %e, "could not clear the task's inbox");
                }
            }
            Err(e) => {
                tracing::warn!(task = %id, error = %e.message, "could not take posted input yet")
            }
        }
    }

    /// Cancels task `id` of the extension if it runs here; returns whether it does.
    pub(crate) fn cancel_extension_here(&self, id: &str) -> bool {
        match self.running_extension(id) {
            Some(running) => {
                running.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Sets how this engine resumes the tasks other processes left behind.
    pub(crate) fn set_resumer(&self, resumer: Arc<dyn Resumer>) {
        let _ = self.resumer.set(resumer);
    }
}

/// Where a task was found.
pub(super) enum Found {
    /// Running in this process.
    Running(Arc<Running>),
    /// Finished (or settled): its stored record.
    Stored(Box<TaskRecord>),
    /// Running on another live replica: its stored record.
    Elsewhere(Box<TaskRecord>),
}
