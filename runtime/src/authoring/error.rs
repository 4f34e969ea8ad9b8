//! [`ToolError`]: how a tool reports failure.

use crate::protocol::ErrorObject;

/// Why a tool call failed.
///
/// An [`Execution`](ToolError::Execution) error is reported to the model as a result with
/// `isError: true` so it can correct itself (SEP-1303); a [`Protocol`](ToolError::Protocol)
/// error becomes a JSON-RPC error response (use it only for what the spec makes a protocol
/// error, such as `-32042` URL elicitation required).
///
/// Any `Display` error converts into an execution error, so `?` works on anything in a
/// tool returning `Result<_, ToolError>`. (Like `anyhow::Error`, `ToolError` itself is not
/// `Display`, which is what lets that conversion coexist with `Result<T, ToolError>`
/// keeping protocol errors intact; use [`ToolError::message`] to read it.)
///
/// ```
/// use tracksuit::{ToolError, mcp_tool};
/// /// Reads a file.
/// #[mcp_tool]
/// async fn read(path: String) -> Result<String, ToolError> {
///     if path.contains("..") {
///         // An execution error: the model sees it (isError) and can correct itself.
///         return Err(ToolError::new("paths may not contain `..`"));
///     }
///     std::fs::read_to_string(&path).map_err(|e| ToolError::new(format!("{path}: {e}")))
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone)]
pub enum ToolError {
    /// The tool ran and failed; the text is shown to the model.
    Execution(String),
    /// The request itself is answered with a JSON-RPC error.
    Protocol(ErrorObject),
}

impl ToolError {
    /// An execution error with a message for the model.
    ///
    /// ```
    /// let e = tracksuit::ToolError::new("city not found");
    /// assert_eq!(e.message(), "city not found");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        ToolError::Execution(message.into())
    }

    /// A JSON-RPC error response instead of a tool result.
    ///
    /// ```
    /// use tracksuit::{ToolError, protocol::ErrorObject};
    /// let e = ToolError::protocol(ErrorObject::invalid_params("`city` is required"));
    /// assert!(matches!(e, ToolError::Protocol(ref o) if o.code == -32602));
    /// ```
    pub fn protocol(error: ErrorObject) -> Self {
        ToolError::Protocol(error)
    }

    /// The error's text.
    ///
    /// ```
    /// use tracksuit::ToolError;
    /// // Any `Display` error converts into an execution error.
    /// let e: ToolError = "42x".parse::<i32>().unwrap_err().into();
    /// assert_eq!(e.message(), "invalid digit found in string");
    /// ```
    pub fn message(&self) -> String {
        match self {
            ToolError::Execution(m) => m.clone(),
            ToolError::Protocol(e) => e.to_string(),
        }
    }
}

impl<E: std::fmt::Display> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError::Execution(e.to_string())
    }
}
