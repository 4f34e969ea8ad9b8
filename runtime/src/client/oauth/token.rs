//! Where tokens and registrations live between requests: the [`TokenStore`] trait and its
//! in-memory default.

use super::ClientRegistration;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A token issued for one MCP server, with what refreshing it takes.
///
/// ```
/// use tracksuit::client::oauth::StoredToken;
/// let token: StoredToken = serde_json::from_value(serde_json::json!({
///     "access_token": "at", "resource": "https://mcp.example/mcp",
///     "issuer": "https://as.example", "token_endpoint": "https://as.example/token",
///     "client": {"client_id": "c"}, "expires_at": 1
/// })).unwrap();
/// assert!(token.expired());
/// assert!(!format!("{token:?}").contains("\"at\""));
/// ```
#[derive(Clone, Serialize, Deserialize)]
pub struct StoredToken {
    /// The bearer token.
    pub access_token: String,
    /// The refresh token, if the server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// When it was issued, in seconds since the Unix epoch (how early it is refreshed
    /// depends on its lifetime).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_at: Option<u64>,
    /// The scopes asked for (or granted, when the server said).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The `resource` (RFC 8707) the token was issued for.
    pub resource: String,
    /// The authorization server that issued it.
    pub issuer: String,
    /// Its token endpoint (for refreshing).
    pub token_endpoint: String,
    /// The client it was issued to.
    pub client: ClientRegistration,
    /// For a DPoP-bound token (`token_type` `DPoP`, RFC 9449): the thumbprint of the key it
    /// is bound to (it is only used with that key). `None` for a bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_jkt: Option<String>,
}

impl std::fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredToken")
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_at", &self.expires_at)
            .field("issued_at", &self.issued_at)
            .field("scopes", &self.scopes)
            .field("resource", &self.resource)
            .field("issuer", &self.issuer)
            .field("dpop_jkt", &self.dpop_jkt)
            .finish_non_exhaustive()
    }
}

/// How long before its expiry a token is refreshed, at most.
const REFRESH_MARGIN: u64 = 30;

impl StoredToken {
    /// Whether the access token has expired or will soon: within 30 seconds, or within
    /// half its lifetime when that is shorter (a token issued for 10 seconds is used for
    /// 5, not refreshed before every request).
    ///
    /// ```
    /// use tracksuit::client::oauth::StoredToken;
    /// let now = std::time::SystemTime::now()
    ///     .duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    /// let token = |issued_at: u64, expires_at: u64| -> StoredToken {
    ///     serde_json::from_value(serde_json::json!({
    ///         "access_token": "at", "resource": "https://mcp.example/mcp",
    ///         "issuer": "https://as.example", "token_endpoint": "https://as.example/token",
    ///         "client": {"client_id": "c"}, "issued_at": issued_at, "expires_at": expires_at
    ///     })).unwrap()
    /// };
    /// // Issued for 10 seconds: used for the first 5.
    /// assert!(!token(now, now + 10).expired());
    /// assert!(token(now - 6, now + 4).expired());
    /// // Issued for an hour: refreshed in its last 30 seconds.
    /// assert!(!token(now, now + 3600).expired());
    /// assert!(token(now - 3590, now + 10).expired());
    /// ```
    pub fn expired(&self) -> bool {
        let Some(at) = self.expires_at else {
            return false;
        };
        let margin = self.issued_at.map_or(REFRESH_MARGIN, |issued| {
            (at.saturating_sub(issued) / 2).min(REFRESH_MARGIN)
        });
        at <= now_secs() + margin
    }

    pub(crate) fn expiry_from(expires_in: Option<Duration>) -> Option<u64> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
        expires_in.map(|d| (now + d).as_secs())
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}

/// Keeps tokens (per MCP server URL) and client registrations (per authorization server
/// issuer). Implement it to persist them (a keychain, a file, a database); the default is
/// [`MemoryTokenStore`].
///
/// ```
/// use tracksuit::client::oauth::{ClientRegistration, MemoryTokenStore, TokenStore};
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let store = MemoryTokenStore::default();
/// store.save_client("https://as.example", ClientRegistration::public("c")).await;
/// assert_eq!(store.client("https://as.example").await.unwrap().client_id, "c");
/// assert!(store.client("https://other.example").await.is_none());
/// assert!(store.token("https://mcp.example/mcp").await.is_none());
/// # }
/// ```
pub trait TokenStore: Send + Sync + 'static {
    /// The token kept for the MCP server at `server`.
    fn token(&self, server: &str) -> BoxFuture<'_, Option<StoredToken>>;
    /// Keeps `token` for `server`, replacing any other.
    fn save_token(&self, server: &str, token: StoredToken) -> BoxFuture<'_, ()>;
    /// Forgets the token for `server`.
    fn remove_token(&self, server: &str) -> BoxFuture<'_, ()>;
    /// The registration kept for the authorization server `issuer`.
    fn client(&self, issuer: &str) -> BoxFuture<'_, Option<ClientRegistration>>;
    /// Keeps `client` for `issuer`.
    fn save_client(&self, issuer: &str, client: ClientRegistration) -> BoxFuture<'_, ()>;
}

/// Tokens and registrations in memory, for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, StoredToken>>,
    clients: Mutex<HashMap<String, ClientRegistration>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl TokenStore for MemoryTokenStore {
    fn token(&self, server: &str) -> BoxFuture<'_, Option<StoredToken>> {
        let found = lock(&self.tokens).get(server).cloned();
        Box::pin(async move { found })
    }

    fn save_token(&self, server: &str, token: StoredToken) -> BoxFuture<'_, ()> {
        lock(&self.tokens).insert(server.to_owned(), token);
        Box::pin(async {})
    }

    fn remove_token(&self, server: &str) -> BoxFuture<'_, ()> {
        lock(&self.tokens).remove(server);
        Box::pin(async {})
    }

    fn client(&self, issuer: &str) -> BoxFuture<'_, Option<ClientRegistration>> {
        let found = lock(&self.clients).get(issuer).cloned();
        Box::pin(async move { found })
    }

    fn save_client(&self, issuer: &str, client: ClientRegistration) -> BoxFuture<'_, ()> {
        lock(&self.clients).insert(issuer.to_owned(), client);
        Box::pin(async {})
    }
}
