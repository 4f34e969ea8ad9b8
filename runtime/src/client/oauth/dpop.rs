//! DPoP (RFC 9449): tokens bound to a key the client holds. Every token request and every
//! request to the MCP server carries a fresh proof (a JWT signed with the key, naming the
//! method and URL); the server's nonces (`use_dpop_nonce`) are kept per origin and sent
//! back. Signing and key generation are jsonwebtoken's and aws-lc-rs's; nothing is
//! hand-rolled.

use super::OAuthError;
use super::jwt::pem_der;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::{CommonParameters, Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use oauth2::url::Url;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The `DPoP-Nonce` response header.
pub(crate) const NONCE_HEADER: &str = "dpop-nonce";
/// The error a server answers when it wants a (new) nonce in the proof.
pub(crate) const USE_NONCE: &str = "use_dpop_nonce";

/// An ES256 (P-256) key pair that access tokens are bound to (RFC 9449).
///
/// [`generate`](Self::generate) makes a new one (tokens bound to it are useless once the
/// process ends, and are obtained again); [`from_pem`](Self::from_pem) loads a kept one,
/// so that stored tokens stay usable across restarts.
///
/// ```
/// use tracksuit::client::oauth::{DpopKey, OAuthError};
/// let key = DpopKey::generate().unwrap();
/// assert_eq!(key.thumbprint().len(), 43); // base64url SHA-256 (RFC 7638)
/// assert!(matches!(DpopKey::from_pem("not a key"), Err(OAuthError::Config(_))));
/// ```
#[derive(Clone)]
pub struct DpopKey {
    key: EncodingKey,
    jwk: Jwk,
    thumbprint: String,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.thumbprint)
            .finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A new random P-256 key.
    pub fn generate() -> Result<Self, OAuthError> {
        use aws_lc_rs::rand::SystemRandom;
        use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .map_err(|_| bad("key generation failed".into()))?;
        Self::from_pkcs8(pkcs8.as_ref())
    }

    /// A P-256 private key in PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    pub fn from_pem(pem: &str) -> Result<Self, OAuthError> {
        match pem_der(pem) {
            Some((label, der)) if label == "PRIVATE KEY" => Self::from_pkcs8(&der),
            Some((label, _)) => Err(bad(format!("a {label} is not a PKCS#8 P-256 key"))),
            None => Err(bad("not a PEM block".into())),
        }
    }

    fn from_pkcs8(der: &[u8]) -> Result<Self, OAuthError> {
        let key = EncodingKey::from_ec_der(der);
        let mut jwk =
            Jwk::from_encoding_key(&key, Algorithm::ES256).map_err(|e| bad(e.to_string()))?;
        // Only the public key itself in the proof header.
        jwk.common = CommonParameters::default();
        let thumbprint = jwk.thumbprint(ThumbprintHash::SHA256);
        let key = DpopKey {
            key,
            jwk,
            thumbprint,
        };
        let probe = Url::parse("https://probe.invalid/").map_err(|e| bad(e.to_string()))?;
        key.proof("POST", &probe, &ProofExtras::default())?;
        Ok(key)
    }

    /// The key's JWK SHA-256 thumbprint (RFC 7638): the `jkt` a bound token names.
    pub fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// The public key as a JWK (to register with an authorization server).
    pub fn public_jwk(&self) -> Value {
        serde_json::to_value(&self.jwk).unwrap_or(Value::Null)
    }

    /// A fresh proof for `method` on `url` (its query and fragment left out).
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &Url,
        extras: &ProofExtras<'_>,
    ) -> Result<String, OAuthError> {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".into());
        header.jwk = Some(self.jwk.clone());
        let mut htu = url.clone();
        htu.set_query(None);
        htu.set_fragment(None);
        let iat = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let mut claims = json!({
            "jti": uuid::Uuid::new_v4().to_string(),
            "htm": method,
            "htu": htu.as_str(),
            "iat": iat,
        });
        if let Some(map) = claims.as_object_mut() {
            if let Some(token) = extras.access_token {
                let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
                map.insert("ath".into(), ath.into());
            }
            if let Some(nonce) = extras.nonce {
                map.insert("nonce".into(), nonce.into());
            }
            if let Some(body) = extras.body {
                // The MCP DPoP profile: the proof also covers the request body (RFC 9530 form).
                let digest = format!("sha-256=:{}:", STANDARD.encode(Sha256::digest(body)));
                map.insert("content_digest".into(), digest.into());
            }
        }
        jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|e| bad(format!("signing a proof: {e}")))
    }
}

/// What a proof covers besides the method and URL.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ProofExtras<'a> {
    /// The access token presented with it (`ath`).
    pub access_token: Option<&'a str>,
    /// The server's nonce.
    pub nonce: Option<&'a str>,
    /// The request body (`content_digest`).
    pub body: Option<&'a [u8]>,
}

fn bad(why: String) -> OAuthError {
    OAuthError::Config(format!("DPoP key: {why}"))
}

/// A client's DPoP key and the nonces servers gave it, per origin (clones share them).
#[derive(Debug, Clone)]
pub(crate) struct Dpop {
    pub key: DpopKey,
    nonces: Arc<Mutex<HashMap<String, String>>>,
}

impl Dpop {
    pub(crate) fn new(key: DpopKey) -> Self {
        Dpop {
            key,
            nonces: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    fn nonces(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.nonces.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The last nonce `url`'s origin sent, if any.
    pub(crate) fn nonce(&self, url: &Url) -> Option<String> {
        self.nonces().get(&origin(url)).cloned()
    }

    /// Keeps the `DPoP-Nonce` in `headers` (from a response of `url`'s origin), and says
    /// whether it is a new one.
    pub(crate) fn remember(&self, url: &Url, headers: &http::HeaderMap) -> bool {
        let Some(nonce) = headers
            .get(NONCE_HEADER)
            .and_then(|v| v.to_str().ok())
            .filter(|n| !n.is_empty() && n.len() <= 1024)
        else {
            return false;
        };
        let previous = self.nonces().insert(origin(url), nonce.to_owned());
        previous.as_deref() != Some(nonce)
    }

    /// A proof for `method` on `url` with the origin's current nonce.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &Url,
        access_token: Option<&str>,
        body: Option<&[u8]>,
    ) -> Result<String, OAuthError> {
        let nonce = self.nonce(url);
        let extras = ProofExtras {
            access_token,
            nonce: nonce.as_deref(),
            body,
        };
        self.key.proof(method, url, &extras)
    }
}

fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}
