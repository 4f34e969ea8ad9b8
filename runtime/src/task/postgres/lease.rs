//! The leases a [`PostgresTaskStore`](super::PostgresTaskStore) holds: which tasks, under
//! which lease epoch, extended when; their renewal, and the local watchdog that gives a
//! lease up before it can run out in the database.
//!
//! A lease taken at `t` (the moment its statement was sent) lasts until at least `t +
//! lease` by the database's clock. The holder counts from the same `t` on its own clock and
//! gives the lease up locally at `t + ⅔ lease` unless a later statement extended it: its
//! run is stopped ([`TaskNotice::LeaseLost`]) a third of a lease before anyone else may
//! adopt the task.

use super::{Inner, TERMINAL, backend};
use crate::peer::sync::lock;
use crate::task::store::{TaskNotice, TaskStoreError};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// One task this process holds the lease of.
pub(super) struct HeldTask {
    /// The lease epoch of this process's claim (or insert): its writes name it, and the
    /// database refuses them once another claim bumped it.
    pub(super) epoch: i64,
    /// When the statement that last extended the lease was sent.
    pub(super) since: Instant,
    /// Given up locally (not renewed in time, or taken over): the local run is stopped and
    /// the lease is not renewed; a finished task's terminal write is still tried under
    /// this epoch (the database takes it if nobody claimed the task meanwhile).
    pub(super) lost: bool,
}

/// The tasks this process holds.
#[derive(Default)]
pub(super) struct Held {
    pub(super) tasks: HashMap<String, HeldTask>,
    /// Held tasks whose cancellation request was already announced.
    pub(super) cancel_announced: HashSet<String>,
}

impl Held {
    /// How many leases are held and not given up.
    pub(super) fn live(&self) -> usize {
        self.tasks.values().filter(|t| !t.lost).count()
    }

    pub(super) fn forget(&mut self, task_id: &str) {
        self.tasks.remove(task_id);
        self.cancel_announced.remove(task_id);
    }

    /// The earliest moment a live lease must be given up unless renewed first.
    fn next_loss(&self, margin: Duration) -> Option<Instant> {
        self.tasks
            .values()
            .filter(|t| !t.lost)
            .map(|t| t.since + margin)
            .min()
    }

    /// Gives up every live lease not extended since `now - margin`; returns their ids.
    fn lose_stale(&mut self, now: Instant, margin: Duration) -> Vec<String> {
        let mut lost = Vec::new();
        for (id, task) in &mut self.tasks {
            if !task.lost && task.since + margin <= now {
                task.lost = true;
                lost.push(id.clone());
            }
        }
        lost
    }
}

/// Renews the live leases named by `$3` (ids) and `$4` (their epochs) for `$1` (the owner)
/// by `$2` seconds: a lease taken over since (another epoch) is not renewed.
fn renew_sql() -> String {
    format!(
        "UPDATE tracksuit_tasks AS t SET lease_expires = now() + make_interval(secs => $2)
         FROM unnest($3::text[], $4::bigint[]) AS h(task_id, epoch)
         WHERE t.task_id = h.task_id AND t.lease_epoch = h.epoch AND t.lease_owner = $1
           AND t.status NOT IN {TERMINAL}
         RETURNING t.task_id, t.cancel_requested, t.inbox IS NOT NULL"
    )
}

/// Whether the lease of the row `t` ran out, given the lease length in seconds as `$n`
/// (`expired("t", 3)`): by `lease_expires`, and not within a lease of the database's start
/// (every lease counts as renewed then, so the holders of a restarted database get to
/// renew before anyone adopts their tasks).
pub(super) fn expired(t: &str, n: u8) -> String {
    format!(
        "(greatest({t}.lease_expires, pg_postmaster_start_time() + make_interval(secs => ${n})) < now())"
    )
}

/// Inserts a task (leased to `$5` for `$7` seconds unless terminal, `$6`), or updates a
/// stored one nobody holds (its lease free or run out): that takes its lease, so the
/// epoch is bumped. Returns the row's epoch.
pub(super) fn upsert_sql() -> String {
    format!(
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
             lease_expires = EXCLUDED.lease_expires,
             lease_epoch = tracksuit_tasks.lease_epoch + 1
         WHERE tracksuit_tasks.status NOT IN {TERMINAL}
           AND (tracksuit_tasks.lease_owner IS NULL OR {})
         RETURNING lease_epoch",
        expired("tracksuit_tasks", 7)
    )
}

impl Inner {
    /// How long after the last extension a lease is given up locally: two thirds of it.
    pub(super) fn local_margin(&self) -> Duration {
        self.lease * 2 / 3
    }

    /// Notes that this process holds `task_id` under `epoch`, extended by a statement sent
    /// at `sent`, and keeps it renewed.
    pub(super) fn hold(self: &Arc<Self>, task_id: &str, epoch: i64, sent: Instant) {
        {
            let mut h = lock(&self.held);
            h.tasks.insert(
                task_id.to_owned(),
                HeldTask {
                    epoch,
                    since: sent,
                    lost: false,
                },
            );
        }
        self.renewer.start(|| {
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(renew_loop(Arc::downgrade(self)));
            }
        });
    }

    /// This process no longer holds `task_id`.
    pub(super) fn unhold(&self, task_id: &str) {
        lock(&self.held).forget(task_id);
    }

    /// The epoch this process holds `task_id` under and whether it gave the lease up.
    pub(super) fn held_epoch(&self, task_id: &str) -> Option<(i64, bool)> {
        lock(&self.held)
            .tasks
            .get(task_id)
            .map(|t| (t.epoch, t.lost))
    }

    /// A write sent at `sent` under `epoch` extended `task_id`'s lease.
    pub(super) fn extended(&self, task_id: &str, epoch: i64, sent: Instant) {
        if let Some(t) = lock(&self.held).tasks.get_mut(task_id)
            && t.epoch == epoch
            && !t.lost
        {
            t.since = t.since.max(sent);
        }
    }

    /// Gives up the leases of `ids` locally and announces it.
    pub(super) fn lose(&self, ids: Vec<String>) {
        for id in ids {
            tracing::warn!(task = %id, owner = %self.owner, "task lease lost: stopping the task here");
            let _ = self.notices.send(TaskNotice::LeaseLost(id));
        }
    }

    /// Gives up the leases that were not extended in time.
    fn lose_stale(&self) {
        let lost = lock(&self.held).lose_stale(Instant::now(), self.local_margin());
        self.lose(lost);
    }

    /// Renews every live lease; returns how many are held. A lease the database did not
    /// renew was taken over (or finished): it is given up locally.
    pub(super) async fn renew(&self) -> Result<usize, TaskStoreError> {
        let sent = Instant::now();
        let (ids, epochs): (Vec<String>, Vec<i64>) = lock(&self.held)
            .tasks
            .iter()
            .filter(|(_, t)| !t.lost)
            .map(|(id, t)| (id.clone(), t.epoch))
            .unzip();
        if ids.is_empty() {
            return Ok(0);
        }
        let client = self.pool.get().await.map_err(backend)?;
        let rows = client
            .query(
                &renew_sql(),
                &[&self.owner, &self.lease_secs(), &ids, &epochs],
            )
            .await
            .map_err(backend)?;
        let mut notices = Vec::new();
        let mut renewed = HashSet::with_capacity(rows.len());
        let mut h = lock(&self.held);
        for row in &rows {
            let id: String = row.get(0);
            let (cancel, input): (bool, bool) = (row.get(1), row.get(2));
            let Some(task) = h.tasks.get_mut(&id).filter(|t| !t.lost) else {
                continue;
            };
            task.since = task.since.max(sent);
            if cancel && h.cancel_announced.insert(id.clone()) {
                notices.push(TaskNotice::CancelRequested(id.clone()));
            }
            if input {
                // Until it is taken: the holder may have missed the bus's event.
                notices.push(TaskNotice::InputPosted(id.clone()));
            }
            renewed.insert(id);
        }
        // Sent for renewal and not renewed, under the same epoch and not extended since:
        // finished or taken over. (A task finished here left the set already.)
        let mut gone = Vec::new();
        for (id, epoch) in ids.iter().zip(&epochs) {
            if let Some(task) = h.tasks.get_mut(id)
                && !renewed.contains(id)
                && task.epoch == *epoch
                && !task.lost
                && task.since < sent
            {
                task.lost = true;
                gone.push(id.clone());
            }
        }
        let n = h.live();
        drop(h);
        for notice in notices {
            let _ = self.notices.send(notice);
        }
        self.lose(gone);
        Ok(n)
    }
}

/// Renews the leases of `inner` every third of the lease while it holds any and exists
/// (when the store is dropped or the process dies the leases run out), and gives each up
/// locally the moment two thirds of the lease passed since it was last extended — even
/// while a renewal hangs.
pub(super) async fn renew_loop(inner: Weak<Inner>) {
    let Some(period) = inner.upgrade().map(|i| i.lease / 3) else {
        return;
    };
    let mut next_renewal = Instant::now() + period;
    loop {
        let Some(strong) = inner.upgrade() else {
            return;
        };
        let next_loss = lock(&strong.held).next_loss(strong.local_margin());
        drop(strong);
        let wake = next_loss.map_or(next_renewal, |at| at.min(next_renewal));
        tokio::time::sleep_until(wake.into()).await;
        let Some(inner) = inner.upgrade() else {
            return;
        };
        inner.lose_stale();
        if Instant::now() >= next_renewal {
            next_renewal = Instant::now() + period;
            // A renewal that hangs must not hold up the next loss.
            let budget = lock(&inner.held)
                .next_loss(inner.local_margin())
                .map_or(period, |at| at.saturating_duration_since(Instant::now()))
                .clamp(Duration::from_millis(10), period);
            match tokio::time::timeout(budget, inner.renew()).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, owner = inner.owner, "could not renew task leases")
                }
                Err(_) => {
                    tracing::warn!(owner = inner.owner, "renewing task leases timed out")
                }
            }
            inner.lose_stale();
        }
        if inner.renewer.should_end(|| lock(&inner.held).live() == 0) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(since: &[(&str, Instant)]) -> Held {
        let mut h = Held::default();
        for (id, at) in since {
            h.tasks.insert(
                (*id).to_owned(),
                HeldTask {
                    epoch: 1,
                    since: *at,
                    lost: false,
                },
            );
        }
        h
    }

    #[test]
    fn a_lease_is_given_up_two_thirds_of_a_lease_after_it_was_last_extended() {
        let lease = Duration::from_secs(3);
        let margin = lease * 2 / 3;
        let t0 = Instant::now();
        let mut h = held(&[("old", t0), ("new", t0 + Duration::from_secs(1))]);
        assert_eq!(h.next_loss(margin), Some(t0 + margin));
        // Just before the old one's deadline nothing is lost...
        assert!(
            h.lose_stale(t0 + margin - Duration::from_millis(1), margin)
                .is_empty()
        );
        // ...at it, the old one is, once; the newer one still counts.
        assert_eq!(h.lose_stale(t0 + margin, margin), ["old"]);
        assert!(h.lose_stale(t0 + margin, margin).is_empty());
        assert_eq!(h.live(), 1);
        assert_eq!(
            h.next_loss(margin),
            Some(t0 + Duration::from_secs(1) + margin)
        );
        // A lost lease is remembered (its epoch fences a finished task's last write)
        // until it is forgotten.
        assert_eq!(
            h.tasks.get("old").map(|t| (t.epoch, t.lost)),
            Some((1, true))
        );
        h.forget("old");
        assert!(!h.tasks.contains_key("old"));
    }
}
