//! [`MemoryIdempotencyStore`]: the rounds one process served, in memory, bounded.

use super::{Claim, IdempotencyError, IdempotencyStore, RoundKey};
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// The default idempotency store: records in this process's memory, kept for their ttl and
/// bounded in number and in bytes (the oldest records go first when full, with a warning:
/// a round whose record was evicted runs again if re-sent).
///
/// Replicas behind one endpoint need a shared store instead
/// ([`PgIdempotencyStore`](super::PgIdempotencyStore), feature `postgres`): a re-send may
/// reach another replica.
///
/// ```
/// use tracksuit::idempotency::MemoryIdempotencyStore;
/// let store = MemoryIdempotencyStore::new().max_records(10_000).max_bytes(16 << 20);
/// let server = tracksuit::Server::new(tracksuit::crate_info!())
///     .idempotency_store(std::sync::Arc::new(store))
///     .build()?;
/// # let _ = server;
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
#[derive(Debug)]
pub struct MemoryIdempotencyStore {
    map: Mutex<Records>,
    /// Woken whenever a claim ends (finished or released): duplicates waiting on a round
    /// being served check again. One for the store, as duplicates are rare.
    ended: Notify,
    /// How many claims wait on `ended` (it is only woken when some do).
    waiting: AtomicUsize,
    max_records: usize,
    max_bytes: usize,
}

/// The map's lock; a panic elsewhere while it was held leaves the records consistent (every
/// change is made in one step), so a poisoned lock is taken as it is.
fn lock(map: &Mutex<Records>) -> std::sync::MutexGuard<'_, Records> {
    map.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A state digest is a SHA-256 prefix, uniform and out of a client's control: its first
/// eight bytes are as good a hash as any.
#[derive(Default)]
struct DigestHasher(u64);

impl Hasher for DigestHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for (i, b) in bytes.iter().take(8).enumerate() {
            self.0 ^= u64::from(*b) << (8 * i);
        }
    }
}

/// One claim waiting for another to end, counted while it waits.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn start(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[derive(Debug, Default)]
struct Records {
    /// The rounds being served, by state, with their claim's token: a few (as many as
    /// rounds in flight), so claiming and giving back a round that only asked stays in
    /// cache instead of writing to the large map of finished ones.
    running: HashMap<[u8; 16], u64, BuildHasherDefault<DigestHasher>>,
    /// The finished rounds, by state.
    done: HashMap<[u8; 16], Done, BuildHasherDefault<DigestHasher>>,
    /// Finished records, oldest first: `(state, token, where its outcome starts)`.
    order: VecDeque<([u8; 16], u64, u64)>,
    /// The outcomes' text, oldest first, back to back: one buffer rather than an allocation
    /// per record, which kept by the ten thousand slow the allocator for everyone else.
    log: VecDeque<u8>,
    /// The position of `log`'s first byte in the stream of every outcome written.
    log_start: u64,
    next_token: u64,
}

/// A finished round's record.
#[derive(Debug)]
struct Done {
    token: u64,
    answers: [u8; 16],
    /// Where its outcome starts in the stream of outcomes, and its length.
    at: u64,
    len: usize,
    expires: Instant,
}

impl Records {
    /// The outcome written at `at` (`len` bytes), if the log still holds it.
    fn outcome(&self, at: u64, len: usize) -> Option<Box<RawValue>> {
        let start = usize::try_from(at.checked_sub(self.log_start)?).ok()?;
        let bytes: Vec<u8> = self
            .log
            .range(start..start.checked_add(len)?)
            .copied()
            .collect();
        RawValue::from_string(String::from_utf8(bytes).ok()?).ok()
    }
}

impl Default for MemoryIdempotencyStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryIdempotencyStore {
    /// A store holding at most 100 000 records and 64 MiB of outcomes.
    pub fn new() -> Self {
        MemoryIdempotencyStore {
            map: Mutex::default(),
            ended: Notify::new(),
            waiting: AtomicUsize::new(0),
            max_records: 100_000,
            max_bytes: 64 << 20,
        }
    }

    /// At most `n` records (at least 1).
    pub fn max_records(mut self, n: usize) -> Self {
        self.max_records = n.max(1);
        self
    }

    /// At most `n` bytes of recorded outcomes.
    pub fn max_bytes(mut self, n: usize) -> Self {
        self.max_bytes = n;
        self
    }

    /// How many finished rounds are recorded now.
    ///
    /// ```
    /// assert_eq!(tracksuit::idempotency::MemoryIdempotencyStore::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        lock(&self.map).order.len()
    }

    /// Whether no finished round is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Wakes the claims waiting for one to end, if any (after the map changed: a claim
    /// counted in `waiting` checks the map after counting itself, so it sees the change
    /// or is woken).
    fn wake(&self) {
        if self.waiting.load(Ordering::SeqCst) > 0 {
            self.ended.notify_waiters();
        }
    }

    /// The claim on `key`, or `None` while another holds it.
    fn try_claim(&self, key: RoundKey) -> Option<Claim> {
        let mut map = lock(&self.map);
        if map.running.contains_key(&key.state) {
            return None;
        }
        if let Some(done) = map.done.get(&key.state)
            && done.expires > Instant::now()
        {
            if done.answers != key.answers {
                return Some(Claim::Conflict);
            }
            // Written by `finish` from a `RawValue`: it reads back (else: refused).
            return Some(
                map.outcome(done.at, done.len)
                    .map_or(Claim::Conflict, Claim::Done),
            );
        }
        // An expired record stays until `finish` replaces it or `trim` drops it.
        map.next_token += 1;
        let token = map.next_token;
        map.running.insert(key.state, token);
        Some(Claim::Won(token))
    }

    /// Drops expired records from the front, then the oldest while over the bounds.
    fn trim(&self, map: &mut Records, now: Instant) {
        let end = map.log_start + map.log.len() as u64;
        while let Some(&(state, token, at)) = map.order.front() {
            // What the log would hold from this record on, were the older text gone.
            let held = usize::try_from(end.saturating_sub(at)).unwrap_or(usize::MAX);
            let over = map.order.len() > self.max_records || held > self.max_bytes;
            let done = map.done.get(&state);
            let current = done.is_some_and(|d| d.token == token);
            let expired = done.is_some_and(|d| d.expires <= now);
            if current && !expired && !over {
                break;
            }
            map.order.pop_front();
            if !current {
                continue;
            }
            map.done.remove(&state);
            if !expired {
                tracing::warn!(
                    "idempotency store full: the oldest round's record was dropped before its state expired; raise MemoryIdempotencyStore::max_records / max_bytes"
                );
            }
        }
        // The log keeps what the oldest record left needs, and after.
        let keep = map.order.front().map_or(end, |&(_, _, at)| at);
        let gone = usize::try_from(keep.saturating_sub(map.log_start)).unwrap_or(usize::MAX);
        map.log.drain(..gone.min(map.log.len()));
        map.log_start = keep.min(end);
    }
}

impl IdempotencyStore for MemoryIdempotencyStore {
    fn claim(
        &self,
        key: RoundKey,
        _ttl: Duration,
    ) -> BoxFuture<'_, Result<Claim, IdempotencyError>> {
        Box::pin(async move {
            // Almost always free: no registration to wait on it.
            if let Some(claim) = self.try_claim(key) {
                return Ok(claim);
            }
            let _waiting = Waiting::start(&self.waiting);
            loop {
                // Registered before the check, so an end between the two is not missed.
                let ended = self.ended.notified();
                tokio::pin!(ended);
                ended.as_mut().enable();
                if let Some(claim) = self.try_claim(key) {
                    return Ok(claim);
                }
                ended.await;
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
        let mut map = lock(&self.map);
        let ours = map.running.get(&key.state) == Some(&token);
        if ours {
            map.running.remove(&key.state);
            let at = map.log_start + map.log.len() as u64;
            let text = outcome.get().as_bytes();
            map.log.extend(text);
            let now = Instant::now();
            let done = Done {
                token,
                answers: key.answers,
                at,
                len: text.len(),
                expires: now + ttl,
            };
            map.done.insert(key.state, done);
            map.order.push_back((key.state, token, at));
            self.trim(&mut map, now);
        }
        drop(map);
        self.wake();
        Box::pin(std::future::ready(Ok(ours)))
    }

    fn release(&self, key: RoundKey, token: u64) {
        let mut map = lock(&self.map);
        if map.running.get(&key.state) == Some(&token) {
            map.running.remove(&key.state);
            drop(map);
            self.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    fn key(state: u8, answers: u8) -> RoundKey {
        RoundKey {
            state: [state; 16],
            answers: [answers; 16],
        }
    }

    fn text(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    const TTL: Duration = Duration::from_secs(60);

    #[tokio::test(start_paused = true)]
    async fn a_finished_round_is_replayed_and_other_answers_refused() {
        let store = MemoryIdempotencyStore::new();
        let Ok(Claim::Won(token)) = store.claim(key(1, 1), TTL).await else {
            panic!("the first claim wins");
        };
        assert!(
            store
                .finish(key(1, 1), token, text("{\"x\":1}"), TTL)
                .await
                .unwrap()
        );
        match store.claim(key(1, 1), TTL).await.unwrap() {
            Claim::Done(outcome) => assert_eq!(outcome.get(), "{\"x\":1}"),
            other => panic!("expected the outcome, got {other:?}"),
        }
        assert!(matches!(
            store.claim(key(1, 2), TTL).await.unwrap(),
            Claim::Conflict
        ));
        // After the ttl the state could not be presented anyway: the record is gone.
        tokio::time::advance(TTL + Duration::from_secs(1)).await;
        assert!(matches!(
            store.claim(key(1, 2), TTL).await.unwrap(),
            Claim::Won(_)
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn duplicates_wait_for_the_first_and_a_release_lets_one_in() {
        let store = std::sync::Arc::new(MemoryIdempotencyStore::new());
        let Ok(Claim::Won(first)) = store.claim(key(2, 1), TTL).await else {
            panic!("the first claim wins");
        };
        let waiting = {
            let store = store.clone();
            tokio::spawn(async move { store.claim(key(2, 1), TTL).await })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        store.release(key(2, 1), first);
        let Ok(Claim::Won(second)) = waiting.await.unwrap() else {
            panic!("a released state is claimed again");
        };
        assert_ne!(first, second);
        // A stale token cannot finish or release the new claim.
        assert!(
            !store
                .finish(key(2, 1), first, text("1"), TTL)
                .await
                .unwrap()
        );
        store.release(key(2, 1), first);
        assert!(store.claim(key(2, 1), TTL).now_or_never().is_none());
        assert!(
            store
                .finish(key(2, 1), second, text("2"), TTL)
                .await
                .unwrap()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_oldest_records_go_when_full() {
        let store = MemoryIdempotencyStore::new().max_records(2);
        for s in 0..3u8 {
            let Ok(Claim::Won(t)) = store.claim(key(s, 0), TTL).await else {
                panic!("won");
            };
            let outcome = text(&format!("\"outcome {s}{}\"", "!".repeat(usize::from(s))));
            store.finish(key(s, 0), t, outcome, TTL).await.unwrap();
        }
        assert_eq!(store.len(), 2);
        assert!(matches!(
            store.claim(key(0, 0), TTL).await.unwrap(),
            Claim::Won(_)
        ));
        // The records left read back whole, after the oldest's text left the log.
        for (s, want) in [(1, "\"outcome 1!\""), (2, "\"outcome 2!!\"")] {
            match store.claim(key(s, 0), TTL).await.unwrap() {
                Claim::Done(outcome) => assert_eq!(outcome.get(), want),
                other => panic!("expected record {s}, got {other:?}"),
            }
        }
        // A byte bound trims the same way.
        let small = MemoryIdempotencyStore::new().max_bytes(30);
        for s in 0..4u8 {
            let Ok(Claim::Won(t)) = small.claim(key(s, 1), TTL).await else {
                panic!("won");
            };
            small
                .finish(key(s, 1), t, text("\"twelve bytes\""), TTL)
                .await
                .unwrap();
        }
        assert_eq!(small.len(), 2);
    }
}
