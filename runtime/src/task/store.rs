//! Where tasks live: the [`TaskStore`] trait, the record it keeps, and the in-memory default.

use crate::capacity::ReleaseSpare;
use crate::protocol::{ErrorObject, Task};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

/// How a task's underlying request ended: exactly what it would have answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TaskOutcome {
    /// A JSON-RPC result (for `tools/call`, a `CallToolResult`, `isError` or not).
    Result(Value),
    /// A JSON-RPC error.
    Error(ErrorObject),
}

/// One task as a store keeps it.
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
    /// let record = TaskRecord { task, method: "tools/call".into(), outcome: None, expires_at: Some(5), owner: None };
    /// assert!(!record.is_expired(4));
    /// assert!(record.is_expired(5));
    /// ```
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at.is_some_and(|at| now_ms >= at)
    }
}

/// Why a store operation failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// `list` was given a cursor naming no task (it expired, or the cursor is forged).
    #[error("unknown cursor")]
    UnknownCursor,
    /// The backend failed (I/O, database).
    #[error("task store: {0}")]
    Backend(String),
}

/// One page of `tasks/list`.
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
    /// every id already stored.
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
}

/// Tasks in memory: fast, and gone when the process ends.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    inner: Mutex<Memory>,
}

#[derive(Debug, Default)]
struct Memory {
    next_seq: u64,
    by_id: HashMap<String, (u64, TaskRecord)>,
    order: BTreeMap<u64, String>,
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        crate::peer::sync::lock(&self.inner)
    }
}

impl TaskStore for InMemoryTaskStore {
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let mut m = self.lock();
        let id = record.task.task_id.clone();
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
        let mut m = self.lock();
        let expired: Vec<(u64, String)> = m
            .by_id
            .iter()
            .filter(|(_, (_, r))| r.is_expired(now_ms))
            .map(|(id, (seq, _))| (*seq, id.clone()))
            .collect();
        for (seq, id) in &expired {
            m.order.remove(seq);
            m.by_id.remove(id);
        }
        m.by_id.release_spare();
        let n = expired.len();
        Box::pin(async move { Ok(n) })
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
