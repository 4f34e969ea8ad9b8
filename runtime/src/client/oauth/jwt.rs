//! `private_key_jwt` client authentication (RFC 7523 §2.2): the client proves itself with
//! an assertion signed by its private key (jsonwebtoken signs; nothing hand-rolled).

use super::OAuthError;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

/// How long an assertion is valid.
const LIFETIME_SECS: u64 = 300;

/// A client ID and the private key its assertions are signed with, for the client
/// credentials grant with `private_key_jwt`.
///
/// The key is PEM: PKCS#8 (`PRIVATE KEY`) for `ES256`, `ES384` and `EdDSA`, PKCS#1
/// (`RSA PRIVATE KEY`) for the `RS*` and `PS*` algorithms. A key that cannot sign is
/// refused here, not at the first request.
///
/// ```
/// use tracksuit::client::oauth::{OAuthError, PrivateKeyJwt};
/// let err = PrivateKeyJwt::from_pem("svc", "not a key", "ES256").unwrap_err();
/// assert!(matches!(err, OAuthError::Config(_)));
/// assert!(PrivateKeyJwt::from_pem("svc", "", "HS256").is_err()); // asymmetric only
/// ```
#[derive(Clone)]
pub struct PrivateKeyJwt {
    pub(crate) client_id: String,
    key: EncodingKey,
    algorithm: Algorithm,
}

impl std::fmt::Debug for PrivateKeyJwt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateKeyJwt")
            .field("client_id", &self.client_id)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl PrivateKeyJwt {
    /// Credentials for `client_id` signing with `pem` under `algorithm` (`ES256`, ...).
    pub fn from_pem(
        client_id: impl Into<String>,
        pem: &str,
        algorithm: &str,
    ) -> Result<Self, OAuthError> {
        let bad = |why: String| OAuthError::Config(format!("private key: {why}"));
        let algorithm = Algorithm::from_str(algorithm).map_err(|e| bad(e.to_string()))?;
        let (label, der) = pem_der(pem).ok_or_else(|| bad("not a PEM block".into()))?;
        let key = match (algorithm, label.as_str()) {
            (Algorithm::ES256 | Algorithm::ES384, "PRIVATE KEY") => EncodingKey::from_ec_der(&der),
            (Algorithm::EdDSA, "PRIVATE KEY") => EncodingKey::from_ed_der(&der),
            (
                Algorithm::RS256
                | Algorithm::RS384
                | Algorithm::RS512
                | Algorithm::PS256
                | Algorithm::PS384
                | Algorithm::PS512,
                "RSA PRIVATE KEY",
            ) => EncodingKey::from_rsa_der(&der),
            (algorithm, label) => return Err(bad(format!("a {label} cannot sign {algorithm:?}"))),
        };
        let jwt = PrivateKeyJwt {
            client_id: client_id.into(),
            key,
            algorithm,
        };
        jwt.assertion("urn:probe").map_err(|e| bad(e.to_string()))?;
        Ok(jwt)
    }

    /// A signed assertion for the authorization server `audience` (its issuer).
    pub(crate) fn assertion(&self, audience: &str) -> Result<String, OAuthError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let claims = json!({
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": audience,
            "iat": now,
            "exp": now + LIFETIME_SECS,
            "jti": uuid::Uuid::new_v4().to_string(),
        });
        jsonwebtoken::encode(&Header::new(self.algorithm), &claims, &self.key)
            .map_err(|e| OAuthError::Config(format!("signing the client assertion: {e}")))
    }
}

/// The label and DER bytes of the first PEM block in `pem`.
pub(crate) fn pem_der(pem: &str) -> Option<(String, Vec<u8>)> {
    let mut lines = pem.lines().map(str::trim);
    let label = lines
        .find_map(|l| l.strip_prefix("-----BEGIN ")?.strip_suffix("-----"))?
        .to_owned();
    let end = format!("-----END {label}-----");
    let body: String = lines.take_while(|l| *l != end).collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(body)
        .ok()?;
    Some((label, der))
}
