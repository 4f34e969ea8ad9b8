//! [`PostgresTaskStore`]: tasks in PostgreSQL, shared by the replicas of a server, each task
//! leased to the one replica that runs it.

use super::store::{
    Claim, Lease, TaskNotice, TaskPage, TaskRecord, TaskStore, TaskStoreError, is_final,
};
use crate::on_demand::OnDemand;
use crate::peer::sync::lock;
use crate::protocol::JsonObject;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use futures::future::BoxFuture;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_postgres::{Config, NoTls, Row};

/// How a [`PostgresTaskStore`] connects and leases; every field has a default.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::task::PostgresOptions;
/// let defaults = PostgresOptions::default();
/// assert_eq!((defaults.lease, defaults.pool_size), (Duration::from_secs(10), 8));
/// assert!(!defaults.owner.is_empty()); // `{hostname}-{pid}-{random}`
/// let options = PostgresOptions::default()
///     .owner("replica-1")
///     .lease(Duration::from_millis(10)) // raised to the 100 ms minimum
///     .pool_size(0); // raised to 1
/// assert_eq!((options.lease, options.pool_size), (Duration::from_millis(100), 1));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PostgresOptions {
    /// This process's id in the `lease_owner` column. Default: `{hostname}-{pid}-{random}`
    /// (unique per process, so a restarted replica never mistakes its predecessor's
    /// leases for its own).
    pub owner: String,
    /// How long a lease lasts unless renewed (default 10 s). The store renews the leases
    /// it holds every third of it; a replica that dies loses its tasks to another after at
    /// most this long.
    pub lease: Duration,
    /// Connections in the pool (default 8).
    pub pool_size: usize,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        let host = std::fs::read_to_string("/etc/hostname")
            .ok()
            .map(|h| h.trim().to_owned())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "replica".to_owned());
        let random = uuid::Uuid::new_v4().simple().to_string();
        PostgresOptions {
            owner: format!("{host}-{}-{}", std::process::id(), &random[..8]),
            lease: Duration::from_secs(10),
            pool_size: 8,
        }
    }
}

impl PostgresOptions {
    /// Sets this process's lease owner id.
    ///
    /// ```
    /// let o = tracksuit::task::PostgresOptions::default().owner("replica-1");
    /// assert_eq!(o.owner, "replica-1");
    /// ```
    pub fn owner(mut self, owner: impl Into<String>) -> Self {
        self.owner = owner.into();
        self
    }

    /// Sets how long a lease lasts unless renewed (at least 100 ms).
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = tracksuit::task::PostgresOptions::default().lease(Duration::from_secs(3));
    /// assert_eq!(o.lease, Duration::from_secs(3));
    /// ```
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }

    /// Sets the number of pooled connections (at least 1).
    pub fn pool_size(mut self, n: usize) -> Self {
        self.pool_size = n.max(1);
        self
    }
}

/// A [`TaskStore`] in PostgreSQL (feature `postgres`), for replicas that share their tasks.
///
/// - **Schema**: created or migrated by [`connect`](Self::connect), under an advisory lock
///   so replicas starting together do not race; the version is kept in
///   `tracksuit_schema_version`.
/// - **Leases**: a task a replica creates is leased to it (`lease_owner`,
///   `lease_expires`, by the database's clock) and the store renews its leases in the
///   background; another replica's write to a task leased to a live replica is refused
///   in SQL, and [`claim_expired`](TaskStore::claim_expired) hands a dead replica's tasks
///   to exactly one survivor (`FOR UPDATE SKIP LOCKED`).
/// - **Terminal statuses never change**: writes skip terminal rows, and a trigger refuses
///   any `UPDATE` that would change a terminal task's status or record, whoever sends it.
/// - **Cancellation and input from other replicas**:
///   [`request_cancel`](TaskStore::request_cancel) sets a flag and
///   [`post_input`](TaskStore::post_input) fills the task's inbox; the holder learns of
///   both at its next renewal, on [`notices`](TaskStore::notices), and collects input with
///   [`take_input`](TaskStore::take_input).
///
/// ```no_run
/// use tracksuit::{Server, task::{PostgresOptions, PostgresTaskStore}};
/// # async fn demo() -> Result<(), tracksuit::task::TaskStoreError> {
/// let store = PostgresTaskStore::connect_with(
///     "postgres://tracksuit@127.0.0.1:5432/tracksuit",
///     PostgresOptions::default().owner("replica-1"),
/// ).await?;
/// let server = Server::new(tracksuit::crate_info!()).task_store(store);
/// # let _ = server; Ok(()) }
/// ```
#[derive(Clone)]
pub struct PostgresTaskStore {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for PostgresTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresTaskStore")
            .field("owner", &self.inner.owner)
            .field("lease", &self.inner.lease)
            .finish_non_exhaustive()
    }
}

struct Inner {
    pool: Pool,
    owner: String,
    lease: Duration,
    /// Non-terminal tasks this process holds the lease of.
    held: Mutex<Held>,
    renewer: OnDemand,
    notices: broadcast::Sender<TaskNotice>,
}

#[derive(Default)]
struct Held {
    tasks: HashSet<String>,
    /// Held tasks whose cancellation request was already announced.
    cancel_announced: HashSet<String>,
}

impl Held {
    fn forget(&mut self, task_id: &str) {
        self.tasks.remove(task_id);
        self.cancel_announced.remove(task_id);
    }
}

fn backend(e: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError::Backend(e.to_string())
}

/// Every statement's SQL for terminal statuses.
const TERMINAL: &str = "('completed', 'failed', 'cancelled')";

/// Migrations, in order; `tracksuit_schema_version` holds how many ran.
const MIGRATIONS: &[&str] = &[
    // 1: the table, its indexes, and the trigger keeping terminal tasks terminal.
    "CREATE TABLE tracksuit_tasks (
         seq              BIGSERIAL PRIMARY KEY,
         task_id          TEXT NOT NULL UNIQUE,
         status           TEXT NOT NULL,
         expires_at       BIGINT,
         record           JSONB NOT NULL,
         lease_owner      TEXT,
         lease_expires    TIMESTAMPTZ,
         cancel_requested BOOLEAN NOT NULL DEFAULT false,
         CONSTRAINT tracksuit_tasks_status_matches CHECK (status = record #>> '{task,status}')
     );
     CREATE INDEX tracksuit_tasks_expiry ON tracksuit_tasks (expires_at)
         WHERE expires_at IS NOT NULL;
     CREATE INDEX tracksuit_tasks_leases ON tracksuit_tasks (lease_expires)
         WHERE status IN ('working', 'input_required');
     CREATE FUNCTION tracksuit_tasks_keep_terminal() RETURNS trigger AS $$
     BEGIN
         IF OLD.status IN ('completed', 'failed', 'cancelled')
            AND (NEW.status IS DISTINCT FROM OLD.status OR NEW.record IS DISTINCT FROM OLD.record)
         THEN
             RAISE EXCEPTION 'task % is %: a terminal status never changes', OLD.task_id, OLD.status
                 USING ERRCODE = 'check_violation';
         END IF;
         RETURN NEW;
     END
     $$ LANGUAGE plpgsql;
     CREATE TRIGGER tracksuit_tasks_keep_terminal BEFORE UPDATE ON tracksuit_tasks
         FOR EACH ROW EXECUTE FUNCTION tracksuit_tasks_keep_terminal();",
    // 2: input posted for the holder of a task (`post_input` / `take_input`).
    "ALTER TABLE tracksuit_tasks ADD COLUMN inbox JSONB;",
];

/// The advisory lock key serialising migrations (any constant; "tracksui" in ASCII).
const MIGRATION_LOCK: i64 = 0x7472_6163_6b73_7569;

impl PostgresTaskStore {
    /// Connects to `url` (`postgres://user:pass@host:port/db` or `host=… user=…`) with
    /// default [`PostgresOptions`], creating or migrating the schema.
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        Self::connect_with(url, PostgresOptions::default()).await
    }

    /// Connects with explicit options.
    pub async fn connect_with(url: &str, options: PostgresOptions) -> Result<Self, TaskStoreError> {
        let config: Config = url.parse().map_err(backend)?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(options.pool_size.max(1))
            .build()
            .map_err(backend)?;
        migrate(&pool).await?;
        Ok(PostgresTaskStore {
            inner: Arc::new(Inner {
                pool,
                owner: options.owner,
                lease: options.lease.max(Duration::from_millis(100)),
                held: Mutex::default(),
                renewer: OnDemand::default(),
                notices: broadcast::channel(256).0,
            }),
        })
    }

    /// This process's lease owner id.
    pub fn owner(&self) -> &str {
        &self.inner.owner
    }

    /// How many non-terminal tasks this process holds.
    pub fn held(&self) -> usize {
        lock(&self.inner.held).tasks.len()
    }

    /// Renews every lease this process holds now (the background renewal does this every
    /// third of the lease). Returns how many it still holds.
    pub async fn renew(&self) -> Result<usize, TaskStoreError> {
        self.inner.renew().await
    }
}

/// Runs the migrations not yet applied, one transaction, under an advisory lock.
async fn migrate(pool: &Pool) -> Result<(), TaskStoreError> {
    let mut client = pool.get().await.map_err(backend)?;
    let tx = client.transaction().await.map_err(backend)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(backend)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS tracksuit_schema_version (version INTEGER NOT NULL);",
    )
    .await
    .map_err(backend)?;
    let applied: i32 = tx
        .query_opt("SELECT version FROM tracksuit_schema_version", &[])
        .await
        .map_err(backend)?
        .map(|row| row.get(0))
        .unwrap_or(0);
    let known = MIGRATIONS.len() as i32;
    if applied > known {
        return Err(TaskStoreError::Backend(format!(
            "the database's task schema is version {applied}, newer than this build knows ({known}): upgrade tracksuit"
        )));
    }
    for migration in &MIGRATIONS[applied as usize..] {
        tx.batch_execute(migration).await.map_err(backend)?;
    }
    if applied == 0 {
        tx.execute(
            "INSERT INTO tracksuit_schema_version (version) VALUES ($1)",
            &[&known],
        )
        .await
        .map_err(backend)?;
    } else if applied < known {
        tx.execute(
            "UPDATE tracksuit_schema_version SET version = $1",
            &[&known],
        )
        .await
        .map_err(backend)?;
    }
    tx.commit().await.map_err(backend)
}

fn decode(value: serde_json::Value) -> Result<TaskRecord, TaskStoreError> {
    serde_json::from_value(value).map_err(backend)
}

fn status_of(record: &TaskRecord) -> Result<String, TaskStoreError> {
    match serde_json::to_value(record.task.status).map_err(backend)? {
        serde_json::Value::String(s) => Ok(s),
        other => Err(backend(format!("unexpected status encoding {other}"))),
    }
}

fn claim_from(row: &Row) -> Result<Claim, TaskStoreError> {
    Ok(Claim {
        record: decode(row.get(0))?,
        cancel_requested: row.get(1),
    })
}

impl Inner {
    fn lease_secs(&self) -> f64 {
        self.lease.as_secs_f64()
    }

    /// Notes that this process holds `task_id` (and keeps its lease renewed), or no longer
    /// does.
    fn hold(self: &Arc<Self>, task_id: &str, held: bool) {
        {
            let mut h = lock(&self.held);
            if held {
                h.tasks.insert(task_id.to_owned());
            } else {
                h.forget(task_id);
            }
        }
        if held {
            self.renewer.start(|| {
                if let Ok(rt) = tokio::runtime::Handle::try_current() {
                    rt.spawn(renew_loop(Arc::downgrade(self)));
                }
            });
        }
    }

    async fn renew(&self) -> Result<usize, TaskStoreError> {
        let before: HashSet<String> = lock(&self.held).tasks.clone();
        let client = self.pool.get().await.map_err(backend)?;
        let rows = client
            .query(
                &format!(
                    "UPDATE tracksuit_tasks SET lease_expires = now() + make_interval(secs => $2)
                     WHERE lease_owner = $1 AND status NOT IN {TERMINAL}
                     RETURNING task_id, cancel_requested, inbox IS NOT NULL"
                ),
                &[&self.owner, &self.lease_secs()],
            )
            .await
            .map_err(backend)?;
        let mut still = HashSet::with_capacity(rows.len());
        let mut notices = Vec::new();
        let mut h = lock(&self.held);
        for row in &rows {
            let id: String = row.get(0);
            let cancel: bool = row.get(1);
            let input: bool = row.get(2);
            if cancel && h.cancel_announced.insert(id.clone()) {
                notices.push(TaskNotice::CancelRequested(id.clone()));
            }
            if input {
                // Until it is taken: the holder may have missed the bus's event.
                notices.push(TaskNotice::InputPosted(id.clone()));
            }
            h.tasks.insert(id.clone());
            still.insert(id);
        }
        // Tasks held before the renewal and not renewed were finished or taken over; tasks
        // added while it ran stay.
        for gone in before.difference(&still) {
            h.forget(gone);
        }
        let n = h.tasks.len();
        drop(h);
        for notice in notices {
            let _ = self.notices.send(notice);
        }
        Ok(n)
    }
}

/// Renews the leases of `inner` every third of the lease while it holds any and exists:
/// when the store is dropped (or the process dies) the leases run out.
async fn renew_loop(inner: Weak<Inner>) {
    loop {
        let Some(period) = inner.upgrade().map(|i| i.lease / 3) else {
            return;
        };
        tokio::time::sleep(period).await;
        let Some(inner) = inner.upgrade() else {
            return;
        };
        if let Err(e) = inner.renew().await {
            tracing::warn!(error = %e, owner = inner.owner, "could not renew task leases");
        }
        if inner
            .renewer
            .should_end(|| lock(&inner.held).tasks.is_empty())
        {
            return;
        }
    }
}

impl TaskStore for PostgresTaskStore {
    /// Inserts the record (leased to this process unless terminal) or updates it. A stored
    /// terminal record is never changed (writing a different one is an error, the same one
    /// again is not); a task leased to another live process is left to it (nothing is
    /// written, and that is not an error).
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let terminal = is_final(record.task.status);
            let status = status_of(&record)?;
            let expires = record
                .expires_at
                .map(|v| i64::try_from(v).unwrap_or(i64::MAX));
            let json = serde_json::to_value(&record).map_err(backend)?;
            let client = self.inner.pool.get().await.map_err(backend)?;
            let written = client
                .query_opt(
                    &format!(
                        "INSERT INTO tracksuit_tasks
                             (task_id, status, expires_at, record, lease_owner, lease_expires)
                         VALUES ($1, $2, $3, $4,
                                 CASE WHEN $6 THEN NULL ELSE $5 END,
                                 CASE WHEN $6 THEN NULL ELSE now() + make_interval(secs => $7) END)
                         ON CONFLICT (task_id) DO UPDATE SET
                             status = EXCLUDED.status,
                             expires_at = EXCLUDED.expires_at,
                             record = EXCLUDED.record,
                             lease_owner = EXCLUDED.lease_owner,
                             lease_expires = EXCLUDED.lease_expires
                         WHERE tracksuit_tasks.status NOT IN {TERMINAL}
                           AND (tracksuit_tasks.lease_owner IS NULL
                                OR tracksuit_tasks.lease_owner = $5
                                OR tracksuit_tasks.lease_expires < now())
                         RETURNING task_id"
                    ),
                    &[
                        &record.task.task_id,
                        &status,
                        &expires,
                        &json,
                        &self.inner.owner,
                        &terminal,
                        &self.inner.lease_secs(),
                    ],
                )
                .await
                .map_err(backend)?;
            if written.is_some() {
                self.inner.hold(&record.task.task_id, !terminal);
                return Ok(());
            }
            // Not written: the stored task is terminal (an error unless this is the same
            // record again), or leased to another live replica (skipped: that replica runs
            // it, and a reader sees what it writes).
            let stored = client
                .query_opt(
                    "SELECT record FROM tracksuit_tasks WHERE task_id = $1",
                    &[&record.task.task_id],
                )
                .await
                .map_err(backend)?
                .map(|row| decode(row.get(0)))
                .transpose()?;
            match stored {
                Some(old) if is_final(old.task.status) && old != record => {
                    Err(TaskStoreError::Terminal(record.task.task_id.clone()))
                }
                _ => {
                    tracing::debug!(task = %record.task.task_id, "task not written: leased to another replica");
                    Ok(())
                }
            }
        })
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            client
                .query_opt(
                    "SELECT record FROM tracksuit_tasks WHERE task_id = $1",
                    &[&task_id],
                )
                .await
                .map_err(backend)?
                .map(|row| decode(row.get(0)))
                .transpose()
        })
    }

    fn list<'a>(
        &'a self,
        after: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            let start: i64 = match after {
                None => 0,
                Some(id) => client
                    .query_opt("SELECT seq FROM tracksuit_tasks WHERE task_id = $1", &[&id])
                    .await
                    .map_err(backend)?
                    .map(|row| row.get(0))
                    .ok_or(TaskStoreError::UnknownCursor)?,
            };
            let fetch = i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX);
            let rows = client
                .query(
                    "SELECT record FROM tracksuit_tasks WHERE seq > $1 ORDER BY seq LIMIT $2",
                    &[&start, &fetch],
                )
                .await
                .map_err(backend)?;
            let mut records = rows
                .into_iter()
                .map(|row| decode(row.get(0)))
                .collect::<Result<Vec<_>, _>>()?;
            let more = records.len() > limit;
            records.truncate(limit);
            Ok(TaskPage { records, more })
        })
    }

    fn remove_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        Box::pin(async move {
            let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
            let client = self.inner.pool.get().await.map_err(backend)?;
            let n = client
                .execute(
                    "DELETE FROM tracksuit_tasks WHERE expires_at IS NOT NULL AND expires_at <= $1",
                    &[&now],
                )
                .await
                .map_err(backend)?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
    }

    fn claim<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Claim>, TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            let row = client
                .query_opt(
                    &format!(
                        "UPDATE tracksuit_tasks
                         SET lease_owner = $2, lease_expires = now() + make_interval(secs => $3)
                         WHERE task_id = $1 AND status NOT IN {TERMINAL}
                           AND (lease_owner IS NULL OR lease_owner = $2 OR lease_expires < now())
                         RETURNING record, cancel_requested"
                    ),
                    &[&task_id, &self.inner.owner, &self.inner.lease_secs()],
                )
                .await
                .map_err(backend)?;
            let claim = row.as_ref().map(claim_from).transpose()?;
            if claim.is_some() {
                self.inner.hold(task_id, true);
            }
            Ok(claim)
        })
    }

    fn claim_expired(&self) -> BoxFuture<'_, Result<Option<Claim>, TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            let now_ms = i64::try_from(super::engine::now_ms()).unwrap_or(i64::MAX);
            let row = client
                .query_opt(
                    "UPDATE tracksuit_tasks AS t
                     SET lease_owner = $1, lease_expires = now() + make_interval(secs => $2)
                     FROM (SELECT seq FROM tracksuit_tasks
                           WHERE status IN ('working', 'input_required')
                             AND lease_expires < now()
                             AND (expires_at IS NULL OR expires_at > $3)
                           ORDER BY seq
                           LIMIT 1
                           FOR UPDATE SKIP LOCKED) AS free
                     WHERE t.seq = free.seq
                     RETURNING t.record, t.cancel_requested",
                    &[&self.inner.owner, &self.inner.lease_secs(), &now_ms],
                )
                .await
                .map_err(backend)?;
            let claim = row.as_ref().map(claim_from).transpose()?;
            if let Some(c) = &claim {
                self.inner.hold(&c.record.task.task_id, true);
            }
            Ok(claim)
        })
    }

    fn release<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            client
                .execute(
                    "UPDATE tracksuit_tasks SET lease_owner = NULL, lease_expires = NULL
                     WHERE task_id = $1 AND lease_owner = $2",
                    &[&task_id, &self.inner.owner],
                )
                .await
                .map_err(backend)?;
            self.inner.hold(task_id, false);
            Ok(())
        })
    }

    fn lease<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Lease>, TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            let row = client
                .query_opt(
                    "SELECT lease_owner,
                            (extract(epoch FROM lease_expires) * 1000)::BIGINT
                     FROM tracksuit_tasks
                     WHERE task_id = $1 AND lease_owner IS NOT NULL AND lease_expires IS NOT NULL",
                    &[&task_id],
                )
                .await
                .map_err(backend)?;
            Ok(row.map(|row| Lease {
                owner: row.get(0),
                expires_at: u64::try_from(row.get::<_, i64>(1)).unwrap_or(0),
            }))
        })
    }

    fn request_cancel<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            let n = client
                .execute(
                    &format!(
                        "UPDATE tracksuit_tasks SET cancel_requested = true
                         WHERE task_id = $1 AND status NOT IN {TERMINAL}"
                    ),
                    &[&task_id],
                )
                .await
                .map_err(backend)?;
            Ok(n > 0)
        })
    }

    fn post_input<'a>(
        &'a self,
        task_id: &'a str,
        responses: JsonObject,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let responses = serde_json::Value::Object(responses);
            let client = self.inner.pool.get().await.map_err(backend)?;
            let n = client
                .execute(
                    &format!(
                        "UPDATE tracksuit_tasks SET inbox = COALESCE(inbox, '{{}}'::jsonb) || $2
                         WHERE task_id = $1 AND status NOT IN {TERMINAL}"
                    ),
                    &[&task_id, &responses],
                )
                .await
                .map_err(backend)?;
            Ok(n > 0)
        })
    }

    fn take_input<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<JsonObject>, TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            let row = client
                .query_opt(
                    "WITH taken AS (
                         SELECT task_id, inbox FROM tracksuit_tasks
                         WHERE task_id = $1 AND lease_owner = $2 AND inbox IS NOT NULL
                         FOR UPDATE
                     )
                     UPDATE tracksuit_tasks AS t SET inbox = NULL
                     FROM taken WHERE t.task_id = taken.task_id
                     RETURNING taken.inbox",
                    &[&task_id, &self.inner.owner],
                )
                .await
                .map_err(backend)?;
            Ok(
                row.and_then(|row| match row.get::<_, serde_json::Value>(0) {
                    serde_json::Value::Object(map) => Some(map),
                    _ => None,
                }),
            )
        })
    }

    /// Every third of the lease: a dead replica's tasks are taken over within about
    /// 1⅓ leases of its death.
    fn adoption_interval(&self) -> Option<Duration> {
        Some(self.inner.lease / 3)
    }

    fn notices(&self) -> Option<broadcast::Receiver<TaskNotice>> {
        Some(self.inner.notices.subscribe())
    }
}
