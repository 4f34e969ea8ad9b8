//! Tasks (MCP 2025-11-25, experimental): a client adds `task: {ttl}` to a `tools/call` and
//! gets a `CreateTaskResult` at once; the tool runs in the background and the client polls
//! `tasks/get`, waits on `tasks/result`, lists with `tasks/list` or stops it with
//! `tasks/cancel`.
//!
//! A tool opts in with `#[mcp_tool(task_support = "optional")]` (or `"required"`); the
//! default is `"forbidden"`, as the spec says. Every server declares the `tasks` capability
//! and keeps its tasks in a [`TaskStore`]: [`InMemoryTaskStore`] by default,
//! `SqliteTaskStore` (feature `sqlite`) to keep results across restarts.
//!
//! While a task's tool waits on the client (sampling, elicitation, roots), the task is
//! `input_required` and the request carries `_meta["io.modelcontextprotocol/related-task"]`;
//! on Streamable HTTP it travels on the stream of a pending `tasks/result` when there is
//! one, else on the session's GET stream. Every transition is announced with
//! `notifications/tasks/status` and written to the store.
//!
//! Security: tracksuit has no authorization layer yet, so tasks are not bound to an
//! authorization context. Task ids are random v4 UUIDs (122 bits from the OS's secure
//! generator), the default ttl is an hour, and `tasks/list` shows every task the server
//! holds; turn listing off with [`TaskOptions::list`] on a server shared by several users.
//!
//! ```
//! use tracksuit::{Server, ServerOptions, task::{InMemoryTaskStore, TaskOptions}};
//! use std::time::Duration;
//! let options = ServerOptions::default()
//!     .tasks(TaskOptions::default().default_ttl(Duration::from_secs(600)));
//! let server = Server::with_options(tracksuit::crate_info!(), options)
//!     .task_store(InMemoryTaskStore::new());
//! # let _ = server;
//! ```

mod engine;
mod extension;
mod fencing;
#[cfg(feature = "postgres")]
mod postgres;
mod quota;
#[cfg(feature = "sqlite")]
mod sqlite;
mod store;

pub(crate) use engine::TaskEngine;
pub use extension::TASKS_EXTENSION;
pub(crate) use extension::{
    Resumer, TASKS_CANCEL, TASKS_GET, TASKS_UPDATE, declared as extension_declared,
    missing_extension,
};
#[cfg(feature = "postgres")]
pub use postgres::{PostgresOptions, PostgresTaskStore};
/// The SQLite bindings [`SqliteTaskStore`] is built on (feature `sqlite`). An application
/// with its own SQLite access uses this one, `use tracksuit::task::rusqlite;`, or depends
/// on the same rusqlite release: Cargo links one `libsqlite3-sys` per build (its `links =
/// "sqlite3"`), so another rusqlite (or an sqlx) built on a different `libsqlite3-sys`
/// does not resolve beside it. See docs/tasks.md, "Stores".
///
/// ```
/// use tracksuit::task::rusqlite::Connection;
/// let conn = Connection::open_in_memory().unwrap();
/// let n: i64 = conn.query_row("SELECT 1 + 1", [], |row| row.get(0)).unwrap();
/// assert_eq!(n, 2);
/// ```
#[cfg(feature = "sqlite")]
pub use rusqlite;
#[cfg(feature = "sqlite")]
pub use sqlite::{SharedSqlite, SqliteTaskStore};
pub use store::{
    Claim, InMemoryTaskStore, Lease, TaskNotice, TaskOutcome, TaskPage, TaskRecord, TaskStore,
    TaskStoreError, check_put,
};

use std::time::Duration;

/// The `_meta` key tying a message to its task.
///
/// ```
/// assert_eq!(tracksuit::task::RELATED_TASK_META, "io.modelcontextprotocol/related-task");
/// ```
pub const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";

/// How a server runs tasks; every field has a default.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::{ServerOptions, task::TaskOptions};
/// let tasks = TaskOptions::default()
///     .default_ttl(Duration::from_secs(600))
///     .max_running(64);
/// let options = ServerOptions::default().tasks(tasks);
/// assert_eq!(options.tasks.max_running, 64);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TaskOptions {
    /// The ttl of a task whose request named none (default one hour).
    pub default_ttl: Duration,
    /// The longest ttl granted; longer requests are shortened (default 24 hours).
    /// `None` grants any ttl, and a request without one then gets `default_ttl`.
    pub max_ttl: Option<Duration>,
    /// The `pollInterval` suggested to requestors (default 500 ms).
    pub poll_interval: Duration,
    /// How many tasks may run at once; more are refused with `-32603` (default 1024).
    pub max_running: usize,
    /// How many of those one caller may have running (default 64): the principal with
    /// authentication, otherwise the 2025-11-25 session (a 2026-07-28 caller without a
    /// principal has no identity to count by, and is held to `max_running` only).
    pub max_running_per_caller: usize,
    /// How many unexpired tasks one caller may have stored, running or finished (default
    /// 1000): more are refused with `-32603` until some expire. Counted like
    /// `max_running_per_caller`, by a store that can count ([`TaskStore::count_owned`]).
    pub max_stored_per_caller: usize,
    /// Whether `tasks/list` is offered (default false). A caller lists only the tasks it
    /// owns: its principal's, or without authentication its 2025-11-25 HTTP session's; a
    /// stdio server's one client lists all of them.
    pub list: bool,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            default_ttl: Duration::from_secs(3600),
            max_ttl: Some(Duration::from_secs(24 * 3600)),
            poll_interval: Duration::from_millis(500),
            max_running: 1024,
            max_running_per_caller: 64,
            max_stored_per_caller: 1000,
            list: false,
        }
    }
}

impl TaskOptions {
    /// Sets the ttl of tasks whose request named none.
    ///
    /// ```
    /// # use tracksuit::task::TaskOptions; use std::time::Duration;
    /// let o = TaskOptions::default().default_ttl(Duration::from_secs(60));
    /// assert_eq!(o.default_ttl.as_secs(), 60);
    /// ```
    pub fn default_ttl(mut self, ttl: Duration) -> Self {
        self.default_ttl = ttl;
        self
    }

    /// Sets the longest ttl granted (`None`: unlimited).
    ///
    /// ```
    /// # use tracksuit::task::TaskOptions; use std::time::Duration;
    /// let o = TaskOptions::default().max_ttl(Some(Duration::from_secs(3600)));
    /// assert_eq!(o.max_ttl, Some(Duration::from_secs(3600)));
    /// assert_eq!(TaskOptions::default().max_ttl(None).max_ttl, None);
    /// ```
    pub fn max_ttl(mut self, ttl: Option<Duration>) -> Self {
        self.max_ttl = ttl;
        self
    }

    /// Sets the suggested polling interval.
    ///
    /// ```
    /// # use tracksuit::task::TaskOptions; use std::time::Duration;
    /// let o = TaskOptions::default().poll_interval(Duration::from_secs(2));
    /// assert_eq!(o.poll_interval.as_secs(), 2);
    /// ```
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets how many tasks may run at once.
    ///
    /// ```
    /// let o = tracksuit::task::TaskOptions::default().max_running(8);
    /// assert_eq!(o.max_running, 8);
    /// ```
    pub fn max_running(mut self, n: usize) -> Self {
        self.max_running = n;
        self
    }

    /// Sets how many tasks one caller may have running at once (at least 1).
    ///
    /// ```
    /// let o = tracksuit::task::TaskOptions::default().max_running_per_caller(4);
    /// assert_eq!(o.max_running_per_caller, 4);
    /// ```
    pub fn max_running_per_caller(mut self, n: usize) -> Self {
        self.max_running_per_caller = n.max(1);
        self
    }

    /// How many unexpired tasks one caller may have stored (at least 1).
    ///
    /// ```
    /// let o = tracksuit::task::TaskOptions::default().max_stored_per_caller(100);
    /// assert_eq!(o.max_stored_per_caller, 100);
    /// ```
    pub fn max_stored_per_caller(mut self, n: usize) -> Self {
        self.max_stored_per_caller = n.max(1);
        self
    }

    /// Offers `tasks/list` or not (off by default).
    ///
    /// ```
    /// let o = tracksuit::task::TaskOptions::default().list(true);
    /// assert!(o.list);
    /// assert!(!tracksuit::task::TaskOptions::default().list);
    /// ```
    pub fn list(mut self, on: bool) -> Self {
        self.list = on;
        self
    }

    /// The ttl granted for a requested one, in milliseconds.
    ///
    /// ```
    /// # use tracksuit::task::TaskOptions; use std::time::Duration;
    /// let o = TaskOptions::default().max_ttl(Some(Duration::from_secs(10)));
    /// assert_eq!(o.ttl_for(Some(60_000)), Some(10_000));
    /// assert_eq!(o.ttl_for(Some(5_000)), Some(5_000));
    /// assert_eq!(o.ttl_for(None), Some(10_000));
    /// ```
    pub fn ttl_for(&self, requested: Option<u64>) -> Option<u64> {
        let default = self.default_ttl.as_millis() as u64;
        let max = self.max_ttl.map(|d| d.as_millis() as u64);
        let wanted = requested.unwrap_or(default);
        Some(match max {
            Some(max) => wanted.min(max),
            None => wanted,
        })
    }
}
