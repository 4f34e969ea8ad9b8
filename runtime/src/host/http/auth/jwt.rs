//! JWT access tokens checked against the issuer's key set (JWKS): signature, issuer,
//! audience, expiry and not-before with a small leeway, and an algorithm allow-list.

use super::{TokenError, TokenValidator, http_client, principal_from_claims};
use crate::caller::Principal;
use futures::future::BoxFuture;
use jsonwebtoken::jwk::{Jwk, JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation, errors::ErrorKind};
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// The asymmetric algorithms accepted by default. `HS*` (a secret shared with the issuer)
/// is not among them, and `none` never is: it is not an algorithm jsonwebtoken knows.
const DEFAULT_ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Validates JWT access tokens (RFC 9068) against an issuer's JSON Web Key Set.
///
/// The key set is fetched on first use and cached; a token signed with a key id the cache
/// does not know makes it fetch the set again (at most once per
/// [`refetch_interval`](Self::refetch_interval), so a flood of made-up key ids cannot make
/// it hammer the issuer), which is how key rotation is followed. The cache is also renewed
/// once it is older than [`max_key_age`](Self::max_key_age). A token is accepted when:
/// its `alg` is in the allow-list (asymmetric algorithms by default; never `none`), its
/// signature verifies with the key its `kid` names, `iss` is the issuer, `aud` names this
/// resource (RFC 8707: a token for another resource is refused), and `exp` / `nbf` hold
/// within the leeway (30 s by default).
///
/// ```
/// use std::time::Duration;
/// use tracksuit::host::http::auth::{Algorithm, JwtValidator};
/// let v = JwtValidator::new(
///     "https://auth.example.com",
///     "https://mcp.example.com/mcp",
///     "https://auth.example.com/jwks",
/// )
/// .algorithms([Algorithm::ES256])
/// .leeway(Duration::from_secs(10));
/// # let _ = v;
/// ```
#[derive(Clone)]
pub struct JwtValidator {
    inner: Arc<Inner>,
}

struct Inner {
    issuer: String,
    audience: String,
    /// Where the key set comes from; `None`: only the keys given.
    jwks_uri: Option<String>,
    client: reqwest::Client,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    refetch_interval: Duration,
    max_key_age: Duration,
    /// The `typ` header a token must have (RFC 9068: `at+jwt`), if any.
    token_type: Option<String>,
    keys: RwLock<Cached>,
    /// One fetch at a time.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Cached {
    keys: Vec<Jwk>,
    /// When the set was last fetched (or tried).
    fetched: Option<Instant>,
    /// Why the last fetch failed, until one succeeds.
    failed: Option<String>,
}

/// How soon a key set whose last fetch failed is tried again (at most; the refetch
/// interval if shorter): a token the cached keys cannot check is `503` meanwhile.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);

impl std::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtValidator")
            .field("issuer", &self.inner.issuer)
            .field("audience", &self.inner.audience)
            .field("jwks_uri", &self.inner.jwks_uri)
            .field("algorithms", &self.inner.algorithms)
            .finish_non_exhaustive()
    }
}

impl JwtValidator {
    /// Tokens from `issuer` for `audience` (this resource's canonical URI), verified with
    /// the key set at `jwks_uri`.
    pub fn new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        jwks_uri: impl Into<String>,
    ) -> Self {
        Self::build(
            issuer.into(),
            audience.into(),
            Some(jwks_uri.into()),
            Vec::new(),
        )
    }

    /// Tokens from `issuer` for `audience`, verified with a fixed key set (no fetching).
    pub fn with_keys(issuer: impl Into<String>, audience: impl Into<String>, keys: JwkSet) -> Self {
        Self::build(issuer.into(), audience.into(), None, keys.keys)
    }

    /// Finds the issuer's `jwks_uri` in its metadata: OAuth authorization server metadata
    /// (RFC 8414) first, then OpenID Connect discovery, each at the issuer's well-known
    /// location.
    pub async fn discover(
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, TokenError> {
        let issuer = issuer.into();
        let client = http_client(Duration::from_secs(10));
        for url in discovery_urls(&issuer) {
            let Ok(response) = client.get(&url).send().await else {
                continue;
            };
            if !response.status().is_success() {
                continue;
            }
            let Ok(doc) = response.json::<Value>().await else {
                continue;
            };
            if doc.get("issuer").and_then(Value::as_str) != Some(issuer.as_str()) {
                return Err(TokenError::Unavailable(format!(
                    "the metadata at {url} names another issuer"
                )));
            }
            if let Some(jwks) = doc.get("jwks_uri").and_then(Value::as_str) {
                // A discovered authorization server issues RFC 9068 access tokens: an ID
                // token (`typ` JWT) with the right `aud` is not one.
                return Ok(Self::new(issuer, audience, jwks).token_type(Some("at+jwt")));
            }
        }
        Err(TokenError::Unavailable(format!(
            "no authorization server metadata with a jwks_uri found for {issuer}"
        )))
    }

    fn build(issuer: String, audience: String, jwks_uri: Option<String>, keys: Vec<Jwk>) -> Self {
        JwtValidator {
            inner: Arc::new(Inner {
                issuer,
                audience,
                jwks_uri,
                client: http_client(Duration::from_secs(10)),
                algorithms: DEFAULT_ALGORITHMS.to_vec(),
                leeway: Duration::from_secs(30),
                refetch_interval: Duration::from_secs(10),
                max_key_age: Duration::from_secs(3600),
                token_type: None,
                keys: RwLock::new(Cached {
                    keys,
                    ..Cached::default()
                }),
                fetching: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// Changes a setting; a validator already cloned gets a copy of its own (with the keys
    /// fetched so far), so the clones keep theirs.
    fn edit(self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            issuer: shared.issuer.clone(),
            audience: shared.audience.clone(),
            jwks_uri: shared.jwks_uri.clone(),
            client: shared.client.clone(),
            algorithms: shared.algorithms.clone(),
            leeway: shared.leeway,
            refetch_interval: shared.refetch_interval,
            max_key_age: shared.max_key_age,
            token_type: shared.token_type.clone(),
            keys: RwLock::new(Cached {
                keys: crate::peer::sync::read(&shared.keys).keys.clone(),
                ..Cached::default()
            }),
            fetching: tokio::sync::Mutex::new(()),
        });
        f(&mut inner);
        JwtValidator {
            inner: Arc::new(inner),
        }
    }

    /// The accepted signature algorithms (replaces the default list).
    pub fn algorithms(self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        let algorithms = algorithms.into_iter().collect();
        self.edit(|i| i.algorithms = algorithms)
    }

    /// The clock skew tolerated on `exp` and `nbf` (default 30 s).
    pub fn leeway(self, leeway: Duration) -> Self {
        self.edit(|i| i.leeway = leeway)
    }

    /// The least time between two fetches of the key set caused by unknown key ids
    /// (default 10 s).
    pub fn refetch_interval(self, interval: Duration) -> Self {
        self.edit(|i| i.refetch_interval = interval)
    }

    /// The `typ` header every token must carry (compared without case, `application/`
    /// optional), or `None` to accept any. Default: `at+jwt` (RFC 9068 §2.1) for a
    /// validator from [`discover`](Self::discover), so an OpenID Connect ID token with the
    /// right audience is not taken for an access token; `None` for [`new`](Self::new) and
    /// [`with_keys`](Self::with_keys), whose issuer may not type its tokens.
    ///
    /// ```
    /// use tracksuit::host::http::auth::JwtValidator;
    /// let v = JwtValidator::new("https://auth.example.com", "https://mcp.example.com/mcp",
    ///     "https://auth.example.com/jwks").token_type(Some("at+jwt"));
    /// # let _ = v;
    /// ```
    pub fn token_type(self, typ: Option<&str>) -> Self {
        let typ = typ.map(str::to_owned);
        self.edit(|i| i.token_type = typ)
    }

    /// How long a fetched key set is used before it is fetched again (default 1 h).
    pub fn max_key_age(self, age: Duration) -> Self {
        self.edit(|i| i.max_key_age = age)
    }

    /// The key for a token's `kid` and `alg`, fetching the set when the cache does not have
    /// it (or is old).
    async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<Jwk, TokenError> {
        let inner = &self.inner;
        let stale = {
            let cached = crate::peer::sync::read(&inner.keys);
            if let Some(key) = find(&cached.keys, kid, alg)
                && cached
                    .fetched
                    .is_none_or(|at| at.elapsed() < inner.max_key_age)
            {
                return Ok(key.clone());
            }
            let wait = match cached.failed {
                Some(_) => inner.refetch_interval.min(RETRY_AFTER_FAILURE),
                None => inner.refetch_interval,
            };
            cached.fetched.is_none_or(|at| at.elapsed() >= wait)
        };
        if stale && inner.jwks_uri.is_some() {
            self.refresh().await?;
        }
        let cached = crate::peer::sync::read(&inner.keys);
        find(&cached.keys, kid, alg)
            .cloned()
            .ok_or_else(|| match &cached.failed {
                // The key may well exist: the issuer's key set could not be read.
                Some(why) => TokenError::Unavailable(why.clone()),
                None => TokenError::Invalid(match kid {
                    Some(_) => "the token is signed with an unknown key".into(),
                    None => "the token names no key and no key fits it".into(),
                }),
            })
    }

    /// Fetches the key set again (one fetch at a time; a fetch that finished meanwhile
    /// counts). On failure the old keys stay.
    async fn refresh(&self) -> Result<(), TokenError> {
        let inner = &self.inner;
        let Some(uri) = &inner.jwks_uri else {
            return Ok(());
        };
        let started = Instant::now();
        let _one = inner.fetching.lock().await;
        if crate::peer::sync::read(&inner.keys)
            .fetched
            .is_some_and(|at| at >= started)
        {
            return Ok(());
        }
        let fetched = fetch_keys(&inner.client, uri).await;
        let mut cached = crate::peer::sync::write(&inner.keys);
        cached.fetched = Some(Instant::now());
        match fetched {
            Ok(keys) => {
                cached.keys = keys;
                cached.failed = None;
                Ok(())
            }
            Err(e) => {
                cached.failed = Some(match &e {
                    TokenError::Unavailable(why) | TokenError::Invalid(why) => why.clone(),
                });
                if cached.keys.is_empty() {
                    return Err(e);
                }
                tracing::warn!(error = %e, "could not refresh the key set; keeping the old keys");
                Ok(())
            }
        }
    }

    async fn check(&self, token: &str) -> Result<Principal, TokenError> {
        let inner = &self.inner;
        let header = jsonwebtoken::decode_header(token).map_err(|_| {
            TokenError::Invalid("malformed token header (or an unsupported algorithm)".into())
        })?;
        if !inner.algorithms.contains(&header.alg) {
            return Err(TokenError::Invalid(format!(
                "algorithm {:?} is not accepted",
                header.alg
            )));
        }
        if let Some(want) = &inner.token_type {
            let typ = header.typ.as_deref().unwrap_or_default();
            let typ = typ.strip_prefix("application/").unwrap_or(typ);
            if !typ.eq_ignore_ascii_case(want) {
                return Err(TokenError::Invalid(format!(
                    "the token's type is {:?}, not {want:?}",
                    header.typ.as_deref().unwrap_or("(none)")
                )));
            }
        }
        let jwk = self.key(header.kid.as_deref(), header.alg).await?;
        let key = DecodingKey::from_jwk(&jwk)
            .map_err(|_| TokenError::Invalid("the signing key is not usable".into()))?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = inner.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&inner.issuer]);
        validation.set_audience(&[&inner.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|e| TokenError::Invalid(describe(e.kind()).into()))?;
        principal_from_claims(data.claims)
    }
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(self.check(token))
    }
}

/// A key for `kid` (when the token names one) usable with `alg`.
fn find<'k>(keys: &'k [Jwk], kid: Option<&str>, alg: Algorithm) -> Option<&'k Jwk> {
    keys.iter().find(|k| {
        let id_fits = kid.is_none_or(|kid| k.common.key_id.as_deref() == Some(kid));
        let use_fits = !matches!(
            k.common.public_key_use,
            Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
        );
        let alg_fits = k
            .common
            .key_algorithm
            .is_none_or(|ka| key_algorithm(ka) == Some(alg));
        let family_fits = DecodingKey::from_jwk(k).is_ok_and(|d| d.family() == alg.family());
        id_fits && use_fits && alg_fits && family_fits
    })
}

/// A JWK `alg` as a signature algorithm.
fn key_algorithm(alg: KeyAlgorithm) -> Option<Algorithm> {
    Some(match alg {
        KeyAlgorithm::HS256 => Algorithm::HS256,
        KeyAlgorithm::HS384 => Algorithm::HS384,
        KeyAlgorithm::HS512 => Algorithm::HS512,
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        _ => return None,
    })
}

/// Why jsonwebtoken refused a token, for `error_description`.
fn describe(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)",
        ErrorKind::InvalidAudience => "the token was issued for another resource (aud)",
        ErrorKind::InvalidIssuer => "the token was issued by another issuer (iss)",
        ErrorKind::InvalidSignature => "the token's signature does not verify",
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit its key",
        ErrorKind::MissingRequiredClaim(_) => "the token lacks a required claim (exp, iss, aud)",
        ErrorKind::InvalidClaimFormat(_) => "a claim of the token is malformed",
        _ => "the token is malformed",
    }
}

/// RFC 8414 then OpenID Connect discovery URLs for `issuer` (the well-known segment goes
/// between the host and the issuer's path).
fn discovery_urls(issuer: &str) -> Vec<String> {
    let (origin, path) = super::split_resource(issuer);
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ),
    ]
}

/// Fetches a key set; keys jsonwebtoken cannot read (other key types, encryption keys with
/// unknown parameters) are skipped, not fatal.
async fn fetch_keys(client: &reqwest::Client, uri: &str) -> Result<Vec<Jwk>, TokenError> {
    let unavailable = |e: String| TokenError::Unavailable(format!("key set {uri}: {e}"));
    let response = client
        .get(uri)
        .send()
        .await
        .map_err(|e| unavailable(e.to_string()))?;
    if !response.status().is_success() {
        return Err(unavailable(format!("HTTP {}", response.status())));
    }
    let doc: Value = response
        .json()
        .await
        .map_err(|e| unavailable(e.to_string()))?;
    let keys = doc
        .get("keys")
        .and_then(Value::as_array)
        .ok_or_else(|| unavailable("no `keys` array".into()))?;
    Ok(keys
        .iter()
        .filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok())
        .collect())
}
