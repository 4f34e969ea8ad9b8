//! [`SharedSqlite`]: a task store in a database file the application uses too.

use super::{SqliteTaskStore, backend, hold_exclusively};
use crate::task::store::TaskStoreError;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The table a store keeps its tasks in unless told otherwise.
pub(super) const DEFAULT_TABLE: &str = "tracksuit_tasks";

/// The longest table name accepted.
const MAX_TABLE_LEN: usize = 64;

/// How to open a [`SqliteTaskStore`] on a database file the application shares: made by
/// [`SqliteTaskStore::shared`], opened with [`open`](Self::open).
///
/// The store keeps its tasks in one table of the file (`tracksuit_tasks` unless
/// [`table`](Self::table) names another) and locks nothing else: the application's own
/// connections (rusqlite, or sqlx on the same SQLite library) keep reading and writing
/// their tables, and a write that meets another connection's write lock waits up to the
/// [busy timeout](Self::busy_timeout) (5 s by default). The file's journal mode is left as
/// the application set it (WAL is recommended, so readers never wait for a writer).
///
/// One live store per table and file: the store holds a lock on a file beside the database,
/// `<database>-<table>.lock` (the table name in lower case, the database path with symbolic
/// links resolved), until it is dropped. A second store on the same table — in this
/// process or another — fails at once with [`TaskStoreError::InUse`]; the operating system
/// releases the lock when a process dies, so the next process opens the table and, as with
/// [`SqliteTaskStore::open`], reports the tasks that were still running as `failed`. Two
/// stores with different tables share one file without seeing each other's tasks. The
/// lock file is left on disk; it is the lock on it, not its presence, that counts.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::task::{SqliteTaskStore, TaskStoreError};
/// let dir = std::env::temp_dir().join(format!("tracksuit-doc-builder-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("app.db");
/// let store = SqliteTaskStore::shared(&path)
///     .table("jobs_tasks")
///     .busy_timeout(Duration::from_secs(2))
///     .open()
///     .unwrap();
/// // The same table again is refused while the first store lives.
/// let again = SqliteTaskStore::shared(&path).table("jobs_tasks").open();
/// assert!(matches!(again, Err(TaskStoreError::InUse(_))));
/// // A table name must be a plain identifier.
/// let bad = SqliteTaskStore::shared(&path).table("tasks; DROP TABLE notes").open();
/// assert!(matches!(bad, Err(TaskStoreError::Invalid(_))));
/// # drop(store);
/// # std::fs::remove_dir_all(&dir).ok();
/// ```
#[derive(Debug, Clone)]
#[must_use = "a SharedSqlite does nothing until it is opened"]
pub struct SharedSqlite {
    path: PathBuf,
    table: String,
    busy_timeout: Duration,
}

impl SharedSqlite {
    pub(super) fn new(path: &Path) -> Self {
        SharedSqlite {
            path: path.to_owned(),
            table: DEFAULT_TABLE.to_owned(),
            busy_timeout: Duration::from_secs(5),
        }
    }

    /// The table the tasks are kept in (default `tracksuit_tasks`): an ASCII letter or `_`,
    /// then letters, digits or `_`, at most 64 characters, not starting with `sqlite_`
    /// (SQLite's own). Its index is named `<table>_expiry`. Checked by [`open`](Self::open).
    ///
    /// ```
    /// let shared = tracksuit::task::SqliteTaskStore::shared("app.db").table("myapp_tasks");
    /// # let _ = shared;
    /// ```
    pub fn table(mut self, name: impl Into<String>) -> Self {
        self.table = name.into();
        self
    }

    /// How long a statement waits for another connection's lock on the file before it
    /// fails (default 5 s). A failed write of a finished task is retried by the runtime.
    ///
    /// ```
    /// use std::time::Duration;
    /// let shared = tracksuit::task::SqliteTaskStore::shared("app.db")
    ///     .busy_timeout(Duration::from_millis(500));
    /// # let _ = shared;
    /// ```
    pub fn busy_timeout(mut self, wait: Duration) -> Self {
        self.busy_timeout = wait;
        self
    }

    /// Opens (creating if needed) the database file and the table, and takes the table's
    /// lock. Fails with [`TaskStoreError::Invalid`] for a table name that is not a plain
    /// identifier, and with [`TaskStoreError::InUse`] if another live store holds the
    /// table.
    ///
    /// ```
    /// use tracksuit::task::{SqliteTaskStore, TaskStore};
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let dir = std::env::temp_dir().join(format!("tracksuit-doc-open-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let store = SqliteTaskStore::shared(dir.join("app.db")).open().unwrap();
    /// assert_eq!(store.list(None, 10).await.unwrap().records.len(), 0);
    /// # drop(store);
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # });
    /// ```
    pub fn open(self) -> Result<SqliteTaskStore, TaskStoreError> {
        check_table(&self.table)?;
        let conn = Connection::open(&self.path).map_err(backend)?;
        // The file exists now; resolve it so every spelling of its path finds one lock.
        let file = std::fs::canonicalize(&self.path)
            .map_err(|e| backend(format!("{}: {e}", self.path.display())))?;
        let held = hold_table(&file, &self.table)?;
        conn.busy_timeout(self.busy_timeout).map_err(backend)?;
        SqliteTaskStore::on(conn, &self.table, Some(held))
    }
}

/// Refuses a table name that is not a plain identifier (it is put into SQL text).
fn check_table(name: &str) -> Result<(), TaskStoreError> {
    let mut chars = name.chars();
    let starts_well = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let plain = starts_well && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    let reserved = name.to_ascii_lowercase().starts_with("sqlite_");
    if plain && !reserved && name.len() <= MAX_TABLE_LEN {
        Ok(())
    } else {
        Err(TaskStoreError::Invalid(format!(
            "{name:?} is not a usable task table name: an ASCII letter or `_`, then letters, digits or `_`, at most {MAX_TABLE_LEN} characters, not starting with `sqlite_`"
        )))
    }
}

/// Takes the lock file of `table` in the database `file` (canonical): a small SQLite
/// database beside it, held exclusively by the returned connection until it closes.
fn hold_table(file: &Path, table: &str) -> Result<Connection, TaskStoreError> {
    let mut name = file.as_os_str().to_owned();
    // SQLite's names are case-insensitive: `Tasks` and `tasks` are one table, one lock.
    name.push(format!("-{}.lock", table.to_ascii_lowercase()));
    let lock = PathBuf::from(name);
    let conn = Connection::open(&lock).map_err(backend)?;
    hold_exclusively(&conn, || {
        format!(
            "the task table {table} in {} is held by another live store (in this process or another; lock file {}); one live store per table",
            file.display(),
            lock.display()
        )
    })?;
    // A first write makes the lock file a database; the exclusive lock is held throughout.
    conn.execute_batch(
        "PRAGMA journal_mode = MEMORY;
         CREATE TABLE IF NOT EXISTS held (since INTEGER);",
    )
    .map_err(backend)?;
    Ok(conn)
}

/// Fails with [`TaskStoreError::InUse`] if a live shared store holds a table of the
/// database at `path` (one of its `<database>-<table>.lock` files is locked). Called by
/// [`SqliteTaskStore::open`] once it holds the file, so no shared store can start after it.
pub(super) fn refuse_shared_stores(path: &Path) -> Result<(), TaskStoreError> {
    // A file whose path cannot be resolved has no lock files beside it.
    let Ok(file) = std::fs::canonicalize(path) else {
        return Ok(());
    };
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return Ok(());
    };
    let prefix = format!("{}-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let entry_name = entry.file_name();
        let entry_name = entry_name.to_string_lossy();
        let Some(table) = entry_name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".lock"))
        else {
            continue;
        };
        if check_table(table).is_err() {
            continue;
        }
        // Held by a live store: refused. Free (its store is gone) or not a lock: ignored.
        if let Err(TaskStoreError::InUse(held)) = hold_table(&file, table) {
            return Err(TaskStoreError::InUse(format!(
                "{held}, and SqliteTaskStore::open takes the whole file"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_table;
    use crate::task::store::TaskStoreError;

    #[test]
    fn table_names_are_plain_identifiers() {
        for good in ["tracksuit_tasks", "_t", "Jobs2", &"a".repeat(64)] {
            assert!(check_table(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "2tasks",
            "tasks-x",
            "tasks x",
            "t\"; DROP TABLE notes; --",
            "tâches",
            "sqlite_tasks",
            "SQLITE_x",
            &"a".repeat(65),
        ] {
            match check_table(bad) {
                Err(TaskStoreError::Invalid(m)) => assert!(m.contains("task table name"), "{m}"),
                other => panic!("{bad:?} accepted: {other:?}"),
            }
        }
    }
}
