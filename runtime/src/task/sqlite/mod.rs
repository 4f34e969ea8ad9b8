//! [`SqliteTaskStore`]: tasks in an embedded SQLite database file, so finished results
//! survive a server restart.

use super::store::{TaskPage, TaskRecord, TaskStore, TaskStoreError, check_put};
use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A [`TaskStore`] in a SQLite database file (WAL mode). Each record is one row holding
/// its JSON; the file can be opened again by the next run of the server.
///
/// A database file belongs to one live server process at a time, and this is enforced:
/// the store holds an exclusive lock on the file (SQLite `locking_mode = EXCLUSIVE`) from
/// [`open`](Self::open) until it is dropped, so a second process (or a second store in the
/// same process) opening the file fails at once with [`TaskStoreError::InUse`]. When the
/// server restarts, tasks that were still running are reported as `failed` (their work died
/// with the old process), while finished ones keep their results until their ttl runs out.
/// A terminal status is never changed (see [`TaskStore::put`]). To share tasks between
/// replicas, use a store made for it (a database server), not one SQLite file.
///
/// ```
/// use tracksuit::task::{SqliteTaskStore, TaskStore};
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let dir = std::env::temp_dir().join(format!("tracksuit-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let store = SqliteTaskStore::open(dir.join("tasks.db")).unwrap();
/// assert!(store.get("nope").await.unwrap().is_none());
/// # std::fs::remove_dir_all(&dir).ok();
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct SqliteTaskStore {
    conn: Arc<Mutex<Connection>>,
}

fn backend(e: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError::Backend(e.to_string())
}

impl SqliteTaskStore {
    /// Opens (creating if needed) the database at `path` and takes its exclusive lock.
    /// Fails with [`TaskStoreError::InUse`] if another store — in this process or another —
    /// holds the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TaskStoreError> {
        let path = path.as_ref();
        let conn = Connection::open(path).map_err(backend)?;
        // Take the lock first, without waiting: a held file is refused at once.
        let locked = conn.execute_batch(
            "PRAGMA busy_timeout = 0;
             PRAGMA locking_mode = EXCLUSIVE;
             BEGIN EXCLUSIVE;
             COMMIT;",
        );
        if let Err(e) = locked {
            let busy = matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            );
            return Err(if busy {
                TaskStoreError::InUse(format!(
                    "the task database {} is held by another live process (or another store in this one); one server process per database file",
                    path.display()
                ))
            } else {
                backend(e)
            });
        }
        Self::from_connection(conn)
    }

    /// A store on `path` without the exclusive lock (tests only: another connection can
    /// then hold the database's write lock, and writes meet `SQLITE_BUSY` at once).
    #[cfg(test)]
    fn open_shared(path: impl AsRef<Path>) -> Result<Self, TaskStoreError> {
        let conn = Connection::open(path).map_err(backend)?;
        conn.execute_batch("PRAGMA busy_timeout = 0;")
            .map_err(backend)?;
        Self::from_connection(conn)
    }

    /// A store in a private in-memory database (for tests).
    pub fn in_memory() -> Result<Self, TaskStoreError> {
        Self::from_connection(Connection::open_in_memory().map_err(backend)?)
    }

    fn from_connection(conn: Connection) -> Result<Self, TaskStoreError> {
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS tracksuit_tasks (
                 seq        INTEGER PRIMARY KEY AUTOINCREMENT,
                 task_id    TEXT NOT NULL UNIQUE,
                 expires_at INTEGER,
                 record     TEXT NOT NULL
             );
             CREATE INDEX IF NOT EXISTS tracksuit_tasks_expiry
                 ON tracksuit_tasks (expires_at) WHERE expires_at IS NOT NULL;",
        )
        .map_err(backend)?;
        Ok(SqliteTaskStore {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Runs `f` on the connection on the blocking pool (SQLite calls block).
    fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, TaskStoreError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, TaskStoreError>> {
        let conn = self.conn.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || f(&crate::peer::sync::lock(&conn)))
                .await
                .map_err(backend)?
        })
    }
}

fn decode(json: String) -> Result<TaskRecord, TaskStoreError> {
    serde_json::from_str(&json).map_err(backend)
}

impl TaskStore for SqliteTaskStore {
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        self.with(move |conn| {
            let json = serde_json::to_string(&record).map_err(backend)?;
            let expires = record.expires_at.map(|v| v as i64);
            // Read, check and write in one transaction: a terminal record never changes.
            let tx = conn.unchecked_transaction().map_err(backend)?;
            let stored = tx
                .query_row(
                    "SELECT record FROM tracksuit_tasks WHERE task_id = ?1",
                    params![record.task.task_id],
                    |row| row.get::<_, String>(0),
                )
                .optional()
                .map_err(backend)?
                .map(decode)
                .transpose()?;
            check_put(stored.as_ref(), &record)?;
            tx.execute(
                "INSERT INTO tracksuit_tasks (task_id, expires_at, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT (task_id) DO UPDATE SET expires_at = ?2, record = ?3",
                params![record.task.task_id, expires, json],
            )
            .map_err(backend)?;
            tx.commit().map_err(backend)
        })
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let id = task_id.to_owned();
        self.with(move |conn| {
            conn.query_row(
                "SELECT record FROM tracksuit_tasks WHERE task_id = ?1",
                params![id],
                |row| row.get::<_, String>(0),
            )
            .optional()
            .map_err(backend)?
            .map(decode)
            .transpose()
        })
    }

    fn list<'a>(
        &'a self,
        after: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        let after = after.map(str::to_owned);
        self.with(move |conn| {
            let start: i64 = match after {
                None => 0,
                Some(id) => conn
                    .query_row(
                        "SELECT seq FROM tracksuit_tasks WHERE task_id = ?1",
                        params![id],
                        |row| row.get(0),
                    )
                    .optional()
                    .map_err(backend)?
                    .ok_or(TaskStoreError::UnknownCursor)?,
            };
            let mut stmt = conn
                .prepare_cached(
                    "SELECT record FROM tracksuit_tasks WHERE seq > ?1 ORDER BY seq LIMIT ?2",
                )
                .map_err(backend)?;
            let fetch = limit.saturating_add(1).min(i64::MAX as usize) as i64;
            let mut records = stmt
                .query_map(params![start, fetch], |row| row.get::<_, String>(0))
                .map_err(backend)?
                .map(|r| r.map_err(backend).and_then(decode))
                .collect::<Result<Vec<_>, _>>()?;
            let more = records.len() > limit;
            records.truncate(limit);
            Ok(TaskPage { records, more })
        })
    }

    fn remove_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        self.with(move |conn| {
            conn.execute(
                "DELETE FROM tracksuit_tasks WHERE expires_at IS NOT NULL AND expires_at <= ?1",
                params![now_ms as i64],
            )
            .map_err(backend)
        })
    }

    fn count_owned<'a>(
        &'a self,
        owner: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        let owner = owner.to_owned();
        self.with(move |conn| {
            let n: i64 = conn
                .query_row(
                    "SELECT count(*) FROM tracksuit_tasks WHERE json_extract(record, '$.owner') = ?1
                     AND (expires_at IS NULL OR expires_at > ?2)",
                    params![owner, now_ms as i64],
                    |row| row.get(0),
                )
                .map_err(backend)?;
            Ok(Some(usize::try_from(n).unwrap_or(0)))
        })
    }
}

#[cfg(test)]
mod tests;
