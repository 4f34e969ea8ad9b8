//! What the conformance suite's next release checks, from its open pull requests, run
//! in process against the conformance example (`tracksuit_examples::conformance`): the
//! suite's branches cannot be installed offline, so these tests encode their checks.
//!
//! - `sep-2350-server-scope-challenge` (conformance#481): the four operations refused with
//!   `403` and a challenge naming every scope each needs, then served with the full token;
//! - `progress-notifications` (conformance#450): strictly increasing progress with the
//!   request's token, none without a token, none after the result, in both eras;
//! - `cancellation` (conformance#450): a cancelled `test_tool_slow` stops, and the server
//!   keeps answering;
//! - `json-rpc-batch-rejection` (conformance#381): a JSON array is `400` with one JSON-RPC
//!   `-32600` error, with or without a session;
//! - `per-request-loglevel` (conformance#438): an invalid `_meta` log level is `-32602`.

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;
use tracksuit_examples::conformance::{self, Fixtures};
use tracksuit_tests::support::within;

const URL: &str = "http://localhost:3000/mcp";
const META_2026: &str = "io.modelcontextprotocol/protocolVersion";

fn router(fixtures: &Fixtures, json_response: bool) -> axum::Router {
    serving(fixtures, json_response).0
}

/// The router, and the server behind it.
fn serving(fixtures: &Fixtures, json_response: bool) -> (axum::Router, tracksuit::ServerHandle) {
    let server = conformance::server(fixtures)
        .and_then(|s| s.build().map_err(std::io::Error::other))
        .expect("the conformance server builds");
    let options = conformance::http_options(fixtures, json_response);
    let router = tracksuit::host::http::StreamableHttp::new(server.clone(), options).router("/mcp");
    (router, server)
}

/// A POST of `body` (any JSON), with `headers`.
fn post(body: &Value, headers: &[(&str, &str)]) -> Request<Body> {
    let mut r = Request::post("/mcp")
        .header("host", "localhost:3000")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        r = r.header(*name, *value);
    }
    r.body(Body::from(body.to_string())).expect("request")
}

/// A 2026-07-28 request (`_meta` and the mirrored headers), `extra` headers besides.
fn modern(
    id: Value,
    method: &str,
    name: &str,
    params: Value,
    extra: &[(&str, &str)],
) -> Request<Body> {
    let mut params = params;
    let meta = params["_meta"].as_object().cloned().unwrap_or_default();
    params["_meta"] = json!({
        META_2026: "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "conformance-test-client", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}},
    });
    for (k, v) in meta {
        params["_meta"][k] = v;
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", name),
    ];
    headers.extend_from_slice(extra);
    post(&body, &headers)
}

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    /// The JSON body, or each SSE event's data in order.
    messages: Vec<Value>,
}

async fn send(app: &axum::Router, req: Request<Body>) -> Reply {
    let resp = within("the response", app.clone().oneshot(req))
        .await
        .expect("infallible");
    let (parts, body) = resp.into_parts();
    let bytes = within("the body", axum::body::to_bytes(body, 1 << 20))
        .await
        .expect("body");
    let text = String::from_utf8_lossy(&bytes);
    let sse = parts
        .headers
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    let messages = if sse {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    } else {
        serde_json::from_str(&text).into_iter().collect()
    };
    Reply {
        status: parts.status,
        headers: parts.headers,
        messages,
    }
}

/// The first `Bearer` challenge's parameters, as the suite's `parseBearerChallenge` reads
/// them: only quoted values hold `:` or `/`.
fn bearer_params(headers: &HeaderMap) -> Vec<(String, String)> {
    let h = headers
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let Some(rest) = h.strip_prefix("Bearer ") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut rest = rest.trim();
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq]
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_lowercase();
        let after = &rest[eq + 1..];
        let (value, tail) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').unwrap_or(quoted.len());
                (
                    quoted[..end].to_owned(),
                    &quoted[(end + 1).min(quoted.len())..],
                )
            }
            None => {
                let end = after.find(',').unwrap_or(after.len());
                let token = &after[..end];
                // An unquoted value may only hold RFC 7230 token characters.
                let ok = token
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c));
                (
                    if ok { token.to_owned() } else { String::new() },
                    &after[end..],
                )
            }
        };
        out.push((name, value));
        rest = tail.trim_start_matches([',', ' ']);
    }
    out
}

#[tokio::test]
async fn scope_challenge_fixtures_answer_as_conformance_481_expects() {
    let fixtures = Fixtures {
        scope_challenge: Some(URL.into()),
    };
    let app = router(&fixtures, true);
    let cases = [
        (
            "tools/call",
            "test_simple_text",
            json!({"name": "test_simple_text"}),
            [
                "mcp:conformance:tools:call",
                "mcp:conformance:tools:test_simple_text",
            ],
        ),
        (
            "resources/read",
            "test://static-text",
            json!({"uri": "test://static-text"}),
            [
                "mcp:conformance:resources:read",
                "mcp:conformance:resources:static",
            ],
        ),
        (
            "resources/read",
            "test://template/123/data",
            json!({"uri": "test://template/123/data"}),
            [
                "mcp:conformance:resources:read",
                "mcp:conformance:resources:template:123",
            ],
        ),
        (
            "prompts/get",
            "test_simple_prompt",
            json!({"name": "test_simple_prompt"}),
            [
                "mcp:conformance:prompts:get",
                "mcp:conformance:prompts:test_simple_prompt",
            ],
        ),
    ];
    for (method, name, params, required) in cases {
        let low = [("authorization", "Bearer mcp-conformance-scope-low")];
        let r = send(
            &app,
            modern(
                json!(format!("scope-challenge-{name}")),
                method,
                name,
                params.clone(),
                &low,
            ),
        )
        .await;
        // server-scope-challenge-http-403
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{name}");
        // server-scope-challenge-www-authenticate
        let p = bearer_params(&r.headers);
        let get = |k: &str| {
            p.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        assert_eq!(get("error"), "insufficient_scope", "{name}");
        let metadata = get("resource_metadata");
        assert!(
            metadata.starts_with("http://localhost:3000/") && !metadata.contains('#'),
            "{name}: resource_metadata {metadata:?} must be same-origin with {URL}"
        );
        // sep-2350-server-single-challenge: every required scope in one challenge (and,
        // as the spec asks, nothing else)
        let scopes: Vec<String> = get("scope").split_whitespace().map(str::to_owned).collect();
        let mut want: Vec<String> = required.iter().map(|s| (*s).to_owned()).collect();
        let mut got = scopes.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{name}");
        // server-scope-challenge-upgraded-retry
        let full = [("authorization", "Bearer mcp-conformance-scope-full")];
        let r = send(&app, modern(json!(1), method, name, params, &full)).await;
        assert_eq!(r.status, StatusCode::OK, "{name}");
        let body = &r.messages[0];
        assert!(body.get("error").is_none(), "{name}: {body}");
        let result = &body["result"];
        assert_eq!(result["resultType"], "complete", "{name}");
        match method {
            "tools/call" => assert_eq!(result["content"][0]["type"], "text"),
            "prompts/get" => assert_eq!(result["messages"][0]["role"], "user"),
            _ => {
                let content = &result["contents"][0];
                assert_eq!(content["uri"], name);
                let text = content["text"].as_str().unwrap_or_default();
                assert!(!name.contains("123") || text.contains("123"), "{text}");
                assert!(
                    result.get("ttlMs").is_some() && result.get("cacheScope").is_some(),
                    "{result}"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_default_instance_serves_the_same_fixtures_to_anyone() {
    let app = router(&Fixtures::default(), true);
    let r = send(
        &app,
        modern(
            json!(1),
            "tools/call",
            "test_simple_text",
            json!({"name": "test_simple_text"}),
            &[],
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.messages[0]["result"]["content"][0]["type"], "text");
}

/// The progress notifications among `messages` before the response with `id`, and
/// whether anything followed the response.
fn progress_until(messages: &[Value], id: &Value) -> (Vec<Value>, bool) {
    let end = messages
        .iter()
        .position(|m| &m["id"] == id && m.get("method").is_none());
    let end = end.expect("a response");
    let progress = messages[..end]
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"].clone())
        .collect();
    (progress, end + 1 < messages.len())
}

fn assert_strictly_increasing(progress: &[Value], token: &str) {
    assert!(progress.len() >= 2, "{progress:?}");
    for pair in progress.windows(2) {
        let (a, b) = (pair[0]["progress"].as_f64(), pair[1]["progress"].as_f64());
        assert!(a < b, "progress must increase: {progress:?}");
    }
    for p in progress {
        assert_eq!(p["progressToken"], token);
        if let (Some(v), Some(total)) = (p["progress"].as_f64(), p["total"].as_f64()) {
            assert!(v <= total, "{p}");
        }
    }
}

#[tokio::test]
async fn progress_increases_carries_the_token_and_stops_at_the_result_in_the_2026_era() {
    let app = router(&Fixtures::default(), false);
    let call = |meta: Value| {
        modern(
            json!(5),
            "tools/call",
            "test_tool_with_progress",
            json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": meta}),
            &[],
        )
    };
    let r = send(
        &app,
        call(json!({"progressToken": "unique-token-match-test-42"})),
    )
    .await;
    let (progress, after) = progress_until(&r.messages, &json!(5));
    assert_strictly_increasing(&progress, "unique-token-match-test-42");
    assert!(!after, "nothing after the result");
    let r = send(&app, call(json!({}))).await;
    let (progress, after) = progress_until(&r.messages, &json!(5));
    assert!(
        progress.is_empty() && !after,
        "no token, no progress: {:?}",
        r.messages
    );
}

/// A 2025-11-25 session on `app`: its id.
async fn session(app: &axum::Router) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "conformance-test-client", "version": "1.0.0"},
    }});
    let r = send(app, post(&init, &[])).await;
    assert_eq!(r.status, StatusCode::OK);
    let id = r
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session")
        .to_owned();
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    send(
        app,
        post(
            &done,
            &[
                ("mcp-session-id", &id),
                ("mcp-protocol-version", "2025-11-25"),
            ],
        ),
    )
    .await;
    id
}

fn on(session: &str) -> [(&str, &str); 2] {
    [
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25"),
    ]
}

#[tokio::test]
async fn progress_increases_and_stops_at_the_result_on_a_2025_session() {
    let app = router(&Fixtures::default(), false);
    let s = session(&app).await;
    let call = |meta: Value| {
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": meta}})
    };
    let r = send(
        &app,
        post(
            &call(json!({"progressToken": "cessation-test-token"})),
            &on(&s),
        ),
    )
    .await;
    let (progress, after) = progress_until(&r.messages, &json!(9));
    assert_strictly_increasing(&progress, "cessation-test-token");
    assert!(!after);
    let r = send(&app, post(&call(json!({})), &on(&s))).await;
    let (progress, _) = progress_until(&r.messages, &json!(9));
    assert!(progress.is_empty(), "{:?}", r.messages);
}

#[tokio::test]
async fn a_cancelled_slow_tool_stops_and_the_server_keeps_answering() {
    let app = router(&Fixtures::default(), false);
    let s = session(&app).await;
    let slow = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "test_tool_slow", "arguments": {"durationMs": 600000}}});
    let running = tokio::spawn({
        let (app, s) = (app.clone(), s.clone());
        async move { send(&app, post(&slow, &on(&s))).await }
    });
    // The burst of cancellations of requests that do not exist changes nothing.
    for i in 0..5 {
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": format!("burst-cancel-{i}"), "reason": "burst"}});
        let r = send(&app, post(&cancel, &on(&s))).await;
        assert_eq!(r.status, StatusCode::ACCEPTED);
    }
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "conformance"}});
    // Until the slow call is running, a cancellation may find nothing: sent until it ends.
    let ended = tracksuit_tests::support::wait_for("the slow call to end", || {
        let (app, s, cancel) = (app.clone(), s.clone(), cancel.clone());
        let done = running.is_finished();
        async move {
            if done {
                return Some(());
            }
            send(&app, post(&cancel, &on(&s))).await;
            None
        }
    });
    ended.await;
    let slow = within("the cancelled call", running).await.expect("joined");
    assert!(
        !slow
            .messages
            .iter()
            .any(|m| m["id"] == 1 && m.get("result").is_some()),
        "a cancelled call sends no result: {:?}",
        slow.messages
    );
    let fast = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_tool_fast", "arguments": {}}});
    let r = send(&app, post(&fast, &on(&s))).await;
    assert!(
        r.messages
            .iter()
            .any(|m| m["id"] == 2 && m["result"]["content"][0]["text"] == "fast"),
        "{:?}",
        r.messages
    );
}

/// The checks of `json-rpc-batch-rejection`: 4xx, one JSON object with a numeric error code
/// (and the one tracksuit sends: 400, `-32600`, `id: null`).
fn assert_batch_rejected(r: &Reply) {
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        r.headers
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"application/json")),
        "{:?}",
        r.headers
    );
    assert_eq!(r.messages.len(), 1, "{:?}", r.messages);
    let body = &r.messages[0];
    assert!(body.is_object(), "{body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert_eq!(body["id"], Value::Null);
    assert!(body.get("result").is_none());
}

#[tokio::test]
async fn a_batch_is_400_with_one_invalid_request_error_in_both_eras() {
    let app = router(&Fixtures::default(), false);
    let s = session(&app).await;
    let pings = json!([
        {"jsonrpc": "2.0", "id": 901, "method": "ping", "params": {}},
        {"jsonrpc": "2.0", "id": 902, "method": "ping", "params": {}},
    ]);
    let mut headers = on(&s).to_vec();
    headers.push(("mcp-method", "ping"));
    assert_batch_rejected(&send(&app, post(&pings, &headers)).await);
    let meta = json!({"_meta": {META_2026: "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}}});
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": meta},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": meta},
    ]);
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    assert_batch_rejected(&send(&app, post(&batch, &headers)).await);
}

#[tokio::test]
async fn an_invalid_log_level_is_invalid_params() {
    let app = router(&Fixtures::default(), true);
    let params = json!({"name": "test_tool_fast", "arguments": {},
        "_meta": {"io.modelcontextprotocol/logLevel": "banana"}});
    let r = send(
        &app,
        modern(json!(3), "tools/call", "test_tool_fast", params, &[]),
    )
    .await;
    assert_eq!(r.messages[0]["error"]["code"], -32602, "{:?}", r.messages);
}

#[tokio::test]
async fn a_subscription_the_server_ends_gets_its_completion_result() {
    let (app, server) = serving(&Fixtures::default(), false);
    let params = json!({"notifications": {"toolsListChanged": true}});
    let listen = modern(json!(41), "subscriptions/listen", "", params, &[]);
    let resp = within("the listen response", app.clone().oneshot(listen))
        .await
        .expect("infallible");
    assert_eq!(resp.status(), StatusCode::OK);
    let mut body = resp.into_body().into_data_stream();
    // The acknowledgement first: the subscription is open.
    let mut text = String::new();
    while !text.contains("notifications/subscriptions/acknowledged") {
        let chunk = within("the acknowledgement", futures::StreamExt::next(&mut body))
            .await
            .expect("a chunk")
            .expect("bytes");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    server.end_subscriptions();
    let rest = within(
        "the stream's end",
        axum::body::to_bytes(axum::body::Body::from_stream(body), 1 << 20),
    )
    .await
    .expect("body");
    text.push_str(&String::from_utf8_lossy(&rest));
    let messages: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect();
    let last = messages.last().expect("messages");
    assert_eq!(last["id"], 41, "{messages:?}");
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 41,
        "{last}"
    );
}
