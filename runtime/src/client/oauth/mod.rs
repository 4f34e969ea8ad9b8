//! An OAuth 2.1 client for [`HttpTransport`] (feature `oauth`), as the MCP authorization
//! specification asks of clients.
//!
//! On a `401` the transport discovers the server's protected resource metadata (RFC 9728:
//! the challenge's `resource_metadata`, else the well-known URIs), then its authorization
//! server's metadata (RFC 8414 or OpenID Connect discovery, `issuer` checked), identifies
//! the client (stored or pre-registered credentials, a client ID metadata document, or
//! dynamic client registration), runs authorization code + PKCE S256 through a
//! [`UserAgent`] with the `resource` parameter (RFC 8707), keeps the token in a
//! [`TokenStore`] and retries the request with it. Expired tokens are refreshed; a `403`
//! with `insufficient_scope` re-authorizes with the challenged scopes added.
//!
//! A token is only sent to the server it was issued for, only over HTTPS or to a loopback
//! host; every refusal is an [`OAuthError`].
//!
//! ```no_run
//! use tracksuit::client::oauth::{LoopbackUserAgent, OAuthClient};
//! use tracksuit::client::{Client, HttpTransport};
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let oauth = OAuthClient::builder()
//!     .client_name("my-cli")
//!     .user_agent(LoopbackUserAgent::bind(0).await?) // prints the URL to open
//!     .build()?;
//! let client = Client::builder()
//!     .connect(HttpTransport::new("https://mcp.example.com/mcp")?.oauth(oauth))
//!     .await?;
//! # let _ = client; Ok(()) }
//! ```

mod discovery;
mod error;
mod fetch;
mod flow;
mod jwt;
mod loopback;
mod registration;
mod session;
#[cfg(test)]
mod tests;
mod token;

pub use discovery::Challenge;
pub use error::OAuthError;
pub use flow::{CallbackUserAgent, UserAgent};
pub use jwt::PrivateKeyJwt;
pub use loopback::LoopbackUserAgent;
pub use oauth2::url::Url;
pub use registration::ClientRegistration;
pub(crate) use session::Session;
pub use token::{MemoryTokenStore, StoredToken, TokenStore};

use super::HttpTransport;
use discovery::Discovery;
use fetch::{Fetcher, secure_url};
use registration::ClientProfile;
use std::sync::Arc;
use std::time::Duration;

/// The most authorizations one request may trigger (the first one and step-ups).
const MAX_AUTHORIZATIONS: usize = 3;

impl HttpTransport {
    /// Authorizes requests with `oauth`: a `401` or an `insufficient_scope` `403` runs the
    /// flow and retries. The endpoint must be `https://` or on a loopback host (tokens never
    /// cross plain HTTP to another machine): elsewhere no token is sent and the flow fails
    /// with [`OAuthError::InsecureUrl`].
    ///
    /// ```
    /// use tracksuit::client::HttpTransport;
    /// use tracksuit::client::oauth::{ClientRegistration, OAuthClient};
    /// let oauth = OAuthClient::builder()
    ///     .client_credentials(ClientRegistration::confidential("svc", "secret"))
    ///     .build()
    ///     .unwrap();
    /// let transport = HttpTransport::new("http://127.0.0.1:8080/mcp").unwrap().oauth(oauth);
    /// # let _ = transport;
    /// ```
    pub fn oauth(mut self, oauth: OAuthClient) -> Self {
        self.auth = Some(Arc::new(session::Session::new(oauth, self.url.to_string())));
        self
    }
}

/// Obtains, keeps and refreshes tokens for MCP servers. Cheap to clone (shared state).
#[derive(Clone)]
pub struct OAuthClient {
    inner: Arc<Inner>,
}

struct Inner {
    fetcher: Fetcher,
    store: Arc<dyn TokenStore>,
    agent: Option<Arc<dyn UserAgent>>,
    profile: ClientProfile,
    pre_registered: Option<ClientRegistration>,
    credentials: Option<ClientRegistration>,
    jwt: Option<PrivateKeyJwt>,
    offline_access: bool,
    /// One refresh or authorization at a time: requests refused together wait for the
    /// first flow, and a rotated refresh token is never used twice.
    gate: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("profile", &self.inner.profile)
            .field("pre_registered", &self.inner.pre_registered)
            .field("client_credentials", &self.inner.credentials)
            .finish_non_exhaustive()
    }
}

/// Configures an [`OAuthClient`].
///
/// ```
/// use tracksuit::client::oauth::{CallbackUserAgent, OAuthClient, OAuthError};
/// let agent = CallbackUserAgent::new("http://127.0.0.1:1/callback", |url| async move {
///     Err::<tracksuit::client::oauth::Url, _>(OAuthError::UserAgent(url.to_string()))
/// });
/// let oauth = OAuthClient::builder()
///     .client_name("demo")
///     .client_metadata_url("https://app.example/oauth/client.json")
///     .user_agent(agent)
///     .build();
/// assert!(oauth.is_ok());
/// // A client ID metadata document must be served over HTTPS.
/// let refused = OAuthClient::builder()
///     .client_metadata_url("http://app.example/client.json")
///     .build();
/// assert!(matches!(refused, Err(OAuthError::InsecureUrl(_))));
/// ```
#[derive(Default)]
pub struct OAuthClientBuilder {
    name: Option<String>,
    metadata_url: Option<String>,
    agent: Option<Arc<dyn UserAgent>>,
    store: Option<Arc<dyn TokenStore>>,
    pre_registered: Option<ClientRegistration>,
    credentials: Option<ClientRegistration>,
    jwt: Option<PrivateKeyJwt>,
    no_offline_access: bool,
    timeout: Option<Duration>,
    roots: Vec<Vec<u8>>,
}

impl std::fmt::Debug for OAuthClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClientBuilder")
            .field("name", &self.name)
            .field("metadata_url", &self.metadata_url)
            .finish_non_exhaustive()
    }
}

impl OAuthClientBuilder {
    /// The `client_name` sent when registering (default `tracksuit`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The HTTPS URL of this client's metadata document, used as its `client_id` with
    /// servers that advertise `client_id_metadata_document_supported`.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// The user agent step of the authorization code flow.
    pub fn user_agent(mut self, agent: impl UserAgent) -> Self {
        self.agent = Some(Arc::new(agent));
        self
    }

    /// Where tokens and registrations are kept (default: a [`MemoryTokenStore`]).
    pub fn store(mut self, store: impl TokenStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// Credentials registered with the authorization server beforehand (used instead of
    /// registering).
    pub fn pre_registered(mut self, client: ClientRegistration) -> Self {
        self.pre_registered = Some(client);
        self
    }

    /// Uses the client credentials grant with these credentials (no user, no redirect).
    pub fn client_credentials(mut self, client: ClientRegistration) -> Self {
        self.credentials = Some(client);
        self
    }

    /// Uses the client credentials grant, authenticating with an assertion signed by the
    /// client's private key (`private_key_jwt`, RFC 7523) instead of a secret.
    pub fn private_key_jwt(mut self, jwt: PrivateKeyJwt) -> Self {
        self.credentials = Some(ClientRegistration::public(jwt.client_id.clone()));
        self.jwt = Some(jwt);
        self
    }

    /// Whether to ask for `offline_access` (a refresh token) when the authorization server
    /// lists it (default: yes).
    pub fn offline_access(mut self, ask: bool) -> Self {
        self.no_offline_access = !ask;
        self
    }

    /// The timeout of each request to an authorization server (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Trusts `pem`'s certificates as roots for HTTPS, besides the system's: for servers
    /// behind a private CA. The client fetches the MCP server's protected resource metadata
    /// too, so give it the roots given to [`HttpTransport::root_certificate`].
    ///
    /// ```
    /// use tracksuit::client::oauth::{ClientRegistration, OAuthClient, OAuthError};
    /// let refused = OAuthClient::builder()
    ///     .client_credentials(ClientRegistration::confidential("svc", "secret"))
    ///     .root_certificate("not a certificate")
    ///     .build();
    /// assert!(matches!(refused, Err(OAuthError::Config(_))));
    /// ```
    pub fn root_certificate(mut self, pem: impl AsRef<[u8]>) -> Self {
        self.roots.push(pem.as_ref().to_vec());
        self
    }

    /// The client, or why the configuration cannot work.
    pub fn build(self) -> Result<OAuthClient, OAuthError> {
        if let Some(url) = &self.metadata_url {
            registration::check_metadata_url(url)?;
        }
        if self.agent.is_none() && self.credentials.is_none() {
            return Err(OAuthError::Config(
                "a user agent or client credentials are needed".into(),
            ));
        }
        let redirect_uri = self
            .agent
            .as_ref()
            .map(|a| a.redirect_uri())
            .unwrap_or_default();
        let profile = ClientProfile {
            name: self.name.unwrap_or_else(|| "tracksuit".into()),
            redirect_uri,
            metadata_url: self.metadata_url,
        };
        let mut roots = Vec::new();
        for pem in &self.roots {
            let certs = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| OAuthError::Config(format!("root certificate: {e}")))?;
            if certs.is_empty() {
                return Err(OAuthError::Config(
                    "root certificate: no PEM certificate".into(),
                ));
            }
            roots.extend(certs);
        }
        let timeout = self.timeout.unwrap_or(Duration::from_secs(30));
        Ok(OAuthClient {
            inner: Arc::new(Inner {
                fetcher: Fetcher::new(timeout, roots)?,
                store: self
                    .store
                    .unwrap_or_else(|| Arc::new(MemoryTokenStore::default())),
                agent: self.agent,
                profile,
                pre_registered: self.pre_registered,
                credentials: self.credentials,
                jwt: self.jwt,
                offline_access: !self.no_offline_access,
                gate: tokio::sync::Mutex::new(()),
            }),
        })
    }
}

impl OAuthClient {
    /// A builder.
    pub fn builder() -> OAuthClientBuilder {
        OAuthClientBuilder::default()
    }

    /// The token store.
    pub fn store(&self) -> &dyn TokenStore {
        &*self.inner.store
    }

    /// Waits for the refresh or authorization in progress, if any, and holds off others.
    pub(crate) async fn gate(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.inner.gate.lock().await
    }

    /// Runs discovery and a grant for the MCP server at `server_url` after `challenge`
    /// (what its `401` or `403` said), stores the token and returns it. `previous` is the
    /// token the server refused, if any: refreshed when the same authorization server still
    /// serves the resource, its scopes kept on step-up.
    pub async fn authorize(
        &self,
        server_url: &str,
        challenge: &Challenge,
        previous: Option<&StoredToken>,
    ) -> Result<StoredToken, OAuthError> {
        let _gate = self.inner.gate.lock().await;
        self.grant(server_url, challenge, previous, true).await
    }

    /// [`authorize`](Self::authorize) with the gate held by the caller; `refresh`: whether
    /// a refresh may stand in for a new grant.
    pub(crate) async fn grant(
        &self,
        server_url: &str,
        challenge: &Challenge,
        previous: Option<&StoredToken>,
        refresh: bool,
    ) -> Result<StoredToken, OAuthError> {
        let url = secure_url(server_url)?;
        let inner = &self.inner;
        let discovery = discovery::discover(&inner.fetcher, &url, challenge).await?;
        let same_server = previous.filter(|p| p.issuer == discovery.server.issuer);
        let step_up = challenge.error.as_deref() == Some("insufficient_scope");
        let refreshable = |p: &&StoredToken| refresh && p.refresh_token.is_some() && !step_up;
        if let Some(previous) = same_server.filter(refreshable)
            && let Ok(token) = flow::refresh(&inner.fetcher, previous).await
        {
            inner.store.save_token(server_url, token.clone()).await;
            return Ok(token);
        }
        let scopes = self.scopes(&discovery, challenge, same_server);
        let client = self.registration(&discovery, &scopes).await?;
        let token = match (&inner.credentials, &inner.agent) {
            (Some(_), _) => {
                let jwt = inner.jwt.as_ref();
                flow::client_credentials(&inner.fetcher, &discovery, &client, &scopes, jwt).await?
            }
            (None, Some(agent)) => {
                flow::authorization_code(&inner.fetcher, &discovery, &client, &scopes, &**agent)
                    .await?
            }
            (None, None) => return Err(OAuthError::Config("no user agent".into())),
        };
        inner.store.save_token(server_url, token.clone()).await;
        Ok(token)
    }

    /// The scopes to ask for: the challenge's, else the resource's `scopes_supported`, else
    /// none; with the previous token's on re-authorization, and `offline_access` when the
    /// authorization server lists it.
    fn scopes(
        &self,
        discovery: &Discovery,
        challenge: &Challenge,
        previous: Option<&StoredToken>,
    ) -> Vec<String> {
        let mut wanted = challenge.scopes();
        if wanted.is_empty() {
            wanted = discovery.scopes_supported.clone().unwrap_or_default();
        }
        let mut scopes: Vec<String> = previous.map(|p| p.scopes.clone()).unwrap_or_default();
        let offline = "offline_access".to_owned();
        let server_offers_offline = discovery
            .server
            .scopes_supported
            .iter()
            .flatten()
            .any(|s| *s == offline);
        if self.inner.credentials.is_none() && self.inner.offline_access && server_offers_offline {
            wanted.push(offline);
        }
        for scope in wanted {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        scopes
    }

    /// Who the client is to the discovered authorization server.
    async fn registration(
        &self,
        discovery: &Discovery,
        scopes: &[String],
    ) -> Result<ClientRegistration, OAuthError> {
        let inner = &self.inner;
        let server = &discovery.server;
        if let Some(credentials) = &inner.credentials {
            return Ok(credentials.clone());
        }
        if let Some(stored) = inner.store.client(&server.issuer).await {
            return Ok(stored);
        }
        if let Some(pre) = &inner.pre_registered {
            return Ok(pre.clone());
        }
        if let Some(document) = registration::metadata_document(server, &inner.profile) {
            return Ok(document);
        }
        if server.registration_endpoint.is_none() || inner.agent.is_none() {
            return Err(OAuthError::NoClientRegistration(server.issuer.clone()));
        }
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let client =
            registration::register(&inner.fetcher, server, &inner.profile, scope.as_deref())
                .await?;
        inner
            .store
            .save_client(&server.issuer, client.clone())
            .await;
        Ok(client)
    }

    /// The token for `server_url`, refreshed first when it has expired; `None` when there
    /// is none (or it was issued for another resource).
    pub async fn token(&self, server_url: &str) -> Option<StoredToken> {
        let token = self.inner.store.token(server_url).await?;
        let url = secure_url(server_url).ok()?;
        if !discovery::resource_matches(&token.resource, &url) {
            return None;
        }
        if !token.expired() {
            return Some(token);
        }
        let _gate = self.inner.gate.lock().await;
        // Another request may have refreshed it while this one waited.
        let token = self.inner.store.token(server_url).await?;
        if !token.expired() {
            return Some(token);
        }
        match flow::refresh(&self.inner.fetcher, &token).await {
            Ok(fresh) => {
                self.inner.store.save_token(server_url, fresh.clone()).await;
                Some(fresh)
            }
            Err(_) => {
                self.inner.store.remove_token(server_url).await;
                None
            }
        }
    }
}
