//! Bad input from servers, each a typed error and never a token in the wrong place: an
//! in-process authorization server and MCP endpoint on loopback (axum), one per test.

use super::flow::check_callback;
use super::*;
use crate::client::Client;
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use oauth2::url::form_urlencoded;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;

/// What the mock answers on a path instead of its default: status, headers, body.
pub(super) type Canned = (u16, Vec<(&'static str, String)>, String);

#[derive(Default)]
struct State {
    base: String,
    canned: Mutex<HashMap<String, Canned>>,
    /// Every request: path, `Authorization` header, query or form body.
    seen: Mutex<Vec<(String, Option<String>, String)>>,
    /// Every request: path, `DPoP` header.
    proofs: Mutex<Vec<(String, Option<String>)>>,
}

pub(super) struct Mock {
    pub(super) base: String,
    state: Arc<State>,
}

impl Mock {
    pub(super) async fn start() -> Mock {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let state = Arc::new(State {
            base: base.clone(),
            ..State::default()
        });
        let shared = state.clone();
        let app = axum::Router::new().fallback(move |r: Request| handle(shared.clone(), r));
        tokio::spawn(async move { axum::serve(listener, app).await });
        Mock { base, state }
    }

    pub(super) fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// Answers `path` with `status` and `body` from now on.
    pub(super) fn can(&self, path: &str, status: u16, body: impl Into<String>) {
        self.can_with(path, (status, Vec::new(), body.into()));
    }

    /// Answers `path` with `canned` from now on.
    pub(super) fn can_with(&self, path: &str, canned: Canned) {
        self.state
            .canned
            .lock()
            .unwrap()
            .insert(path.into(), canned);
    }

    fn can_redirect(&self, path: &str, location: &str) {
        let canned = (302, vec![("location", location.to_owned())], String::new());
        self.state
            .canned
            .lock()
            .unwrap()
            .insert(path.into(), canned);
    }

    /// The default authorization server metadata, changed by `edit`.
    pub(super) fn metadata(&self, edit: impl FnOnce(&mut serde_json::Map<String, Value>)) {
        let mut metadata = default_metadata(&self.base);
        if let Some(map) = metadata.as_object_mut() {
            edit(map);
        }
        self.can(
            "/.well-known/oauth-authorization-server",
            200,
            metadata.to_string(),
        );
    }

    pub(super) fn seen(&self, path: &str) -> Vec<(Option<String>, String)> {
        let seen = self.state.seen.lock().unwrap();
        let hits = seen.iter().filter(|(p, _, _)| p == path);
        hits.map(|(_, auth, data)| (auth.clone(), data.clone()))
            .collect()
    }

    /// The `DPoP` headers of the requests to `path`.
    pub(super) fn proofs(&self, path: &str) -> Vec<Option<String>> {
        let proofs = self.state.proofs.lock().unwrap();
        let hits = proofs.iter().filter(|(p, _)| p == path);
        hits.map(|(_, proof)| proof.clone()).collect()
    }
}

fn default_metadata(base: &str) -> Value {
    json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
    })
}

async fn handle(state: Arc<State>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let auth = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok());
    let auth = auth.map(str::to_owned);
    let proof = request.headers().get("dpop").and_then(|v| v.to_str().ok());
    let proof = proof.map(str::to_owned);
    state.proofs.lock().unwrap().push((path.clone(), proof));
    let body = axum::body::to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    let body = String::from_utf8_lossy(&body).into_owned();
    let data = if query.is_empty() {
        body.clone()
    } else {
        query.clone()
    };
    state
        .seen
        .lock()
        .unwrap()
        .push((path.clone(), auth.clone(), data));
    let canned = state.canned.lock().unwrap().get(&path).cloned();
    let (status, headers, body) = match canned {
        Some(canned) => canned,
        None => default_answer(&state.base, &path, &query, auth.as_deref(), &body),
    };
    let mut response = Response::builder().status(status);
    for (name, value) in headers {
        response = response.header(name, value);
    }
    response.body(Body::from(body)).unwrap()
}

fn default_answer(base: &str, path: &str, query: &str, auth: Option<&str>, body: &str) -> Canned {
    let ok = |v: Value| {
        (
            200,
            vec![("content-type", "application/json".into())],
            v.to_string(),
        )
    };
    match path {
        "/.well-known/oauth-protected-resource/mcp" => {
            ok(json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}))
        }
        "/.well-known/oauth-authorization-server" => ok(default_metadata(base)),
        "/register" => (
            201,
            Vec::new(),
            json!({"client_id": "client-1"}).to_string(),
        ),
        "/authorize" => {
            let params: HashMap<_, _> = form_urlencoded::parse(query.as_bytes()).collect();
            let mut to = Url::parse(&params["redirect_uri"]).unwrap();
            to.query_pairs_mut()
                .append_pair("code", "code-1")
                .append_pair("state", &params["state"])
                .append_pair("iss", base);
            (302, vec![("location", to.to_string())], String::new())
        }
        "/token" => ok(json!({"access_token": "token-1", "token_type": "Bearer",
            "expires_in": 3600, "refresh_token": "refresh-1"})),
        "/mcp" if matches!(auth, Some("Bearer token-1" | "DPoP token-1")) => mcp_answer(body),
        "/mcp" => {
            let challenge = format!(
                "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\""
            );
            (401, vec![("www-authenticate", challenge)], String::new())
        }
        _ => (404, Vec::new(), String::new()),
    }
}

/// A minimal MCP endpoint: `initialize` and `tools/list` answered, the rest accepted.
fn mcp_answer(body: &str) -> Canned {
    let message: Value = serde_json::from_str(body).unwrap_or_default();
    let Some(id) = message
        .get("id")
        .filter(|_| message.get("method").is_some())
    else {
        return (202, Vec::new(), String::new());
    };
    let result = match message["method"].as_str() {
        Some("initialize") => {
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "mock", "version": "0"}})
        }
        _ => json!({"tools": []}),
    };
    let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
    (
        200,
        vec![("content-type", "application/json".into())],
        reply.to_string(),
    )
}

/// The user agent of an authorization server that approves at once.
pub(super) fn approving_agent() -> CallbackUserAgent {
    CallbackUserAgent::new("http://127.0.0.1:1/callback", |url: Url| async move {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let response = http.get(url).send().await.unwrap();
        let location = response.headers()["location"].to_str().unwrap();
        Ok(Url::parse(location).unwrap())
    })
}

fn oauth() -> OAuthClient {
    OAuthClient::builder()
        .user_agent(approving_agent())
        .build()
        .unwrap()
}

async fn authorize(mock: &Mock) -> Result<StoredToken, OAuthError> {
    oauth()
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await
}

#[tokio::test]
async fn the_transport_authorizes_on_401_and_retries() {
    let mock = Mock::start().await;
    let transport = crate::client::HttpTransport::new(&mock.mcp())
        .unwrap()
        .oauth(oauth());
    let client = Client::builder().connect(transport).await.unwrap();
    assert!(client.list_tools(None).await.unwrap().tools.is_empty());
    // PKCE S256 and the resource on both requests; the code exchanged with its verifier.
    let (_, query) = &mock.seen("/authorize")[0];
    assert!(query.contains("code_challenge_method=S256"), "{query}");
    let resource = form_urlencoded::byte_serialize(mock.mcp().as_bytes()).collect::<String>();
    assert!(query.contains(&format!("resource={resource}")), "{query}");
    let (_, form) = &mock.seen("/token")[0];
    assert!(form.contains("code_verifier=") && form.contains(&format!("resource={resource}")));
    // One flow: every later request carried the token.
    assert_eq!(mock.seen("/token").len(), 1);
    let mcp = mock.seen("/mcp");
    assert!(
        mcp.iter()
            .skip(1)
            .all(|(auth, _)| auth.as_deref() == Some("Bearer token-1"))
    );
}

#[tokio::test]
async fn malformed_protected_resource_metadata_is_refused() {
    let mock = Mock::start().await;
    mock.can(
        "/.well-known/oauth-protected-resource/mcp",
        200,
        "{not json",
    );
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::MalformedMetadata { .. })
    ));
    mock.can(
        "/.well-known/oauth-protected-resource/mcp",
        200,
        r#"{"authorization_servers": []}"#,
    );
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::MalformedMetadata { .. })
    ));
    let base = &mock.base;
    let prm = json!({"resource": mock.mcp(), "authorization_servers": [], "x": base});
    mock.can(
        "/.well-known/oauth-protected-resource/mcp",
        200,
        prm.to_string(),
    );
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::NoAuthorizationServer(_))
    ));
}

#[tokio::test]
async fn malformed_server_metadata_is_refused() {
    let mock = Mock::start().await;
    mock.can("/.well-known/oauth-authorization-server", 200, "[1, 2");
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::MalformedMetadata { .. })
    ));
    mock.metadata(|m| {
        m.remove("token_endpoint");
    });
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::MalformedMetadata { .. })
    ));
    mock.metadata(|m| {
        m.insert("issuer".into(), json!(42));
    });
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::MalformedMetadata { .. })
    ));
    assert!(mock.seen("/token").is_empty());
}

#[tokio::test]
async fn a_mismatched_issuer_is_refused_before_any_endpoint_is_used() {
    let mock = Mock::start().await;
    mock.metadata(|m| {
        m.insert("issuer".into(), json!("https://attacker.example"));
    });
    let err = authorize(&mock).await.unwrap_err();
    assert!(
        matches!(&err, OAuthError::IssuerMismatch { found, .. } if found == "https://attacker.example")
    );
    assert!(mock.seen("/register").is_empty() && mock.seen("/authorize").is_empty());
}

#[tokio::test]
async fn a_server_without_pkce_s256_is_refused() {
    let mock = Mock::start().await;
    mock.metadata(|m| {
        m.insert("code_challenge_methods_supported".into(), json!(["plain"]));
    });
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::PkceUnsupported(_))
    ));
    mock.metadata(|m| {
        m.remove("code_challenge_methods_supported");
    });
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::PkceUnsupported(_))
    ));
    assert!(mock.seen("/authorize").is_empty());
}

#[tokio::test]
async fn token_endpoint_errors_are_typed() {
    let mock = Mock::start().await;
    let error = json!({"error": "invalid_grant", "error_description": "bad code"});
    mock.can("/token", 400, error.to_string());
    match authorize(&mock).await {
        Err(OAuthError::TokenEndpoint { error, description }) => {
            assert_eq!(
                (error.as_str(), description.as_deref()),
                ("invalid_grant", Some("bad code"))
            );
        }
        other => panic!("{other:?}"),
    }
    mock.can("/token", 500, "<html>oops</html>");
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::InvalidTokenResponse(_))
    ));
    let mac = json!({"access_token": "t", "token_type": "mac"});
    mock.can("/token", 200, mac.to_string());
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::InvalidTokenResponse(_))
    ));
}

#[tokio::test]
async fn non_https_non_loopback_urls_are_refused() {
    let mock = Mock::start().await;
    // A metadata redirect to plain HTTP elsewhere.
    mock.can_redirect(
        "/.well-known/oauth-authorization-server",
        "http://as.example/meta",
    );
    assert!(
        matches!(authorize(&mock).await, Err(OAuthError::InsecureUrl(u)) if u.contains("as.example"))
    );
    // Endpoints on plain HTTP elsewhere.
    mock.metadata(|m| {
        m.insert("token_endpoint".into(), json!("http://as.example/token"));
    });
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::InsecureUrl(_))
    ));
    // An authorization server on plain HTTP elsewhere.
    let prm = json!({"resource": mock.mcp(), "authorization_servers": ["http://as.example"]});
    mock.can(
        "/.well-known/oauth-protected-resource/mcp",
        200,
        prm.to_string(),
    );
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::InsecureUrl(_))
    ));
    // An MCP server on plain HTTP elsewhere never gets a flow (nor a token).
    let err = oauth()
        .authorize("http://mcp.example/mcp", &Challenge::default(), None)
        .await;
    assert!(matches!(err, Err(OAuthError::InsecureUrl(_))));
    // A redirect URI on plain HTTP elsewhere.
    let mock = Mock::start().await;
    let agent = CallbackUserAgent::new("http://app.example/cb", |url| async move { Ok(url) });
    let oauth = OAuthClient::builder().user_agent(agent).build().unwrap();
    let err = oauth
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(matches!(err, Err(OAuthError::InsecureUrl(_))));
    assert!(mock.seen("/authorize").is_empty());
}

#[tokio::test]
async fn metadata_for_another_resource_is_refused_before_the_authorization_server() {
    let mock = Mock::start().await;
    let prm = json!({"resource": "https://evil.example/mcp", "authorization_servers": [mock.base]});
    mock.can(
        "/.well-known/oauth-protected-resource/mcp",
        200,
        prm.to_string(),
    );
    assert!(matches!(
        authorize(&mock).await,
        Err(OAuthError::ResourceMismatch { .. })
    ));
    assert!(
        mock.seen("/.well-known/oauth-authorization-server")
            .is_empty()
    );
}

#[tokio::test]
async fn a_token_never_reaches_another_origin() {
    let a = Mock::start().await;
    let b = Mock::start().await;
    let oauth = oauth();
    oauth
        .authorize(&a.mcp(), &Challenge::default(), None)
        .await
        .unwrap();
    // B claims to be A to get A's token.
    let prm = json!({"resource": a.mcp(), "authorization_servers": [a.base]});
    b.can(
        "/.well-known/oauth-protected-resource/mcp",
        200,
        prm.to_string(),
    );
    let transport = crate::client::HttpTransport::new(&b.mcp())
        .unwrap()
        .oauth(oauth.clone());
    let refused = Client::builder().connect(transport).await;
    assert!(refused.is_err());
    assert!(b.seen("/mcp").iter().all(|(auth, _)| auth.is_none()));
    // A token stored under B's URL for A's resource is not sent either.
    let mut stolen = oauth.store().token(&a.mcp()).await.unwrap();
    stolen.resource = a.mcp();
    oauth.store().save_token(&b.mcp(), stolen).await;
    assert!(oauth.token(&b.mcp()).await.is_none());
}

#[tokio::test]
async fn an_expired_token_is_refreshed_for_the_same_resource() {
    let mock = Mock::start().await;
    let oauth = oauth();
    let mut token = oauth
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await
        .unwrap();
    token.expires_at = Some(1);
    oauth.store().save_token(&mock.mcp(), token).await;
    let fresh = oauth.token(&mock.mcp()).await.unwrap();
    assert!(!fresh.expired());
    let (_, form) = mock.seen("/token").pop().unwrap();
    assert!(form.contains("grant_type=refresh_token") && form.contains("refresh_token=refresh-1"));
    assert!(form.contains("resource="));
    // A refused refresh forgets the token instead of sending a stale one.
    mock.can("/token", 400, json!({"error": "invalid_grant"}).to_string());
    let mut stale = fresh;
    stale.expires_at = Some(1);
    oauth.store().save_token(&mock.mcp(), stale).await;
    assert!(oauth.token(&mock.mcp()).await.is_none());
    assert!(oauth.store().token(&mock.mcp()).await.is_none());
}

#[tokio::test]
async fn registration_covers_the_resource_scopes_and_offline_access_asks_consent() {
    // Both found against oidc-provider: it holds a client to its registered scopes (a
    // step-up to a scope registered without was invalid_scope), and it drops
    // offline_access without prompt=consent (no refresh token).
    let mock = Mock::start().await;
    let prm = json!({"resource": mock.mcp(), "authorization_servers": [mock.base],
        "scopes_supported": ["notes:read", "notes:write"]});
    mock.can(
        "/.well-known/oauth-protected-resource/mcp",
        200,
        prm.to_string(),
    );
    let mut metadata = default_metadata(&mock.base);
    metadata["scopes_supported"] = json!(["openid", "offline_access", "notes:read"]);
    mock.can(
        "/.well-known/oauth-authorization-server",
        200,
        metadata.to_string(),
    );
    let challenge = Challenge::parse("Bearer scope=\"notes:read\"");
    oauth()
        .authorize(&mock.mcp(), &challenge, None)
        .await
        .unwrap();
    let (_, registered) = &mock.seen("/register")[0];
    let registered: Value = serde_json::from_str(registered).unwrap();
    assert_eq!(registered["scope"], "notes:read offline_access notes:write");
    let (_, query) = &mock.seen("/authorize")[0];
    assert!(
        query.contains("scope=notes%3Aread+offline_access"),
        "{query}"
    );
    assert!(query.contains("prompt=consent"), "{query}");
    // Without offline_access, no prompt.
    let plain = Mock::start().await;
    authorize(&plain).await.unwrap();
    let (_, query) = &plain.seen("/authorize")[0];
    assert!(!query.contains("prompt="), "{query}");
}

#[tokio::test]
async fn the_loopback_agent_takes_a_second_redirect_from_a_kept_alive_connection() {
    // Found end to end (a browser reusing its connection for the step-up's redirect).
    let browser = reqwest::Client::new(); // pools connections, as a browser does
    let agent = super::LoopbackUserAgent::bind(0)
        .await
        .unwrap()
        .timeout(std::time::Duration::from_secs(10))
        .on_open(move |url| {
            let redirect = url.query_pairs().find(|(k, _)| k == "redirect_uri");
            let to = format!("{}?code=c&state=s", redirect.unwrap().1);
            tokio::spawn(browser.get(to).send());
        });
    for _ in 0..2 {
        let mut url = Url::parse("https://as.example/authorize").unwrap();
        url.query_pairs_mut()
            .append_pair("redirect_uri", &agent.redirect_uri());
        let callback = agent.authorize(url).await.unwrap();
        assert!(callback.as_str().ends_with("/callback?code=c&state=s"));
    }
}

#[tokio::test]
async fn a_short_lived_token_is_used_for_half_its_lifetime() {
    // oidc-provider end to end found it: with a fixed 30 s margin a token issued for less
    // than 30 s was refreshed before every request.
    let mock = Mock::start().await;
    let token = json!({"access_token": "short", "token_type": "Bearer", "expires_in": 20,
        "refresh_token": "refresh-1"});
    mock.can("/token", 200, token.to_string());
    let oauth = oauth();
    let issued = oauth
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await
        .unwrap();
    assert!(issued.issued_at.is_some() && !issued.expired());
    let kept = oauth.token(&mock.mcp()).await.unwrap();
    assert_eq!(kept.access_token, "short");
    assert_eq!(mock.seen("/token").len(), 1);
    // Past half its lifetime it is refreshed.
    let mut aged = kept;
    aged.issued_at = aged.issued_at.map(|at| at - 11);
    aged.expires_at = aged.expires_at.map(|at| at - 11);
    oauth.store().save_token(&mock.mcp(), aged).await;
    assert!(oauth.token(&mock.mcp()).await.is_some());
    assert_eq!(mock.seen("/token").len(), 2);
}

#[test]
fn challenges_parse_without_panicking_on_garbage() {
    for header in [
        "",
        "=",
        ",,,",
        "Bearer",
        "Bearer scope=\"unterminated",
        "Bearer =x",
        "Bearer scope",
        "DPoP algs=\"ES256\", Bearer error=\"invalid_token\"",
        "Bearer é=ü",
    ] {
        let _ = Challenge::parse(header);
    }
    let c = Challenge::parse("DPoP error=\"x\", Bearer error=\"invalid_token\", scope=a");
    assert_eq!(
        (c.error.as_deref(), c.scope.as_deref()),
        (Some("invalid_token"), Some("a"))
    );
    let c = Challenge::parse("Basic realm=\"x\", error=\"insufficient_scope\"");
    assert_eq!(c, Challenge::default());
    let c = Challenge::parse(r#"Bearer scope="a \"b\"""#);
    assert_eq!(c.scope.as_deref(), Some("a \"b\""));
}

#[test]
fn authorization_redirects_are_checked() {
    let server = discovery::ServerMetadata {
        issuer: "https://as.example".into(),
        authorization_response_iss_parameter_supported: true,
        ..Default::default()
    };
    let redirect = "http://127.0.0.1:9/cb";
    let check = |url: &str| check_callback(&Url::parse(url).unwrap(), redirect, "s1", &server);
    let ok = "http://127.0.0.1:9/cb?code=c&state=s1&iss=https%3A%2F%2Fas.example";
    assert_eq!(check(ok).unwrap(), "c");
    let bad = |url: &str| matches!(check(url), Err(OAuthError::InvalidAuthorizationResponse(_)));
    assert!(bad(
        "http://127.0.0.1:9/cb?code=c&state=s2&iss=https%3A%2F%2Fas.example"
    ));
    assert!(bad("http://127.0.0.1:9/cb?code=c&state=s1"));
    assert!(bad(
        "http://127.0.0.1:9/cb?code=c&state=s1&iss=https%3A%2F%2Fas.example%2F"
    ));
    assert!(bad(
        "http://127.0.0.1:9/other?code=c&state=s1&iss=https%3A%2F%2Fas.example"
    ));
    assert!(bad(
        "http://127.0.0.1:9/cb?state=s1&iss=https%3A%2F%2Fas.example"
    ));
    let denied = "http://127.0.0.1:9/cb?error=access_denied&state=s1&iss=https%3A%2F%2Fas.example";
    assert!(
        matches!(check(denied), Err(OAuthError::AuthorizationDenied { error, .. }) if error == "access_denied")
    );
}

#[tokio::test]
async fn client_credentials_with_a_private_key_jwt() {
    use aws_lc_rs::rand::SystemRandom;
    use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
    use base64::Engine;
    let pkcs8 =
        EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
            .unwrap();
    let b64 = base64::engine::general_purpose::STANDARD.encode(pkcs8.as_ref());
    let pem = format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n");
    let jwt = PrivateKeyJwt::from_pem("svc", &pem, "ES256").unwrap();
    assert!(PrivateKeyJwt::from_pem("svc", &pem, "RS256").is_err());
    let mock = Mock::start().await;
    let oauth = OAuthClient::builder().private_key_jwt(jwt).build().unwrap();
    oauth
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await
        .unwrap();
    let (auth, form) = mock.seen("/token").pop().unwrap();
    assert!(
        auth.is_none() && form.contains("grant_type=client_credentials"),
        "{form}"
    );
    let params: HashMap<_, _> = form_urlencoded::parse(form.as_bytes()).collect();
    assert_eq!(params["client_assertion_type"], super::flow::JWT_BEARER);
    let payload = params["client_assertion"].split('.').nth(1).unwrap();
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    let claims: Value = serde_json::from_slice(&payload).unwrap();
    assert_eq!(
        (&claims["iss"], &claims["sub"]),
        (&json!("svc"), &json!("svc"))
    );
    assert_eq!(claims["aud"], json!(mock.base));
    assert!(mock.seen("/authorize").is_empty() && mock.seen("/register").is_empty());
}
