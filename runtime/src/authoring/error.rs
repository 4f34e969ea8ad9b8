//! [`ToolError`]: how a tool reports failure.

use crate::protocol::ErrorObject;

/// Why a tool call failed.
///
/// An [`Execution`](ToolError::Execution) error is reported to the model as a result with
/// `isError: true` so it can correct itself (SEP-1303); a [`Protocol`](ToolError::Protocol)
/// error becomes a JSON-RPC error response (use it only for what the spec makes a protocol
/// error, such as `-32042` URL elicitation required).
///
/// `ToolError` is `Display` (its message), and every `std::error::Error + Send + Sync`
/// converts into an execution error, so `?` works on I/O, parse, serde and database errors
/// in a tool returning `Result<_, ToolError>`. Other `Display` errors (`String`,
/// `anyhow::Error`) take one call: `.map_err(ToolError::new)?`. (A blanket conversion from
/// every `Display` type would include `ToolError` itself, which Rust forbids for a `Display`
/// type; this is `anyhow::Error`'s rule too.) A tool may also *return* `Result<T, E>` with
/// any `E: Display` (`String`, `anyhow::Error`): its `Err` becomes an execution error.
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
///     // `?` converts any `std::error::Error` (here `std::io::Error`).
///     Ok(std::fs::read_to_string(&path)?)
/// }
///
/// // `Display` shows the message (what the model reads).
/// let e = ToolError::new("no such city");
/// assert_eq!(e.to_string(), "no such city");
/// // A `String` error (e.g. from a helper) converts with `ToolError::new`.
/// fn helper() -> Result<u32, String> { Err("quota exceeded".into()) }
/// let e = helper().map_err(ToolError::new).unwrap_err();
/// assert_eq!(format!("{e}"), "quota exceeded");
/// ```
#[derive(Debug, Clone)]
pub enum ToolError {
    /// The tool ran and failed; the text is shown to the model.
    Execution(String),
    /// The request itself is answered with a JSON-RPC error.
    Protocol(ErrorObject),
}

impl ToolError {
    /// An execution error with a message for the model: any `Display` value, so
    /// `.map_err(ToolError::new)?` converts a `String` or `anyhow::Error`.
    ///
    /// ```
    /// let e = tracksuit::ToolError::new("city not found");
    /// assert_eq!(e.message(), "city not found");
    /// ```
    pub fn new(message: impl std::fmt::Display) -> Self {
        ToolError::Execution(message.to_string())
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
    /// // Any `std::error::Error` converts into an execution error.
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

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Execution(m) => f.write_str(m),
            ToolError::Protocol(e) => std::fmt::Display::fmt(e, f),
        }
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError::Execution(e.to_string())
    }
}
