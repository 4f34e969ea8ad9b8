//! Grants that present a JWT instead of a user's approval (RFC 7523 §2.1, the JWT bearer
//! grant): workload identity federation (the workload's own JWT) and enterprise-managed
//! authorization (an ID-JAG obtained from the enterprise identity provider by token
//! exchange, RFC 8693, for the user's ID token).

use super::OAuthError;
use super::discovery::{Discovery, ServerMetadata};
use super::dpop::Dpop;
use super::fetch::{Fetcher, secure_url};
use super::flow::stored;
use super::registration::ClientRegistration;
use super::token::StoredToken;
use futures::future::BoxFuture;
use oauth2::AuthType;
use oauth2::basic::BasicTokenResponse;
use oauth2::url::form_urlencoded;
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

/// RFC 7523's grant type: a JWT as the authorization grant.
pub(crate) const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

type JwtFn = dyn Fn() -> BoxFuture<'static, Result<String, OAuthError>> + Send + Sync;

/// Where a JWT comes from each time a grant needs one: fixed, a file read anew each time (a
/// projected Kubernetes service account token, a SPIFFE JWT-SVID), or a closure.
///
/// ```
/// use tracksuit::client::oauth::{JwtSource, OAuthError};
/// let fixed = JwtSource::fixed("eyJhbGciOiJFUzI1NiJ9.e30.sig");
/// let file = JwtSource::file("/var/run/secrets/tokens/mcp-token");
/// let computed = JwtSource::from_fn(|| async { Ok::<_, OAuthError>("eyJ...".to_owned()) });
/// # let _ = (fixed, file, computed);
/// ```
#[derive(Clone)]
pub struct JwtSource(Arc<JwtFn>);

impl std::fmt::Debug for JwtSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JwtSource(<redacted>)")
    }
}

impl JwtSource {
    /// Always `jwt`.
    pub fn fixed(jwt: impl Into<String>) -> Self {
        let jwt = jwt.into();
        JwtSource::from_fn(move || {
            let jwt = jwt.clone();
            async move { Ok(jwt) }
        })
    }

    /// The contents of the file at `path` (trimmed), read each time a grant needs it.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        JwtSource::from_fn(move || {
            let path = path.clone();
            async move {
                let shown = path.display().to_string();
                let read = tokio::task::spawn_blocking(move || std::fs::read_to_string(path));
                match read.await {
                    Ok(Ok(text)) => Ok(text.trim().to_owned()),
                    Ok(Err(e)) => Err(OAuthError::Assertion(format!("reading {shown}: {e}"))),
                    Err(e) => Err(OAuthError::Assertion(format!("reading {shown}: {e}"))),
                }
            }
        })
    }

    /// What `get` resolves to, each time.
    pub fn from_fn<F, Fut>(get: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, OAuthError>> + Send + 'static,
    {
        JwtSource(Arc::new(move || Box::pin(get())))
    }

    /// The JWT now; an empty one is refused.
    pub(crate) async fn get(&self) -> Result<String, OAuthError> {
        let jwt = (self.0)().await?;
        if jwt.is_empty() || jwt.split('.').count() != 3 {
            return Err(OAuthError::Assertion("not a compact JWT".into()));
        }
        Ok(jwt)
    }
}

/// Workload identity federation: the client presents its workload JWT (issued by its
/// platform) to the MCP server's authorization server with the JWT bearer grant, and needs
/// no client registration.
///
/// ```
/// use tracksuit::client::oauth::{JwtSource, OAuthClient, WorkloadIdentity};
/// let oauth = OAuthClient::builder()
///     .workload_identity(WorkloadIdentity::new(JwtSource::file("/var/run/secrets/mcp/token")))
///     .build()
///     .unwrap();
/// # let _ = oauth;
/// ```
#[derive(Debug, Clone)]
pub struct WorkloadIdentity {
    pub(crate) jwt: JwtSource,
    pub(crate) client_id: Option<String>,
}

impl WorkloadIdentity {
    /// Presents the JWT `jwt` gives.
    pub fn new(jwt: JwtSource) -> Self {
        WorkloadIdentity {
            jwt,
            client_id: None,
        }
    }

    /// Also sends `client_id` (for authorization servers that want one; the extension
    /// needs none).
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }
}

/// Enterprise-managed authorization (the MCP extension, SEP-990): the user's ID token from
/// the enterprise identity provider (IdP) is exchanged at the IdP for an ID-JAG (RFC 8693
/// token exchange, `requested_token_type` `urn:ietf:params:oauth:token-type:id-jag`), which
/// the client presents to the MCP server's authorization server with the JWT bearer grant,
/// authenticating as the client pre-registered there
/// ([`pre_registered`](super::OAuthClientBuilder::pre_registered)).
///
/// ```
/// use tracksuit::client::oauth::{ClientRegistration, EnterpriseAuthorization, JwtSource, OAuthError};
/// let enterprise = EnterpriseAuthorization::new(
///     "https://idp.example/oauth2/token",
///     JwtSource::fixed("eyJ...id-token.sig"),
/// )?
/// .idp_client(ClientRegistration::confidential("mcp-client-at-idp", "s3cret"));
/// // The ID token never travels over plain HTTP to another machine.
/// let refused = EnterpriseAuthorization::new("http://idp.example/token", JwtSource::fixed("a.b.c"));
/// assert!(matches!(refused, Err(OAuthError::InsecureUrl(_))));
/// # let _ = enterprise; Ok::<(), OAuthError>(())
/// ```
#[derive(Debug, Clone)]
pub struct EnterpriseAuthorization {
    pub(crate) token_endpoint: String,
    pub(crate) id_token: JwtSource,
    pub(crate) idp_client: Option<ClientRegistration>,
}

impl EnterpriseAuthorization {
    /// Exchanges the ID token `id_token` gives at the IdP's `token_endpoint` (HTTPS, or
    /// HTTP on loopback).
    pub fn new(token_endpoint: impl Into<String>, id_token: JwtSource) -> Result<Self, OAuthError> {
        let token_endpoint = token_endpoint.into();
        secure_url(&token_endpoint)?;
        Ok(EnterpriseAuthorization {
            token_endpoint,
            id_token,
            idp_client: None,
        })
    }

    /// The client's registration at the IdP: its `client_id`, and the secret when the IdP
    /// authenticates clients (sent as `client_secret_basic`).
    pub fn idp_client(mut self, client: ClientRegistration) -> Self {
        self.idp_client = Some(client);
        self
    }
}

/// A JWT bearer grant: `assertion` for the discovered resource at its authorization server.
pub(crate) async fn jwt_bearer(
    fetcher: &Fetcher,
    discovery: &Discovery,
    client: &ClientRegistration,
    scopes: &[String],
    assertion: &str,
    dpop: Option<&Dpop>,
) -> Result<StoredToken, OAuthError> {
    let server = &discovery.server;
    let supported = server.grant_types_supported.as_deref();
    if supported.is_some_and(|grants| !grants.iter().any(|g| g == JWT_BEARER_GRANT)) {
        // The assertion is a credential: not sent where it cannot be used.
        return Err(OAuthError::Config(format!(
            "{} does not support the JWT bearer grant",
            server.issuer
        )));
    }
    let mut form = vec![
        ("grant_type", JWT_BEARER_GRANT.to_owned()),
        ("assertion", assertion.to_owned()),
        ("resource", discovery.resource.clone()),
    ];
    if !scopes.is_empty() {
        form.push(("scope", scopes.join(" ")));
    }
    let endpoint = server.token_endpoint.as_deref().unwrap_or_default();
    let answer = post_form(fetcher, endpoint, Some(client), server, form, dpop)
        .await?
        .map_err(|(error, description)| OAuthError::TokenEndpoint { error, description })?;
    let response: BasicTokenResponse = serde_json::from_value(answer)
        .map_err(|e| OAuthError::InvalidTokenResponse(e.to_string()))?;
    stored(response, discovery, client, scopes, dpop)
}

/// The ID-JAG for `discovery`'s resource and authorization server, from the IdP.
pub(crate) async fn id_jag(
    fetcher: &Fetcher,
    enterprise: &EnterpriseAuthorization,
    discovery: &Discovery,
    scopes: &[String],
) -> Result<String, OAuthError> {
    let id_token = enterprise.id_token.get().await?;
    let mut form = vec![
        ("grant_type", TOKEN_EXCHANGE_GRANT.to_owned()),
        ("requested_token_type", ID_JAG_TYPE.to_owned()),
        ("audience", discovery.server.issuer.clone()),
        ("resource", discovery.resource.clone()),
        ("subject_token", id_token),
        ("subject_token_type", ID_TOKEN_TYPE.to_owned()),
    ];
    if !scopes.is_empty() {
        form.push(("scope", scopes.join(" ")));
    }
    let idp = ServerMetadata {
        issuer: enterprise.token_endpoint.clone(),
        ..ServerMetadata::default()
    };
    let client = enterprise.idp_client.as_ref();
    let answer = post_form(
        fetcher,
        &enterprise.token_endpoint,
        client,
        &idp,
        form,
        None,
    )
    .await?
    .map_err(|(error, description)| OAuthError::TokenExchange { error, description })?;
    let field = |name: &str| answer.get(name).and_then(Value::as_str);
    if field("issued_token_type") != Some(ID_JAG_TYPE) {
        return Err(OAuthError::InvalidTokenResponse(format!(
            "the token exchange issued {:?}, not an ID-JAG",
            field("issued_token_type")
        )));
    }
    match field("access_token") {
        Some(jag) if jag.split('.').count() == 3 => Ok(jag.to_owned()),
        _ => Err(OAuthError::InvalidTokenResponse(
            "the token exchange answer has no ID-JAG".into(),
        )),
    }
}

/// `POST`s `form` to the token endpoint `endpoint` of `server`, authenticated as `client`
/// (as [`ClientRegistration::auth_type`] decides), with a DPoP proof when `dpop` is given.
/// The JSON answer, or the OAuth error (`error`, `error_description`).
async fn post_form(
    fetcher: &Fetcher,
    endpoint: &str,
    client: Option<&ClientRegistration>,
    server: &ServerMetadata,
    mut form: Vec<(&str, String)>,
    dpop: Option<&Dpop>,
) -> Result<Result<Value, (String, Option<String>)>, OAuthError> {
    let url = secure_url(endpoint)?;
    let mut request = http::Request::builder()
        .method(http::Method::POST)
        .uri(url.as_str())
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json");
    if let Some(client) = client.filter(|c| !c.client_id.is_empty()) {
        match client.auth_type(server)? {
            (AuthType::BasicAuth, true) => {
                let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect();
                let id: String = encode(&client.client_id);
                let secret: String = encode(client.client_secret.as_deref().unwrap_or_default());
                let basic = base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    format!("{id}:{secret}"),
                );
                request = request.header("authorization", format!("Basic {basic}"));
            }
            (_, send_secret) => {
                form.push(("client_id", client.client_id.clone()));
                if let (true, Some(secret)) = (send_secret, &client.client_secret) {
                    form.push(("client_secret", secret.clone()));
                }
            }
        }
    }
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let request = request
        .body(body.into_bytes())
        .map_err(|e| OAuthError::Http {
            url: url.to_string(),
            reason: e.to_string(),
        })?;
    let response = fetcher.execute_dpop(request, dpop).await?;
    let answer: Value = serde_json::from_slice(response.body())
        .map_err(|e| OAuthError::InvalidTokenResponse(format!("not JSON: {e}")))?;
    if response.status().is_success() {
        return Ok(Ok(answer));
    }
    let text = |name: &str| answer.get(name).and_then(Value::as_str).map(str::to_owned);
    let error = text("error").unwrap_or_else(|| format!("HTTP {}", response.status().as_u16()));
    Ok(Err((error, text("error_description"))))
}
