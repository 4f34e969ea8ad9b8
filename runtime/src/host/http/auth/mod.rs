//! tracksuit as an OAuth 2.1 resource server (MCP `basic/authorization`; feature `auth`).
//!
//! A [`ResourceServer`] describes the protected MCP endpoint: its canonical URI (the audience
//! tokens must be issued for, RFC 8707), the authorization servers that issue them, and a
//! [`TokenValidator`] ([`JwtValidator`] for JWTs signed with the issuer's JWKS,
//! [`IntrospectionValidator`] for opaque tokens, RFC 7662, or your own). From it come:
//!
//! - the protected resource metadata document (RFC 9728) at
//!   `/.well-known/oauth-protected-resource` and its path-suffixed form
//!   (`/.well-known/oauth-protected-resource/mcp` for a resource at `/mcp`):
//!   [`ResourceServer::metadata_router`];
//! - a tower layer that lets a request through only with a valid bearer token:
//!   [`ResourceServer::layer`]. Missing token → `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`; invalid (expired, not yet
//!   valid, another audience or issuer, bad signature, unknown key, disallowed algorithm) →
//!   `401 error="invalid_token"`; malformed `Authorization` header → `400
//!   error="invalid_request"`; a scope the whole endpoint requires missing → `403
//!   error="insufficient_scope"`. A valid token becomes an `Arc<`[`Principal`]`>` in the
//!   request's extensions (handlers see it as [`Ctx::principal`](crate::Ctx::principal)) and the
//!   `Authorization` header is removed, so the token is never handed on.
//!
//! [`HttpOptions::auth`](super::HttpOptions::auth) does both for the Streamable HTTP host;
//! the layer and the metadata router also work on your own axum router. Items with
//! `scopes = [..]` (`#[mcp_tool(scopes = ["files:write"])]`) are checked by the host: a
//! caller without them gets `403` with an `insufficient_scope` challenge naming them.
//!
//! ```no_run
//! use tracksuit::host::http::auth::{JwtValidator, ResourceServer};
//! use tracksuit::host::http::{HttpOptions, StreamableHttp, serve};
//! # async fn run(server: tracksuit::ServerHandle) -> Result<(), Box<dyn std::error::Error>> {
//! let resource = "https://mcp.example.com/mcp";
//! let issuer = "https://auth.example.com";
//! let validator = JwtValidator::discover(issuer, resource).await?;
//! let auth = ResourceServer::new(resource, validator)
//!     .authorization_server(issuer)
//!     .scopes_supported(["files:read", "files:write"]);
//! let options = HttpOptions::default()
//!     .allowed_hosts(Some(vec!["mcp.example.com".into()]))
//!     .auth(auth);
//! let app = StreamableHttp::new(server, options).router("/mcp");
//! serve(tokio::net::TcpListener::bind("0.0.0.0:8000").await?, app).await?;
//! # Ok(())
//! # }
//! ```

mod introspection;
mod jwt;

pub use introspection::IntrospectionValidator;
/// A JWT signature algorithm, for [`JwtValidator::algorithms`] (re-exported from
/// `jsonwebtoken`).
///
/// ```
/// use tracksuit::host::http::auth::{Algorithm, JwkSet, JwtValidator};
/// // Accept only ES256-signed tokens, whatever else the key set holds.
/// let validator = JwtValidator::with_keys("https://auth.example.com", "https://mcp.example.com/mcp", JwkSet { keys: vec![] })
///     .algorithms([Algorithm::ES256]);
/// # let _ = validator;
/// assert_eq!("ES256".parse::<Algorithm>().unwrap(), Algorithm::ES256);
/// ```
pub use jsonwebtoken::Algorithm;
/// A JSON Web Key, one entry of a [`JwkSet`] (re-exported from `jsonwebtoken`).
///
/// ```
/// use tracksuit::host::http::auth::Jwk;
/// let key: Jwk = serde_json::from_value(serde_json::json!({
///     "kty": "RSA", "kid": "2026-01", "alg": "RS256", "use": "sig",
///     "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1Wl", "e": "AQAB",
/// })).unwrap();
/// assert_eq!(key.common.key_id.as_deref(), Some("2026-01"));
/// ```
pub use jsonwebtoken::jwk::Jwk;
/// A JSON Web Key Set, as an issuer publishes at its `jwks_uri`: the keys
/// [`JwtValidator::with_keys`] checks signatures with (re-exported from `jsonwebtoken`).
///
/// ```
/// use tracksuit::host::http::auth::{JwkSet, JwtValidator};
/// let jwks: JwkSet = serde_json::from_str(r#"{"keys": [{"kty": "RSA", "kid": "2026-01",
///     "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1Wl", "e": "AQAB"}]}"#).unwrap();
/// assert!(jwks.find("2026-01").is_some());
/// let validator = JwtValidator::with_keys("https://auth.example.com", "https://mcp.example.com/mcp", jwks);
/// # let _ = validator;
/// ```
pub use jsonwebtoken::jwk::JwkSet;
pub use jwt::JwtValidator;

use super::challenge::{ResourceChallenge, bearer_challenge};
use crate::caller::{Principal, PrincipalKind};
use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// The well-known path of the protected resource metadata (RFC 9728 §3).
///
/// ```
/// use tracksuit::host::http::auth::{JwkSet, JwtValidator, METADATA_PATH, ResourceServer};
/// let resource = "https://mcp.example.com/mcp";
/// let validator = JwtValidator::with_keys("https://auth.example.com", resource, JwkSet { keys: vec![] });
/// let rs = ResourceServer::new(resource, validator);
/// // Served at the well-known path and at its form suffixed with the resource's path.
/// assert_eq!(rs.metadata_paths(), [format!("{METADATA_PATH}/mcp"), METADATA_PATH.to_string()]);
/// ```
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Checks a bearer token and says who it was issued to.
///
/// Implement it for tokens the built-in validators do not understand. A validator must
/// check that the token was issued for this resource (its audience) and is still valid, and
/// must not send the token anywhere but to the authorization server that issued it.
///
/// ```
/// use futures::future::BoxFuture;
/// use tracksuit::Principal;
/// use tracksuit::host::http::auth::{TokenError, TokenValidator};
///
/// /// Accepts one fixed token (tests only!).
/// struct Fixed;
/// impl TokenValidator for Fixed {
///     fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
///         Box::pin(async move {
///             if token == "let-me-in" {
///                 Ok(Principal::new("tester").with_scopes(["files:read"]))
///             } else {
///                 Err(TokenError::Invalid("unknown token".into()))
///             }
///         })
///     }
/// }
/// # let _ = Fixed;
/// ```
pub trait TokenValidator: Send + Sync + 'static {
    /// The principal `token` stands for, or why it is refused.
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>>;
}

/// Why a token was not accepted.
///
/// ```
/// use futures::future::BoxFuture;
/// use tracksuit::Principal;
/// use tracksuit::host::http::auth::{ResourceServer, TokenError, TokenValidator};
/// /// A validator whose issuer is down.
/// struct Down;
/// impl TokenValidator for Down {
///     fn validate<'a>(&'a self, _token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
///         Box::pin(async { Err(TokenError::Unavailable("JWKS unreachable".into())) })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let rs = ResourceServer::new("https://mcp.example.com/mcp", Down);
/// let mut headers = axum::http::HeaderMap::new();
/// headers.insert("authorization", "Bearer abc".parse().unwrap());
/// let refused = rs.authenticate(&headers).await.unwrap_err();
/// assert_eq!(refused.status(), 503); // `Invalid` would be 401 `invalid_token`
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not valid here (`401 error="invalid_token"`); the message becomes the
    /// `error_description`.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The token could not be checked now (the key set or the introspection endpoint is
    /// unreachable): `503`.
    #[error("token validation unavailable: {0}")]
    Unavailable(String),
}

/// The protected MCP endpoint as an OAuth 2.1 resource server: its canonical URI, who
/// issues its tokens, and how they are checked. Cheap to clone.
///
/// ```
/// use tracksuit::Principal;
/// use tracksuit::host::http::auth::{JwkSet, JwtValidator, ResourceServer};
/// let validator = JwtValidator::with_keys(
///     "https://auth.example.com",
///     "https://mcp.example.com/mcp",
///     JwkSet { keys: vec![] },
/// );
/// let rs = ResourceServer::new("https://mcp.example.com/mcp", validator)
///     .authorization_server("https://auth.example.com")
///     .scopes_supported(["files:read"]);
/// assert_eq!(
///     rs.metadata_url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// assert_eq!(rs.metadata()["authorization_servers"][0], "https://auth.example.com");
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    inner: Arc<Settings>,
}

#[derive(Clone)]
struct Settings {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    resource_name: Option<String>,
    resource_documentation: Option<String>,
    validator: Arc<dyn TokenValidator>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.inner.resource)
            .field("authorization_servers", &self.inner.authorization_servers)
            .field("required_scopes", &self.inner.required_scopes)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// The resource at canonical URI `resource` (e.g. `https://mcp.example.com/mcp`: scheme,
    /// host and path, no fragment), whose tokens `validator` checks.
    pub fn new(resource: impl Into<String>, validator: impl TokenValidator) -> Self {
        ResourceServer {
            inner: Arc::new(Settings {
                resource: resource.into(),
                authorization_servers: Vec::new(),
                scopes_supported: Vec::new(),
                required_scopes: Vec::new(),
                resource_name: None,
                resource_documentation: None,
                validator: Arc::new(validator),
            }),
        }
    }

    fn edit(mut self, f: impl FnOnce(&mut Settings)) -> Self {
        f(Arc::make_mut(&mut self.inner));
        self
    }

    /// Adds an authorization server (its issuer identifier) to the metadata.
    pub fn authorization_server(self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        self.edit(|s| s.authorization_servers.push(issuer))
    }

    /// The scopes the metadata lists as supported.
    pub fn scopes_supported<S: Into<String>>(self, scopes: impl IntoIterator<Item = S>) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.edit(|s| s.scopes_supported = scopes)
    }

    /// Scopes every request needs (checked by the layer, `403` without them); the `scope`
    /// of a `401` challenge names them (or, when none, the supported scopes).
    pub fn required_scopes<S: Into<String>>(self, scopes: impl IntoIterator<Item = S>) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.edit(|s| s.required_scopes = scopes)
    }

    /// A human-readable name for the metadata's `resource_name`.
    pub fn resource_name(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.edit(|s| s.resource_name = Some(name))
    }

    /// A documentation URL for the metadata's `resource_documentation`.
    pub fn resource_documentation(self, url: impl Into<String>) -> Self {
        let url = url.into();
        self.edit(|s| s.resource_documentation = Some(url))
    }

    /// The canonical URI of the resource.
    pub fn resource(&self) -> &str {
        &self.inner.resource
    }

    /// The protected resource metadata document (RFC 9728 §2).
    pub fn metadata(&self) -> Value {
        let s = &self.inner;
        let mut doc = Map::new();
        doc.insert("resource".into(), json!(s.resource));
        doc.insert(
            "authorization_servers".into(),
            json!(s.authorization_servers),
        );
        if !s.scopes_supported.is_empty() {
            doc.insert("scopes_supported".into(), json!(s.scopes_supported));
        }
        doc.insert("bearer_methods_supported".into(), json!(["header"]));
        if let Some(name) = &s.resource_name {
            doc.insert("resource_name".into(), json!(name));
        }
        if let Some(url) = &s.resource_documentation {
            doc.insert("resource_documentation".into(), json!(url));
        }
        Value::Object(doc)
    }

    /// Where the metadata is published: the well-known path inserted between the resource's
    /// origin and its path (RFC 9728 §3.1).
    pub fn metadata_url(&self) -> String {
        let (origin, path) = split_resource(&self.inner.resource);
        format!("{origin}{METADATA_PATH}{path}")
    }

    /// The paths the metadata is served at: the path-suffixed form, and the bare well-known
    /// path (for clients that look only there).
    pub fn metadata_paths(&self) -> Vec<String> {
        let (_, path) = split_resource(&self.inner.resource);
        let mut paths = vec![format!("{METADATA_PATH}{path}")];
        if !path.is_empty() {
            paths.push(METADATA_PATH.to_owned());
        }
        paths
    }

    /// A router answering `GET` at [`metadata_paths`](Self::metadata_paths) with the
    /// metadata document (readable cross-origin, as browser clients fetch it).
    pub fn metadata_router<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        let body = Arc::new(self.metadata().to_string());
        let mut router = Router::new();
        for path in self.metadata_paths() {
            let body = body.clone();
            router = router.route(
                &path,
                axum::routing::get(move || {
                    let body = body.clone();
                    async move {
                        (
                            [
                                (header::CONTENT_TYPE, "application/json"),
                                (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
                            ],
                            body.to_string(),
                        )
                    }
                }),
            );
        }
        router
    }

    /// The layer that admits only requests with a valid bearer token.
    pub fn layer(&self) -> BearerLayer {
        BearerLayer {
            resource: self.clone(),
        }
    }

    /// Checks a request's `Authorization` header: the principal, or the response refusing
    /// the request.
    pub async fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, Response> {
        let token = match bearer_token(headers) {
            Ok(token) => token,
            Err(Credentials::Missing) => return Err(self.refuse(Refusal::Missing)),
            Err(Credentials::Malformed(why)) => return Err(self.refuse(Refusal::Malformed(why))),
        };
        let principal = match self.inner.validator.validate(token).await {
            Ok(p) => p,
            Err(TokenError::Invalid(why)) => return Err(self.refuse(Refusal::Invalid(why))),
            Err(TokenError::Unavailable(why)) => {
                tracing::warn!(error = %why, "token validation unavailable");
                return Err(oauth_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    None,
                    "temporarily_unavailable",
                    "the token could not be checked now; try again later",
                ));
            }
        };
        if !principal.has_scopes(&self.inner.required_scopes) {
            return Err(self.refuse(Refusal::Scope));
        }
        Ok(principal)
    }

    fn refuse(&self, refusal: Refusal) -> Response {
        let s = &self.inner;
        let metadata = self.metadata_url();
        let challenge_scope = if s.required_scopes.is_empty() {
            s.scopes_supported.join(" ")
        } else {
            s.required_scopes.join(" ")
        };
        let scope = (!challenge_scope.is_empty()).then_some(challenge_scope.as_str());
        let (status, error, description) = match &refusal {
            Refusal::Missing => (StatusCode::UNAUTHORIZED, None, None),
            Refusal::Malformed(why) => (
                StatusCode::BAD_REQUEST,
                Some("invalid_request"),
                Some(why.to_string()),
            ),
            Refusal::Invalid(why) => (
                StatusCode::UNAUTHORIZED,
                Some("invalid_token"),
                Some(why.clone()),
            ),
            Refusal::Scope => (
                StatusCode::FORBIDDEN,
                Some("insufficient_scope"),
                Some(format!(
                    "this resource needs the scope(s) {}",
                    s.required_scopes.join(" ")
                )),
            ),
        };
        let scope = match &refusal {
            Refusal::Scope => Some(super::challenge::operation_scope(&s.required_scopes)),
            _ => scope.map(str::to_owned),
        };
        let challenge = bearer_challenge(
            error,
            scope.as_deref(),
            Some(&metadata),
            description.as_deref(),
        );
        let mut response = oauth_error(
            status,
            Some(challenge),
            error.unwrap_or("invalid_token"),
            description
                .as_deref()
                .unwrap_or("a bearer token is required"),
        );
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

/// Why a request was refused.
enum Refusal {
    Missing,
    Malformed(&'static str),
    Invalid(String),
    /// The token lacks a scope the whole endpoint requires.
    Scope,
}

/// What the `Authorization` header holds, when it is not a bearer token.
enum Credentials {
    /// No `Authorization` header, or another scheme.
    Missing,
    /// A `Bearer` header that is not one well-formed token (RFC 6750 §2.1).
    Malformed(&'static str),
}

/// The bearer token of a request's `Authorization` header.
fn bearer_token(headers: &HeaderMap) -> Result<&str, Credentials> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Credentials::Missing);
    };
    if values.next().is_some() {
        return Err(Credentials::Malformed("more than one Authorization header"));
    }
    let Ok(value) = value.to_str() else {
        return Err(Credentials::Malformed(
            "the Authorization header is not ASCII",
        ));
    };
    let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Credentials::Missing);
    }
    let token = rest.trim_start_matches(' ');
    let body = token.trim_end_matches('=');
    let token68 = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if !token68 {
        return Err(Credentials::Malformed(
            "the Authorization header must be `Bearer <token>`",
        ));
    }
    Ok(token)
}

/// An OAuth error response: `status`, the challenge (if any) and a JSON body with `error`
/// and `error_description`.
fn oauth_error(
    status: StatusCode,
    challenge: Option<HeaderValue>,
    error: &str,
    description: &str,
) -> Response {
    let body = json!({ "error": error, "error_description": description }).to_string();
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
    if let Some(challenge) = challenge {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// `https://host:port/path` → (`https://host:port`, `/path`); a trailing `/` (and a path of
/// just `/`) is dropped.
fn split_resource(resource: &str) -> (&str, &str) {
    let after_scheme = resource.find("://").map_or(0, |i| i + 3);
    let path_at = resource[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(resource.len(), |i| after_scheme + i);
    let (origin, rest) = resource.split_at(path_at);
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    (origin, path.trim_end_matches('/'))
}

/// A tower layer admitting only requests with a valid bearer token
/// ([`ResourceServer::layer`]).
///
/// ```
/// use futures::future::BoxFuture;
/// use tracksuit::{Principal, Server, client::{Client, HttpTransport}};
/// use tracksuit::host::http::{HttpOptions, StreamableHttp, auth::*, serve};
/// struct Fixed; // accepts one token (tests only!)
/// impl TokenValidator for Fixed {
///     fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
///         let ok = token == "let-me-in";
///         Box::pin(async move {
///             if ok { Ok(Principal::new("tester")) } else { Err(TokenError::Invalid("no".into())) }
///         })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let url = format!("http://{}/mcp", listener.local_addr()?);
/// let rs = ResourceServer::new(url.clone(), Fixed);
/// let server = Server::new(tracksuit::crate_info!()).build()?;
/// // `HttpOptions::auth` puts `rs.layer()` (a `BearerLayer`) in front of the endpoint.
/// let endpoint = StreamableHttp::new(server, HttpOptions::default().auth(rs));
/// tokio::spawn(serve(listener, endpoint.router("/mcp")));
/// assert!(Client::builder().connect(HttpTransport::new(&url)?).await.is_err());
/// let with_token = HttpTransport::new(&url)?.header("authorization", "Bearer let-me-in")?;
/// Client::builder().connect(with_token).await?.ping().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct BearerLayer {
    resource: ResourceServer,
}

impl<S> tower::Layer<S> for BearerLayer {
    type Service = Bearer<S>;

    fn layer(&self, inner: S) -> Bearer<S> {
        Bearer {
            resource: self.resource.clone(),
            inner,
        }
    }
}

/// The service [`BearerLayer`] wraps around the protected one.
///
/// ```
/// use futures::future::BoxFuture;
/// use std::sync::Arc;
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// use tracksuit::Principal;
/// use tracksuit::host::http::auth::{ResourceServer, TokenError, TokenValidator};
/// struct Fixed; // accepts one token (tests only!)
/// impl TokenValidator for Fixed {
///     fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
///         let ok = token == "let-me-in";
///         Box::pin(async move {
///             if ok { Ok(Principal::new("tester")) } else { Err(TokenError::Invalid("no".into())) }
///         })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// // Any axum route behind the layer: each request passes through a `Bearer` service.
/// let rs = ResourceServer::new("http://127.0.0.1/api", Fixed);
/// // The layer puts the token's principal (an `Arc<Principal>`) in the request's extensions.
/// let whoami = |who: axum::Extension<Arc<Principal>>| async move { who.0.subject.clone() };
/// let app = axum::Router::new().route("/api", axum::routing::get(whoami)).route_layer(rs.layer());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let addr = listener.local_addr()?;
/// tokio::spawn(async move { axum::serve(listener, app).await });
/// let mut tcp = tokio::net::TcpStream::connect(addr).await?;
/// tcp.write_all(b"GET /api HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer let-me-in\r\nconnection: close\r\n\r\n").await?;
/// let mut reply = String::new();
/// tcp.read_to_string(&mut reply).await?;
/// assert!(reply.starts_with("HTTP/1.1 200") && reply.ends_with("tester"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Bearer<S> {
    resource: ResourceServer,
    inner: S,
}

impl<S> tower::Service<Request> for Bearer<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        // The clone is the one that was polled ready (tower's usual swap).
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let resource = self.resource.clone();
        Box::pin(async move {
            // CORS preflights carry no credentials.
            if request.method() == Method::OPTIONS {
                return inner.call(request).await;
            }
            match resource.authenticate(request.headers()).await {
                Ok(principal) => {
                    let extensions = request.extensions_mut();
                    extensions.insert(Arc::new(principal));
                    extensions.insert(ResourceChallenge {
                        metadata_url: resource.metadata_url(),
                        endpoint_scopes: resource.inner.required_scopes.clone(),
                    });
                    // The token stops here: nothing behind the layer can pass it on.
                    request.headers_mut().remove(header::AUTHORIZATION);
                    inner.call(request).await
                }
                Err(refused) => Ok(refused),
            }
        })
    }
}

/// A shared HTTP client for JWKS, discovery and introspection requests.
fn http_client(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .unwrap_or_default()
}

/// The principal a set of token claims (or an introspection response) describes.
pub(crate) fn principal_from_claims(claims: Map<String, Value>) -> Result<Principal, TokenError> {
    let text = |key: &str| claims.get(key).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").or_else(|| text("azp"));
    // A token with no `sub` names the client itself, a principal of another kind.
    let (subject, kind) = match (text("sub"), &client_id) {
        (Some(sub), _) => (sub, PrincipalKind::User),
        (None, Some(client)) => (client.clone(), PrincipalKind::Client),
        (None, None) => return Err(TokenError::Invalid("the token names no subject".into())),
    };
    let scopes = match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_owned).collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let mut principal = Principal::new(subject).with_scopes(scopes);
    principal.kind = kind;
    principal.issuer = text("iss");
    principal.client_id = client_id;
    principal.claims = claims;
    Ok(principal)
}

/// The body of a refused request, for tests.
#[cfg(test)]
async fn body_text(response: Response) -> String {
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests;
