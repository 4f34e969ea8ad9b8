//! [`TokenBudget`]: the tokens a branch (and its children) may still spend on sampling.

use super::SampleError;
use crate::protocol::{CreateMessageRequestParams, CreateMessageResult};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A token budget shared by a branch and its children.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, branch::BranchOptions, client::Client, mcp_tool};
/// /// Spends part of a branch's budget; reports what is left.
/// #[mcp_tool]
/// async fn spend(ctx: &Ctx) -> Result<String, ToolError> {
///     let left = ctx.branch_with(BranchOptions::new().token_budget(1000), |b| async move {
///         b.sample().prompt("Hi").max_tokens(100).await?;
///         Ok::<_, ToolError>(b.remaining_tokens().unwrap())
///     });
///     Ok(left.await??.to_string())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(spend).build()?;
/// // The client reports its usage; the budget is charged with it.
/// let client = Client::builder().on_sampling(|_params| async {
///     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
///         "content": {"type": "text", "text": "Hello"},
///         "usage": {"inputTokens": 30, "outputTokens": 70}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("spend", json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("900"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct TokenBudget {
    remaining: AtomicU64,
    parent: Option<Arc<TokenBudget>>,
}

impl TokenBudget {
    pub(crate) fn new(tokens: u64, parent: Option<Arc<TokenBudget>>) -> Arc<Self> {
        Arc::new(TokenBudget {
            remaining: AtomicU64::new(tokens),
            parent,
        })
    }

    /// Tokens left (the tightest of this budget and its ancestors).
    pub fn remaining(&self) -> u64 {
        let own = self.remaining.load(Ordering::Acquire);
        self.parent.as_ref().map_or(own, |p| own.min(p.remaining()))
    }

    /// Refuses a request that may not fit: prompt estimate plus `maxTokens`.
    pub(crate) fn check(&self, request: &CreateMessageRequestParams) -> Result<(), SampleError> {
        let needed = estimate_prompt(request).saturating_add(request.max_tokens);
        let remaining = self.remaining();
        if needed > remaining {
            return Err(SampleError::BudgetExceeded { remaining, needed });
        }
        Ok(())
    }

    /// Charges what a request used: the client's reported usage when it gives one
    /// (`usage.inputTokens` + `usage.outputTokens`), else an estimate.
    pub(crate) fn charge(
        &self,
        request: &CreateMessageRequestParams,
        response: &CreateMessageResult,
    ) {
        let reported = response.extra.get("usage").and_then(|u| {
            let n = |k: &str| u.get(k).and_then(serde_json::Value::as_u64);
            match (n("inputTokens"), n("outputTokens")) {
                (None, None) => None,
                // The client's numbers: any u64 each, so their sum must not overflow.
                (i, o) => Some(i.unwrap_or(0).saturating_add(o.unwrap_or(0))),
            }
        });
        let used = reported.unwrap_or_else(|| {
            estimate_prompt(request)
                + estimate_text(&serde_json::to_string(&response.content).unwrap_or_default())
        });
        self.spend(used);
    }

    fn spend(&self, used: u64) {
        let _ = self
            .remaining
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |r| {
                Some(r.saturating_sub(used))
            });
        if let Some(p) = &self.parent {
            p.spend(used);
        }
    }
}

/// About four characters per token.
fn estimate_text(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

fn estimate_prompt(request: &CreateMessageRequestParams) -> u64 {
    let messages = serde_json::to_string(&request.messages).unwrap_or_default();
    estimate_text(&messages) + request.system_prompt.as_deref().map_or(0, estimate_text)
}
