//! Where tasks live: the [`TaskStore`] trait, the record it keeps, and the in-memory default.

use crate::capacity::ReleaseSpare;
use crate::protocol::{ErrorObject, JsonObject, Task, TaskStatus};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

/// How a task's underlying request ended: exactly what it would have answered.
///
/// ```
/// use tracksuit::{protocol::CallToolResult, task::TaskOutcome};
/// let outcome = TaskOutcome::Result(CallToolResult::text("done").into());
/// let json = serde_json::to_value(&outcome).unwrap();
/// assert_eq!(json["result"]["content"][0]["text"], "done");
/// assert_eq!(serde_json::from_value::<TaskOutcome>(json).unwrap(), outcome);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TaskOutcome {
    /// A JSON-RPC result (for `tools/call`, a `CallToolResult`, `isError` or not).
    Result(Value),
    /// A JSON-RPC error.
    Error(ErrorObject),
}

/// One task as a store keeps it.
///
/// ```
/// use tracksuit::task::{InMemoryTaskStore, TaskRecord, TaskStore};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let record: TaskRecord = serde_json::from_value(serde_json::json!({
///     "task": {"taskId": "t1", "status": "working", "ttl": 60000,
///              "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z"},
///     "method": "tools/call",
///     "expiresAt": 1767225660000u64,
/// }))?;
/// assert!(!record.is_terminal());
/// let store = InMemoryTaskStore::new();
/// store.put(record.clone()).await?;
/// assert_eq!(store.get("t1").await?, Some(record));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// The task as `tasks/get` reports it.
    pub task: Task,
    /// The request it wraps (`tools/call`).
    pub method: String,
    /// The outcome, once the task is `completed` or `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<TaskOutcome>,
    /// When the task may be deleted, in milliseconds since the Unix epoch (`None`: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// Tasks extension (MCP 2026-07-28) only: the requests the task waits on while it is
    /// `input_required` (its `inputRequests`, by key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<JsonObject>,
    /// Tasks extension only: the sealed replay record of a running task (the call, its
    /// answers so far and a handoff tool's `before` state, encrypted with the server's
    /// state keys), rewritten after every exchange so that another process with the same
    /// keys can resume the task by replay when its own process died.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
    /// Who created the task (the principal's `binding_key`), when the request was
    /// authenticated: only that principal finds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

impl TaskRecord {
    /// Whether the record's ttl has run out at `now_ms`.
    ///
    /// ```
    /// # use tracksuit::task::TaskRecord;
    /// # use tracksuit::protocol::{Task, TaskStatus};
    /// let task = Task {
    ///     task_id: "t".into(), status: TaskStatus::Working, status_message: None,
    ///     created_at: "2025-11-25T10:30:00Z".into(), last_updated_at: "2025-11-25T10:30:00Z".into(),
    ///     ttl: Some(1000), poll_interval: None,
    /// };
    /// let record = TaskRecord {
    ///     task, method: "tools/call".into(), outcome: None, expires_at: Some(5), input_requests: None, resume: None,
    ///     owner: None,
    /// };
    /// assert!(!record.is_expired(4));
    /// assert!(record.is_expired(5));
    /// ```
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at.is_some_and(|at| now_ms >= at)
    }

    /// Whether the task reached a terminal status (`completed`, `failed`, `cancelled`):
    /// then its record never changes again.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.task.status,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The check every [`TaskStore::put`] makes: a record stored with a terminal status is
/// never changed (an identical write is accepted, so a retried write succeeds).
///
/// ```
/// # use tracksuit::task::{check_put, TaskRecord, TaskStoreError};
/// # use tracksuit::protocol::{Task, TaskStatus};
/// let task = Task {
///     task_id: "t".into(), status: TaskStatus::Completed, status_message: None,
///     created_at: "2025-11-25T10:30:00Z".into(), last_updated_at: "2025-11-25T10:30:00Z".into(),
///     ttl: None, poll_interval: None,
/// };
/// let done = TaskRecord {
///     task, method: "tools/call".into(), outcome: None, expires_at: None, input_requests: None, resume: None,
///     owner: None,
/// };
/// let mut again = done.clone();
/// again.task.status = TaskStatus::Failed;
/// assert!(check_put(Some(&done), &done).is_ok());
/// assert!(matches!(check_put(Some(&done), &again), Err(TaskStoreError::Terminal(_))));
/// assert!(check_put(None, &again).is_ok());
/// ```
pub fn check_put(stored: Option<&TaskRecord>, new: &TaskRecord) -> Result<(), TaskStoreError> {
    match stored {
        Some(old) if old.is_terminal() && old != new => {
            Err(TaskStoreError::Terminal(old.task.task_id.clone()))
        }
        _ => Ok(()),
    }
}

/// Why a store operation failed.
///
/// ```
/// use tracksuit::task::{InMemoryTaskStore, TaskStore, TaskStoreError};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let store = InMemoryTaskStore::new();
/// let err = store.list(Some("no-such-task"), 10).await.unwrap_err();
/// assert!(matches!(err, TaskStoreError::UnknownCursor));
/// assert_eq!(err.to_string(), "unknown cursor");
/// # }
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// `list` was given a cursor naming no task (it expired, or the cursor is forged).
    #[error("unknown cursor")]
    UnknownCursor,
    /// The backend failed (I/O, database).
    #[error("task store: {0}")]
    Backend(String),
    /// A write tried to change a task that already reached a terminal status.
    #[error("task {0} already reached a terminal status, which never changes")]
    Terminal(String),
    /// The store is held by another live process (SQLite: one process per database file).
    #[error("task store in use: {0}")]
    InUse(String),
    /// The write was refused by the lease fence: this process no longer holds the task's
    /// lease (another process claimed it, bumping its lease epoch, or this process gave it
    /// up). Nothing was written; the task belongs to whoever holds it now.
    #[error("task {0} is leased to another process: this process's write was refused")]
    Fenced(String),
    /// The store holds as many records as it may ([`InMemoryTaskStore::max_records`]);
    /// nothing was written.
    #[error("the task store holds as many tasks as it may ({0}); try again once some expire")]
    Full(usize),
    /// The store was set up wrongly (a SQLite task table name that is not a plain
    /// identifier); nothing was opened.
    #[error("invalid task store setting: {0}")]
    Invalid(String),
}

/// One page of `tasks/list`.
///
/// ```
/// use tracksuit::task::{InMemoryTaskStore, TaskRecord, TaskStore};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let record = |id: &str| -> TaskRecord { serde_json::from_value(serde_json::json!({
/// #     "task": {"taskId": id, "status": "working", "ttl": null, "createdAt": "", "lastUpdatedAt": ""},
/// #     "method": "tools/call"})).unwrap() };
/// let store = InMemoryTaskStore::new();
/// for id in ["a", "b", "c"] {
///     store.put(record(id)).await?;
/// }
/// let first = store.list(None, 2).await?;
/// assert_eq!((first.records.len(), first.more), (2, true));
/// let rest = store.list(Some(&first.records[1].task.task_id), 2).await?; // the cursor
/// assert_eq!((rest.records[0].task.task_id.as_str(), rest.more), ("c", false));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskPage {
    /// The records, oldest first.
    pub records: Vec<TaskRecord>,
    /// Whether more follow the last one.
    pub more: bool,
}

/// Where a server keeps its tasks. The runtime serialises the transitions of each task, so a
/// store only needs to read and write records atomically.
///
/// Implement it to keep tasks in your own database; [`InMemoryTaskStore`] is the default
/// and `SqliteTaskStore` (feature `sqlite`) keeps them in a file across restarts. Methods
/// return boxed futures so the trait can be used as `Arc<dyn TaskStore>`.
///
/// ```
/// use tracksuit::task::{InMemoryTaskStore, TaskStore};
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let store = InMemoryTaskStore::new();
/// assert!(store.get("nope").await.unwrap().is_none());
/// # });
/// ```
pub trait TaskStore: Send + Sync + 'static {
    /// Inserts or replaces the record of `record.task.task_id`. A new id is listed after
    /// every id already stored. A stored record whose status is terminal never changes:
    /// replacing it with a different record fails with [`TaskStoreError::Terminal`] (see
    /// [`check_put`]), atomically with the write. A store that leases tasks to processes
    /// writes a task leased to another live process not at all and says so
    /// ([`TaskStoreError::Fenced`]): a refused write is never reported as written. The
    /// runtime retries a failed terminal write (see
    /// [`write_retry_cap`](Self::write_retry_cap)), so `put` may see the same record again.
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The record of `task_id`, expired or not.
    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Up to `limit` records in creation order, starting after the task `after` (from the
    /// start if `None`). Fails with [`TaskStoreError::UnknownCursor`] if `after` is not stored.
    fn list<'a>(
        &'a self,
        after: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>>;

    /// Deletes every record expired at `now_ms`; returns how many.
    fn remove_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>>;

    /// How many records unexpired at `now_ms` belong to `owner` (their
    /// [`TaskRecord::owner`]), for `TaskOptions::max_stored_per_caller`. The default counts
    /// nothing (`None`): a store that cannot count leaves that cap unenforced.
    fn count_owned<'a>(
        &'a self,
        owner: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        let _ = (owner, now_ms);
        Box::pin(async { Ok(None) })
    }

    // Leases: which process runs a task. A store shared by several processes (replicas)
    // gives each task to one of them at a time; the defaults suit a store only one process
    // uses, where the process that created a task runs it.

    /// Takes the lease on `task_id` for this store's process, if the task is not terminal
    /// and its lease is free, expired or already this process's. Returns the record then
    /// (and whether a cancellation was asked for), `None` if another process holds it.
    /// The default claims any stored, non-terminal task.
    fn claim<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Claim>, TaskStoreError>> {
        Box::pin(async move {
            Ok(self
                .get(task_id)
                .await?
                .filter(|r| !is_final(r.task.status))
                .map(|record| Claim {
                    record,
                    cancel_requested: false,
                }))
        })
    }

    /// Takes the lease on one non-terminal task whose holder stopped renewing it (its
    /// process died), for this store's process to resume or settle it. The default finds
    /// none.
    fn claim_expired(&self) -> BoxFuture<'_, Result<Option<Claim>, TaskStoreError>> {
        Box::pin(async { Ok(None) })
    }

    /// Gives up this process's lease on `task_id` (a terminal write releases it anyway).
    fn release<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let _ = task_id;
        Box::pin(async { Ok(()) })
    }

    /// Who holds `task_id` now, if anyone.
    fn lease<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Lease>, TaskStoreError>> {
        let _ = task_id;
        Box::pin(async { Ok(None) })
    }

    /// Records that `task_id` should be cancelled, for the process running it to see
    /// (through [`notices`](Self::notices)). Returns whether the request
    /// was recorded: `false` for a terminal or unknown task, and by default, where only
    /// the local process can run it (it cancels in-process).
    fn request_cancel<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let _ = task_id;
        Box::pin(async { Ok(false) })
    }

    /// Leaves `responses` (a task's `inputResponses`, by key) for the process holding
    /// `task_id`, which collects them with [`take_input`](Self::take_input); responses
    /// posted earlier and not yet taken are kept, a later one replacing an earlier one of
    /// the same key. Returns whether they were stored: `false` for a terminal or unknown
    /// task, and by default (only the local process runs tasks; it takes answers directly).
    fn post_input<'a>(
        &'a self,
        task_id: &'a str,
        responses: crate::protocol::JsonObject,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let _ = (task_id, responses);
        Box::pin(async { Ok(false) })
    }

    /// Takes (and removes) the responses posted for `task_id`, if this process holds it.
    fn take_input<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<crate::protocol::JsonObject>, TaskStoreError>> {
        let _ = task_id;
        Box::pin(async { Ok(None) })
    }

    /// How often a process should look for tasks whose holder died
    /// ([`claim_expired`](Self::claim_expired)) to resume or settle them, even when nobody
    /// asks about them. `None` (the default): never — the store has one process, which
    /// finds its leftovers when they are asked about.
    fn adoption_interval(&self) -> Option<std::time::Duration> {
        None
    }

    /// News for the tasks this process holds: a cancellation was requested or input was
    /// posted by another process, or this process lost a task's lease
    /// ([`TaskNotice::LeaseLost`]). Each is announced once. `None` (the default): nothing
    /// comes from elsewhere.
    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<TaskNotice>> {
        None
    }

    /// Whether this process has given up (or no longer holds) the lease of `task_id`, a
    /// task it runs: what [`TaskNotice::LeaseLost`] announced, for a listener that missed
    /// notices. The default (a store without leases): never.
    fn lease_lost(&self, task_id: &str) -> bool {
        let _ = task_id;
        false
    }

    /// Reads the responses posted for `task_id` without removing them, if this process
    /// holds it; [`ack_input`](Self::ack_input) removes them once the holder has written
    /// them into the task's record, so a holder that dies in between loses nothing. The
    /// default takes them at once ([`take_input`](Self::take_input)).
    fn peek_input<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<crate::protocol::JsonObject>, TaskStoreError>> {
        self.take_input(task_id)
    }

    /// Removes the responses under `keys` from `task_id`'s inbox (see
    /// [`peek_input`](Self::peek_input)). The default has nothing to remove.
    fn ack_input<'a>(
        &'a self,
        task_id: &'a str,
        keys: &'a [String],
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let _ = (task_id, keys);
        Box::pin(async { Ok(()) })
    }

    /// The longest pause between two attempts of a task's terminal write that failed (the
    /// runtime retries it with a doubling backoff from 100 ms). Default 5 s; a store with
    /// leases keeps it well under the lease, so a holder gets its write in before anyone may
    /// take the task over after an outage.
    fn write_retry_cap(&self) -> std::time::Duration {
        std::time::Duration::from_secs(5)
    }
}

/// What another process asked of a task this process holds, or that this process lost its
/// lease (see [`TaskStore::notices`]).
///
/// ```
/// use tracksuit::task::{InMemoryTaskStore, TaskNotice, TaskStore};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// // A single-process store has no news from elsewhere.
/// assert!(InMemoryTaskStore::new().notices().is_none());
/// // A shared store (e.g. `PostgresTaskStore`) broadcasts what other replicas asked.
/// let (tx, mut notices) = tokio::sync::broadcast::channel(16);
/// tx.send(TaskNotice::CancelRequested("t1".into())).unwrap();
/// match notices.recv().await.unwrap() {
///     TaskNotice::CancelRequested(id) => assert_eq!(id, "t1"), // cancel the local run
///     TaskNotice::InputPosted(id) => panic!("collect input for {id} with take_input"),
///     TaskNotice::LeaseLost(id) => panic!("stop the local run of {id}"),
///     _ => unreachable!(),
/// }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskNotice {
    /// Someone asked to cancel the task.
    CancelRequested(String),
    /// Someone posted `inputResponses` for it: collect them with [`TaskStore::take_input`].
    InputPosted(String),
    /// This process can no longer count on the task's lease: it could not renew it for
    /// two thirds of the lease (measured from when the last successful renewal was sent),
    /// or the store shows it taken over. Stop the local run now, before the lease runs out
    /// in the store and another process may adopt the task; the store refuses this
    /// process's further writes to it once another process claimed it.
    LeaseLost(String),
}

/// Whether `status` is terminal (`completed`, `failed`, `cancelled`).
pub(crate) fn is_final(status: TaskStatus) -> bool {
    matches!(
        status,
        TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
    )
}

/// A task's record, leased to the process that claimed it.
///
/// ```
/// use tracksuit::task::{InMemoryTaskStore, TaskRecord, TaskStore};
/// use tracksuit::protocol::TaskStatus;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let mut record: TaskRecord = serde_json::from_value(serde_json::json!({
/// #     "task": {"taskId": "t1", "status": "working", "ttl": null, "createdAt": "", "lastUpdatedAt": ""},
/// #     "method": "tools/call"})).unwrap();
/// let store = InMemoryTaskStore::new();
/// store.put(record.clone()).await?;
/// let claim = store.claim("t1").await?.expect("a running task can be claimed");
/// assert_eq!((claim.record.task.task_id.as_str(), claim.cancel_requested), ("t1", false));
/// record.task.status = TaskStatus::Completed;
/// store.put(record).await?;
/// assert!(store.claim("t1").await?.is_none()); // terminal tasks are not run again
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The record as stored when the lease was taken.
    pub record: TaskRecord,
    /// Whether someone asked to cancel the task.
    pub cancel_requested: bool,
}

/// Who runs a task, until when.
///
/// ```
/// use tracksuit::task::{InMemoryTaskStore, Lease, TaskStore};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // The in-memory store has one process, so no leases to report...
/// assert_eq!(InMemoryTaskStore::new().lease("t1").await?, None);
/// // ...a store shared by replicas reports the holder and when its lease runs out.
/// let lease = Lease { owner: "replica-2".into(), expires_at: 1_767_225_600_000 };
/// assert!(lease.expires_at > 0 && !lease.owner.is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The holder's id (see the store's documentation for what it is).
    pub owner: String,
    /// When the lease runs out unless renewed, in milliseconds since the Unix epoch (by
    /// the store's clock).
    pub expires_at: u64,
}

/// Tasks in memory: fast, and gone when the process ends.
///
/// ```
/// use tracksuit::task::{InMemoryTaskStore, TaskRecord, TaskStore};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let record = |id: &str, expires_at: u64| -> TaskRecord { serde_json::from_value(serde_json::json!({
/// #     "task": {"taskId": id, "status": "working", "ttl": 1000, "createdAt": "", "lastUpdatedAt": ""},
/// #     "method": "tools/call", "expiresAt": expires_at})).unwrap() };
/// let store = InMemoryTaskStore::new();
/// store.put(record("old", 1_000)).await?;
/// store.put(record("new", 9_000)).await?;
/// assert_eq!(store.remove_expired(5_000).await?, 1); // `old` ran out at 1 000 ms
/// assert_eq!(store.list(None, 10).await?.records.len(), 1);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct InMemoryTaskStore {
    inner: Mutex<Memory>,
    max_records: usize,
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Debug, Default)]
struct Memory {
    next_seq: u64,
    by_id: HashMap<String, (u64, TaskRecord)>,
    order: BTreeMap<u64, String>,
}

impl InMemoryTaskStore {
    /// An empty store holding at most 100 000 records.
    pub fn new() -> Self {
        InMemoryTaskStore {
            inner: Mutex::default(),
            max_records: 100_000,
        }
    }

    /// Caps the records held (at least 1): a new task over it is refused with
    /// [`TaskStoreError::Full`] once expired records are gone, so a flood of tasks cannot
    /// exhaust the process's memory.
    ///
    /// ```
    /// use tracksuit::task::{InMemoryTaskStore, TaskRecord, TaskStore, TaskStoreError};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let record = |id: &str| -> TaskRecord { serde_json::from_value(serde_json::json!({
    /// #     "task": {"taskId": id, "status": "working", "ttl": null, "createdAt": "", "lastUpdatedAt": ""},
    /// #     "method": "tools/call"})).unwrap() };
    /// let store = InMemoryTaskStore::new().max_records(1);
    /// store.put(record("a")).await.unwrap();
    /// store.put(record("a")).await.unwrap(); // an update of a stored task
    /// assert!(matches!(store.put(record("b")).await, Err(TaskStoreError::Full(1))));
    /// # }
    /// ```
    pub fn max_records(mut self, n: usize) -> Self {
        self.max_records = n.max(1);
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        crate::peer::sync::lock(&self.inner)
    }
}

impl TaskStore for InMemoryTaskStore {
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let mut m = self.lock();
        let id = record.task.task_id.clone();
        if let Err(e) = check_put(m.by_id.get(&id).map(|(_, r)| r), &record) {
            return Box::pin(async move { Err(e) });
        }
        if !m.by_id.contains_key(&id) && m.by_id.len() >= self.max_records {
            m.remove_expired(crate::task::engine::now_ms());
            if m.by_id.len() >= self.max_records {
                let max = self.max_records;
                return Box::pin(async move { Err(TaskStoreError::Full(max)) });
            }
        }
        match m.by_id.get_mut(&id) {
            Some(slot) => slot.1 = record,
            None => {
                let seq = m.next_seq;
                m.next_seq += 1;
                m.order.insert(seq, id.clone());
                m.by_id.insert(id, (seq, record));
            }
        }
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let found = self.lock().by_id.get(task_id).map(|(_, r)| r.clone());
        Box::pin(async { Ok(found) })
    }

    fn list<'a>(
        &'a self,
        after: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        let m = self.lock();
        let start = match after {
            None => Ok(0),
            Some(id) => m
                .by_id
                .get(id)
                .map(|(seq, _)| seq + 1)
                .ok_or(TaskStoreError::UnknownCursor),
        };
        let page = start.map(|start| {
            let mut ids = m.order.range(start..).map(|(_, id)| id);
            let records: Vec<TaskRecord> = ids
                .by_ref()
                .take(limit)
                .filter_map(|id| m.by_id.get(id).map(|(_, r)| r.clone()))
                .collect();
            TaskPage {
                records,
                more: ids.next().is_some(),
            }
        });
        Box::pin(async { page })
    }

    fn remove_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        let n = self.lock().remove_expired(now_ms);
        Box::pin(async move { Ok(n) })
    }

    fn count_owned<'a>(
        &'a self,
        owner: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        let n = self
            .lock()
            .by_id
            .values()
            .filter(|(_, r)| r.owner.as_deref() == Some(owner) && !r.is_expired(now_ms))
            .count();
        Box::pin(async move { Ok(Some(n)) })
    }
}

impl Memory {
    /// Deletes the records expired at `now_ms`; returns how many.
    fn remove_expired(&mut self, now_ms: u64) -> usize {
        let expired: Vec<(u64, String)> = self
            .by_id
            .iter()
            .filter(|(_, (_, r))| r.is_expired(now_ms))
            .map(|(id, (seq, _))| (*seq, id.clone()))
            .collect();
        for (seq, id) in &expired {
            self.order.remove(seq);
            self.by_id.remove(id);
        }
        self.by_id.release_spare();
        expired.len()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::protocol::TaskStatus;

    pub(crate) fn record(id: &str, expires_at: Option<u64>) -> TaskRecord {
        TaskRecord {
            task: Task {
                task_id: id.into(),
                status: TaskStatus::Working,
                status_message: None,
                created_at: "2025-11-25T10:30:00Z".into(),
                last_updated_at: "2025-11-25T10:30:00Z".into(),
                ttl: None,
                poll_interval: None,
            },
            method: "tools/call".into(),
            outcome: None,
            expires_at,
            input_requests: None,
            resume: None,
            owner: None,
        }
    }

    /// The behaviour every store must have; the SQLite store's tests run it too.
    pub(crate) async fn exercise(store: &dyn TaskStore) {
        for (i, id) in ["a", "b", "c"].iter().enumerate() {
            store
                .put(record(id, Some(100 + i as u64)))
                .await
                .expect("put");
        }
        let mut b = record("b", Some(101));
        b.task.status = TaskStatus::Completed;
        b.outcome = Some(TaskOutcome::Result(serde_json::json!({"content": []})));
        store.put(b.clone()).await.expect("update");
        assert_eq!(store.get("b").await.expect("get"), Some(b.clone()));
        // A terminal status never changes; writing the same record again is fine.
        store.put(b.clone()).await.expect("identical rewrite");
        for status in [
            TaskStatus::Working,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ] {
            let mut changed = b.clone();
            changed.task.status = status;
            assert!(
                matches!(store.put(changed).await, Err(TaskStoreError::Terminal(ref id)) if id == "b"),
                "a completed task was changed to {status:?}"
            );
        }
        let mut other_outcome = b.clone();
        other_outcome.outcome = Some(TaskOutcome::Result(serde_json::json!({"content": [1]})));
        assert!(matches!(
            store.put(other_outcome).await,
            Err(TaskStoreError::Terminal(_))
        ));
        assert_eq!(store.get("b").await.expect("get"), Some(b));

        let first = store.list(None, 2).await.expect("list");
        let ids: Vec<_> = first
            .records
            .iter()
            .map(|r| r.task.task_id.as_str())
            .collect();
        assert_eq!(
            (ids, first.more),
            (vec!["a", "b"], true),
            "update keeps order"
        );
        let rest = store.list(Some("b"), 2).await.expect("list");
        assert_eq!(rest.records.len(), 1);
        assert!(!rest.more);
        assert!(matches!(
            store.list(Some("zzz"), 2).await,
            Err(TaskStoreError::UnknownCursor)
        ));

        assert_eq!(store.remove_expired(101).await.expect("expire"), 2);
        assert!(store.get("a").await.expect("get").is_none());
        assert!(store.get("c").await.expect("get").is_some());
    }

    #[tokio::test]
    async fn in_memory_store_behaves() {
        exercise(&InMemoryTaskStore::new()).await;
    }
}
