//! Handoff tools: `#[mcp_tool]` on an `impl` with three phases, driven as a state machine.
//!
//! 1. `before(params, &PhaseCtx) -> Result<State, E>` — server-side work (random choices,
//!    lookups). It cannot sample or elicit.
//! 2. `client(&State, &Ctx<Keys>) -> Result<Out, E>` — the interactive loop: sample,
//!    elicit, log, progress, branch.
//! 3. `after(State, Out, &PhaseCtx) -> R` — shapes the final result (`R: IntoToolResult`).
//!
//! `State` and `Out` are `Serialize + DeserializeOwned`, and every sampling / elicitation
//! answer of the call is kept in [`Ctx::exchange_log`](crate::Ctx::exchange_log). A live
//! session just holds them; MCP 2026-07-28 rounds and durable tasks seal the state with the
//! answers and replay `client` from them.
//! **`client` must therefore be deterministic given its state and the answers it receives**
//! (no clocks, randomness or I/O there — do those in `before`).
//!
//! A phase that fails ends the call with an `isError` result naming the phase.
//!
//! Shared state: each phase may take `&self` (the value registered with `Server::tool`;
//! inside an `#[mcp_server]` block, where `#[mcp_tool(client = .., after = ..)]` on a
//! method makes it the `before` phase of a handoff tool, the server), and
//! [`PhaseCtx::state`] / [`Ctx::state`](crate::Ctx::state) read the app state given to
//! `Server::state`.
//!
//! ```
//! use serde_json::json;
//! use tracksuit::{Ctx, PhaseCtx, Server, ToolError, client::Client, mcp_tool};
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Args { topic: String }
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Question { text: String }
//! struct Quiz;
//! /// Asks the model a question prepared on the server.
//! #[mcp_tool(name = "quiz")]
//! impl Quiz {
//!     async fn before(args: Args, _ctx: &PhaseCtx) -> Result<Question, ToolError> {
//!         Ok(Question { text: format!("One fact about {}?", args.topic) })
//!     }
//!     async fn client(question: &Question, ctx: &Ctx) -> Result<String, ToolError> {
//!         Ok(ctx.sample().prompt(question.text.clone()).await?.text())
//!     }
//!     async fn after(question: Question, answer: String, _ctx: &PhaseCtx) -> String {
//!         format!("{} {answer}", question.text)
//!     }
//! }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let server = Server::new(tracksuit::crate_info!()).tool(Quiz).build()?;
//! let client = Client::builder().on_sampling(|_params| async {
//!     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
//!         "content": {"type": "text", "text": "It has no garbage collector."}})).unwrap())
//! });
//! # let client = tracksuit::host::connect_in_memory(server, client).await?;
//! let result = client.call_tool("quiz", json!({"topic": "Rust"})).await?;
//! assert_eq!(result.content[0].as_text(), Some("One fact about Rust? It has no garbage collector."));
//! # Ok(())
//! # }
//! ```

use crate::context::{Ctx, LoggedExchange, MissingState};
use crate::protocol::LoggingLevel;
use serde::Serialize;

/// What `before` and `after` see: logging, progress and cancellation — no sampling or
/// elicitation (those belong to `client`).
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, PhaseCtx, Server, ToolError, client::Client, mcp_tool};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Args { rounds: u32 }
/// struct Ask;
/// /// Samples `rounds` times; `after` counts the answers the call received.
/// #[mcp_tool(name = "ask")]
/// impl Ask {
///     async fn before(args: Args, ctx: &PhaseCtx) -> Result<u32, ToolError> {
///         ctx.progress(0.0, Some(f64::from(args.rounds)), Some("starting")).await;
///         Ok(args.rounds)
///     }
///     async fn client(rounds: &u32, ctx: &Ctx) -> Result<(), ToolError> {
///         for _ in 0..*rounds {
///             ctx.sample().prompt("Next?").await?;
///         }
///         Ok(())
///     }
///     async fn after(_rounds: u32, _out: (), ctx: &PhaseCtx) -> String {
///         ctx.exchange_log().len().to_string()
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(Ask).build()?;
/// # let client = Client::builder().on_sampling(|_params| async {
/// #     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
/// #         "content": {"type": "text", "text": "ok"}})).unwrap())
/// # });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("ask", json!({"rounds": 3})).await?;
/// assert_eq!(result.content[0].as_text(), Some("3"));
/// # Ok(())
/// # }
/// ```
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

    /// The app state of type `T` the server was given with `Server::state`, as
    /// [`Ctx::state`] reads it (a missing one is a [`MissingState`] naming the type).
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use tracksuit::{Ctx, PhaseCtx, Server, ToolError, client::Client, mcp_tool};
    ///
    /// /// Where `after` writes what each call settled.
    /// #[derive(Default)]
    /// struct Journal(Mutex<Vec<String>>);
    ///
    /// struct Note;
    ///
    /// /// Notes a word in the journal.
    /// #[mcp_tool(name = "note")]
    /// impl Note {
    ///     async fn before(_ctx: &PhaseCtx) -> Result<String, ToolError> {
    ///         Ok("hello".into())
    ///     }
    ///     async fn client(word: &String, _ctx: &Ctx) -> Result<usize, ToolError> {
    ///         Ok(word.len())
    ///     }
    ///     async fn after(word: String, len: usize, ctx: &PhaseCtx) -> Result<String, ToolError> {
    ///         let journal = ctx.state::<Journal>()?;
    ///         journal.0.lock().map_err(|_| ToolError::new("journal poisoned"))?.push(word);
    ///         Ok(len.to_string())
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).state(Journal::default()).tool(Note).build()?;
    /// let client = tracksuit::host::connect_in_memory(server.clone(), Client::builder()).await?;
    /// client.call_tool("note", serde_json::json!({})).await?;
    /// assert_eq!(*server.state::<Journal>()?.0.lock().unwrap(), ["hello"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, MissingState> {
        self.ctx.state::<T>()
    }
}

/// What a handoff tool's `State` (from `before`) and `Out` (from `client`) must be: kept
/// between rounds as JSON, so `Serialize + DeserializeOwned`. Implemented for every such
/// type; there is nothing to implement.
///
/// ```
/// use tracksuit::handoff::HandoffState;
///
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct State { round: u32 }
///
/// let kept = State { round: 2 }.keep()?;
/// assert_eq!(State::restore(kept)?, State { round: 2 });
/// # Ok::<(), serde_json::Error>(())
/// ```
///
/// A type without the derives is refused where the phase names it:
///
/// ```compile_fail
/// use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_tool};
///
/// #[derive(serde::Deserialize)] // no `Serialize`
/// struct State { n: u32 }
///
/// struct Flow;
///
/// #[mcp_tool]
/// impl Flow {
///     async fn before(_ctx: &PhaseCtx) -> Result<State, ToolError> { // error: `State` cannot be kept
///         Ok(State { n: 1 })
///     }
///     async fn client(state: &State, _ctx: &Ctx) -> Result<u32, ToolError> {
///         Ok(state.n)
///     }
///     async fn after(_state: State, out: u32, _ctx: &PhaseCtx) -> String {
///         out.to_string()
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept between a handoff tool's rounds: derive `serde::Serialize` and `serde::Deserialize` for it",
    label = "add `#[derive(serde::Serialize, serde::Deserialize)]` to this type",
    note = "a handoff tool's state (from `before`) and the output of `client` are kept as JSON while the client answers"
)]
pub trait HandoffState: Sized {
    /// The value as JSON, to keep.
    fn keep(&self) -> serde_json::Result<serde_json::Value>;
    /// The value again, from what [`keep`](HandoffState::keep) made.
    fn restore(kept: serde_json::Value) -> serde_json::Result<Self>;
}

impl<T: Serialize + serde::de::DeserializeOwned> HandoffState for T {
    fn keep(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn restore(kept: serde_json::Value) -> serde_json::Result<Self> {
        serde_json::from_value(kept)
    }
}
