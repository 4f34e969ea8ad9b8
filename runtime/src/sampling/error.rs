//! Why a sampling helper gave up, with every attempt it made.

use crate::peer::RequestError;
use crate::protocol::{CreateMessageRequestParams, CreateMessageResult};

/// One request/response pair that was not accepted, and why.
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
