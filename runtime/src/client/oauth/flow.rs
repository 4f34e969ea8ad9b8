//! The grants: authorization code with PKCE S256 (through a [`UserAgent`]), refresh, and
//! client credentials; every token request carries the `resource` (RFC 8707).

use super::OAuthError;
use super::discovery::{Discovery, ServerMetadata};
use super::dpop::Dpop;
use super::fetch::{Fetcher, secure_url};
use super::registration::ClientRegistration;
use super::token::StoredToken;
use futures::future::BoxFuture;
use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse, BasicTokenType};
use oauth2::url::Url;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet, EndpointSet,
    PkceCodeChallenge, RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse,
    TokenUrl,
};
use std::future::Future;
use std::sync::Arc;

/// The step where the user approves the authorization request: open the URL (a browser),
/// then hand back the URL the authorization server redirected to.
///
/// [`CallbackUserAgent`] wraps a closure (tests, embedding apps); [`LoopbackUserAgent`]
/// listens on `127.0.0.1` for the browser's redirect (command-line tools).
///
/// [`LoopbackUserAgent`]: super::LoopbackUserAgent
pub trait UserAgent: Send + Sync + 'static {
    /// The `redirect_uri` registered and sent with authorization requests.
    fn redirect_uri(&self) -> String;
    /// Shows `url` to the user and resolves to the redirect the authorization server sent
    /// back (`redirect_uri?code=...&state=...`).
    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>>;
}

type AuthorizeFn = dyn Fn(Url) -> BoxFuture<'static, Result<Url, OAuthError>> + Send + Sync;

/// A [`UserAgent`] that calls a closure with the authorization URL.
///
/// ```
/// use tracksuit::client::oauth::{CallbackUserAgent, OAuthError, UserAgent};
/// let agent = CallbackUserAgent::new("http://127.0.0.1:8976/callback", |url| async move {
///     // Show `url` somewhere, wait for the redirect, return it.
///     Err::<tracksuit::client::oauth::Url, _>(OAuthError::UserAgent(format!("no browser for {url}")))
/// });
/// assert_eq!(agent.redirect_uri(), "http://127.0.0.1:8976/callback");
/// ```
#[derive(Clone)]
pub struct CallbackUserAgent {
    redirect_uri: String,
    authorize: Arc<AuthorizeFn>,
}

impl std::fmt::Debug for CallbackUserAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackUserAgent")
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

impl CallbackUserAgent {
    /// A user agent redirecting to `redirect_uri`, whose step is `authorize`.
    pub fn new<F, Fut>(redirect_uri: impl Into<String>, authorize: F) -> Self
    where
        F: Fn(Url) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Url, OAuthError>> + Send + 'static,
    {
        CallbackUserAgent {
            redirect_uri: redirect_uri.into(),
            authorize: Arc::new(move |url| Box::pin(authorize(url))),
        }
    }
}

impl UserAgent for CallbackUserAgent {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, OAuthError>> {
        (self.authorize)(url)
    }
}

/// RFC 7523's `client_assertion_type` for a JWT.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

type CodeClient =
    BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;
type TokenClient =
    BasicClient<EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

fn token_client(
    client: &ClientRegistration,
    server: &ServerMetadata,
    token_endpoint: &str,
) -> Result<TokenClient, OAuthError> {
    let (auth_type, send_secret) = client.auth_type(server)?;
    secure_url(token_endpoint)?;
    let token_url =
        TokenUrl::new(token_endpoint.to_owned()).map_err(|e| invalid(token_endpoint, e))?;
    let mut oauth = BasicClient::new(ClientId::new(client.client_id.clone()))
        .set_auth_type(auth_type)
        .set_token_uri(token_url);
    if let (true, Some(secret)) = (send_secret, &client.client_secret) {
        oauth = oauth.set_client_secret(ClientSecret::new(secret.clone()));
    }
    Ok(oauth)
}

fn code_client(
    client: &ClientRegistration,
    server: &ServerMetadata,
    redirect_uri: &str,
) -> Result<CodeClient, OAuthError> {
    let token_endpoint = server.token_endpoint.as_deref().unwrap_or_default();
    let authorization_endpoint = server.authorization_endpoint.as_deref().ok_or_else(|| {
        OAuthError::Config(format!("{} has no authorization_endpoint", server.issuer))
    })?;
    secure_url(authorization_endpoint)?;
    secure_url(redirect_uri)?;
    let auth_url = AuthUrl::new(authorization_endpoint.to_owned())
        .map_err(|e| invalid(authorization_endpoint, e))?;
    let redirect =
        RedirectUrl::new(redirect_uri.to_owned()).map_err(|e| invalid(redirect_uri, e))?;
    Ok(token_client(client, server, token_endpoint)?
        .set_auth_uri(auth_url)
        .set_redirect_uri(redirect))
}

/// One authorization-code grant: PKCE S256, `state`, `resource`, the user agent step, the
/// redirect checked (state, `iss` per RFC 9207), the code exchanged.
pub(crate) async fn authorization_code(
    fetcher: &Fetcher,
    discovery: &Discovery,
    client: &ClientRegistration,
    scopes: &[String],
    agent: &dyn UserAgent,
    dpop: Option<&Dpop>,
) -> Result<StoredToken, OAuthError> {
    let server = &discovery.server;
    let redirect_uri = agent.redirect_uri();
    let oauth = code_client(client, server, &redirect_uri)?;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut request = oauth
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_scopes(scopes.iter().cloned().map(Scope::new))
        .add_extra_param("resource", discovery.resource.as_str());
    if scopes.iter().any(|s| s == "offline_access") {
        // OpenID Connect honours offline_access only with prompt=consent (Core §11);
        // oidc-provider drops it otherwise, and no refresh token comes back.
        request = request.add_extra_param("prompt", "consent");
    }
    let (url, state) = request.url();
    let callback = agent.authorize(url).await?;
    let code = check_callback(&callback, &redirect_uri, state.secret(), server)?;
    let http = |request| {
        let (fetcher, dpop) = (fetcher.clone(), dpop.cloned());
        async move { fetcher.execute_dpop(request, dpop.as_ref()).await }
    };
    let response = oauth
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", discovery.resource.as_str())
        .request_async(&http)
        .await
        .map_err(token_error)?;
    stored(response, discovery, client, scopes, dpop)
}

/// The code in an authorization redirect, after checking it answers this request.
pub(crate) fn check_callback(
    callback: &Url,
    redirect_uri: &str,
    state: &str,
    server: &ServerMetadata,
) -> Result<String, OAuthError> {
    let bad = |why: &str| OAuthError::InvalidAuthorizationResponse(why.to_owned());
    let expected = Url::parse(redirect_uri).map_err(|e| invalid(redirect_uri, e))?;
    if callback.origin() != expected.origin() || callback.path() != expected.path() {
        return Err(bad("the redirect is not to the redirect URI"));
    }
    let param = |name: &str| {
        callback
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    if param("state").as_deref() != Some(state) {
        return Err(bad("state does not match"));
    }
    match param("iss") {
        Some(iss) if iss != server.issuer => {
            return Err(bad(&format!(
                "iss {iss} is not the issuer {}",
                server.issuer
            )));
        }
        None if server.authorization_response_iss_parameter_supported => {
            return Err(bad("iss missing though the server advertises it"));
        }
        _ => {}
    }
    if let Some(error) = param("error") {
        return Err(OAuthError::AuthorizationDenied {
            error,
            description: param("error_description"),
        });
    }
    param("code").ok_or_else(|| bad("no code"))
}

/// A refresh-token grant for `token`, at the server that issued it, for the same resource.
pub(crate) async fn refresh(
    fetcher: &Fetcher,
    token: &StoredToken,
    dpop: Option<&Dpop>,
) -> Result<StoredToken, OAuthError> {
    let refresh_token = token
        .refresh_token
        .clone()
        .ok_or_else(|| OAuthError::Config("no refresh token".into()))?;
    let server = ServerMetadata {
        issuer: token.issuer.clone(),
        ..ServerMetadata::default()
    };
    let oauth = token_client(&token.client, &server, &token.token_endpoint)?;
    let http = |request| {
        let (fetcher, dpop) = (fetcher.clone(), dpop.cloned());
        async move { fetcher.execute_dpop(request, dpop.as_ref()).await }
    };
    let refresh_token = RefreshToken::new(refresh_token);
    let response = oauth
        .exchange_refresh_token(&refresh_token)
        .add_extra_param("resource", token.resource.as_str())
        .request_async(&http)
        .await
        .map_err(token_error)?;
    let mut next = token.clone();
    fill(&mut next, &response, dpop)?;
    // A server that does not rotate refresh tokens keeps the old one valid.
    next.refresh_token = response
        .refresh_token()
        .map(|r| r.secret().clone())
        .or(next.refresh_token);
    Ok(next)
}

/// A client-credentials grant (machine to machine: no user, no redirect).
pub(crate) async fn client_credentials(
    fetcher: &Fetcher,
    discovery: &Discovery,
    client: &ClientRegistration,
    scopes: &[String],
    jwt: Option<&super::PrivateKeyJwt>,
    dpop: Option<&Dpop>,
) -> Result<StoredToken, OAuthError> {
    let token_endpoint = discovery
        .server
        .token_endpoint
        .as_deref()
        .unwrap_or_default();
    let oauth = token_client(client, &discovery.server, token_endpoint)?;
    let http = |request| {
        let (fetcher, dpop) = (fetcher.clone(), dpop.cloned());
        async move { fetcher.execute_dpop(request, dpop.as_ref()).await }
    };
    let mut request = oauth
        .exchange_client_credentials()
        .add_scopes(scopes.iter().cloned().map(Scope::new))
        .add_extra_param("resource", discovery.resource.as_str());
    if let Some(jwt) = jwt {
        request = request
            .add_extra_param("client_assertion_type", JWT_BEARER)
            .add_extra_param("client_assertion", jwt.assertion(&discovery.server.issuer)?);
    }
    let response = request.request_async(&http).await.map_err(token_error)?;
    stored(response, discovery, client, scopes, dpop)
}

/// The token `response` issued after discovery `discovery` to `client`.
pub(crate) fn stored(
    response: BasicTokenResponse,
    discovery: &Discovery,
    client: &ClientRegistration,
    scopes: &[String],
    dpop: Option<&Dpop>,
) -> Result<StoredToken, OAuthError> {
    let mut token = StoredToken {
        access_token: String::new(),
        refresh_token: response.refresh_token().map(|r| r.secret().clone()),
        expires_at: None,
        issued_at: None,
        scopes: scopes.to_vec(),
        resource: discovery.resource.clone(),
        issuer: discovery.server.issuer.clone(),
        token_endpoint: discovery.server.token_endpoint.clone().unwrap_or_default(),
        client: client.clone(),
        dpop_jkt: None,
    };
    fill(&mut token, &response, dpop)?;
    Ok(token)
}

/// Copies the access token, its binding, expiry and granted scopes of `response` into
/// `token`. A `DPoP` token is only accepted when a proof was sent (`dpop`); a `Bearer` one
/// always (an authorization server that does not do DPoP ignores the proof, RFC 9449 §5).
fn fill(
    token: &mut StoredToken,
    response: &BasicTokenResponse,
    dpop: Option<&Dpop>,
) -> Result<(), OAuthError> {
    token.dpop_jkt = match (response.token_type(), dpop) {
        (BasicTokenType::Bearer, _) => None,
        (BasicTokenType::Extension(t), Some(dpop)) if t.eq_ignore_ascii_case("dpop") => {
            Some(dpop.key.thumbprint().to_owned())
        }
        (other, _) => {
            return Err(OAuthError::InvalidTokenResponse(format!(
                "token_type {:?} is neither Bearer nor DPoP with a proof sent",
                other.as_ref()
            )));
        }
    };
    if response.access_token().secret().is_empty() {
        return Err(OAuthError::InvalidTokenResponse(
            "empty access_token".into(),
        ));
    }
    token.access_token = response.access_token().secret().clone();
    token.expires_at = StoredToken::expiry_from(response.expires_in());
    token.issued_at = Some(super::token::now_secs());
    if let Some(granted) = response.scopes() {
        token.scopes = granted.iter().map(|s| s.to_string()).collect();
    }
    Ok(())
}

pub(crate) fn token_error(e: RequestTokenError<OAuthError, BasicErrorResponse>) -> OAuthError {
    match e {
        RequestTokenError::ServerResponse(r) => OAuthError::TokenEndpoint {
            error: r.error().to_string(),
            description: r.error_description().cloned(),
        },
        RequestTokenError::Request(e) => e,
        RequestTokenError::Parse(e, _) => OAuthError::InvalidTokenResponse(e.to_string()),
        RequestTokenError::Other(why) => OAuthError::InvalidTokenResponse(why),
    }
}

fn invalid(url: &str, e: impl std::fmt::Display) -> OAuthError {
    OAuthError::InvalidUrl {
        url: url.to_owned(),
        reason: e.to_string(),
    }
}
