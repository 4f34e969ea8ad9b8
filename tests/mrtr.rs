//! Helpers for driving MCP 2026-07-28 multi round-trip calls through the Streamable HTTP
//! router as a tower service (shared by the tests that include this file).
#![allow(dead_code)]

use axum::body::Body;
use axum::http::{Request, Response, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;
use tracksuit::StateKeys;
use tracksuit_tests::support::within;

/// State keys from a 32-byte secret of distinct bytes, different for each `byte`.
pub fn keys(byte: u8) -> StateKeys {
    let secret: [u8; 32] = std::array::from_fn(|i| byte ^ (i as u8).wrapping_mul(37));
    StateKeys::from_secret(&secret).expect("a 32-byte secret")
}

/// A modern `tools/call` of `name` with `extra` params merged in (`inputResponses`,
/// `requestState`), its headers mirroring the body.
pub fn call(id: i64, name: &str, arguments: Value, extra: Value) -> Request<Body> {
    let mut params = json!({
        "name": name,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {"form": {}, "url": {}},
                "sampling": {},
            },
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        },
    });
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(Body::from(body.to_string()))
        .expect("request")
}

pub async fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, Value) {
    let resp: Response<Body> = within("the response", app.clone().oneshot(req))
        .await
        .expect("infallible");
    let status = resp.status();
    let bytes = within("the body", axum::body::to_bytes(resp.into_body(), 1 << 22))
        .await
        .expect("body");
    (status, serde_json::from_slice(&bytes).expect("a JSON body"))
}

/// The single input request of an `input_required` result: its key, message and the state.
pub fn asked(v: &Value) -> (String, String, String) {
    let result = &v["result"];
    assert_eq!(result["resultType"], "input_required", "{v}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{v}");
    let (key, request) = requests.iter().next().expect("one request");
    let message = request["params"]["message"].as_str().unwrap_or_default();
    let state = result["requestState"].as_str().expect("requestState");
    (key.clone(), message.to_owned(), state.to_owned())
}

pub fn word(w: &str) -> Value {
    json!({"action": "accept", "content": {"word": w}})
}
