//! What can go wrong while authorizing: one variant per refusal, never a panic.

/// Why the OAuth client could not obtain (or refused to use) a token.
///
/// Every check on what a server sent is a variant here; nothing a server sends makes the
/// client panic, and no variant is reached after a token was sent anywhere.
///
/// ```
/// use tracksuit::client::oauth::OAuthError;
/// let e = OAuthError::IssuerMismatch {
///     expected: "https://as.example".into(),
///     found: "https://evil.example".into(),
/// };
/// assert_eq!(
///     e.to_string(),
///     "authorization server issuer mismatch: expected https://as.example, found https://evil.example"
/// );
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// A URL the client would contact (or send the user to) is neither `https` nor `http`
    /// on a loopback host.
    #[error("refusing non-HTTPS, non-loopback URL: {0}")]
    InsecureUrl(String),
    /// A URL (from configuration or a server) that does not parse.
    #[error("invalid URL {url}: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// Why it is refused.
        reason: String,
    },
    /// The request could not be sent or its response read.
    #[error("HTTP request to {url} failed: {reason}")]
    Http {
        /// Where the request went.
        url: String,
        /// What failed.
        reason: String,
    },
    /// A server answered with an unexpected HTTP status.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// Where the request went.
        url: String,
        /// The status code.
        status: u16,
    },
    /// Protected resource or authorization server metadata that does not parse or lacks a
    /// required field.
    #[error("malformed metadata from {url}: {reason}")]
    MalformedMetadata {
        /// Where the document came from.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No protected resource metadata and no authorization server at the server's origin.
    #[error("no authorization server found for {0}")]
    NoAuthorizationServer(String),
    /// The protected resource metadata names a resource other than the MCP server.
    #[error("protected resource metadata is for {found}, not for {expected}")]
    ResourceMismatch {
        /// The MCP server's URL.
        expected: String,
        /// The `resource` the metadata names.
        found: String,
    },
    /// Authorization server metadata whose `issuer` is not the issuer it was fetched for.
    #[error("authorization server issuer mismatch: expected {expected}, found {found}")]
    IssuerMismatch {
        /// The issuer the metadata was requested for.
        expected: String,
        /// The `issuer` in the document.
        found: String,
    },
    /// The authorization server does not list PKCE `S256` (a downgrade is refused).
    #[error("authorization server {0} does not support PKCE S256")]
    PkceUnsupported(String),
    /// No way to identify the client: no stored or pre-registered credentials, no client ID
    /// metadata document accepted, no registration endpoint.
    #[error("no client registration possible with {0}")]
    NoClientRegistration(String),
    /// Dynamic client registration was refused or answered with a malformed document.
    #[error("client registration failed: {0}")]
    Registration(String),
    /// A `token_endpoint_auth_method` this client does not implement.
    #[error("unsupported token endpoint auth method {0}")]
    UnsupportedAuthMethod(String),
    /// The authorization redirect carried an `error`.
    #[error("authorization denied: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    AuthorizationDenied {
        /// The `error` code.
        error: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// The authorization redirect is not an answer to this request (state, `iss`, code).
    #[error("invalid authorization response: {0}")]
    InvalidAuthorizationResponse(String),
    /// The token endpoint answered with an OAuth error.
    #[error("token endpoint error: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    TokenEndpoint {
        /// The `error` code (e.g. `invalid_grant`).
        error: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// The enterprise identity provider refused to exchange the ID token for an ID-JAG
    /// (RFC 8693 token exchange); nothing was sent to the authorization server.
    #[error("token exchange at the identity provider failed: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    TokenExchange {
        /// The `error` code (e.g. `invalid_grant`).
        error: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// The client binds tokens to an ES256 DPoP key, and the authorization server lists DPoP
    /// algorithms without it (`dpop_signing_alg_values_supported`).
    #[error("authorization server {0} does not accept ES256 DPoP proofs")]
    DpopUnsupported(String),
    /// The JWT to present (a workload JWT, an ID token) could not be had, or is not a JWT.
    #[error("assertion: {0}")]
    Assertion(String),
    /// The token endpoint's answer could not be understood.
    #[error("invalid token response: {0}")]
    InvalidTokenResponse(String),
    /// The server still wants scopes the client already holds or was refused.
    #[error("insufficient scope: {0}")]
    InsufficientScope(String),
    /// The user agent step failed (no browser, timeout, listener error).
    #[error("user agent: {0}")]
    UserAgent(String),
    /// The client is configured for something the server does not offer.
    #[error("configuration: {0}")]
    Config(String),
}
