//! Scopes that depend on the request (`scopes = ["…{name}…"]`, `scopes_with = path`),
//! through the Streamable HTTP router with an opaque-token validator: checked before the
//! item runs in both eras and for tasks, the `insufficient_scope` challenge naming exactly
//! the scopes the operation needs (the checks of the conformance suite's
//! `sep-2350-server-scope-challenge` scenario, conformance#481), and arguments a rule
//! cannot read refused with `-32602`.

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use tower::ServiceExt;
use tracksuit::host::http::auth::{ResourceServer, TokenError, TokenValidator};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::task::TaskOptions;
use tracksuit::{Principal, Server, ServerOptions, mcp_prompt, mcp_resource, mcp_tool};
use tracksuit_tests::support::within;

const RESOURCE: &str = "http://localhost/mcp";
const METADATA: &str = "http://localhost/.well-known/oauth-protected-resource/mcp";

static RUNS: AtomicUsize = AtomicUsize::new(0);
/// Held by each test: they count the same items' runs.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Opaque tokens: `low` grants a baseline scope, `full` every scope below.
struct Tokens;

const FULL: &[&str] = &[
    "baseline",
    "mcp:conformance:tools:call",
    "mcp:conformance:tools:test_simple_text",
    "mcp:conformance:resources:read",
    "mcp:conformance:resources:template:123",
    "repo:site:write",
    "topic:rust",
    "payments",
    "payments:large",
];

impl TokenValidator for Tokens {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(async move {
            match token {
                "low" => Ok(Principal::new("low").with_scopes(["baseline"])),
                "full" => Ok(Principal::new("full").with_scopes(FULL.iter().copied())),
                _ => Err(TokenError::Invalid("unknown token".into())),
            }
        })
    }
}

/// Returns a text.
#[mcp_tool(scopes = ["mcp:conformance:tools:call", "mcp:conformance:tools:test_simple_text"])]
async fn test_simple_text() -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    "This is a simple text response for testing.".into()
}

/// Pushes to a repository (needs write access to that one).
#[mcp_tool(scopes = ["repo:{repo}:write"], task_support = "optional")]
async fn push(repo: String) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("pushed {repo}")
}

#[derive(serde::Deserialize)]
struct Amount {
    amount: u64,
}

/// A payment over 100 needs `payments:large`.
fn large(a: &Amount) -> Vec<String> {
    if a.amount > 100 {
        vec!["payments:large".into()]
    } else {
        Vec::new()
    }
}

/// Pays.
#[mcp_tool(scopes = ["payments"], scopes_with = large)]
async fn pay(amount: u64) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("paid {amount}")
}

/// A brief on a topic.
#[mcp_prompt(scopes = ["topic:{topic}"])]
async fn brief(topic: String) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("on {topic}")
}

/// An item's data.
#[mcp_resource(
    uri = "test://template/{id}/data",
    scopes = ["mcp:conformance:resources:read", "mcp:conformance:resources:template:{id}"]
)]
async fn data(id: String) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("Data for ID: {id}")
}

fn app() -> axum::Router {
    let options = ServerOptions::default().tasks(TaskOptions::default());
    let server = Server::with_options(tracksuit::crate_info!(), options)
        .tool(test_simple_text)
        .tool(push)
        .tool(pay)
        .prompt(brief)
        .resource_template(data)
        .build()
        .expect("distinct names");
    let auth = ResourceServer::new(RESOURCE, Tokens).authorization_server("https://as.test");
    let http = HttpOptions::default().json_response(true).auth(auth);
    StreamableHttp::new(server, http).router("/mcp")
}

/// A 2026-07-28 request with `token`.
fn modern(token: &str, method: &str, target: &str, params: Value) -> Request<Body> {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    });
    let body = json!({"jsonrpc": "2.0", "id": "scope", "method": method, "params": params});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", target)
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(body.to_string()))
        .expect("request")
}

async fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, HeaderMap, Value) {
    let resp = within("the response", app.clone().oneshot(req))
        .await
        .expect("infallible");
    let (parts, body) = resp.into_parts();
    let bytes = within("the body", axum::body::to_bytes(body, 1 << 20))
        .await
        .expect("body");
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (parts.status, parts.headers, json)
}

/// The `Bearer` challenge's parameters, read as the conformance suite reads them: quoted
/// values only for `scope` and `resource_metadata`.
fn challenge(headers: &HeaderMap) -> (String, BTreeSet<String>, String) {
    let h = headers
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let param = |name: &str| {
        let start = h.find(&format!("{name}=\""))? + name.len() + 2;
        let len = h[start..].find('"')?;
        Some(h[start..start + len].to_owned())
    };
    let scopes = param("scope")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    (
        param("error").unwrap_or_default(),
        scopes,
        param("resource_metadata").unwrap_or_default(),
    )
}

fn set(scopes: &[&str]) -> BTreeSet<String> {
    scopes.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn a_challenge_names_exactly_the_scopes_the_operation_needs_then_the_full_token_works() {
    let _one = ONE_AT_A_TIME.lock().await;
    let app = app();
    let cases = [
        (
            "tools/call",
            "test_simple_text",
            json!({"name": "test_simple_text"}),
            &[
                "mcp:conformance:tools:call",
                "mcp:conformance:tools:test_simple_text",
            ][..],
        ),
        (
            "resources/read",
            "test://template/123/data",
            json!({"uri": "test://template/123/data"}),
            &[
                "mcp:conformance:resources:read",
                "mcp:conformance:resources:template:123",
            ][..],
        ),
        (
            "tools/call",
            "push",
            json!({"name": "push", "arguments": {"repo": "site"}}),
            &["repo:site:write"][..],
        ),
        (
            "tools/call",
            "pay",
            json!({"name": "pay", "arguments": {"amount": 500}}),
            &["payments", "payments:large"][..],
        ),
        (
            "prompts/get",
            "brief",
            json!({"name": "brief", "arguments": {"topic": "rust"}}),
            &["topic:rust"][..],
        ),
    ];
    for (method, target, params, needed) in cases {
        let runs = RUNS.load(Ordering::SeqCst);
        let low = modern("low", method, target, params.clone());
        let (status, headers, body) = send(&app, low).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{target}: {body}");
        let (error, scopes, metadata) = challenge(&headers);
        assert_eq!(error, "insufficient_scope", "{target}");
        assert_eq!(scopes, set(needed), "{target}: exactly what it needs");
        assert_eq!(metadata, METADATA, "{target}");
        assert_eq!(RUNS.load(Ordering::SeqCst), runs, "{target}: nothing ran");

        let full = modern("full", method, target, params);
        let (status, _, body) = send(&app, full).await;
        assert_eq!(status, StatusCode::OK, "{target}: {body}");
        assert!(body.get("error").is_none(), "{target}: {body}");
        assert_eq!(
            RUNS.load(Ordering::SeqCst),
            runs + 1,
            "{target}: it ran once"
        );
    }
}

#[tokio::test]
async fn the_scopes_follow_the_arguments() {
    let _one = ONE_AT_A_TIME.lock().await;
    let app = app();
    // `full` may write to `site`, not to `other`; a small payment needs no large scope.
    let other = json!({"name": "push", "arguments": {"repo": "other"}});
    let (status, headers, _) = send(&app, modern("full", "tools/call", "push", other)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(challenge(&headers).1, set(&["repo:other:write"]));
    let small = json!({"name": "pay", "arguments": {"amount": 5}});
    let (status, _, body) = send(&app, modern("low", "tools/call", "pay", small)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let small = json!({"name": "pay", "arguments": {"amount": 5}});
    let (status, _, body) = send(&app, modern("full", "tools/call", "pay", small)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["content"][0]["text"], "paid 5");
}

#[tokio::test]
async fn arguments_a_rule_cannot_read_are_refused_before_the_item_runs() {
    let _one = ONE_AT_A_TIME.lock().await;
    let app = app();
    let runs = RUNS.load(Ordering::SeqCst);
    for (name, arguments) in [
        ("push", json!({"repo": ["a"]})),
        ("push", json!({})),
        ("pay", json!({"amount": "lots"})),
    ] {
        let params = json!({"name": name, "arguments": arguments});
        let (status, _, body) = send(&app, modern("full", "tools/call", name, params)).await;
        assert_eq!(body["error"]["code"], -32602, "{name}: {body}");
        assert_ne!(status, StatusCode::OK, "{name}");
    }
    assert_eq!(RUNS.load(Ordering::SeqCst), runs);
}

/// A 2025-11-25 session opened with `token`, and a request on it.
async fn on_session(
    app: &axum::Router,
    token: &str,
    message: Value,
) -> (StatusCode, HeaderMap, Value) {
    let post = |session: Option<&str>, body: Value| {
        let mut r = Request::post("/mcp")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("authorization", format!("Bearer {token}"));
        if let Some(s) = session {
            r = r
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", "2025-11-25");
        }
        r.body(Body::from(body.to_string())).expect("request")
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }});
    let (status, headers, body) = send(app, post(None, init)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let id = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    send(app, post(Some(&id), done)).await;
    send(app, post(Some(&id), message)).await
}

#[tokio::test]
async fn a_2025_session_and_a_task_are_checked_the_same_way() {
    let _one = ONE_AT_A_TIME.lock().await;
    let app = app();
    let runs = RUNS.load(Ordering::SeqCst);
    let call = |arguments: Value, task: bool| {
        let mut params = json!({"name": "push", "arguments": arguments});
        if task {
            params["task"] = json!({"ttl": 60000});
        }
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
    };
    for task in [false, true] {
        let (status, headers, body) =
            on_session(&app, "full", call(json!({"repo": "other"}), task)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "task={task}: {body}");
        assert_eq!(challenge(&headers).1, set(&["repo:other:write"]));
        assert_eq!(body["id"], 7);
    }
    assert_eq!(RUNS.load(Ordering::SeqCst), runs, "nothing ran");
    let (status, _, body) = on_session(&app, "full", call(json!({"repo": "site"}), false)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "pushed site");
}
