//! The task engine of one [`Server`](crate::Server): starts task-augmented requests in the
//! background, drives each task's status machine (serialising its transitions and writing
//! every one to the [`TaskStore`]), and answers `tasks/get`, `tasks/list`, `tasks/cancel`
//! and `tasks/result`.

mod requests;

use super::store::{InMemoryTaskStore, TaskOutcome, TaskRecord, TaskStore};
use super::{RELATED_TASK_META, TaskOptions};
use crate::context::TaskScope;
use crate::events::{Event, EventBus};
use crate::on_demand::OnDemand;
use crate::peer::Peer;
use crate::peer::sync::lock;
use crate::protocol::*;
use futures::future::BoxFuture;
use requests::first_text;
use serde_json::{Value, json};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// An RFC 3339 timestamp (UTC, milliseconds) for `createdAt` / `lastUpdatedAt`.
pub(crate) fn timestamp() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// Whether `status` is final.
pub(crate) fn is_terminal(status: TaskStatus) -> bool {
    matches!(
        status,
        TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
    )
}

fn status_name(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
    }
}

/// A task running in this process.
pub(crate) struct LiveTask {
    id: String,
    method: String,
    expires_at: Option<u64>,
    /// The task as it is now; holding the lock serialises transitions.
    state: tokio::sync::Mutex<Task>,
    status: watch::Sender<TaskStatus>,
    cancel: CancellationToken,
    /// The engine of the session that created the task (its messages go there).
    peer: Weak<Peer>,
    /// That session's key.
    session: SessionKey,
    /// The request that created the task.
    origin: RequestId,
    /// Pending `tasks/result` requests (with the session they came on), newest last: the
    /// task's messages go to the newest one made on the task's own session.
    waiting: Mutex<Vec<(SessionKey, RequestId)>>,
    /// Server→client requests the task has outstanding.
    asking: AtomicUsize,
    /// The principal that created the task (`Principal::binding_key`), if any.
    owner: Option<String>,
    /// The outcome, once the task finished: kept here (and served from here) until the
    /// store has it.
    outcome: Mutex<Option<TaskOutcome>>,
}

impl LiveTask {
    /// The task's record as this process knows it (ahead of the store while a terminal
    /// write is retried).
    async fn snapshot(&self) -> TaskRecord {
        TaskRecord {
            task: self.state.lock().await.clone(),
            method: self.method.clone(),
            outcome: lock(&self.outcome).clone(),
            expires_at: self.expires_at,
            input_requests: None,
            resume: None,
            owner: self.owner.clone(),
        }
    }

    /// The request the task's messages belong to: the newest pending `tasks/result`, so
    /// Streamable HTTP delivers them on its stream, else the request that created the task.
    pub(crate) fn route(&self) -> RequestId {
        lock(&self.waiting)
            .iter()
            .rev()
            .find(|(session, _)| *session == self.session)
            .map(|(_, request)| request.clone())
            .unwrap_or_else(|| self.origin.clone())
    }

    /// Adds `_meta["io.modelcontextprotocol/related-task"]` to a request's or notification's
    /// params.
    pub(crate) fn tag(&self, params: &mut Value) {
        if let Value::Object(map) = params {
            let meta = map
                .entry("_meta")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Value::Object(meta) = meta {
                meta.insert(RELATED_TASK_META.to_owned(), json!({ "taskId": self.id }));
            }
        }
    }
}

/// A running task as its call's context sees it: the [`TaskScope`] the engine hands the
/// tool's `Ctx`.
struct TaskHandle {
    engine: Weak<TaskEngine>,
    live: Arc<LiveTask>,
}

impl TaskScope for TaskHandle {
    fn id(&self) -> &str {
        &self.live.id
    }

    fn route(&self) -> RequestId {
        self.live.route()
    }

    fn tag(&self, params: &mut Value) {
        self.live.tag(params)
    }

    fn asking(&self) -> BoxFuture<'_, ()> {
        self.live.asking.fetch_add(1, Ordering::AcqRel);
        Box::pin(self.sync())
    }

    fn answered(&self) -> BoxFuture<'_, ()> {
        self.live.asking.fetch_sub(1, Ordering::AcqRel);
        Box::pin(self.sync())
    }

    fn abandoned(&self) {
        self.live.asking.fetch_sub(1, Ordering::AcqRel);
        if let (Some(engine), Ok(rt)) =
            (self.engine.upgrade(), tokio::runtime::Handle::try_current())
        {
            let live = self.live.clone();
            rt.spawn(async move { engine.sync_input_required(&live).await });
        }
    }
}

impl TaskHandle {
    /// Brings the task's status in line with its outstanding requests.
    async fn sync(&self) {
        if let Some(engine) = self.engine.upgrade() {
            engine.sync_input_required(&self.live).await;
        }
    }
}

/// Identifies a session (request ids are only unique within one): its peer's id.
pub(super) type SessionKey = u64;

/// Removes a `tasks/result` request from a task's waiting list when it ends.
struct WaitingGuard<'a> {
    live: &'a LiveTask,
    entry: (SessionKey, RequestId),
}

impl Drop for WaitingGuard<'_> {
    fn drop(&mut self) {
        lock(&self.live.waiting).retain(|e| *e != self.entry);
    }
}

/// The task engine (one per server).
pub(crate) struct TaskEngine {
    options: TaskOptions,
    store: RwLock<Arc<dyn TaskStore>>,
    live: Mutex<HashMap<String, Arc<LiveTask>>>,
    /// Tasks of the tasks extension (MCP 2026-07-28) running in this process.
    pub(super) extension: Mutex<HashMap<String, Arc<super::extension::Running>>>,
    /// Every change of an extension task, as `(task id, DetailedTask)`, for the
    /// `subscriptions/listen` streams that asked for its `notifications/tasks`.
    pub(super) statuses: tokio::sync::broadcast::Sender<(String, Value)>,
    /// How the server restarts an extension task another process left behind.
    pub(super) resumer: std::sync::OnceLock<Arc<dyn super::extension::Resumer>>,
    /// The bus shared with the other replicas, if the server has one: status changes,
    /// posted input and cancellation requests travel on it.
    pub(super) bus: std::sync::OnceLock<Arc<dyn EventBus>>,
    /// The ids of tasks whose status changed anywhere (from the bus), for requests waiting
    /// on a task another replica runs.
    pub(super) changes: tokio::sync::broadcast::Sender<String>,
    /// The loop taking over the tasks of replicas that died (shared stores only).
    adopter: std::sync::atomic::AtomicBool,
    last_purge: AtomicU64,
    expiries: Arc<Expiries>,
}

/// When the records this engine stored fall due, so they are deleted on time even when no
/// further task request comes (an idle server would otherwise keep every result until the
/// next one).
#[derive(Default)]
struct Expiries {
    /// Due times (ms since the epoch), earliest first.
    due: Mutex<BinaryHeap<Reverse<u64>>>,
    /// An earlier due time was added, or the engine went away.
    changed: Notify,
    sweeper: OnDemand,
}

impl Drop for TaskEngine {
    fn drop(&mut self) {
        self.expiries.changed.notify_one();
    }
}

/// Deletes expired records as they fall due, while the engine exists and has due times.
async fn sweep_expired(engine: Weak<TaskEngine>, expiries: Arc<Expiries>) {
    loop {
        let next = lock(&expiries.due).peek().map(|Reverse(at)| *at);
        if let Some(at) = next {
            let wait = Duration::from_millis(at.saturating_sub(now_ms()));
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = expiries.changed.notified() => {}
            }
        }
        let Some(engine) = engine.upgrade() else {
            return;
        };
        let now = now_ms();
        let fell_due = {
            let mut due = lock(&expiries.due);
            let mut fell_due = false;
            while due.peek().is_some_and(|Reverse(at)| *at <= now) {
                due.pop();
                fell_due = true;
            }
            fell_due
        };
        if fell_due {
            engine.remove_expired(now).await;
        }
        if expiries
            .sweeper
            .should_end(|| lock(&expiries.due).is_empty())
        {
            return;
        }
    }
}

fn store_error(e: super::TaskStoreError) -> ErrorObject {
    ErrorObject::internal(e)
}

impl TaskEngine {
    pub(crate) fn new(options: TaskOptions) -> Arc<Self> {
        Arc::new(TaskEngine {
            options,
            store: RwLock::new(Arc::new(InMemoryTaskStore::new())),
            live: Mutex::new(HashMap::new()),
            extension: Mutex::new(HashMap::new()),
            statuses: tokio::sync::broadcast::channel(256).0,
            resumer: std::sync::OnceLock::new(),
            bus: std::sync::OnceLock::new(),
            changes: tokio::sync::broadcast::channel(256).0,
            adopter: std::sync::atomic::AtomicBool::new(false),
            last_purge: AtomicU64::new(0),
            expiries: Arc::default(),
        })
    }

    pub(crate) fn options(&self) -> &TaskOptions {
        &self.options
    }

    pub(crate) fn set_store(&self, store: Arc<dyn TaskStore>) {
        *self.store.write().unwrap_or_else(|p| p.into_inner()) = store;
    }

    pub(super) fn store(&self) -> Arc<dyn TaskStore> {
        self.store.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Sends task events to the other replicas through `bus` (set once, when the server is
    /// built).
    pub(crate) fn set_bus(&self, bus: Arc<dyn EventBus>) {
        let _ = self.bus.set(bus);
    }

    /// Publishes `event` on the bus. Returns `false` when there is no bus or it failed (the
    /// caller then acts locally; the store stays the truth either way).
    pub(super) async fn signal(&self, event: Event) -> bool {
        let Some(bus) = self.bus.get() else {
            return false;
        };
        match bus.publish(event.clone()).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, ?event, "could not publish a task event");
                false
            }
        }
    }

    /// Tells every replica that `record`'s task changed status (`Event::TaskStatus`), so
    /// their `notifications/tasks` listeners hear it. Without a bus (or when it fails),
    /// this process's listeners hear it directly.
    pub(super) async fn announce(&self, record: &TaskRecord) {
        let event = Event::TaskStatus {
            task_id: record.task.task_id.clone(),
            status: status_name(record.task.status).to_owned(),
        };
        if !self.signal(event).await {
            let _ = self.statuses.send((
                record.task.task_id.clone(),
                super::extension::detailed(record),
            ));
        }
    }

    /// A task's status changed on some replica (an `Event::TaskStatus` off the bus, this
    /// replica's own included): wakes the requests waiting on it, and hands its current
    /// state to this process's `notifications/tasks` listeners, if any.
    pub(crate) async fn on_task_status(self: &Arc<Self>, task_id: &str) {
        let _ = self.changes.send(task_id.to_owned());
        if self.statuses.receiver_count() == 0 {
            return;
        }
        let running = lock(&self.extension).get(task_id).cloned();
        let detail = match running {
            Some(running) => Some(super::extension::detailed(&*running.record.lock().await)),
            None => match self.store().get(task_id).await {
                Ok(record) => record.map(|r| super::extension::detailed(&r)),
                Err(e) => {
                    tracing::warn!(task = %task_id, error = %e, "could not read a task that changed");
                    None
                }
            },
        };
        if let Some(detail) = detail {
            let _ = self.statuses.send((task_id.to_owned(), detail));
        }
    }

    /// Starts, once, the loop that takes over the tasks of replicas that died, if the
    /// store is shared ([`TaskStore::adoption_interval`]). Needs a runtime.
    pub(crate) fn start_adopter(self: &Arc<Self>) {
        let Some(every) = self.store().adoption_interval() else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.adopter.swap(true, Ordering::AcqRel) {
            return;
        }
        let engine = Arc::downgrade(self);
        rt.spawn(async move {
            let mut tick = tokio::time::interval(every.max(Duration::from_millis(10)));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(engine) = engine.upgrade() else {
                    return;
                };
                engine.adopt_expired().await;
            }
        });
    }

    /// Takes over every task whose holder stopped renewing its lease: resumes it by replay,
    /// or settles it (cancelled if that was asked, else failed).
    async fn adopt_expired(self: &Arc<Self>) {
        while self.running() < self.options.max_running {
            match self.store().claim_expired().await {
                Ok(Some(claim)) => {
                    let id = claim.record.task.task_id.clone();
                    tracing::info!(task = %id, "taking over a task whose replica stopped");
                    if let Err(e) = self.adopt(claim.record, claim.cancel_requested).await {
                        tracing::warn!(task = %id, error = %e.message, "could not take over a task");
                    }
                }
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "could not look for tasks to take over");
                    return;
                }
            }
        }
    }

    /// Tasks running in this process (of both eras).
    pub(crate) fn running(&self) -> usize {
        lock(&self.live).len() + lock(&self.extension).len()
    }

    /// How many tasks running here belong to one caller: the principal `owner`, or without
    /// one, the 2025-11-25 session `session` (`None`: a caller without identity, none).
    pub(super) fn running_of(&self, owner: Option<&str>, session: Option<SessionKey>) -> usize {
        match (owner, session) {
            (Some(owner), _) => {
                let live = lock(&self.live)
                    .values()
                    .filter(|t| t.owner.as_deref() == Some(owner))
                    .count();
                let extension = lock(&self.extension)
                    .values()
                    .filter(|t| t.owner.as_deref() == Some(owner))
                    .count();
                live + extension
            }
            (None, Some(session)) => lock(&self.live)
                .values()
                .filter(|t| t.owner.is_none() && t.session == session)
                .count(),
            (None, None) => 0,
        }
    }

    /// The ids of the tasks running in this process (of both eras).
    pub(super) fn running_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.live).keys().cloned().collect();
        ids.extend(lock(&self.extension).keys().cloned());
        ids
    }

    fn live(&self, id: &str) -> Option<Arc<LiveTask>> {
        lock(&self.live).get(id).cloned()
    }

    /// Who owns task `id` running in this process: `None` if it does not run here,
    /// `Some(None)` for a task of an unauthenticated caller.
    pub(crate) fn live_owner(&self, id: &str) -> Option<Option<String>> {
        lock(&self.live).get(id).map(|live| live.owner.clone())
    }

    /// Deletes expired records, at most once a second.
    pub(super) async fn purge(&self) {
        let now = now_ms();
        let last = self.last_purge.load(Ordering::Relaxed);
        if now.saturating_sub(last) < 1000
            || self
                .last_purge
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        self.remove_expired(now).await;
    }

    async fn remove_expired(&self, now: u64) {
        self.last_purge.store(now, Ordering::Relaxed);
        if let Err(e) = self.store().remove_expired(now).await {
            tracing::warn!(error = %e, "could not delete expired tasks");
        }
    }

    /// Has the record stored now deleted soon after `at`, even if no request comes.
    pub(super) fn expire_at(self: &Arc<Self>, at: u64) {
        let earliest = {
            let mut due = lock(&self.expiries.due);
            let earliest = due.peek().is_none_or(|Reverse(first)| at < *first);
            due.push(Reverse(at));
            earliest
        };
        let mut started = false;
        self.expiries.sweeper.start(|| {
            started = true;
            tokio::spawn(sweep_expired(Arc::downgrade(self), self.expiries.clone()));
        });
        if earliest && !started {
            self.expiries.changed.notify_one();
        }
    }

    /// Creates a task for a request and runs `work` (given the task) in the background.
    /// Returns the new task, `working`.
    pub(crate) async fn start<F, Fut>(
        self: &Arc<Self>,
        peer: &Arc<Peer>,
        origin: RequestId,
        method: &str,
        requested_ttl: Option<u64>,
        owner: Option<String>,
        work: F,
    ) -> Result<Task, ErrorObject>
    where
        F: FnOnce(Arc<dyn TaskScope>, CancellationToken) -> Fut,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.purge().await;
        self.admit_task(owner.as_deref(), Some(peer.id())).await?;
        let ttl = self.options.ttl_for(requested_ttl);
        let created = timestamp();
        let task = Task {
            task_id: uuid::Uuid::new_v4().to_string(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: created.clone(),
            last_updated_at: created,
            ttl,
            poll_interval: Some(self.options.poll_interval.as_millis() as u64),
        };
        let expires_at = ttl.map(|ms| now_ms().saturating_add(ms));
        let live = Arc::new(LiveTask {
            id: task.task_id.clone(),
            method: method.to_owned(),
            expires_at,
            state: tokio::sync::Mutex::new(task.clone()),
            status: watch::channel(TaskStatus::Working).0,
            cancel: CancellationToken::new(),
            peer: Arc::downgrade(peer),
            session: peer.id(),
            origin,
            waiting: Mutex::new(Vec::new()),
            asking: AtomicUsize::new(0),
            owner: owner.clone(),
            outcome: Mutex::new(None),
        });
        let record = TaskRecord {
            task: task.clone(),
            method: method.to_owned(),
            outcome: None,
            expires_at,
            input_requests: None,
            resume: None,
            owner,
        };
        self.store().put(record).await.map_err(store_error)?;
        if let Some(at) = expires_at {
            self.expire_at(at);
        }
        lock(&self.live).insert(task.task_id.clone(), live.clone());
        let handle: Arc<dyn TaskScope> = Arc::new(TaskHandle {
            engine: Arc::downgrade(self),
            live: live.clone(),
        });
        let fut = work(handle, live.cancel.clone());
        // The task's requests to the client are spans under the call's (feature `otel`).
        #[cfg(feature = "otel")]
        let fut =
            opentelemetry::trace::FutureExt::with_context(fut, opentelemetry::Context::current());
        tokio::spawn(self.clone().run(live, fut));
        Ok(task)
    }

    /// Runs a 2025-11-25 task's work to its end (or its ttl, or its cancellation) and
    /// settles it; the task leaves the live set then.
    async fn run(
        self: Arc<Self>,
        live: Arc<LiveTask>,
        fut: impl Future<Output = Result<Value, ErrorObject>>,
    ) {
        let engine = self;
        let deadline = async {
            match live.expires_at {
                Some(at) => {
                    tokio::time::sleep(Duration::from_millis(at.saturating_sub(now_ms()))).await
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            _ = live.cancel.cancelled() => {}
            _ = deadline => {
                let error = ErrorObject::internal("the task's ttl ran out before it finished");
                engine
                    .finish(&live, TaskStatus::Failed, Some(error.message.clone()), TaskOutcome::Error(error))
                    .await;
            }
            outcome = fut => {
                let (status, message, outcome) = match outcome {
                    Ok(result) => {
                        let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
                        let message = failed.then(|| first_text(&result)).flatten();
                        let status = if failed { TaskStatus::Failed } else { TaskStatus::Completed };
                        (status, message, TaskOutcome::Result(result))
                    }
                    Err(error) => (TaskStatus::Failed, Some(error.message.clone()), TaskOutcome::Error(error)),
                };
                engine.finish(&live, status, message, outcome).await;
            }
        }
        live.cancel.cancel();
        let ended = live.snapshot().await;
        if is_terminal(ended.task.status) {
            // Finished or cancelled: written durably while the task still answers from here.
            engine.store_end(&live, &ended).await;
            crate::capacity::remove(&mut lock(&engine.live), &live.id);
        } else {
            // Stopped because its lease was lost: whoever holds the task now settles it.
            crate::capacity::remove(&mut lock(&engine.live), &live.id);
            if let Err(e) = engine.store().release(&live.id).await {
                tracing::debug!(task = %live.id, error = %e, "could not release a lost lease");
            }
        }
    }

    /// Stops the 2025-11-25 task `id` running here because its lease was lost, unless it
    /// finished (its terminal write goes on). Returns whether it stopped one.
    pub(super) fn lose_live(&self, id: &str) -> bool {
        let Some(live) = self.live(id) else {
            return false;
        };
        // A finished task has its outcome: its terminal write is under way.
        if lock(&live.outcome).is_some() || live.cancel.is_cancelled() {
            return false;
        }
        // Gone from here at once: a `tasks/result` waiting on it reads the store next.
        crate::capacity::remove(&mut lock(&self.live), id);
        live.cancel.cancel();
        true
    }

    /// Moves `live` to a terminal status with its outcome.
    async fn finish(
        &self,
        live: &LiveTask,
        status: TaskStatus,
        message: Option<String>,
        outcome: TaskOutcome,
    ) {
        self.transition(live, |_| Some((status, message)), Some(outcome))
            .await;
    }

    /// Applies `change` (given the current status, returns the new status and message, or
    /// `None` to leave it) unless the task is terminal; writes the record and tells the
    /// requestor. Returns the task after the change, or `None` if nothing changed.
    ///
    /// A terminal change is made in memory (the requestor hears it, and `tasks/get` and
    /// `tasks/result` are answered from memory); the task's run then writes it durably
    /// before the task leaves this process.
    async fn transition(
        &self,
        live: &LiveTask,
        change: impl FnOnce(TaskStatus) -> Option<(TaskStatus, Option<String>)>,
        outcome: Option<TaskOutcome>,
    ) -> Option<Task> {
        let mut task = live.state.lock().await;
        if is_terminal(task.status) {
            return None;
        }
        let (status, message) = change(task.status)?;
        task.status = status;
        task.status_message = message;
        task.last_updated_at = timestamp();
        if is_terminal(status) {
            *lock(&live.outcome) = outcome;
            let finished = task.clone();
            drop(task);
            self.tell(live, status, &finished).await;
            return Some(finished);
        }
        let record = TaskRecord {
            task: task.clone(),
            method: live.method.clone(),
            outcome,
            expires_at: live.expires_at,
            input_requests: None,
            resume: None,
            owner: live.owner.clone(),
        };
        match self.store().put(record.clone()).await {
            Ok(()) => self.announce_legacy(&record).await,
            Err(e) => {
                tracing::error!(task = %live.id, error = %e, "could not store a task transition")
            }
        }
        self.tell(live, status, &task).await;
        Some(task.clone())
    }

    /// Tells the task's waiters and its requestor that it is now `task`.
    async fn tell(&self, live: &LiveTask, status: TaskStatus, task: &Task) {
        live.status.send_replace(status);
        if let Some(peer) = live.peer.upgrade() {
            let params = serde_json::to_value(GetTaskResult::new(task.clone())).ok();
            peer.notify(methods::TASKS_STATUS, params, Some(live.route()))
                .await;
        }
    }

    /// Writes a finished task's record durably (see [`TaskEngine::write_durably`]).
    async fn store_end(&self, live: &LiveTask, record: &TaskRecord) {
        match self.write_durably(record).await {
            Ok(()) => self.announce_legacy(record).await,
            Err(super::TaskStoreError::Terminal(_)) => {
                tracing::warn!(task = %live.id, "the task was settled elsewhere first; its end here is dropped")
            }
            Err(e) => {
                tracing::error!(task = %live.id, error = %e, "could not store the task's end")
            }
        }
    }

    /// Publishes a 2025-11-25 task's status change on the bus, if there is one (its own
    /// session hears `notifications/tasks/status` directly).
    async fn announce_legacy(&self, record: &TaskRecord) {
        if self.bus.get().is_some() {
            self.signal(Event::TaskStatus {
                task_id: record.task.task_id.clone(),
                status: status_name(record.task.status).to_owned(),
            })
            .await;
        }
    }

    /// Puts the task in `input_required` while it has server→client requests outstanding,
    /// back in `working` when it has none.
    pub(crate) async fn sync_input_required(&self, live: &LiveTask) {
        self.transition(
            live,
            |current| {
                let want = if live.asking.load(Ordering::Acquire) > 0 {
                    TaskStatus::InputRequired
                } else {
                    TaskStatus::Working
                };
                (current != want).then_some((want, None))
            },
            None,
        )
        .await;
    }
}

#[cfg(test)]
mod tests {
    use super::requests::{decode_cursor, encode_cursor};
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(
            decode_cursor(&encode_cursor("abc")).ok().as_deref(),
            Some("abc")
        );
        assert_eq!(
            decode_cursor("garbage").map_err(|e| e.code),
            Err(INVALID_PARAMS)
        );
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let t = timestamp();
        assert!(t.ends_with('Z') && t.contains('T'), "{t}");
        assert!(humantime::parse_rfc3339(&t).is_ok());
    }
}
