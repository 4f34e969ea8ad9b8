//! The validator and the layer against locally generated keys and a local key-set server.

use super::*;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use base64::Engine as _;
use jsonwebtoken::{EncodingKey, Header};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tower::ServiceExt as _;

const ISSUER: &str = "https://issuer.test";
const AUDIENCE: &str = "https://mcp.test/mcp";

/// A P-256 signing key and its public JWK under `kid`.
fn key(kid: &str) -> (EncodingKey, Jwk) {
    let pkcs8 =
        EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
            .expect("key generation");
    let encoding = EncodingKey::from_ec_der(pkcs8.as_ref());
    let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256).expect("jwk");
    jwk.common.key_id = Some(kid.to_owned());
    (encoding, jwk)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn claims() -> Value {
    json!({
        "iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "scope": "files:read files:write",
        "exp": now() + 300, "iat": now(),
    })
}

fn sign(key: &EncodingKey, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, key).expect("sign")
}

/// A key-set endpoint on loopback whose keys the test can change; counts its fetches.
struct JwksServer {
    uri: String,
    keys: Arc<Mutex<Vec<Jwk>>>,
    fetches: Arc<AtomicUsize>,
    /// While set, the endpoint answers 503.
    down: Arc<std::sync::atomic::AtomicBool>,
}

async fn jwks_server(keys: Vec<Jwk>) -> JwksServer {
    let keys = Arc::new(Mutex::new(keys));
    let fetches = Arc::new(AtomicUsize::new(0));
    let down = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (k, f, d) = (keys.clone(), fetches.clone(), down.clone());
    let app = Router::new().route(
        "/jwks",
        axum::routing::get(move || {
            let (k, f, d) = (k.clone(), f.clone(), d.clone());
            async move {
                f.fetch_add(1, Ordering::SeqCst);
                if d.load(Ordering::SeqCst) {
                    return axum::http::StatusCode::SERVICE_UNAVAILABLE.into_response();
                }
                let set = JwkSet {
                    keys: k.lock().expect("keys").clone(),
                };
                axum::Json(set).into_response()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    JwksServer {
        uri: format!("http://{addr}/jwks"),
        keys,
        fetches,
        down,
    }
}

fn invalid(result: Result<Principal, TokenError>) -> String {
    match result {
        Err(TokenError::Invalid(why)) => why,
        other => panic!("expected an invalid token, got {other:?}"),
    }
}

#[tokio::test]
async fn jwts_are_checked_claim_by_claim() {
    let (signing, jwk) = key("k1");
    let v = JwtValidator::with_keys(ISSUER, AUDIENCE, JwkSet { keys: vec![jwk] });
    let good = v
        .validate(&sign(&signing, "k1", &claims()))
        .await
        .expect("valid");
    assert_eq!(good.subject, "alice");
    assert_eq!(good.issuer.as_deref(), Some(ISSUER));
    assert!(good.has_scopes(&["files:read", "files:write"]));

    let with = |patch: Value| {
        let mut c = claims();
        for (k, val) in patch.as_object().expect("object") {
            c[k] = val.clone();
        }
        sign(&signing, "k1", &c)
    };
    assert!(invalid(v.validate(&with(json!({"exp": now() - 120}))).await).contains("expired"));
    assert!(
        v.validate(&with(json!({"exp": now() - 10}))).await.is_ok(),
        "within the leeway"
    );
    assert!(
        invalid(v.validate(&with(json!({"nbf": now() + 300}))).await).contains("not valid yet")
    );
    assert!(
        invalid(
            v.validate(&with(json!({"aud": "https://other.test/mcp"})))
                .await
        )
        .contains("another resource")
    );
    assert!(
        v.validate(&with(json!({"aud": ["x", AUDIENCE]})))
            .await
            .is_ok(),
        "an audience list naming this resource"
    );
    assert!(
        invalid(v.validate(&with(json!({"iss": "https://evil.test"}))).await).contains("issuer")
    );
    let mut no_aud = claims();
    no_aud.as_object_mut().expect("object").remove("aud");
    assert!(
        v.validate(&sign(&signing, "k1", &no_aud)).await.is_err(),
        "aud is required"
    );

    // Signed by another key under the same kid.
    let (other, _) = key("k1");
    assert!(invalid(v.validate(&sign(&other, "k1", &claims())).await).contains("signature"));

    // `alg: none`, and a symmetric algorithm outside the allow-list.
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let none = format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "kid": "k1"})),
        b64(&claims())
    );
    assert!(v.validate(&none).await.is_err());
    let mut hs = Header::new(Algorithm::HS256);
    hs.kid = Some("k1".into());
    let hs =
        jsonwebtoken::encode(&hs, &claims(), &EncodingKey::from_secret(b"secret")).expect("hs");
    assert!(invalid(v.validate(&hs).await).contains("not accepted"));

    assert!(v.validate("not.a.jwt").await.is_err());
    assert!(invalid(v.validate(&sign(&signing, "k9", &claims())).await).contains("unknown key"));
}

#[tokio::test]
async fn the_key_set_is_cached_refetched_for_unknown_kids_and_follows_rotation() {
    let (k1, jwk1) = key("k1");
    let server = jwks_server(vec![jwk1]).await;
    let v = JwtValidator::new(ISSUER, AUDIENCE, &server.uri).refetch_interval(Duration::ZERO);
    for _ in 0..3 {
        v.validate(&sign(&k1, "k1", &claims()))
            .await
            .expect("valid");
    }
    assert_eq!(
        server.fetches.load(Ordering::SeqCst),
        1,
        "cached after the first fetch"
    );

    // Rotation: the issuer publishes k2 (and drops k1); a k2 token makes the validator
    // fetch again and succeed.
    let (k2, jwk2) = key("k2");
    *server.keys.lock().expect("keys") = vec![jwk2];
    v.validate(&sign(&k2, "k2", &claims()))
        .await
        .expect("rotated key");
    assert_eq!(server.fetches.load(Ordering::SeqCst), 2);

    // An unknown kid is fetched for, and still refused.
    assert!(v.validate(&sign(&k2, "k3", &claims())).await.is_err());
    assert_eq!(server.fetches.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn unknown_kids_cannot_make_it_hammer_the_issuer() {
    let (k1, jwk1) = key("k1");
    let server = jwks_server(vec![jwk1]).await;
    let v =
        JwtValidator::new(ISSUER, AUDIENCE, &server.uri).refetch_interval(Duration::from_secs(60));
    v.validate(&sign(&k1, "k1", &claims()))
        .await
        .expect("valid");
    for i in 0..5 {
        assert!(
            v.validate(&sign(&k1, &format!("made-up-{i}"), &claims()))
                .await
                .is_err()
        );
    }
    assert_eq!(
        server.fetches.load(Ordering::SeqCst),
        1,
        "no refetch inside the interval"
    );
}

#[tokio::test]
async fn an_unreachable_key_set_is_unavailable_not_invalid() {
    let (k1, _) = key("k1");
    let v = JwtValidator::new(ISSUER, AUDIENCE, "http://127.0.0.1:9/jwks");
    assert!(matches!(
        v.validate(&sign(&k1, "k1", &claims())).await,
        Err(TokenError::Unavailable(_))
    ));
}

#[tokio::test]
async fn a_key_set_down_at_first_use_is_unavailable_until_it_is_fetched() {
    let (k1, jwk1) = key("k1");
    let server = jwks_server(vec![jwk1]).await;
    server.down.store(true, Ordering::SeqCst);
    // The interval that throttles refetches for unknown kids does not turn an outage into
    // "invalid token": without keys, nothing can be said about the token.
    let v =
        JwtValidator::new(ISSUER, AUDIENCE, &server.uri).refetch_interval(Duration::from_secs(60));
    let token = sign(&k1, "k1", &claims());
    for _ in 0..3 {
        assert!(
            matches!(v.validate(&token).await, Err(TokenError::Unavailable(_))),
            "503 while the key set is down"
        );
    }
    // Back up: the next try after a failure comes within a second at most.
    server.down.store(false, Ordering::SeqCst);
    let recovered =
        JwtValidator::new(ISSUER, AUDIENCE, &server.uri).refetch_interval(Duration::ZERO);
    server.down.store(true, Ordering::SeqCst);
    assert!(matches!(
        recovered.validate(&token).await,
        Err(TokenError::Unavailable(_))
    ));
    server.down.store(false, Ordering::SeqCst);
    recovered
        .validate(&token)
        .await
        .expect("valid once the keys are fetched");
}

#[tokio::test]
async fn a_configured_token_type_refuses_other_jwts() {
    let (signing, jwk) = key("k1");
    let typed = JwtValidator::with_keys(
        ISSUER,
        AUDIENCE,
        JwkSet {
            keys: vec![jwk.clone()],
        },
    )
    .token_type(Some("at+jwt"));
    let untyped = JwtValidator::with_keys(ISSUER, AUDIENCE, JwkSet { keys: vec![jwk] });
    let with_typ = |typ: Option<&str>| {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        header.typ = typ.map(str::to_owned);
        jsonwebtoken::encode(&header, &claims(), &signing).expect("sign")
    };
    for ok in [Some("at+jwt"), Some("AT+JWT"), Some("application/at+jwt")] {
        typed
            .validate(&with_typ(ok))
            .await
            .expect("an access token");
    }
    for refused in [Some("JWT"), None] {
        assert!(invalid(typed.validate(&with_typ(refused)).await).contains("type"));
        untyped
            .validate(&with_typ(refused))
            .await
            .expect("any type without the check");
    }
}

/// A resource server over fixed keys, and a protected service that counts its calls and
/// reports what it saw.
fn protected(required: &[&str]) -> (EncodingKey, ResourceServer, Router, Arc<AtomicUsize>) {
    let (signing, jwk) = key("k1");
    let v = JwtValidator::with_keys(ISSUER, AUDIENCE, JwkSet { keys: vec![jwk] });
    let rs = ResourceServer::new(AUDIENCE, v)
        .authorization_server(ISSUER)
        .scopes_supported(["files:read", "files:write", "admin"])
        .required_scopes(required.iter().copied());
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let app = Router::new()
        .route(
            "/mcp",
            axum::routing::post(move |request: Request| {
                let c = c.clone();
                async move {
                    c.fetch_add(1, Ordering::SeqCst);
                    let who = request
                        .extensions()
                        .get::<Arc<Principal>>()
                        .map(|p| p.subject.clone())
                        .unwrap_or_default();
                    let leaked = request.headers().contains_key(header::AUTHORIZATION);
                    format!("{who} leaked={leaked}")
                }
            }),
        )
        .route_layer(rs.layer())
        .merge(rs.metadata_router());
    (signing, rs, app, calls)
}

async fn send(app: &Router, authorization: Option<&str>) -> Response {
    let mut request = axum::http::Request::post("/mcp");
    if let Some(a) = authorization {
        request = request.header(header::AUTHORIZATION, a);
    }
    app.clone()
        .oneshot(request.body(axum::body::Body::empty()).expect("request"))
        .await
        .expect("infallible")
}

fn challenge(response: &Response) -> String {
    response
        .headers()
        .get(header::WWW_AUTHENTICATE)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn the_layer_answers_401_400_403_and_lets_valid_tokens_through_without_the_header() {
    let (signing, rs, app, calls) = protected(&[]);
    let metadata = "https://mcp.test/.well-known/oauth-protected-resource/mcp";

    let missing = send(&app, None).await;
    assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge(&missing),
        format!("Bearer scope=\"files:read files:write admin\", resource_metadata=\"{metadata}\"")
    );
    let basic = send(&app, Some("Basic YTpi")).await;
    assert_eq!(
        basic.status(),
        StatusCode::UNAUTHORIZED,
        "another scheme is no token"
    );

    for malformed in ["Bearer", "Bearer ", "Bearer a b", "Bearer ä"] {
        let r = send(&app, Some(malformed)).await;
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{malformed:?}");
        assert!(
            challenge(&r).starts_with("Bearer error=\"invalid_request\""),
            "{malformed:?}"
        );
    }

    let expired = {
        let mut c = claims();
        c["exp"] = json!(now() - 600);
        sign(&signing, "k1", &c)
    };
    let r = send(&app, Some(&format!("Bearer {expired}"))).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let h = challenge(&r);
    assert!(h.starts_with("Bearer error=\"invalid_token\""), "{h}");
    assert!(
        h.contains(&format!("resource_metadata=\"{metadata}\"")),
        "{h}"
    );
    assert!(body_text(r).await.contains("invalid_token"));
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "no refused request reached the service"
    );

    let token = sign(&signing, "k1", &claims());
    let ok = send(&app, Some(&format!("bearer {token}"))).await;
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(body_text(ok).await, "alice leaked=false");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let _ = rs;
}

#[tokio::test]
async fn scopes_the_whole_resource_requires_are_a_403_naming_only_them() {
    let (signing, _rs, app, calls) = protected(&["admin"]);
    let token = sign(&signing, "k1", &claims());
    let r = send(&app, Some(&format!("Bearer {token}"))).await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let h = challenge(&r);
    assert!(
        h.starts_with("Bearer error=\"insufficient_scope\", scope=\"admin\""),
        "{h}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn metadata_is_served_at_both_well_known_paths() {
    let (_, rs, app, _) = protected(&[]);
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = app
            .clone()
            .oneshot(
                axum::http::Request::get(path)
                    .body(axum::body::Body::empty())
                    .expect("request"),
            )
            .await
            .expect("infallible");
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        let doc: Value = serde_json::from_str(&body_text(r).await).expect("json");
        assert_eq!(doc, rs.metadata());
        assert_eq!(doc["resource"], AUDIENCE);
        assert_eq!(doc["authorization_servers"], json!([ISSUER]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }
}

#[test]
fn resources_split_into_origin_and_path() {
    assert_eq!(
        split_resource("https://a.test/mcp"),
        ("https://a.test", "/mcp")
    );
    assert_eq!(
        split_resource("https://a.test:8443/"),
        ("https://a.test:8443", "")
    );
    assert_eq!(split_resource("https://a.test"), ("https://a.test", ""));
    assert_eq!(
        split_resource("http://a.test/x/y?q#f"),
        ("http://a.test", "/x/y")
    );
}

#[test]
fn principals_come_from_sub_or_client_id_and_scope_or_scp() {
    let p = principal_from_claims(
        json!({"client_id": "svc", "scp": ["a", "b"], "iss": "i"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    )
    .expect("principal");
    assert_eq!(p.subject, "svc");
    assert_eq!(p.client_id.as_deref(), Some("svc"));
    assert_eq!(p.scopes, ["a", "b"]);
    assert!(principal_from_claims(Map::new()).is_err());
}

#[test]
fn a_client_acting_for_itself_is_not_the_user_of_the_same_name() {
    let claims = |v: Value| v.as_object().cloned().unwrap_or_default();
    let user = principal_from_claims(claims(json!({"sub": "alice", "iss": "i"}))).expect("user");
    let client =
        principal_from_claims(claims(json!({"client_id": "alice", "iss": "i"}))).expect("client");
    let azp = principal_from_claims(claims(json!({"azp": "alice", "iss": "i"}))).expect("azp");
    assert_eq!(user.kind, PrincipalKind::User);
    assert_eq!(
        (client.kind, azp.kind),
        (PrincipalKind::Client, PrincipalKind::Client)
    );
    assert_eq!(client.subject, user.subject);
    assert_ne!(client.binding_key(), user.binding_key());
    assert_eq!(client.binding_key(), azp.binding_key());
    // A user's token that also names its client is still the user.
    let on_behalf = principal_from_claims(claims(
        json!({"sub": "alice", "client_id": "app", "iss": "i"}),
    ))
    .expect("user via client");
    assert_eq!(on_behalf.binding_key(), user.binding_key());
}
