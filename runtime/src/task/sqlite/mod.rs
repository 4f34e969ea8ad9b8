//! [`SqliteTaskStore`]: tasks in an embedded SQLite database file, so finished results
//! survive a server restart.

use super::store::{TaskPage, TaskRecord, TaskStore, TaskStoreError, check_put};
use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use std::path::Path;
use std::sync::{Arc, Mutex};

mod shared;
use shared::DEFAULT_TABLE;
pub use shared::SharedSqlite;

/// A [`TaskStore`] in a SQLite database file. Each record is one row holding its JSON; the
/// file can be opened again by the next run of the server.
///
/// [`open`](Self::open) makes the file the store's alone (WAL mode), and this is enforced:
/// the store holds an exclusive lock on the file (SQLite `locking_mode = EXCLUSIVE`) until
/// it is dropped, so a second process (or a second store in the same process) opening the
/// file fails at once with [`TaskStoreError::InUse`]. [`shared`](Self::shared) keeps the
/// tasks in one table of a file the application uses too, and holds only that table (see
/// [`SharedSqlite`]). Either way one live store keeps a set of tasks, so when the server
/// restarts, tasks that were still running are reported as `failed` (their work died with
/// the old process), while finished ones keep their results until their ttl runs out.
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
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    conn: Mutex<Connection>,
    sql: Queries,
    /// A shared store's hold on its table (see [`SharedSqlite`]), dropped after `conn`
    /// (in a mutex only so that the store is `Sync`).
    _held: Option<Mutex<Connection>>,
}

fn backend(e: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError::Backend(e.to_string())
}

/// Whether a SQLite error says another connection holds a lock.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Takes `conn`'s file for this connection alone until it closes (`locking_mode =
/// EXCLUSIVE`), without waiting: a held file is refused at once with `in_use`'s message.
fn hold_exclusively(
    conn: &Connection,
    in_use: impl FnOnce() -> String,
) -> Result<(), TaskStoreError> {
    let locked = conn.execute_batch(
        "PRAGMA busy_timeout = 0;
         PRAGMA locking_mode = EXCLUSIVE;
         BEGIN EXCLUSIVE;
         COMMIT;",
    );
    match locked {
        Ok(()) => Ok(()),
        Err(e) if is_busy(&e) => Err(TaskStoreError::InUse(in_use())),
        Err(e) => Err(backend(e)),
    }
}

impl SqliteTaskStore {
    /// Opens (creating if needed) the database at `path` and takes its exclusive lock.
    /// Fails with [`TaskStoreError::InUse`] if another store — in this process or another —
    /// holds the file. To keep tasks in a file the application also uses, see
    /// [`shared`](Self::shared).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TaskStoreError> {
        let path = path.as_ref();
        let conn = Connection::open(path).map_err(backend)?;
        // Take the lock first, without waiting: a held file is refused at once.
        hold_exclusively(&conn, || {
            format!(
                "the task database {} is held by another live process (or another store in this one); one server process per database file",
                path.display()
            )
        })?;
        // Holding the file, refuse it if a shared store holds one of its tables.
        shared::refuse_shared_stores(path)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;",
        )
        .map_err(backend)?;
        Self::on(conn, DEFAULT_TABLE, None)
    }

    /// A store in a private in-memory database (for tests).
    pub fn in_memory() -> Result<Self, TaskStoreError> {
        Self::on(
            Connection::open_in_memory().map_err(backend)?,
            DEFAULT_TABLE,
            None,
        )
    }

    /// A store on a database file the application uses too, in a table of its own (see
    /// [`SharedSqlite`]); the file is not locked, so the application's connections keep
    /// reading and writing their tables.
    ///
    /// ```
    /// use tracksuit::task::{SqliteTaskStore, TaskStore, rusqlite};
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let dir = std::env::temp_dir().join(format!("tracksuit-doc-shared-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("app.db");
    /// let store = SqliteTaskStore::shared(&path).table("myapp_tasks").open().unwrap();
    /// // The application's own connection, on the same file, at the same time.
    /// let app = rusqlite::Connection::open(&path).unwrap();
    /// app.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hi');")
    ///     .unwrap();
    /// assert!(store.get("nope").await.unwrap().is_none());
    /// # drop((store, app));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # });
    /// ```
    pub fn shared(path: impl AsRef<Path>) -> SharedSqlite {
        SharedSqlite::new(path.as_ref())
    }

    /// A store on `conn` keeping its records in `table` (a checked identifier); `held` is
    /// the connection that holds the table for this store, if it is not the file's lock.
    fn on(conn: Connection, table: &str, held: Option<Connection>) -> Result<Self, TaskStoreError> {
        let sql = Queries::on(table);
        conn.execute_batch(&sql.create).map_err(backend)?;
        Ok(SqliteTaskStore {
            inner: Arc::new(Inner {
                conn: Mutex::new(conn),
                sql,
                _held: held.map(Mutex::new),
            }),
        })
    }

    /// Runs `f` on the connection on the blocking pool (SQLite calls block).
    fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection, &Queries) -> Result<T, TaskStoreError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, TaskStoreError>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                f(&crate::peer::sync::lock(&inner.conn), &inner.sql)
            })
            .await
            .map_err(backend)?
        })
    }
}

/// The store's statements on its table (a checked identifier, so putting it in is safe).
#[derive(Debug)]
struct Queries {
    create: String,
    get: String,
    upsert: String,
    seq: String,
    page: String,
    expire: String,
    count: String,
}

impl Queries {
    fn on(t: &str) -> Self {
        // Quoted, so a keyword is a name too; `t` holds no quote (see `check_table`).
        Queries {
            create: format!(
                "CREATE TABLE IF NOT EXISTS \"{t}\" (
                     seq        INTEGER PRIMARY KEY AUTOINCREMENT,
                     task_id    TEXT NOT NULL UNIQUE,
                     expires_at INTEGER,
                     record     TEXT NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS \"{t}_expiry\"
                     ON \"{t}\" (expires_at) WHERE expires_at IS NOT NULL;"
            ),
            get: format!("SELECT record FROM \"{t}\" WHERE task_id = ?1"),
            upsert: format!(
                "INSERT INTO \"{t}\" (task_id, expires_at, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT (task_id) DO UPDATE SET expires_at = ?2, record = ?3"
            ),
            seq: format!("SELECT seq FROM \"{t}\" WHERE task_id = ?1"),
            page: format!("SELECT record FROM \"{t}\" WHERE seq > ?1 ORDER BY seq LIMIT ?2"),
            expire: format!(
                "DELETE FROM \"{t}\" WHERE expires_at IS NOT NULL AND expires_at <= ?1"
            ),
            count: format!(
                "SELECT count(*) FROM \"{t}\" WHERE json_extract(record, '$.owner') = ?1
                 AND (expires_at IS NULL OR expires_at > ?2)"
            ),
        }
    }
}

fn decode(json: String) -> Result<TaskRecord, TaskStoreError> {
    serde_json::from_str(&json).map_err(backend)
}

impl TaskStore for SqliteTaskStore {
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        self.with(move |conn, sql| {
            let json = serde_json::to_string(&record).map_err(backend)?;
            let expires = record.expires_at.map(|v| v as i64);
            // Read, check and write in one transaction: a terminal record never changes.
            // IMMEDIATE: take the write lock first (waiting up to the busy timeout), so a
            // write by another connection between the read and the write cannot fail it.
            let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
                .map_err(backend)?;
            let stored = tx
                .query_row(&sql.get, params![record.task.task_id], |row| {
                    row.get::<_, String>(0)
                })
                .optional()
                .map_err(backend)?
                .map(decode)
                .transpose()?;
            check_put(stored.as_ref(), &record)?;
            tx.execute(&sql.upsert, params![record.task.task_id, expires, json])
                .map_err(backend)?;
            tx.commit().map_err(backend)
        })
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let id = task_id.to_owned();
        self.with(move |conn, sql| {
            conn.query_row(&sql.get, params![id], |row| row.get::<_, String>(0))
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
        self.with(move |conn, sql| {
            let start: i64 = match after {
                None => 0,
                Some(id) => conn
                    .query_row(&sql.seq, params![id], |row| row.get(0))
                    .optional()
                    .map_err(backend)?
                    .ok_or(TaskStoreError::UnknownCursor)?,
            };
            let mut stmt = conn.prepare_cached(&sql.page).map_err(backend)?;
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
        self.with(move |conn, sql| {
            conn.execute(&sql.expire, params![now_ms as i64])
                .map_err(backend)
        })
    }

    fn count_owned<'a>(
        &'a self,
        owner: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        let owner = owner.to_owned();
        self.with(move |conn, sql| {
            let n: i64 = conn
                .query_row(&sql.count, params![owner, now_ms as i64], |row| row.get(0))
                .map_err(backend)?;
            Ok(Some(usize::try_from(n).unwrap_or(0)))
        })
    }
}

#[cfg(test)]
mod tests;
