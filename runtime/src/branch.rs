//! Structured-concurrency branches: `ctx.branch(|b| async move { ... })`.
//!
//! A branch is a plain future that lives inside the tool call's future, so structure comes
//! from ownership: run several with `join!` / `try_join!`; when the call is cancelled
//! (`notifications/cancelled`), the client disconnects, a sibling fails in a `try_join!`, or
//! a branch's timeout fires, the branch futures are dropped — their outstanding sampling
//! requests are withdrawn with `notifications/cancelled` and nothing further is sent.
//!
//! A [`Branch`] can sample (with its own history, system prompt and token budget) and
//! branch again (up to a depth limit that children can only tighten), but it cannot
//! elicit: only the call's own `Ctx` talks to the user, so interleaved branches never race
//! for the user's attention. That is a type rule — `Branch` has no elicitation methods.
//!
//! ```
//! use serde_json::json;
//! use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
//! /// Asks for two opinions at once.
//! #[mcp_tool]
//! async fn debate(ctx: &Ctx) -> Result<String, ToolError> {
//!     let (pro, con) = tokio::try_join!(
//!         ctx.branch(|b| async move { b.sample().prompt("Argue for tabs.").await }),
//!         ctx.branch(|b| async move { b.sample().prompt("Argue for spaces.").await }),
//!     )?;
//!     Ok(format!("{} / {}", pro?.text(), con?.text()))
//! }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let server = Server::new(tracksuit::crate_info!()).tool(debate).build()?;
//! let client = Client::builder().on_sampling(|params| async move {
//!     let asked = params.messages[0].content.iter().find_map(|b| b.as_text()).unwrap_or_default();
//!     let answer = if asked.contains("tabs") { "tabs" } else { "spaces" };
//!     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
//!         "content": {"type": "text", "text": answer}})).unwrap())
//! });
//! # let client = tracksuit::host::connect_in_memory(server, client).await?;
//! let result = client.call_tool("debate", json!({})).await?;
//! assert_eq!(result.content[0].as_text(), Some("tabs / spaces"));
//! # Ok(())
//! # }
//! ```

use crate::context::Ctx;
use crate::protocol::{LoggingLevel, SamplingMessage};
use crate::sampling::TokenBudget;
use crate::sampling::{Raw, Sample, Schema, Tools};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::sync::Arc;

use std::time::Duration;

/// Default maximum nesting of branches.
///
/// ```
/// use tracksuit::{Ctx, Server, ToolError, branch::{Branch, BranchError, DEFAULT_MAX_DEPTH}, mcp_tool};
/// // Nests branches until the limit refuses one.
/// fn nest(b: Branch) -> futures::future::BoxFuture<'static, usize> {
///     Box::pin(async move {
///         match b.branch(nest).await {
///             Ok(deepest) => deepest,
///             Err(BranchError::TooDeep { .. }) => b.depth(),
///             Err(_) => 0,
///         }
///     })
/// }
/// /// Reports how deep branches may nest.
/// #[mcp_tool]
/// async fn depth(ctx: &Ctx) -> Result<String, ToolError> {
///     Ok(ctx.branch(nest).await?.to_string())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(depth).build()?;
/// # let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
/// let result = client.call_tool("depth", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some(DEFAULT_MAX_DEPTH.to_string().as_str()));
/// # Ok(())
/// # }
/// ```
pub const DEFAULT_MAX_DEPTH: usize = 4;

/// How a branch is set up. Unset fields inherit from the parent.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::{Ctx, Server, ToolError, branch::BranchOptions, mcp_tool, protocol::SamplingMessage};
/// /// Shows what a configured branch starts with.
/// #[mcp_tool]
/// async fn setup(ctx: &Ctx) -> Result<String, ToolError> {
///     let options = BranchOptions::new()
///         .history(vec![SamplingMessage::user_text("Earlier question")])
///         .system(Some("You are a critic.".into()))
///         .token_budget(2_000)
///         .max_depth(1)
///         .timeout(Duration::from_secs(30));
///     let seen = ctx.branch_with(options, |b| async move {
///         format!("{} {:?}", b.history().len(), b.remaining_tokens())
///     });
///     Ok(seen.await?)
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(setup).build()?;
/// # let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
/// let result = client.call_tool("setup", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("1 Some(2000)"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct BranchOptions {
    history: Option<Vec<SamplingMessage>>,
    system: Option<Option<String>>,
    max_depth: Option<usize>,
    token_budget: Option<u64>,
    timeout: Option<Duration>,
}

impl BranchOptions {
    /// Inherit everything.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replace the inherited message history.
    pub fn history(mut self, messages: Vec<SamplingMessage>) -> Self {
        self.history = Some(messages);
        self
    }

    /// Replace the inherited system prompt (`None` clears it).
    pub fn system(mut self, system: Option<String>) -> Self {
        self.system = Some(system);
        self
    }

    /// Limit nesting below this branch (only ever tightens the parent's limit).
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = Some(depth);
        self
    }

    /// Tokens this branch (and its children) may spend on sampling; a child's budget is
    /// also charged to its parent's.
    pub fn token_budget(mut self, tokens: u64) -> Self {
        self.token_budget = Some(tokens);
        self
    }

    /// Give up (dropping the branch) after this long.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

/// Why a branch did not produce its value.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::{Ctx, Server, ToolError, branch::{BranchError, BranchOptions}, mcp_tool};
/// /// Gives a slow branch 10 ms.
/// #[mcp_tool]
/// async fn hurry(ctx: &Ctx) -> Result<String, ToolError> {
///     let options = BranchOptions::new().timeout(Duration::from_millis(10));
///     let slow = ctx.branch_with(options, |_b| std::future::pending::<()>());
///     match slow.await {
///         Err(BranchError::Timeout(after)) => Ok(format!("gave up after {after:?}")),
///         other => Err(ToolError::new(format!("{other:?}"))),
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(hurry).build()?;
/// # let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
/// let result = client.call_tool("hurry", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("gave up after 10ms"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BranchError {
    /// Nesting would exceed the depth limit.
    #[error("branch depth {depth} exceeds the limit of {max}")]
    TooDeep {
        /// The depth the branch would have.
        depth: usize,
        /// The limit.
        max: usize,
    },
    /// The timeout fired; the branch was dropped.
    #[error("the branch timed out after {0:?}")]
    Timeout(Duration),
}

/// A sub-branch of a tool call: samples with its own history, system prompt and budget;
/// cannot elicit.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
/// /// Keeps a conversation inside one branch.
/// #[mcp_tool]
/// async fn converse(ctx: &Ctx) -> Result<String, ToolError> {
///     let turns = ctx.branch(|mut b| async move {
///         let first = b.sample().prompt("Name a colour.").await?;
///         b.push_history(first.messages); // the next sample sees the first exchange
///         b.sample().prompt("And another?").await?;
///         Ok::<_, tracksuit::SampleError>(b.history().len())
///     });
///     Ok(turns.await??.to_string())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(converse).build()?;
/// let client = Client::builder().on_sampling(|_params| async {
///     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
///         "content": {"type": "text", "text": "Blue"}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// assert_eq!(client.call_tool("converse", json!({})).await?.content[0].as_text(), Some("2"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Branch {
    ctx: Ctx,
    depth: usize,
    max_depth: usize,
    history: Vec<SamplingMessage>,
    system: Option<String>,
    budget: Option<Arc<TokenBudget>>,
}

impl Branch {
    fn child(&self, options: BranchOptions) -> Result<(Branch, Option<Duration>), BranchError> {
        let depth = self.depth + 1;
        if depth > self.max_depth {
            return Err(BranchError::TooDeep {
                depth,
                max: self.max_depth,
            });
        }
        let max_depth = options
            .max_depth
            .map_or(self.max_depth, |m| m.min(self.max_depth));
        let budget = match options.token_budget {
            Some(tokens) => Some(TokenBudget::new(tokens, self.budget.clone())),
            None => self.budget.clone(),
        };
        let branch = Branch {
            ctx: self.ctx.branch_flow(),
            depth,
            max_depth,
            history: options.history.unwrap_or_else(|| self.history.clone()),
            system: options.system.unwrap_or_else(|| self.system.clone()),
            budget,
        };
        Ok((branch, options.timeout))
    }

    /// Runs a nested branch.
    pub async fn branch<F, Fut, T>(&self, f: F) -> Result<T, BranchError>
    where
        F: FnOnce(Branch) -> Fut,
        Fut: Future<Output = T>,
    {
        self.branch_with(BranchOptions::new(), f).await
    }

    /// Runs a nested branch with options.
    pub async fn branch_with<F, Fut, T>(
        &self,
        options: BranchOptions,
        f: F,
    ) -> Result<T, BranchError>
    where
        F: FnOnce(Branch) -> Fut,
        Fut: Future<Output = T>,
    {
        let (child, timeout) = self.child(options)?;
        match timeout {
            Some(t) => tokio::time::timeout(t, f(child))
                .await
                .map_err(|_| BranchError::Timeout(t)),
            None => Ok(f(child).await),
        }
    }

    fn prepared<'s, M>(&'s self, sample: Sample<'s, M>) -> Sample<'s, M> {
        let sample = sample
            .history(self.history.clone())
            .with_budget(self.budget.clone());
        match &self.system {
            Some(s) => sample.system(s.clone()),
            None => sample,
        }
    }

    /// Raw sampling with this branch's history, system prompt and budget.
    pub fn sample(&self) -> Sample<'_, Raw> {
        self.prepared(self.ctx.sample())
    }

    /// `sample_tools` with this branch's history, system prompt and budget.
    pub fn sample_tools(&self) -> Sample<'_, Tools> {
        self.prepared(self.ctx.sample_tools())
    }

    /// `sample_schema::<T>` with this branch's history, system prompt and budget.
    pub fn sample_schema<T: DeserializeOwned + JsonSchema + 'static>(
        &self,
    ) -> Sample<'_, Schema<T>> {
        self.prepared(self.ctx.sample_schema::<T>())
    }

    /// Adds messages to this branch's history (e.g. an exchange's `messages`).
    pub fn push_history(&mut self, messages: impl IntoIterator<Item = SamplingMessage>) {
        self.history.extend(messages);
    }

    /// This branch's history.
    pub fn history(&self) -> &[SamplingMessage] {
        &self.history
    }

    /// Nesting depth (1 for a branch of the call).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Tokens left in this branch's budget, if it has one.
    pub fn remaining_tokens(&self) -> Option<u64> {
        self.budget.as_ref().map(|b| b.remaining())
    }

    /// Logs through the call's context.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.ctx.log(level, data).await
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// Runs a side effect once per call, numbered in this branch's own line (see
    /// [`Ctx::once`]): a replayed round gets its logged result.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    /// /// Reserves a seat in a branch.
    /// #[mcp_tool]
    /// async fn reserve(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let seat = ctx
    ///         .branch(|b| async move { b.once("reserve", async { 12u32 }).await })
    ///         .await??;
    ///     Ok(format!("seat {seat}"))
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(reserve).build().unwrap();
    /// ```
    pub async fn once<T, F>(&self, name: &str, effect: F) -> Result<T, crate::context::OnceError>
    where
        T: Serialize + serde::de::DeserializeOwned,
        F: std::future::IntoFuture<Output = T>,
    {
        self.ctx.once(name, effect).await
    }
}

impl<K> Ctx<K> {
    /// Runs `f` as a branch of this call (inheriting no history, the default depth limit,
    /// no budget, no timeout).
    ///
    /// ```no_run
    /// # async fn demo(ctx: &tracksuit::Ctx) -> Result<(), Box<dyn std::error::Error>> {
    /// let (a, b) = tokio::try_join!(
    ///     ctx.branch(|b| async move { b.sample().prompt("Argue for").await }),
    ///     ctx.branch(|b| async move { b.sample().prompt("Argue against").await }),
    /// )?;
    /// # let _ = (a, b); Ok(()) }
    /// ```
    pub async fn branch<F, Fut, T>(&self, f: F) -> Result<T, BranchError>
    where
        F: FnOnce(Branch) -> Fut,
        Fut: Future<Output = T>,
    {
        self.branch_with(BranchOptions::new(), f).await
    }

    /// [`Ctx::branch`] with options.
    pub async fn branch_with<F, Fut, T>(
        &self,
        options: BranchOptions,
        f: F,
    ) -> Result<T, BranchError>
    where
        F: FnOnce(Branch) -> Fut,
        Fut: Future<Output = T>,
    {
        let root = Branch {
            ctx: self.erased(),
            depth: 0,
            max_depth: DEFAULT_MAX_DEPTH,
            history: Vec::new(),
            system: None,
            budget: None,
        };
        root.branch_with(options, f).await
    }
}
