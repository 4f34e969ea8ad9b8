//! A 2026-07-28 request without its per-request protocol fields: the spec requires
//! `-32602` with HTTP 400 (basic/index.mdx, "per-request protocol fields"), whether `_meta`
//! lacks `protocolVersion` or is missing altogether. Before, such a request (its
//! `MCP-Protocol-Version: 2026-07-28` header notwithstanding) went the 2025-11-25 way and
//! got `-32600` for having no session.

#[path = "http_requests.rs"]
mod http_requests;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_requests::{ACCEPT_BOTH, body_json, send};
use serde_json::{Value, json};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::{Server, mcp_tool};

/// Echoes.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

fn app() -> axum::Router {
    let server = Server::new(tracksuit::crate_info!())
        .tool(echo)
        .build()
        .expect("builds");
    StreamableHttp::new(server, HttpOptions::default()).router("/mcp")
}

fn modern_post(params: Value) -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", ACCEPT_BOTH)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .body(Body::from(body.to_string()))
        .expect("request")
}

#[tokio::test]
async fn a_request_without_its_protocol_version_in_meta_is_400_invalid_params() {
    let app = app();
    let info = json!({"name": "t", "version": "1"});
    for params in [
        json!({"name": "echo", "arguments": {"text": "hi"}}),
        json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": {
            "io.modelcontextprotocol/clientInfo": info,
            "io.modelcontextprotocol/clientCapabilities": {},
        }}),
    ] {
        let resp = send(&app, modern_post(params.clone())).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{params}");
        let body = body_json(resp).await;
        assert_eq!(body["error"]["code"], -32602, "{body}");
        assert_eq!(body["id"], 7);
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("_meta")),
            "the message names what is missing: {body}"
        );
    }
    // With the field, the same request is served.
    let params = json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": info,
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    let resp = send(&app, modern_post(params)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(body_json(resp).await["result"]["content"][0]["text"], "hi");
}
