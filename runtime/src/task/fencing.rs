//! Fenced leases and durable terminal writes, for both task APIs.
//!
//! - A store that leases tasks announces [`TaskNotice::LeaseLost`](super::TaskNotice) when
//!   this process can no longer count on a task's lease; [`TaskEngine::lease_lost`] stops
//!   the task's run here (a task that already finished keeps its result and goes on
//!   writing it).
//! - A task's terminal write is retried with a doubling backoff (100 ms up to
//!   [`TaskStore::write_retry_cap`](super::TaskStore::write_retry_cap), 5 s by default)
//!   until it lands, the task's ttl runs out, or the store refuses it for good (the task
//!   is terminal already, or leased to another process). Meanwhile the process keeps the
//!   finished task in memory and answers `tasks/get` / `tasks/result` from it.

use super::engine::{TaskEngine, now_ms};
use super::store::{TaskRecord, TaskStoreError};
use std::sync::Arc;
use std::time::Duration;

/// The first pause after a failed terminal write.
const FIRST_RETRY: Duration = Duration::from_millis(100);

/// The pause after `previous`: doubled, at most `cap`.
fn next_pause(previous: Duration, cap: Duration) -> Duration {
    previous.saturating_mul(2).min(cap)
}

impl TaskEngine {
    /// This process lost the lease of task `id` (the store's [`LeaseLost`] notice): stops
    /// its run here without writing anything, unless it already finished (then its
    /// terminal write goes on; the store takes it if nobody claimed the task meanwhile).
    ///
    /// [`LeaseLost`]: super::TaskNotice::LeaseLost
    pub(crate) fn lease_lost(self: &Arc<Self>, id: &str) {
        if self.lose_extension(id) || self.lose_live(id) {
            tracing::warn!(task = %id, "stopped the task here: its lease was lost");
        }
    }

    /// Stops every task running here whose lease the store says this process lost: for
    /// a listener that missed [`LeaseLost`] notices (it fell behind).
    ///
    /// [`LeaseLost`]: super::TaskNotice::LeaseLost
    pub(crate) fn recheck_leases(self: &Arc<Self>) {
        let store = self.store();
        for id in self.running_ids() {
            if store.lease_lost(&id) {
                self.lease_lost(&id);
            }
        }
    }

    /// Writes a task's terminal `record`, retrying a failed write with a doubling backoff
    /// until it lands or cannot (see the module). Errors: [`TaskStoreError::Terminal`]
    /// (another terminal record is stored; it wins), [`TaskStoreError::Fenced`] (another
    /// process holds the task now), or the last error when the task's ttl ran out.
    pub(super) async fn write_durably(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let id = &record.task.task_id;
        let mut pause = FIRST_RETRY;
        let mut attempts = 0u32;
        loop {
            let store = self.store();
            let error = match store.put(record.clone()).await {
                Ok(()) => {
                    if attempts > 0 {
                        tracing::info!(task = %id, attempts = attempts + 1, "stored the task's end after retrying");
                    }
                    return Ok(());
                }
                Err(e @ (TaskStoreError::Terminal(_) | TaskStoreError::Fenced(_))) => {
                    return Err(e);
                }
                Err(e) => e,
            };
            attempts += 1;
            if record.expires_at.is_some_and(|at| now_ms() >= at) {
                tracing::error!(task = %id, error = %error, attempts, "gave up storing the task's end: its ttl ran out");
                let _ = store.release(id).await;
                return Err(error);
            }
            if attempts == 1 {
                tracing::warn!(task = %id, error = %error, "could not store the task's end; retrying (its result is kept in memory meanwhile)");
            } else {
                tracing::debug!(task = %id, error = %error, attempts, "could not store the task's end yet");
            }
            tokio::time::sleep(pause).await;
            pause = next_pause(pause, store.write_retry_cap());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_its_cap() {
        let cap = Duration::from_secs(5);
        let mut pause = FIRST_RETRY;
        let mut seen = vec![pause];
        for _ in 0..8 {
            pause = next_pause(pause, cap);
            seen.push(pause);
        }
        let ms: Vec<u128> = seen.iter().map(Duration::as_millis).collect();
        assert_eq!(ms, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    }
}
