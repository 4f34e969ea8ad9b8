//! Who the client is to an authorization server: pre-registered credentials, a client ID
//! metadata document (a URL as `client_id`), or dynamic client registration (RFC 7591),
//! and how it authenticates at the token endpoint.

use super::OAuthError;
use super::discovery::ServerMetadata;
use super::fetch::{Fetcher, secure_url};
use oauth2::AuthType;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A client's identity at one authorization server.
///
/// ```
/// use tracksuit::client::oauth::ClientRegistration;
/// let public = ClientRegistration::public("my-client");
/// assert!(public.client_secret.is_none());
/// let confidential = ClientRegistration::confidential("my-client", "s3cret");
/// assert_eq!(confidential.client_secret.as_deref(), Some("s3cret"));
/// // Secrets stay out of logs.
/// assert!(!format!("{confidential:?}").contains("s3cret"));
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRegistration {
    /// The `client_id`.
    pub client_id: String,
    /// The `client_secret`, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The `token_endpoint_auth_method` the server registered, if it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
}

impl std::fmt::Debug for ClientRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientRegistration")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .finish()
    }
}

impl ClientRegistration {
    /// A public client (no secret; `token_endpoint_auth_method` `none`).
    pub fn public(client_id: impl Into<String>) -> Self {
        ClientRegistration {
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: None,
        }
    }

    /// A confidential client with a secret (sent as `client_secret_basic` unless the server
    /// supports only `client_secret_post`).
    pub fn confidential(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        ClientRegistration {
            client_id: client_id.into(),
            client_secret: Some(secret.into()),
            token_endpoint_auth_method: None,
        }
    }

    /// How to authenticate at `server`'s token endpoint, and whether to send the secret.
    pub(crate) fn auth_type(
        &self,
        server: &ServerMetadata,
    ) -> Result<(AuthType, bool), OAuthError> {
        let method = match (&self.token_endpoint_auth_method, &self.client_secret) {
            (Some(method), _) => method.as_str(),
            (None, None) => "none",
            (None, Some(_)) => {
                // RFC 8414: absent means client_secret_basic.
                let supported = server
                    .token_endpoint_auth_methods_supported
                    .clone()
                    .unwrap_or_else(|| vec!["client_secret_basic".into()]);
                let has = |m: &str| supported.iter().any(|s| s == m);
                if has("client_secret_basic") {
                    "client_secret_basic"
                } else if has("client_secret_post") {
                    "client_secret_post"
                } else {
                    "none"
                }
            }
        };
        match (method, self.client_secret.is_some()) {
            ("client_secret_basic", true) => Ok((AuthType::BasicAuth, true)),
            ("client_secret_post", true) => Ok((AuthType::RequestBody, true)),
            ("none", _) => Ok((AuthType::RequestBody, false)),
            (other, _) => Err(OAuthError::UnsupportedAuthMethod(other.to_owned())),
        }
    }
}

/// What the client says about itself when registering.
#[derive(Debug, Clone)]
pub(crate) struct ClientProfile {
    pub name: String,
    pub redirect_uri: String,
    pub metadata_url: Option<String>,
}

/// Dynamic client registration (RFC 7591) at `server`'s `registration_endpoint`.
pub(crate) async fn register(
    fetcher: &Fetcher,
    server: &ServerMetadata,
    profile: &ClientProfile,
    scope: Option<&str>,
) -> Result<ClientRegistration, OAuthError> {
    let endpoint = server
        .registration_endpoint
        .as_deref()
        .ok_or_else(|| OAuthError::NoClientRegistration(server.issuer.clone()))?;
    let endpoint = secure_url(endpoint)?;
    let mut body = json!({
        "client_name": profile.name,
        "redirect_uris": [profile.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    });
    if let (Some(scope), Some(map)) = (scope, body.as_object_mut()) {
        map.insert("scope".into(), Value::String(scope.to_owned()));
    }
    let (status, answer) = fetcher.post_json(&endpoint, &body).await?;
    if !(200..300).contains(&status) {
        let error = answer.get("error").and_then(Value::as_str).unwrap_or("");
        return Err(OAuthError::Registration(format!("HTTP {status} {error}")));
    }
    let registration: ClientRegistration = serde_json::from_value(answer)
        .map_err(|e| OAuthError::Registration(format!("malformed response: {e}")))?;
    if registration.client_id.is_empty() {
        return Err(OAuthError::Registration("empty client_id".into()));
    }
    Ok(registration)
}

/// The client ID metadata document URL as a `client_id`, if the client has one and the
/// server accepts them.
pub(crate) fn metadata_document(
    server: &ServerMetadata,
    profile: &ClientProfile,
) -> Option<ClientRegistration> {
    let url = profile.metadata_url.as_deref()?;
    server
        .client_id_metadata_document_supported
        .then(|| ClientRegistration::public(url))
}

/// Checks a client ID metadata document URL: `https` with a path (the MCP specification).
pub(crate) fn check_metadata_url(url: &str) -> Result<(), OAuthError> {
    let parsed = secure_url(url)?;
    if parsed.scheme() != "https" || parsed.path().trim_matches('/').is_empty() {
        return Err(OAuthError::InvalidUrl {
            url: url.to_owned(),
            reason: "a client ID metadata document URL must be https with a path".into(),
        });
    }
    Ok(())
}
