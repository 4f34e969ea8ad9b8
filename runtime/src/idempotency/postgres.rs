//! [`PgIdempotencyStore`]: the rounds served by every replica, in one PostgreSQL table.

use super::{Claim, IdempotencyError, IdempotencyStore, RoundKey};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_postgres::{Config, NoTls};
use tokio_util::sync::{CancellationToken, DropGuard};

/// How long a claim holds without renewal; a replica that dies mid-round blocks its
/// duplicates at most this long. A claim is renewed every third of it while its round runs.
const CLAIM: Duration = Duration::from_secs(30);

/// How long a duplicate waits for the round it duplicates before giving up (the client
/// may retry).
const MAX_WAIT: Duration = Duration::from_secs(60);

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS tracksuit_rounds (
        state_id      BYTEA PRIMARY KEY,
        answers       BYTEA NOT NULL,
        claim         BIGINT NOT NULL,
        outcome       TEXT,
        claimed_until TIMESTAMPTZ NOT NULL,
        expires_at    TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX IF NOT EXISTS tracksuit_rounds_expiry ON tracksuit_rounds (expires_at);";

/// Inserts a claim, or takes over a record that expired or a claim that lapsed; returns a
/// row only if the claim is now this one.
const CLAIM_SQL: &str = "INSERT INTO tracksuit_rounds
        (state_id, answers, claim, outcome, claimed_until, expires_at)
    VALUES ($1, $2, $3, NULL, now() + make_interval(secs => $4), now() + make_interval(secs => $5))
    ON CONFLICT (state_id) DO UPDATE SET
        answers = EXCLUDED.answers, claim = EXCLUDED.claim, outcome = NULL,
        claimed_until = EXCLUDED.claimed_until, expires_at = EXCLUDED.expires_at
    WHERE tracksuit_rounds.expires_at < now()
       OR (tracksuit_rounds.outcome IS NULL AND tracksuit_rounds.claimed_until < now())
    RETURNING claim";

/// An [`IdempotencyStore`] on PostgreSQL, for replicas behind one endpoint: a round re-sent
/// to any replica gets the outcome recorded by the one that served it, and duplicates
/// arriving at several replicas at once are served once (the others wait, polling the
/// row). The table `tracksuit_rounds` is created on connect; expired records are deleted
/// as new ones are written.
///
/// ```no_run
/// use std::sync::Arc;
/// use tracksuit::idempotency::PgIdempotencyStore;
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = PgIdempotencyStore::connect("postgres://tracksuit@127.0.0.1/tracksuit").await?;
/// let server = tracksuit::Server::new(tracksuit::crate_info!())
///     .idempotency_store(Arc::new(store))
///     .build()?;
/// # let _ = server; Ok(()) }
/// ```
pub struct PgIdempotencyStore {
    pool: Pool,
    /// Renewal loops of the claims this process holds, by claim token.
    renewing: Arc<Mutex<HashMap<u64, DropGuard>>>,
    /// Writes since the last purge of expired records.
    writes: std::sync::atomic::AtomicU32,
}

impl std::fmt::Debug for PgIdempotencyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgIdempotencyStore").finish_non_exhaustive()
    }
}

fn backend(e: impl std::fmt::Display) -> IdempotencyError {
    IdempotencyError::Backend(e.to_string())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl PgIdempotencyStore {
    /// Connects to `url` (a pool of up to 4 connections) and creates the table if needed.
    pub async fn connect(url: &str) -> Result<Self, IdempotencyError> {
        let config: Config = url.parse().map_err(backend)?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(4)
            .build()
            .map_err(backend)?;
        let mut client = pool.get().await.map_err(backend)?;
        // Serialised: concurrent `CREATE TABLE IF NOT EXISTS` can still collide.
        let tx = client.transaction().await.map_err(backend)?;
        tx.execute("SELECT pg_advisory_xact_lock(7472616301)", &[])
            .await
            .map_err(backend)?;
        tx.batch_execute(SCHEMA).await.map_err(backend)?;
        tx.commit().await.map_err(backend)?;
        Ok(PgIdempotencyStore {
            pool,
            renewing: Arc::default(),
            writes: std::sync::atomic::AtomicU32::new(0),
        })
    }

    async fn try_claim(
        &self,
        key: RoundKey,
        claim: i64,
        ttl: Duration,
    ) -> Result<Option<Claim>, IdempotencyError> {
        let client = self.pool.get().await.map_err(backend)?;
        let (state, answers) = (&key.state[..], &key.answers[..]);
        let (claim_secs, ttl_secs) = (CLAIM.as_secs_f64(), ttl.as_secs_f64());
        let won = client
            .query_opt(
                CLAIM_SQL,
                &[&state, &answers, &claim, &claim_secs, &ttl_secs],
            )
            .await
            .map_err(backend)?;
        if won.is_some() {
            return Ok(Some(Claim::Won(claim as u64)));
        }
        let row = client
            .query_opt(
                "SELECT answers, outcome FROM tracksuit_rounds WHERE state_id = $1",
                &[&state],
            )
            .await
            .map_err(backend)?;
        let Some(row) = row else {
            return Ok(None); // given back meanwhile: claim again
        };
        let outcome: Option<String> = row.try_get(1).map_err(backend)?;
        let Some(outcome) = outcome else {
            return Ok(None); // being served
        };
        let recorded: Vec<u8> = row.try_get(0).map_err(backend)?;
        if recorded != answers {
            return Ok(Some(Claim::Conflict));
        }
        RawValue::from_string(outcome)
            .map(|o| Some(Claim::Done(o)))
            .map_err(backend)
    }

    /// Keeps the claim `claim` of `state` renewed until it is finished or released.
    fn renew(&self, state: [u8; 16], claim: u64) {
        let stop = CancellationToken::new();
        let pool = self.pool.clone();
        let done = stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = done.cancelled() => return,
                    _ = tokio::time::sleep(CLAIM / 3) => {}
                }
                let Ok(client) = pool.get().await else {
                    continue;
                };
                let renewed = client
                    .execute(
                        "UPDATE tracksuit_rounds SET claimed_until = now() + make_interval(secs => $3)
                         WHERE state_id = $1 AND claim = $2 AND outcome IS NULL",
                        &[&&state[..], &(claim as i64), &CLAIM.as_secs_f64()],
                    )
                    .await;
                if let Err(e) = renewed {
                    tracing::warn!(error = %e, "could not renew a round's claim");
                }
            }
        });
        lock(&self.renewing).insert(claim, stop.drop_guard());
    }
}

impl IdempotencyStore for PgIdempotencyStore {
    fn claim(
        &self,
        key: RoundKey,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Claim, IdempotencyError>> {
        Box::pin(async move {
            let claim = rand::random::<i64>() & i64::MAX;
            let deadline = tokio::time::Instant::now() + MAX_WAIT;
            let mut pause = Duration::from_millis(5);
            loop {
                if let Some(found) = self.try_claim(key, claim, ttl).await? {
                    if let Claim::Won(token) = found {
                        self.renew(key.state, token);
                    }
                    return Ok(found);
                }
                if tokio::time::Instant::now() >= deadline {
                    return Err(IdempotencyError::Backend(
                        "a duplicate of this round is still being served".into(),
                    ));
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(200));
            }
        })
    }

    fn finish(
        &self,
        key: RoundKey,
        token: u64,
        outcome: Box<RawValue>,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<bool, IdempotencyError>> {
        Box::pin(async move {
            lock(&self.renewing).remove(&token);
            let client = self.pool.get().await.map_err(backend)?;
            let outcome: &str = outcome.get();
            let n = client
                .execute(
                    "UPDATE tracksuit_rounds SET outcome = $3,
                         expires_at = now() + make_interval(secs => $4)
                     WHERE state_id = $1 AND claim = $2 AND outcome IS NULL",
                    &[
                        &&key.state[..],
                        &(token as i64),
                        &outcome,
                        &ttl.as_secs_f64(),
                    ],
                )
                .await
                .map_err(backend)?;
            let writes = self
                .writes
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if writes % 256 == 255 {
                let purged = client
                    .execute("DELETE FROM tracksuit_rounds WHERE expires_at < now()", &[])
                    .await;
                if let Err(e) = purged {
                    tracing::warn!(error = %e, "could not purge expired round records");
                }
            }
            Ok(n == 1)
        })
    }

    fn release(&self, key: RoundKey, token: u64) {
        lock(&self.renewing).remove(&token);
        let pool = self.pool.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return; // the claim lapses on its own
        };
        runtime.spawn(async move {
            let released = async {
                let client = pool.get().await.map_err(backend)?;
                client
                    .execute(
                        "DELETE FROM tracksuit_rounds
                         WHERE state_id = $1 AND claim = $2 AND outcome IS NULL",
                        &[&&key.state[..], &(token as i64)],
                    )
                    .await
                    .map_err(backend)
            };
            if let Err(e) = released.await {
                tracing::warn!(error = %e, "could not give back a round's claim; it lapses in 30 s");
            }
        });
    }
}
