//! What can go wrong between a sampling request and the model's answer.

use tracksuit::protocol::ErrorObject;

/// A failed model call. Converts into the JSON-RPC error the client answers the server with:
/// content the provider cannot take is `-32602` (invalid params), everything else `-32603`.
///
/// ```
/// use tracksuit::protocol::{ErrorObject, INTERNAL_ERROR};
/// use tracksuit_providers::{OpenAi, ProviderError};
/// let err = OpenAi::builder().build().unwrap_err(); // no model
/// assert!(matches!(err, ProviderError::Config(_)));
/// // What the client answers the server's `sampling/createMessage` with:
/// assert_eq!(ErrorObject::from(err).code, INTERNAL_ERROR);
/// let refused = ProviderError::Unsupported("audio".into());
/// assert_eq!(ErrorObject::from(refused).code, -32602);
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The bridge is not configured well enough to call anything (no model, bad URL...).
    #[error("provider configuration: {0}")]
    Config(String),
    /// The request holds something this provider cannot express (e.g. audio for Anthropic).
    #[error("not supported by this provider: {0}")]
    Unsupported(String),
    /// Connecting or talking HTTP failed.
    #[error("HTTP: {0}")]
    Http(String),
    /// The provider answered with a non-success status.
    #[error("provider answered HTTP {status}: {message}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The provider's error message (or the start of the body).
        message: String,
    },
    /// The answer was not the JSON the provider documents.
    #[error("unexpected provider answer: {0}")]
    Decode(String),
    /// The provider did not answer in time.
    #[error("the provider did not answer within {0:?}")]
    Timeout(std::time::Duration),
}

impl From<ProviderError> for ErrorObject {
    fn from(e: ProviderError) -> Self {
        match e {
            ProviderError::Unsupported(_) => ErrorObject::invalid_params(e),
            other => ErrorObject::internal(other),
        }
    }
}
