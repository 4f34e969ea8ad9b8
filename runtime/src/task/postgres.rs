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
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;
use tokio_postgres::{Config, NoTls, Row};

mod lease;
use lease::{Held, expired, upsert_sql};

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
    /// most this long. A replica that cannot renew a lease gives it up (stops the task
    /// locally) two thirds of a lease after its last renewal was sent, a third of a lease
    /// before anyone else may take the task.
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
///   to exactly one survivor (`FOR UPDATE SKIP LOCKED`). For a lease's length after the
///   database starts, every lease counts as renewed then (holders get to renew after a
///   database restart before anyone may adopt their tasks).
/// - **Fencing**: every claim bumps the task's `lease_epoch`; the holder's writes name
///   the epoch it claimed under (`AND lease_owner = $me AND lease_epoch = $epoch`, in the
///   same statement), so once another replica claimed a task the old holder's writes are
///   refused ([`TaskStoreError::Fenced`]). A lease the store could not renew for two
///   thirds of its length is given up locally and announced
///   ([`TaskNotice::LeaseLost`]): the server stops the task's run before the lease can run
///   out in the database.
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
    /// Non-terminal tasks this process holds the lease of (with their epochs).
    held: Mutex<Held>,
    renewer: OnDemand,
    notices: broadcast::Sender<TaskNotice>,
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
    // 3: the lease epoch, bumped by every claim; the holder's writes name theirs (fencing).
    "ALTER TABLE tracksuit_tasks ADD COLUMN lease_epoch BIGINT NOT NULL DEFAULT 0;",
    // 4: counting a caller's tasks (`count_owned`, for `max_stored_per_caller`).
    "CREATE INDEX tracksuit_tasks_owner ON tracksuit_tasks ((record ->> 'owner'));",
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

    /// How many non-terminal tasks this process holds (leases given up locally are not
    /// counted).
    pub fn held(&self) -> usize {
        lock(&self.inner.held).live()
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

    /// [`TaskStore::put`].
    async fn write(self: &Arc<Self>, record: TaskRecord) -> Result<(), TaskStoreError> {
        let id = record.task.task_id.clone();
        let terminal = is_final(record.task.status);
        let status = status_of(&record)?;
        let expires = record
            .expires_at
            .map(|v| i64::try_from(v).unwrap_or(i64::MAX));
        let json = serde_json::to_value(&record).map_err(backend)?;
        let held = self.held_epoch(&id);
        if let Some((_, true)) = held
            && !terminal
        {
            // Given up locally: only a finished task's terminal write is still tried.
            return Err(TaskStoreError::Fenced(id));
        }
        let client = self.pool.get().await.map_err(backend)?;
        let sent = Instant::now();
        let (owner, secs) = (&self.owner, self.lease_secs());
        let written: Option<i64> = match held {
            Some((epoch, _)) => client
                .query_opt(
                    &format!(
                        "UPDATE tracksuit_tasks SET status = $2, expires_at = $3, record = $4,
                             lease_owner = CASE WHEN $6 THEN NULL ELSE lease_owner END,
                             lease_expires = CASE WHEN $6 THEN NULL
                                             ELSE now() + make_interval(secs => $7) END
                         WHERE task_id = $1 AND lease_owner = $5 AND lease_epoch = $8
                           AND status NOT IN {TERMINAL}
                         RETURNING lease_epoch"
                    ),
                    &[
                        &id, &status, &expires, &json, owner, &terminal, &secs, &epoch,
                    ],
                )
                .await
                .map_err(backend)?
                .map(|row| row.get(0)),
            None => client
                .query_opt(
                    &upsert_sql(),
                    &[&id, &status, &expires, &json, owner, &terminal, &secs],
                )
                .await
                .map_err(backend)?
                .map(|row| row.get(0)),
        };
        match written {
            Some(_) if terminal => {
                self.unhold(&id);
                Ok(())
            }
            Some(epoch) if held.is_some() => {
                self.extended(&id, epoch, sent);
                Ok(())
            }
            Some(epoch) => {
                self.hold(&id, epoch, sent);
                Ok(())
            }
            None => self.not_written(&client, &record, held.is_some()).await,
        }
    }

    /// A write the database did not make: the stored task is terminal (an error unless
    /// this is the same record again), or leased to another process (fenced).
    async fn not_written(
        &self,
        client: &deadpool_postgres::Client,
        record: &TaskRecord,
        held: bool,
    ) -> Result<(), TaskStoreError> {
        let id = &record.task.task_id;
        let stored = client
            .query_opt(
                "SELECT record FROM tracksuit_tasks WHERE task_id = $1",
                &[id],
            )
            .await
            .map_err(backend)?
            .map(|row| decode(row.get(0)))
            .transpose()?;
        match stored {
            Some(old) if is_final(old.task.status) => {
                self.unhold(id);
                if old == *record {
                    Ok(())
                } else {
                    Err(TaskStoreError::Terminal(id.clone()))
                }
            }
            _ => {
                if held {
                    // Another process claimed it: whatever runs here must stop.
                    let lost = self.held_epoch(id).is_some_and(|(_, lost)| !lost);
                    self.unhold(id);
                    if lost {
                        self.lose(vec![id.clone()]);
                    }
                }
                tracing::debug!(task = %id, "task not written: leased to another process");
                Err(TaskStoreError::Fenced(id.clone()))
            }
        }
    }
}

impl TaskStore for PostgresTaskStore {
    /// Inserts the record (leased to this process unless terminal) or updates it. A stored
    /// terminal record is never changed (writing a different one is an error, the same one
    /// again is not). A task this process holds is written under its lease epoch only: once
    /// another process claimed it the write fails with [`TaskStoreError::Fenced`] (and the
    /// lease is announced lost); a task leased to another live process is not written
    /// either (the same error).
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move { self.inner.write(record).await })
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

    fn count_owned<'a>(
        &'a self,
        owner: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        Box::pin(async move {
            let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
            let client = self.inner.pool.get().await.map_err(backend)?;
            let sql = "SELECT count(*) FROM tracksuit_tasks WHERE record ->> 'owner' = $1 \
                       AND (expires_at IS NULL OR expires_at > $2)";
            let row = client
                .query_one(sql, &[&owner, &now])
                .await
                .map_err(backend)?;
            Ok(Some(usize::try_from(row.get::<_, i64>(0)).unwrap_or(0)))
        })
    }

    /// Takes the lease (bumping its epoch) if it is free, run out, or this process's; a
    /// task this process holds already is only renewed.
    fn claim<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Claim>, TaskStoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let client = inner.pool.get().await.map_err(backend)?;
            let sent = Instant::now();
            let row = match inner.held_epoch(task_id) {
                Some((epoch, false)) => client
                    .query_opt(
                        &format!(
                            "UPDATE tracksuit_tasks
                             SET lease_expires = now() + make_interval(secs => $3)
                             WHERE task_id = $1 AND lease_owner = $2 AND lease_epoch = $4
                               AND status NOT IN {TERMINAL}
                             RETURNING record, cancel_requested, lease_epoch"
                        ),
                        &[&task_id, &inner.owner, &inner.lease_secs(), &epoch],
                    )
                    .await
                    .map_err(backend)?,
                _ => client
                    .query_opt(
                        &format!(
                            "UPDATE tracksuit_tasks AS t
                             SET lease_owner = $2, lease_expires = now() + make_interval(secs => $3),
                                 lease_epoch = t.lease_epoch + 1
                             WHERE t.task_id = $1 AND t.status NOT IN {TERMINAL}
                               AND (t.lease_owner IS NULL OR t.lease_owner = $2 OR {})
                             RETURNING t.record, t.cancel_requested, t.lease_epoch",
                            expired("t", 3)
                        ),
                        &[&task_id, &inner.owner, &inner.lease_secs()],
                    )
                    .await
                    .map_err(backend)?,
            };
            let claim = row.as_ref().map(claim_from).transpose()?;
            if let Some(row) = &row {
                inner.hold(task_id, row.get(2), sent);
            }
            Ok(claim)
        })
    }

    fn claim_expired(&self) -> BoxFuture<'_, Result<Option<Claim>, TaskStoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let client = inner.pool.get().await.map_err(backend)?;
            let now_ms = i64::try_from(super::engine::now_ms()).unwrap_or(i64::MAX);
            // This process's own leases (given up locally or not) are not adopted here: a
            // finished task's terminal write may still be on its way under its epoch.
            let mine: Vec<String> = lock(&inner.held).tasks.keys().cloned().collect();
            let sent = Instant::now();
            let row = client
                .query_opt(
                    &format!(
                        "UPDATE tracksuit_tasks AS t
                         SET lease_owner = $1, lease_expires = now() + make_interval(secs => $2),
                             lease_epoch = t.lease_epoch + 1
                         FROM (SELECT seq FROM tracksuit_tasks AS e
                               WHERE e.status IN ('working', 'input_required')
                                 AND {}
                                 AND (e.expires_at IS NULL OR e.expires_at > $3)
                                 AND NOT (e.lease_owner = $1 AND e.task_id = ANY($4::text[]))
                               ORDER BY e.seq
                               LIMIT 1
                               FOR UPDATE SKIP LOCKED) AS free
                         WHERE t.seq = free.seq
                         RETURNING t.record, t.cancel_requested, t.lease_epoch",
                        expired("e", 2)
                    ),
                    &[&inner.owner, &inner.lease_secs(), &now_ms, &mine],
                )
                .await
                .map_err(backend)?;
            let claim = row.as_ref().map(claim_from).transpose()?;
            if let (Some(c), Some(row)) = (&claim, &row) {
                inner.hold(&c.record.task.task_id, row.get(2), sent);
            }
            Ok(claim)
        })
    }

    /// Gives the lease up (this process forgets it at once, even if the database cannot
    /// be reached).
    fn release<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let held = self.inner.held_epoch(task_id);
            self.inner.unhold(task_id);
            let client = self.inner.pool.get().await.map_err(backend)?;
            client
                .execute(
                    "UPDATE tracksuit_tasks SET lease_owner = NULL, lease_expires = NULL
                     WHERE task_id = $1 AND lease_owner = $2
                       AND ($3::bigint IS NULL OR lease_epoch = $3)",
                    &[&task_id, &self.inner.owner, &held.map(|(epoch, _)| epoch)],
                )
                .await
                .map_err(backend)?;
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

    fn lease_lost(&self, task_id: &str) -> bool {
        self.inner.held_epoch(task_id).is_none_or(|(_, lost)| lost)
    }

    fn peek_input<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<JsonObject>, TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            let row = client
                .query_opt(
                    "SELECT inbox FROM tracksuit_tasks
                     WHERE task_id = $1 AND lease_owner = $2 AND inbox IS NOT NULL",
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

    fn ack_input<'a>(
        &'a self,
        task_id: &'a str,
        keys: &'a [String],
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let client = self.inner.pool.get().await.map_err(backend)?;
            client
                .execute(
                    "UPDATE tracksuit_tasks SET inbox = NULLIF(inbox - $3::text[], '{}'::jsonb)
                     WHERE task_id = $1 AND lease_owner = $2 AND inbox IS NOT NULL",
                    &[&task_id, &self.inner.owner, &keys],
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    /// A quarter of the lease (at most 5 s): after a database restart the holder's
    /// terminal write lands within the lease during which nobody may adopt the task.
    fn write_retry_cap(&self) -> Duration {
        (self.inner.lease / 4).clamp(Duration::from_millis(10), Duration::from_secs(5))
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
