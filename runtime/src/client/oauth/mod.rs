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
//! Without a user: the client credentials grant (a secret or `private_key_jwt`), workload
//! identity federation ([`WorkloadIdentity`]: a workload JWT with the JWT bearer grant) and
//! enterprise-managed authorization ([`EnterpriseAuthorization`]: the user's ID token
//! exchanged at the enterprise IdP for an ID-JAG, presented with the JWT bearer grant). Any
//! of them can bind its tokens to a [`DpopKey`] (RFC 9449).
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

mod assertion;
mod discovery;
mod dpop;
mod error;
mod fetch;
mod flow;
mod jwt;
mod loopback;
mod registration;
mod session;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ext;
mod token;

pub use assertion::{EnterpriseAuthorization, JwtSource, WorkloadIdentity};
pub use discovery::Challenge;
pub use dpop::DpopKey;
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
use dpop::Dpop;
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
    assertion: Option<AssertionGrant>,
    dpop: Option<Dpop>,
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

/// A grant that presents a JWT (RFC 7523 §2.1).
#[derive(Debug, Clone)]
enum AssertionGrant {
    Workload(WorkloadIdentity),
    Enterprise(EnterpriseAuthorization),
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
    assertion: Option<AssertionGrant>,
    dpop: Option<DpopKey>,
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

    /// Uses workload identity federation: the workload's JWT, presented with the JWT bearer
    /// grant (no user, no registration).
    pub fn workload_identity(mut self, workload: WorkloadIdentity) -> Self {
        self.assertion = Some(AssertionGrant::Workload(workload));
        self
    }

    /// Uses enterprise-managed authorization: the user's ID token is exchanged at the
    /// enterprise IdP for an ID-JAG, presented with the JWT bearer grant as the
    /// [`pre_registered`](Self::pre_registered) client.
    pub fn enterprise(mut self, enterprise: EnterpriseAuthorization) -> Self {
        self.assertion = Some(AssertionGrant::Enterprise(enterprise));
        self
    }

    /// Binds tokens to `key` (DPoP, RFC 9449): token requests carry a proof, and a token
    /// issued as `DPoP` is presented with the `DPoP` scheme and a fresh proof per request
    /// (covering the method, URL, token and body), with the servers' nonces.
    pub fn dpop(mut self, key: DpopKey) -> Self {
        self.dpop = Some(key);
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
        if self.agent.is_none() && self.credentials.is_none() && self.assertion.is_none() {
            return Err(OAuthError::Config(
                "a user agent, client credentials or an assertion grant are needed".into(),
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
                assertion: self.assertion,
                dpop: self.dpop.map(Dpop::new),
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
            && let Ok(token) = flow::refresh(&inner.fetcher, previous, inner.dpop.as_ref()).await
        {
            inner.store.save_token(server_url, token.clone()).await;
            return Ok(token);
        }
        let scopes = self.scopes(&discovery, challenge, same_server);
        let client = self.registration(&discovery, &scopes).await?;
        let token = self.obtain(&discovery, &client, &scopes).await?;
        inner.store.save_token(server_url, token.clone()).await;
        Ok(token)
    }

    /// A new token by the configured grant.
    async fn obtain(
        &self,
        discovery: &Discovery,
        client: &ClientRegistration,
        scopes: &[String],
    ) -> Result<StoredToken, OAuthError> {
        let inner = &self.inner;
        let (fetcher, dpop) = (&inner.fetcher, inner.dpop.as_ref());
        let algorithms = discovery
            .server
            .dpop_signing_alg_values_supported
            .as_deref();
        if dpop.is_some() && algorithms.is_some_and(|a| !a.iter().any(|a| a == "ES256")) {
            return Err(OAuthError::DpopUnsupported(discovery.server.issuer.clone()));
        }
        match (&inner.assertion, &inner.credentials, &inner.agent) {
            (Some(AssertionGrant::Workload(workload)), _, _) => {
                let jwt = workload.jwt.get().await?;
                assertion::jwt_bearer(fetcher, discovery, client, scopes, &jwt, dpop).await
            }
            (Some(AssertionGrant::Enterprise(enterprise)), _, _) => {
                let jag = assertion::id_jag(fetcher, enterprise, discovery, scopes).await?;
                assertion::jwt_bearer(fetcher, discovery, client, scopes, &jag, dpop).await
            }
            (None, Some(_), _) => {
                let jwt = inner.jwt.as_ref();
                flow::client_credentials(fetcher, discovery, client, scopes, jwt, dpop).await
            }
            (None, None, Some(agent)) => {
                flow::authorization_code(fetcher, discovery, client, scopes, &**agent, dpop).await
            }
            (None, None, None) => Err(OAuthError::Config("no user agent".into())),
        }
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
        let interactive = self.inner.credentials.is_none() && self.inner.assertion.is_none();
        if interactive && self.inner.offline_access && server_offers_offline {
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
        if let Some(AssertionGrant::Workload(workload)) = &inner.assertion {
            // Workload identity federation needs no registration.
            let id = workload.client_id.clone().unwrap_or_default();
            return Ok(ClientRegistration::public(id));
        }
        if let Some(stored) = inner.store.client(&server.issuer).await {
            return Ok(stored);
        }
        if let Some(pre) = &inner.pre_registered {
            return Ok(pre.clone());
        }
        if inner.assertion.is_some() {
            // The enterprise client is registered with the authorization server beforehand.
            return Err(OAuthError::NoClientRegistration(server.issuer.clone()));
        }
        if let Some(document) = registration::metadata_document(server, &inner.profile) {
            return Ok(document);
        }
        if server.registration_endpoint.is_none() || inner.agent.is_none() {
            return Err(OAuthError::NoClientRegistration(server.issuer.clone()));
        }
        // Registered with every scope the resource lists too: an authorization server may
        // hold the client to its registered scopes (oidc-provider does), and a step-up
        // must not be refused as invalid_scope.
        let mut all = scopes.to_vec();
        for scope in discovery.scopes_supported.iter().flatten() {
            if !all.contains(scope) {
                all.push(scope.clone());
            }
        }
        let scope = (!all.is_empty()).then(|| all.join(" "));
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
    /// is none (or it was issued for another resource, or bound to another DPoP key).
    pub async fn token(&self, server_url: &str) -> Option<StoredToken> {
        let token = self.inner.store.token(server_url).await?;
        let url = secure_url(server_url).ok()?;
        if !discovery::resource_matches(&token.resource, &url) || !self.can_present(&token) {
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
        match flow::refresh(&self.inner.fetcher, &token, self.inner.dpop.as_ref()).await {
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

    /// Whether this client can present `token`: a bearer token always, a DPoP-bound one
    /// only with the key it is bound to.
    fn can_present(&self, token: &StoredToken) -> bool {
        match (&token.dpop_jkt, &self.inner.dpop) {
            (None, _) => true,
            (Some(jkt), Some(dpop)) => jkt == dpop.key.thumbprint(),
            (Some(_), None) => false,
        }
    }

    /// The client's DPoP state, when it binds tokens.
    pub(crate) fn dpop(&self) -> Option<&Dpop> {
        self.inner.dpop.as_ref()
    }
}
