//! [`McpResponse`]: a request's outcome as middleware sees it.

use crate::protocol::ErrorObject;
use crate::server::answer::Answer;
use serde_json::Value;

/// What a request's handler answered (or what a layer answered instead): a result or a
/// JSON-RPC error.
///
/// The result itself stays opaque, so a layer that only looks costs nothing: it is
/// written once, when the response is. A layer can tell a JSON-RPC error
/// ([`error`](Self::error)) from a tool that ran and failed
/// ([`is_tool_error`](Self::is_tool_error): a result with `isError: true`), and can
/// answer a request itself with [`McpResponse::from_error`].
///
/// ```
/// use tracksuit::middleware::McpResponse;
/// use tracksuit::protocol::ErrorObject;
/// let refused = McpResponse::from_error(ErrorObject::new(-32000, "rate limited"));
/// assert_eq!(refused.error().map(|e| e.code), Some(-32000));
/// assert!(!refused.is_tool_error());
/// ```
#[derive(Debug)]
pub struct McpResponse {
    pub(super) outcome: Result<Answer, ErrorObject>,
    extensions: http::Extensions,
}

impl McpResponse {
    pub(super) fn new(outcome: Result<Answer, ErrorObject>) -> Self {
        McpResponse {
            outcome,
            extensions: http::Extensions::new(),
        }
    }

    /// A response carrying `error`, for a layer that answers the request itself (a rate
    /// limit, an authorization rule): the handler does not run.
    pub fn from_error(error: ErrorObject) -> Self {
        Self::new(Err(error))
    }

    /// The JSON-RPC error, if the request failed.
    pub fn error(&self) -> Option<&ErrorObject> {
        self.outcome.as_ref().err()
    }

    /// Whether a `tools/call` ran and its tool failed: a result with `isError: true`
    /// (not a JSON-RPC error).
    pub fn is_tool_error(&self) -> bool {
        match &self.outcome {
            Ok(Answer::Tool(result)) => result.is_error == Some(true),
            Ok(Answer::Tree(value)) => value.get("isError") == Some(&Value::Bool(true)),
            Ok(Answer::InputRequired(_)) => false,
            Err(_) => false,
        }
    }

    /// Whether the result is a 2026 `input_required` round: the handler asked the client
    /// something, and the client will call again with the answers.
    pub fn is_input_required(&self) -> bool {
        match &self.outcome {
            Ok(Answer::InputRequired(_)) => true,
            Ok(Answer::Tree(value)) => {
                value.get("resultType").and_then(Value::as_str) == Some("input_required")
            }
            Ok(Answer::Tool(_)) | Err(_) => false,
        }
    }

    /// Values layers attach to the response for the layers outside them.
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// Mutable [`extensions`](Self::extensions).
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }
}
