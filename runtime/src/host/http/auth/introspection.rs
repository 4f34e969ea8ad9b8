//! Opaque access tokens checked with the authorization server's introspection endpoint
//! (RFC 7662).

use super::{TokenError, TokenValidator, http_client, principal_from_claims};
use crate::caller::Principal;
use futures::future::BoxFuture;
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Validates tokens by asking the authorization server (RFC 7662 token introspection).
///
/// The server authenticates to the introspection endpoint as an OAuth client
/// (`client_secret_basic`). A token is accepted when the answer says `active: true`, its
/// `aud` names this resource (required: RFC 8707), its `iss` is the issuer (when one is
/// set), and `exp` / `nbf` (when present) hold within the leeway. The token goes to the
/// introspection endpoint and nowhere else.
///
/// ```
/// use tracksuit::host::http::auth::IntrospectionValidator;
/// let v = IntrospectionValidator::new(
///     "https://auth.example.com/token/introspection",
///     "https://mcp.example.com/mcp",
///     "mcp-server",
///     "its-secret",
/// )
/// .issuer("https://auth.example.com");
/// # let _ = v;
/// ```
#[derive(Clone)]
pub struct IntrospectionValidator {
    endpoint: String,
    audience: String,
    client_id: String,
    client_secret: String,
    issuer: Option<String>,
    leeway: Duration,
    client: reqwest::Client,
}

impl std::fmt::Debug for IntrospectionValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionValidator")
            .field("endpoint", &self.endpoint)
            .field("audience", &self.audience)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl IntrospectionValidator {
    /// Introspects at `endpoint` as client `client_id` / `client_secret`; tokens must be for
    /// `audience` (this resource's canonical URI).
    pub fn new(
        endpoint: impl Into<String>,
        audience: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        IntrospectionValidator {
            endpoint: endpoint.into(),
            audience: audience.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            issuer: None,
            leeway: Duration::from_secs(30),
            client: http_client(Duration::from_secs(10)),
        }
    }

    /// Requires the answer's `iss` to be `issuer`.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The clock skew tolerated on `exp` and `nbf` (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    async fn check(&self, token: &str) -> Result<Principal, TokenError> {
        let unavailable = |e: String| TokenError::Unavailable(format!("introspection: {e}"));
        let response = self
            .client
            .post(&self.endpoint)
            .basic_auth(&self.client_id, Some(&self.client_secret))
            .form(&[("token", token), ("token_type_hint", "access_token")])
            .send()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        if !response.status().is_success() {
            return Err(unavailable(format!("HTTP {}", response.status())));
        }
        let answer: Map<String, Value> = response
            .json()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        check_answer(
            &answer,
            &self.audience,
            self.issuer.as_deref(),
            self.leeway,
            now(),
        )?;
        principal_from_claims(answer)
    }
}

impl TokenValidator for IntrospectionValidator {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(self.check(token))
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Checks an introspection answer: active, for `audience`, from `issuer`, in time.
fn check_answer(
    answer: &Map<String, Value>,
    audience: &str,
    issuer: Option<&str>,
    leeway: Duration,
    now: u64,
) -> Result<(), TokenError> {
    let invalid = |why: &str| Err(TokenError::Invalid(why.into()));
    if answer.get("active").and_then(Value::as_bool) != Some(true) {
        return invalid("the token is not active");
    }
    let for_us = match answer.get("aud") {
        Some(Value::String(a)) => a == audience,
        Some(Value::Array(list)) => list.iter().any(|a| a.as_str() == Some(audience)),
        _ => false,
    };
    if !for_us {
        return invalid("the token was issued for another resource (aud)");
    }
    if let Some(issuer) = issuer
        && answer.get("iss").and_then(Value::as_str) != Some(issuer)
    {
        return invalid("the token was issued by another issuer (iss)");
    }
    let leeway = leeway.as_secs();
    if let Some(exp) = answer.get("exp").and_then(Value::as_u64)
        && exp.saturating_add(leeway) < now
    {
        return invalid("the token has expired");
    }
    if let Some(nbf) = answer.get("nbf").and_then(Value::as_u64)
        && nbf > now.saturating_add(leeway)
    {
        return invalid("the token is not valid yet (nbf)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn answers_are_checked() {
        let aud = "https://mcp.example/mcp";
        let leeway = Duration::from_secs(30);
        let ok = answer(json!({"active": true, "aud": aud, "iss": "i", "exp": 1000, "sub": "s"}));
        assert!(check_answer(&ok, aud, Some("i"), leeway, 900).is_ok());
        assert!(
            check_answer(&ok, aud, Some("i"), leeway, 1020).is_ok(),
            "within leeway"
        );
        assert!(
            check_answer(&ok, aud, Some("i"), leeway, 1031).is_err(),
            "expired"
        );
        assert!(check_answer(&ok, aud, Some("other"), leeway, 900).is_err());
        assert!(check_answer(&ok, "https://else/mcp", None, leeway, 900).is_err());
        let inactive = answer(json!({"active": false, "aud": aud}));
        assert!(check_answer(&inactive, aud, None, leeway, 900).is_err());
        let no_aud = answer(json!({"active": true}));
        assert!(check_answer(&no_aud, aud, None, leeway, 900).is_err());
        let listed = answer(json!({"active": true, "aud": ["x", aud], "nbf": 2000}));
        assert!(
            check_answer(&listed, aud, None, leeway, 1000).is_err(),
            "nbf"
        );
        assert!(check_answer(&listed, aud, None, leeway, 1990).is_ok());
    }
}
