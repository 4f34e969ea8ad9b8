//! Idempotent rounds: what makes a re-sent MCP 2026-07-28 round return the outcome of its
//! first sending instead of running the call's tail again.
//!
//! A multi round-trip call's later rounds each present a sealed `requestState` and the
//! client's answers to its questions. The server claims a round by that state's
//! authenticated AES-GCM tag before it runs the handler ([`IdempotencyStore::claim`]), and once the round has
//! done something that must not happen twice — it completed (a handoff tool's `after`, a
//! plain tool's code after its last question), or it ran a [`Ctx::once`](crate::Ctx::once)
//! block — records its outcome ([`IdempotencyStore::finish`]). A round that only asked
//! further questions gives its claim back ([`IdempotencyStore::release`]), so its state
//! stays reusable as before. Then:
//!
//! - the same state with the same answers (a network retry, a duplicate sent 20 times at
//!   once) gets the recorded outcome, whichever replica it reaches; duplicates arriving
//!   while the first is still served wait for it;
//! - the same state with *different* answers is refused (`-32602`): the call already went
//!   on with the first ones.
//!
//! Records live as long as the state could still be presented (the server's
//! `request_state_ttl`). [`MemoryIdempotencyStore`] is the default (one process, bounded);
//! replicas share a [`PgIdempotencyStore`] (feature `postgres`).

mod memory;
#[cfg(feature = "postgres")]
mod postgres;

pub use memory::MemoryIdempotencyStore;
#[cfg(feature = "postgres")]
pub use postgres::PgIdempotencyStore;

use futures::future::BoxFuture;
use serde_json::value::RawValue;
use std::time::Duration;

/// The identity of one round as a client sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RoundKey {
    /// The AES-GCM tag of the `requestState` presented, checked when it was opened: what a
    /// claim is keyed by. Unique per sealed state and not a client's choice.
    pub state: [u8; 16],
    /// SHA-256/128 of the answers given to that state's questions.
    pub answers: [u8; 16],
}

/// How [`IdempotencyStore::claim`] found a round.
#[derive(Debug)]
pub enum Claim {
    /// Nobody served this state yet (or its server gave it back): serve it, then
    /// [`finish`](IdempotencyStore::finish) or [`release`](IdempotencyStore::release) with
    /// this token.
    Won(u64),
    /// It was served with the same answers: the outcome recorded then.
    Done(Box<RawValue>),
    /// It was served with other answers.
    Conflict,
}

/// Why an idempotency store could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IdempotencyError {
    /// The backend (e.g. the database) failed.
    #[error("idempotency store: {0}")]
    Backend(String),
}

/// Where a server records the rounds it served; see the [module](self) documentation.
///
/// Implementations must make [`claim`](IdempotencyStore::claim) atomic per state: of
/// concurrent claims of one state, one wins and the others wait for its outcome.
pub trait IdempotencyStore: Send + Sync + std::fmt::Debug + 'static {
    /// Claims the round `key`, waiting while another claim of the same state is being
    /// served. `ttl` is how long a record must be kept.
    fn claim(&self, key: RoundKey, ttl: Duration)
    -> BoxFuture<'_, Result<Claim, IdempotencyError>>;

    /// Records the outcome of a round claimed with `token`; duplicates waiting for it get
    /// it. Returns `false` if the claim was no longer this server's (it lapsed and another
    /// took it over).
    fn finish(
        &self,
        key: RoundKey,
        token: u64,
        outcome: Box<RawValue>,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<bool, IdempotencyError>>;

    /// Gives back a round claimed with `token` without an outcome: the state may be served
    /// again. Called from `Drop` (a dropped request), so it must not block.
    fn release(&self, key: RoundKey, token: u64);
}
