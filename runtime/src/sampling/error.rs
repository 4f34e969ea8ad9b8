//! Why a sampling helper gave up, with every attempt it made.

use crate::peer::RequestError;
use crate::protocol::{CreateMessageRequestParams, CreateMessageResult};

/// One request/response pair that was not accepted, and why.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
/// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
/// struct Count { n: u32 }
/// /// Reports why the model's only answer was rejected.
/// #[mcp_tool]
/// async fn count(ctx: &Ctx) -> Result<String, ToolError> {
///     let error = ctx.sample_schema::<Count>().prompt("How many?").retries(0).await.unwrap_err();
///     let attempt = &error.attempts()[0];
///     Ok(format!("{}: {}", attempt.response.model, attempt.problem))
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(count).build()?;
/// let client = Client::builder().on_sampling(|_params| async {
///     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
///         "content": {"type": "text", "text": "Several."}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("count", json!({})).await?;
/// assert!(result.content[0].as_text().unwrap().starts_with("m: "));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// What was sent.
    pub request: CreateMessageRequestParams,
    /// What came back.
    pub response: CreateMessageResult,
    /// Why it was not accepted (fed back to the model on the next attempt).
    pub problem: String,
}

/// A sampling helper's failure.
///
/// ```
/// use tracksuit::{Ctx, Server, ToolError, branch::BranchOptions, client::Client, mcp_tool};
/// use tracksuit::sampling::SampleError;
/// /// Samples in a branch whose budget cannot cover the request.
/// #[mcp_tool]
/// async fn tight(ctx: &Ctx) -> Result<String, ToolError> {
///     let options = BranchOptions::new().token_budget(50);
///     let sampled = ctx.branch_with(options, |b| async move {
///         b.sample().prompt("Write an essay.").max_tokens(500).await
///     });
///     match sampled.await? {
///         Err(SampleError::BudgetExceeded { remaining, .. }) => Ok(format!("{remaining} left")),
///         other => Err(ToolError::new(format!("{other:?}"))),
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(tight).build()?;
/// // Nothing reaches the client: the budget refused the request first.
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let result = client.call_tool("tight", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("50 left"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SampleError {
    /// The request could not be made or was refused (capability missing, timeout, client
    /// error). Nothing is retried: the client decided.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// `sample_tools`: the model never called a tool within the retry budget.
    #[error("the model did not call a tool in {} attempt(s): {}", .attempts.len(), last_problem(.attempts))]
    NoToolCall {
        /// Every attempt, in order.
        attempts: Vec<Attempt>,
    },
    /// `sample_schema`: no answer matched the schema within the retry budget.
    #[error("no valid structured answer in {} attempt(s): {}", .attempts.len(), last_problem(.attempts))]
    Schema {
        /// Every attempt, in order.
        attempts: Vec<Attempt>,
    },
    /// A branch's token budget would be exceeded: nothing was sent.
    #[error(
        "the branch's token budget is exhausted: {remaining} token(s) left, this request may use {needed}"
    )]
    BudgetExceeded {
        /// Tokens left.
        remaining: u64,
        /// Tokens the request may use (prompt estimate + `maxTokens`).
        needed: u64,
    },
    /// The helper was used wrongly (e.g. `sample_tools` with no tools).
    #[error("{0}")]
    Usage(String),
    /// The tool loop hit its round limit before the model gave a final answer.
    #[error("the tool loop did not finish within {rounds} round(s)")]
    TooManyRounds {
        /// The limit.
        rounds: usize,
    },
}

impl SampleError {
    /// The rejected attempts, if the failure kept any.
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            SampleError::NoToolCall { attempts } | SampleError::Schema { attempts } => attempts,
            _ => &[],
        }
    }
}

fn last_problem(attempts: &[Attempt]) -> &str {
    attempts
        .last()
        .map(|a| a.problem.as_str())
        .unwrap_or("no attempt was made")
}
