//! Finding the authorization server: the `WWW-Authenticate` challenge, protected resource
//! metadata (RFC 9728) at the challenge's `resource_metadata` or the well-known URIs, then
//! authorization server metadata (RFC 8414, or OpenID Connect discovery) with its `issuer`
//! checked.

use super::OAuthError;
use super::fetch::{Fetched, Fetcher, malformed, secure_url};
use oauth2::url::Url;
use serde::Deserialize;
use serde_json::Value;

/// The parameters of a `Bearer` challenge (`WWW-Authenticate`, RFC 6750 §3 / RFC 9728 §5.1).
///
/// ```
/// use tracksuit::client::oauth::Challenge;
/// let c = Challenge::parse(
///     r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource""#,
/// );
/// assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
/// assert_eq!(c.scopes(), ["files:read", "files:write"]);
/// assert!(c.resource_metadata.unwrap().ends_with("oauth-protected-resource"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// `resource_metadata`: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs (space-separated).
    pub scope: Option<String>,
    /// `error` (`invalid_token`, `insufficient_scope`, ...).
    pub error: Option<String>,
}

impl Challenge {
    /// The `Bearer` challenge's parameters in a `WWW-Authenticate` value, completed by the
    /// `DPoP` challenge's (RFC 9449) for those the `Bearer` one lacks (other schemes'
    /// parameters are skipped; a malformed value yields what parsed before the damage).
    ///
    /// ```
    /// use tracksuit::client::oauth::Challenge;
    /// let c = Challenge::parse(r#"DPoP error="use_dpop_nonce", algs="ES256""#);
    /// assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
    /// ```
    pub fn parse(header: &str) -> Challenge {
        // The Bearer challenge's parameters, then the DPoP one's.
        let mut found = [Challenge::default(), Challenge::default()];
        let mut scheme = None;
        let mut rest = header;
        loop {
            rest = rest.trim_start_matches([' ', '\t', ',']);
            let end = rest.find(['=', ' ', ',', '\t']).unwrap_or(rest.len());
            if end == 0 {
                break;
            }
            let name = &rest[..end];
            let after = rest[end..].trim_start_matches([' ', '\t']);
            let Some(value_start) = after.strip_prefix('=') else {
                // A scheme name: parameters that follow belong to it.
                scheme = match name.to_ascii_lowercase().as_str() {
                    "bearer" => Some(0),
                    "dpop" => Some(1),
                    _ => None,
                };
                rest = after;
                continue;
            };
            let (value, next) = auth_param_value(value_start.trim_start());
            if let Some(out) = scheme.and_then(|i| found.get_mut(i)) {
                let slot = match name.to_ascii_lowercase().as_str() {
                    "resource_metadata" => &mut out.resource_metadata,
                    "scope" => &mut out.scope,
                    "error" => &mut out.error,
                    _ => &mut None,
                };
                *slot = Some(value);
            }
            rest = next;
        }
        let [bearer, dpop] = found;
        Challenge {
            resource_metadata: bearer.resource_metadata.or(dpop.resource_metadata),
            scope: bearer.scope.or(dpop.scope),
            error: bearer.error.or(dpop.error),
        }
    }

    /// The challenged scopes, split on spaces.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref())
    }
}

/// A quoted-string (with `\` escapes) or a token; the value and what follows it.
fn auth_param_value(s: &str) -> (String, &str) {
    if let Some(quoted) = s.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => value.extend(chars.next().map(|(_, c)| c)),
                '"' => return (value, &quoted[i + 1..]),
                c => value.push(c),
            }
        }
        return (value, "");
    }
    let end = s.find([',', ' ', '\t']).unwrap_or(s.len());
    (s[..end].to_owned(), &s[end..])
}

pub(crate) fn split_scopes(scope: Option<&str>) -> Vec<String> {
    scope
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Protected resource metadata (RFC 9728), the fields the client uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ResourceMetadata {
    pub resource: String,
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization server metadata (RFC 8414 / OpenID Connect discovery), checked.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ServerMetadata {
    pub issuer: String,
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    #[serde(default)]
    pub token_endpoint: Option<String>,
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

/// Where the client stands after discovery: the resource to ask a token for and the
/// authorization server to ask.
#[derive(Debug, Clone)]
pub(crate) struct Discovery {
    /// The `resource` parameter (RFC 8707): the protected resource metadata's `resource`
    /// exactly, or the server URL when the server has none (2025-03-26 servers).
    pub resource: String,
    pub scopes_supported: Option<Vec<String>>,
    pub server: ServerMetadata,
}

/// Protected resource metadata for `server_url`: at the challenge's URL, else the
/// path-inserted well-known URI, else the root one. `None` when none exists.
pub(crate) async fn resource_metadata(
    fetcher: &Fetcher,
    server_url: &Url,
    challenge: &Challenge,
) -> Result<Option<ResourceMetadata>, OAuthError> {
    let mut candidates = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        candidates.push(url.clone());
    }
    let path = server_url.path().trim_end_matches('/');
    let root = origin(server_url);
    if !path.is_empty() {
        candidates.push(format!("{root}/.well-known/oauth-protected-resource{path}"));
    }
    candidates.push(format!("{root}/.well-known/oauth-protected-resource"));
    for candidate in candidates {
        let Fetched::Json(value) = fetcher.get_json(&candidate).await? else {
            continue;
        };
        let url = secure_url(&candidate)?;
        let metadata: ResourceMetadata = parse(&url, value)?;
        if !resource_matches(&metadata.resource, server_url) {
            return Err(OAuthError::ResourceMismatch {
                expected: server_url.to_string(),
                found: metadata.resource,
            });
        }
        return Ok(Some(metadata));
    }
    Ok(None)
}

/// Whether the resource `resource` covers `server_url`: same origin, and the server's path
/// at or below the resource's.
pub(crate) fn resource_matches(resource: &str, server_url: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.fragment().is_some() || origin(&resource) != origin(server_url) {
        return false;
    }
    let base = resource.path().trim_end_matches('/');
    let path = server_url.path();
    path == base || path.starts_with(&format!("{base}/")) || base.is_empty()
}

/// `scheme://host[:port]`, without a trailing slash.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Authorization server metadata for `issuer`, trying RFC 8414 then OpenID Connect
/// discovery URLs in the MCP specification's order. The document's `issuer` must be
/// `issuer` exactly, its endpoints secure, and PKCE S256 listed. `None` when no document
/// exists at any location.
pub(crate) async fn server_metadata(
    fetcher: &Fetcher,
    issuer: &str,
) -> Result<Option<ServerMetadata>, OAuthError> {
    let url = secure_url(issuer)?;
    let root = origin(&url);
    let path = url.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![
            format!("{root}/.well-known/oauth-authorization-server"),
            format!("{root}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{root}/.well-known/oauth-authorization-server{path}"),
            format!("{root}/.well-known/openid-configuration{path}"),
            format!("{root}{path}/.well-known/openid-configuration"),
        ]
    };
    for candidate in candidates {
        let Fetched::Json(value) = fetcher.get_json(&candidate).await? else {
            continue;
        };
        let at = secure_url(&candidate)?;
        let metadata: ServerMetadata = parse(&at, value)?;
        return check_server_metadata(metadata, issuer, &at).map(Some);
    }
    Ok(None)
}

/// Refuses metadata for another issuer, without the endpoints the flow needs, with
/// insecure endpoints, or without PKCE S256.
pub(crate) fn check_server_metadata(
    metadata: ServerMetadata,
    issuer: &str,
    at: &Url,
) -> Result<ServerMetadata, OAuthError> {
    if metadata.issuer != issuer {
        return Err(OAuthError::IssuerMismatch {
            expected: issuer.to_owned(),
            found: metadata.issuer,
        });
    }
    if metadata.token_endpoint.is_none() {
        return Err(malformed(at, "no token_endpoint".into()));
    }
    for endpoint in [
        &metadata.authorization_endpoint,
        &metadata.token_endpoint,
        &metadata.registration_endpoint,
    ]
    .into_iter()
    .flatten()
    {
        secure_url(endpoint)?;
    }
    let s256 = metadata
        .code_challenge_methods_supported
        .iter()
        .flatten()
        .any(|m| m == "S256");
    if metadata.authorization_endpoint.is_some() && !s256 {
        return Err(OAuthError::PkceUnsupported(metadata.issuer));
    }
    Ok(metadata)
}

/// The defaults a 2025-03-26 server without metadata implies: `/authorize`, `/token` and
/// `/register` at its origin.
pub(crate) fn legacy_defaults(origin: &str) -> ServerMetadata {
    ServerMetadata {
        issuer: origin.to_owned(),
        authorization_endpoint: Some(format!("{origin}/authorize")),
        token_endpoint: Some(format!("{origin}/token")),
        registration_endpoint: Some(format!("{origin}/register")),
        code_challenge_methods_supported: Some(vec!["S256".into()]),
        ..ServerMetadata::default()
    }
}

/// Discovery for `server_url` after `challenge`: protected resource metadata and its first
/// authorization server; without metadata, the server's own origin as the authorization
/// server (the 2025-03-26 arrangement).
pub(crate) async fn discover(
    fetcher: &Fetcher,
    server_url: &Url,
    challenge: &Challenge,
) -> Result<Discovery, OAuthError> {
    if let Some(prm) = resource_metadata(fetcher, server_url, challenge).await? {
        let issuer = prm
            .authorization_servers
            .first()
            .ok_or_else(|| OAuthError::NoAuthorizationServer(server_url.to_string()))?;
        let server = server_metadata(fetcher, issuer)
            .await?
            .ok_or_else(|| OAuthError::NoAuthorizationServer(issuer.clone()))?;
        return Ok(Discovery {
            resource: prm.resource,
            scopes_supported: prm.scopes_supported,
            server,
        });
    }
    let root = origin(server_url);
    let server = match server_metadata(fetcher, &root).await? {
        Some(server) => server,
        None => legacy_defaults(&root),
    };
    Ok(Discovery {
        resource: server_url.to_string(),
        scopes_supported: None,
        server,
    })
}

fn parse<T: serde::de::DeserializeOwned>(url: &Url, value: Value) -> Result<T, OAuthError> {
    serde_json::from_value(value).map_err(|e| malformed(url, e.to_string()))
}
