//! tracksuit as an OAuth resource server, through the Streamable HTTP router as a tower
//! service: the caller (principal, headers, the extensions of the application's own
//! middleware) in `Ctx` in both eras, scopes on tools, prompts and resources answered with
//! `403 insufficient_scope` before anything runs, lists filtered by scope, tasks and sealed
//! `requestState` bound to the principal, and bad tokens refused before any tool runs.

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use jsonwebtoken::{EncodingKey, Header};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tower::ServiceExt;
use tracksuit::host::http::auth::{Algorithm, Jwk, JwkSet, JwtValidator, ResourceServer};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::task::TaskOptions;
use tracksuit::{
    Ctx, Elicits, Principal, Server, ServerHandle, ServerOptions, ToolError, mcp_prompt,
    mcp_resource, mcp_tool,
};
use tracksuit_tests::support::within;

const ISSUER: &str = "https://issuer.test";
const RESOURCE: &str = "http://localhost/mcp";
const METADATA: &str = "http://localhost/.well-known/oauth-protected-resource/mcp";

static WRITES: AtomicUsize = AtomicUsize::new(0);
static SECRETS: AtomicUsize = AtomicUsize::new(0);
static BRIEFS: AtomicUsize = AtomicUsize::new(0);
static WHOAMI: AtomicUsize = AtomicUsize::new(0);

/// What the application's own middleware attaches to the request.
#[derive(Clone)]
struct Tenant(&'static str);

/// Says who calls, what the request's head carried, and whether the token got through.
#[mcp_tool]
async fn whoami(ctx: &Ctx) -> Result<String, ToolError> {
    WHOAMI.fetch_add(1, Ordering::SeqCst);
    let principal = ctx
        .principal()
        .ok_or_else(|| ToolError::new("no principal"))?;
    let head = ctx
        .http_request()
        .ok_or_else(|| ToolError::new("no HTTP request"))?;
    let header = head
        .headers
        .get("x-request-tag")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    let tenant = head.extensions.get::<Tenant>().map_or("-", |t| t.0);
    let token = head.headers.contains_key("authorization");
    Ok(format!(
        "{} [{}] tag={header} tenant={tenant} token={token}",
        principal.subject,
        principal.scopes.join(" ")
    ))
}

/// Writes a file (needs `files:write`).
#[mcp_tool(scopes = ["files:write"])]
async fn write_file(path: String) -> String {
    WRITES.fetch_add(1, Ordering::SeqCst);
    format!("wrote {path}")
}

/// Finishes at once, as a task if asked.
#[mcp_tool(task_support = "optional")]
async fn job() -> String {
    "job done".into()
}

/// A word.
#[derive(serde::Deserialize, Elicits)]
struct Word {
    /// A word
    word: String,
}

/// Asks the caller for a word.
#[mcp_tool]
async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
    let w = ctx.elicit_form::<Word>("a word?").await?;
    Ok(w.accepted().map(|w| w.word).unwrap_or_default())
}

/// A confidential briefing (needs `briefs:read`).
#[mcp_prompt(scopes = ["briefs:read"])]
async fn brief() -> String {
    BRIEFS.fetch_add(1, Ordering::SeqCst);
    "the brief".into()
}

/// A secret (needs `secrets:read`).
#[mcp_resource(uri = "mem://secret", scopes = ["secrets:read"])]
async fn secret() -> String {
    SECRETS.fetch_add(1, Ordering::SeqCst);
    "the secret".into()
}

fn server(options: ServerOptions) -> ServerHandle {
    Server::with_options(tracksuit::crate_info!(), options)
        .tool(whoami)
        .tool(write_file)
        .tool(job)
        .tool(ask)
        .prompt(brief)
        .resource(secret)
        .build()
        .expect("distinct names")
}

/// The issuer's signing key and its public JWK.
struct Issuer {
    key: EncodingKey,
    jwk: Jwk,
}

fn issuer() -> Issuer {
    let pkcs8 =
        EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
            .expect("key generation");
    let key = EncodingKey::from_ec_der(pkcs8.as_ref());
    let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).expect("jwk");
    jwk.common.key_id = Some("k1".into());
    Issuer { key, jwk }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Issuer {
    fn token_with(&self, claims: Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        jsonwebtoken::encode(&header, &claims, &self.key).expect("sign")
    }

    fn token(&self, sub: &str, scope: &str) -> String {
        self.token_with(json!({
            "iss": ISSUER, "aud": RESOURCE, "sub": sub, "scope": scope,
            "exp": now() + 300, "iat": now(),
        }))
    }

    fn resource_server(&self) -> ResourceServer {
        let validator = JwtValidator::with_keys(
            ISSUER,
            RESOURCE,
            JwkSet {
                keys: vec![self.jwk.clone()],
            },
        );
        ResourceServer::new(RESOURCE, validator)
            .authorization_server(ISSUER)
            .scopes_supported(["files:write", "briefs:read", "secrets:read"])
    }
}

/// The endpoint with auth, JSON responses, and the application's own middleware (which
/// attaches a `Tenant`) around it.
fn app(issuer: &Issuer, options: ServerOptions) -> axum::Router {
    let http = HttpOptions::default()
        .json_response(true)
        .auth(issuer.resource_server());
    StreamableHttp::new(server(options), http)
        .router("/mcp")
        .layer(axum::middleware::from_fn(
            |mut request: axum::extract::Request, next: axum::middleware::Next| async move {
                request.extensions_mut().insert(Tenant("acme"));
                next.run(request).await
            },
        ))
}

fn post(token: Option<&str>, session: Option<&str>, body: Value) -> Request<Body> {
    let mut r = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("x-request-tag", "t-42");
    if let Some(t) = token {
        r = r.header("authorization", format!("Bearer {t}"));
    }
    if let Some(s) = session {
        r = r.header("mcp-session-id", s);
    }
    r.body(Body::from(body.to_string())).expect("request")
}

async fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, HeaderMap, Value) {
    let resp = within("the response", app.clone().oneshot(req))
        .await
        .expect("infallible");
    let (parts, body) = resp.into_parts();
    let bytes = within("the body", axum::body::to_bytes(body, 1 << 22))
        .await
        .expect("body");
    let json = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).expect("a JSON body")
    };
    (parts.status, parts.headers, json)
}

fn challenge(headers: &HeaderMap) -> String {
    headers
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// A 2025-11-25 session opened with `token`.
async fn session(app: &axum::Router, token: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }});
    let (status, headers, body) = send(app, post(Some(token), None, init)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let id = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = send(app, post(Some(token), Some(&id), done)).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    id
}

fn rpc(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    rpc(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// A modern (2026-07-28) `tools/call`, its headers mirroring the body.
fn modern_call(token: &str, name: &str, extra: Value) -> Request<Body> {
    let mut params = json!({
        "name": name, "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        },
    });
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .header("x-request-tag", "modern")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(body.to_string()))
        .expect("request")
}

#[tokio::test]
async fn the_caller_reaches_the_tool_with_its_head_and_extensions_but_not_its_token() {
    let issuer = issuer();
    let app = app(&issuer, ServerOptions::default());
    let token = issuer.token("alice", "files:read");
    let s = session(&app, &token).await;
    let (status, _, v) = send(
        &app,
        post(Some(&token), Some(&s), call(1, "whoami", json!({}))),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        v["result"]["content"][0]["text"], "alice [files:read] tag=t-42 tenant=acme token=false",
        "{v}"
    );
    // The modern era sees the same.
    let (_, _, v) = send(&app, modern_call(&token, "whoami", json!({}))).await;
    assert_eq!(
        v["result"]["content"][0]["text"], "alice [files:read] tag=modern tenant=acme token=false",
        "{v}"
    );
}

#[tokio::test]
async fn scoped_items_are_refused_with_an_insufficient_scope_challenge_before_they_run() {
    let issuer = issuer();
    let app = app(&issuer, ServerOptions::default());
    let reader = issuer.token("alice", "files:read");
    let s = session(&app, &reader).await;
    let before = (
        WRITES.load(Ordering::SeqCst),
        BRIEFS.load(Ordering::SeqCst),
        SECRETS.load(Ordering::SeqCst),
    );
    for (id, message, needed) in [
        (
            1,
            call(1, "write_file", json!({"path": "/x"})),
            "files:write",
        ),
        (
            2,
            rpc(2, "prompts/get", json!({"name": "brief"})),
            "briefs:read",
        ),
        (
            3,
            rpc(3, "resources/read", json!({"uri": "mem://secret"})),
            "secrets:read",
        ),
    ] {
        let (status, headers, v) = send(&app, post(Some(&reader), Some(&s), message)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{v}");
        assert_eq!(v["id"], id, "the error carries the request's id");
        assert_eq!(v["error"]["data"]["missingScopes"], json!([needed]));
        let h = challenge(&headers);
        assert!(
            h.starts_with(&format!(
                "Bearer error=\"insufficient_scope\", scope=\"{needed}\", resource_metadata=\"{METADATA}\""
            )),
            "{h}"
        );
    }
    assert_eq!(
        before,
        (
            WRITES.load(Ordering::SeqCst),
            BRIEFS.load(Ordering::SeqCst),
            SECRETS.load(Ordering::SeqCst)
        ),
        "nothing ran"
    );
    // The same refusal on the modern era.
    let (status, headers, _) = send(&app, modern_call(&reader, "write_file", json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(challenge(&headers).contains("insufficient_scope"));

    // With the scope, it runs.
    let writer = issuer.token("alice", "files:read files:write");
    let s = session(&app, &writer).await;
    let (status, _, v) = send(
        &app,
        post(
            Some(&writer),
            Some(&s),
            call(4, "write_file", json!({"path": "/x"})),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["result"]["content"][0]["text"], "wrote /x");
}

#[tokio::test]
async fn lists_can_leave_out_what_the_caller_may_not_use() {
    let issuer = issuer();
    let names = |v: &Value, key: &str, field: &str| -> Vec<String> {
        v["result"][key]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|t| t[field].as_str().map(str::to_owned))
            .collect()
    };
    let reader = issuer.token("alice", "files:read");
    let shown = app(&issuer, ServerOptions::default());
    let s = session(&shown, &reader).await;
    let (_, _, v) = send(
        &shown,
        post(Some(&reader), Some(&s), rpc(1, "tools/list", json!({}))),
    )
    .await;
    assert!(
        names(&v, "tools", "name").contains(&"write_file".to_owned()),
        "listed by default"
    );

    let hidden = app(&issuer, ServerOptions::default().hide_unauthorized(true));
    let s = session(&hidden, &reader).await;
    let (_, _, v) = send(
        &hidden,
        post(Some(&reader), Some(&s), rpc(1, "tools/list", json!({}))),
    )
    .await;
    let tools = names(&v, "tools", "name");
    assert!(!tools.contains(&"write_file".to_owned()), "{tools:?}");
    assert!(tools.contains(&"whoami".to_owned()));
    let (_, _, v) = send(
        &hidden,
        post(Some(&reader), Some(&s), rpc(2, "prompts/list", json!({}))),
    )
    .await;
    assert!(names(&v, "prompts", "name").is_empty());
    let (_, _, v) = send(
        &hidden,
        post(Some(&reader), Some(&s), rpc(3, "resources/list", json!({}))),
    )
    .await;
    assert!(names(&v, "resources", "uri").is_empty());

    let writer = issuer.token("alice", "files:write");
    let s = session(&hidden, &writer).await;
    let (_, _, v) = send(
        &hidden,
        post(Some(&writer), Some(&s), rpc(1, "tools/list", json!({}))),
    )
    .await;
    assert!(names(&v, "tools", "name").contains(&"write_file".to_owned()));
}

#[tokio::test]
async fn another_principals_task_is_not_found() {
    let issuer = issuer();
    let app = app(
        &issuer,
        ServerOptions::default().tasks(TaskOptions::default().list(true)),
    );
    let alice = issuer.token("alice", "");
    let bob = issuer.token("bob", "");
    let a = session(&app, &alice).await;
    let b = session(&app, &bob).await;
    let start = rpc(
        1,
        "tools/call",
        json!({"name": "job", "arguments": {}, "task": {"ttl": 60000}}),
    );
    let (_, _, v) = send(&app, post(Some(&alice), Some(&a), start)).await;
    let task = v["result"]["task"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();

    for (id, method) in [(2, "tasks/get"), (3, "tasks/result"), (4, "tasks/cancel")] {
        let (_, _, v) = send(
            &app,
            post(
                Some(&bob),
                Some(&b),
                rpc(id, method, json!({"taskId": task})),
            ),
        )
        .await;
        assert_eq!(v["error"]["code"], -32602, "{method}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("not found"),
            "{v}"
        );
    }
    let (_, _, v) = send(
        &app,
        post(Some(&bob), Some(&b), rpc(5, "tasks/list", json!({}))),
    )
    .await;
    assert_eq!(v["result"]["tasks"], json!([]), "{v}");

    let (_, _, v) = send(
        &app,
        post(
            Some(&alice),
            Some(&a),
            rpc(6, "tasks/result", json!({"taskId": task})),
        ),
    )
    .await;
    assert_eq!(v["result"]["content"][0]["text"], "job done", "{v}");
    let (_, _, v) = send(
        &app,
        post(Some(&alice), Some(&a), rpc(7, "tasks/list", json!({}))),
    )
    .await;
    assert_eq!(v["result"]["tasks"][0]["taskId"], task.as_str());
}

/// A modern (2026-07-28) request of a client that declared the tasks extension.
fn modern_task_rpc(token: &str, method: &str, name: &str, params: Value) -> Request<Body> {
    let mut params = params;
    if let Some(p) = params.as_object_mut() {
        p.insert(
            "_meta".into(),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {
                    "extensions": {"io.modelcontextprotocol/tasks": {}}
                },
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            }),
        );
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(body.to_string()))
        .expect("request")
}

#[tokio::test]
async fn another_principals_extension_task_is_not_found() {
    let issuer = issuer();
    let app = app(&issuer, ServerOptions::default());
    let alice = issuer.token("alice", "");
    let bob = issuer.token("bob", "");
    let create = modern_task_rpc(
        &alice,
        "tools/call",
        "job",
        json!({"name": "job", "arguments": {}}),
    );
    let (_, _, created) = send(&app, create).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let params = json!({"taskId": task, "inputResponses": {}});
        let (_, _, v) = send(&app, modern_task_rpc(&bob, method, &task, params)).await;
        assert_eq!(v["error"]["code"], -32602, "{method} by bob: {v}");
    }
    let get = modern_task_rpc(&alice, "tasks/get", &task, json!({"taskId": task}));
    let (_, _, v) = send(&app, get).await;
    assert_eq!(v["result"]["taskId"], task, "{v}");
}

#[tokio::test]
async fn a_request_state_minted_for_one_principal_is_refused_for_another() {
    let issuer = issuer();
    let app = app(&issuer, ServerOptions::default());
    let alice = issuer.token("alice", "");
    let bob = issuer.token("bob", "");
    let (_, _, first) = send(&app, modern_call(&alice, "ask", json!({}))).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_owned();
    let key = first["result"]["inputRequests"]
        .as_object()
        .and_then(|r| r.keys().next().cloned())
        .expect("a question");
    let retry = json!({
        "inputResponses": {key: {"action": "accept", "content": {"word": "hi"}}},
        "requestState": state,
    });
    let (_, _, v) = send(&app, modern_call(&bob, "ask", retry.clone())).await;
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("requestState"),
        "{v}"
    );
    let (_, _, v) = send(&app, modern_call(&alice, "ask", retry)).await;
    assert_eq!(v["result"]["content"][0]["text"], "hi", "{v}");
}

#[tokio::test]
async fn bad_tokens_get_401_or_400_and_reach_no_tool() {
    let issuer = issuer();
    let app = app(&issuer, ServerOptions::default());
    let good = issuer.token("alice", "");
    let s = session(&app, &good).await;
    let base = json!({"iss": ISSUER, "aud": RESOURCE, "sub": "mallory", "exp": now() + 300});
    let with = |k: &str, v: Value| {
        let mut c = base.clone();
        c[k] = v;
        issuer.token_with(c)
    };
    let calls = WHOAMI.load(Ordering::SeqCst);
    for (what, token, status, error) in [
        (
            "expired",
            Some(with("exp", json!(now() - 600))),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "not yet valid",
            Some(with("nbf", json!(now() + 600))),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "wrong audience",
            Some(with("aud", json!("http://other/mcp"))),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "wrong issuer",
            Some(with("iss", json!("https://evil.test"))),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "not a JWT",
            Some("abc.def.ghi".to_owned()),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        ("missing", None, StatusCode::UNAUTHORIZED, ""),
    ] {
        let (st, headers, _) = send(
            &app,
            post(token.as_deref(), Some(&s), call(1, "whoami", json!({}))),
        )
        .await;
        assert_eq!(st, status, "{what}");
        let h = challenge(&headers);
        assert!(
            h.contains(&format!("resource_metadata=\"{METADATA}\"")),
            "{what}: {h}"
        );
        if !error.is_empty() {
            assert!(
                h.starts_with(&format!("Bearer error=\"{error}\"")),
                "{what}: {h}"
            );
        }
    }
    let malformed = Request::post("/mcp")
        .header("host", "localhost")
        .header("authorization", "Bearer two tokens")
        .body(Body::empty())
        .expect("request");
    let (st, headers, _) = send(&app, malformed).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    assert!(challenge(&headers).starts_with("Bearer error=\"invalid_request\""));
    assert_eq!(
        WHOAMI.load(Ordering::SeqCst),
        calls,
        "no bad token reached the tool"
    );
}

#[tokio::test]
async fn without_auth_the_applications_own_middleware_can_supply_the_principal() {
    let app = StreamableHttp::new(
        server(ServerOptions::default()),
        HttpOptions::default().json_response(true),
    )
    .router("/mcp")
    .layer(axum::middleware::from_fn(
        |mut request: axum::extract::Request, next: axum::middleware::Next| async move {
            let p = Principal::new("svc").with_scopes(["files:read"]);
            request.extensions_mut().insert(Arc::new(p));
            request.extensions_mut().insert(Tenant("own"));
            next.run(request).await
        },
    ));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }});
    let (_, headers, _) = send(&app, post(None, None, init)).await;
    let s = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session")
        .to_owned();
    let (_, _, v) = send(&app, post(None, Some(&s), call(1, "whoami", json!({})))).await;
    assert_eq!(
        v["result"]["content"][0]["text"],
        "svc [files:read] tag=t-42 tenant=own token=false"
    );
    let (status, headers, _) = send(
        &app,
        post(None, Some(&s), call(2, "write_file", json!({"path": "/y"}))),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        challenge(&headers),
        "Bearer error=\"insufficient_scope\", scope=\"files:write\", error_description=\"this request needs the scope(s) files:write\""
    );
}

#[tokio::test]
async fn scopes_fail_closed_where_there_is_no_principal() {
    // In memory (as on stdio) nobody is authenticated: a scoped tool is refused with a
    // JSON-RPC error naming the scope, before it runs; an unscoped one runs.
    let client = tracksuit_tests::support::connect(
        server(ServerOptions::default()),
        tracksuit::client::Client::builder(),
    )
    .await;
    let writes = WRITES.load(Ordering::SeqCst);
    match client.call_tool("write_file", json!({"path": "/z"})).await {
        Err(tracksuit::RequestError::Peer(e)) => {
            assert_eq!(e.code, -32600);
            assert!(e.message.contains("files:write"), "{}", e.message);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        WRITES.load(Ordering::SeqCst),
        writes,
        "the tool did not run"
    );
    let r = client
        .call_tool("job", json!({}))
        .await
        .expect("an unscoped tool runs");
    assert_eq!(tracksuit_tests::support::text(&r), "job done");
}
