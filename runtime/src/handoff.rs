//! Handoff tools: `#[mcp_tool]` on an `impl` with three phases, driven as a state machine.
//!
//! 1. `before(params, &PhaseCtx) -> Result<State, E>` — server-side work (random choices,
//!    lookups). It cannot sample or elicit.
//! 2. `client(&State, &Ctx<Keys>) -> Result<Out, E>` — the interactive loop: sample,
//!    elicit, log, progress, branch.
//! 3. `after(State, Out, &PhaseCtx) -> R` — shapes the final result (`R: IntoToolResult`).
//!
//! `State` and `Out` are `Serialize + DeserializeOwned`, and every sampling / elicitation
//! answer of the call is kept in [`Ctx::exchange_log`](crate::Ctx::exchange_log). Together
//! they are a [`HandoffRecord`]: the live engine just holds it, but a stateless engine (MCP
//! 2026-07-28 MRTR, durable tasks) can seal the state and replay `client` from the log.
//! **`client` must therefore be deterministic given its state and the answers it receives**
//! (no clocks, randomness or I/O there — do those in `before`).
//!
//! A phase that fails ends the call with an `isError` result naming the phase.

use crate::context::{Ctx, LoggedExchange};
use crate::protocol::LoggingLevel;
use serde::Serialize;

/// What `before` and `after` see: logging, progress and cancellation — no sampling or
/// elicitation (those belong to `client`).
#[derive(Debug, Clone)]
pub struct PhaseCtx {
    ctx: Ctx,
}

impl PhaseCtx {
    pub(crate) fn new<K>(ctx: &Ctx<K>) -> Self {
        PhaseCtx { ctx: ctx.erased() }
    }

    /// Sends a log message.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.ctx.log(level, data).await
    }

    /// Reports progress.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.ctx.progress(progress, total, message).await
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// Every sampling / elicitation answer of the call so far.
    pub fn exchange_log(&self) -> Vec<LoggedExchange> {
        self.ctx.exchange_log()
    }
}

/// A handoff call's replayable record: the sealed state and the answers `client` received.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HandoffRecord {
    /// `before`'s state, serialised.
    pub state: serde_json::Value,
    /// The answers `client` received, in order.
    pub log: Vec<LoggedExchange>,
}
