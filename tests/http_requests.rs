//! Raw Streamable HTTP requests through the axum `Router` as a tower service, shared by
//! the tests that include this file (`#[path]`).
#![allow(dead_code)]

use axum::body::Body;
use axum::http::{Request, Response, StatusCode};
use futures::StreamExt;
use serde_json::{Value, json};
use tower::ServiceExt;
use tracksuit_tests::support::within;

pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

pub fn post(body: &str, session: Option<&str>) -> Request<Body> {
    let mut b = Request::post("/mcp")
        .header("host", "localhost:8001")
        .header("content-type", "application/json")
        .header("accept", ACCEPT_BOTH);
    if let Some(s) = session {
        b = b.header("mcp-session-id", s);
    }
    b.body(Body::from(body.to_owned())).expect("request")
}

pub fn init_body() -> String {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}).to_string()
}

pub async fn send(app: &axum::Router, req: Request<Body>) -> Response<Body> {
    app.clone().oneshot(req).await.expect("infallible")
}

/// The whole body, once the server ends it; fails naming `what` if it does not.
pub async fn body_to_end(resp: Response<Body>, what: &str) -> String {
    let body = within(what, axum::body::to_bytes(resp.into_body(), 1 << 20))
        .await
        .expect("body");
    String::from_utf8_lossy(&body).into_owned()
}

pub async fn body_json(resp: Response<Body>) -> Value {
    let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20)
        .await
        .expect("body");
    serde_json::from_slice(&bytes).expect("json body")
}

/// Reads SSE events (id, data) until the stream ends or `n` data events arrived (failing if
/// the stream stays open without the next one).
pub async fn sse_events(resp: Response<Body>, n: usize) -> Vec<(String, String)> {
    let mut stream = resp.into_body().into_data_stream();
    let mut buf = String::new();
    let mut events = Vec::new();
    while events
        .iter()
        .filter(|(_, d): &&(String, String)| !d.is_empty())
        .count()
        < n
    {
        let Some(chunk) = within("an SSE event arrives", stream.next()).await else {
            break;
        };
        buf.push_str(&String::from_utf8_lossy(&chunk.expect("chunk")));
        while let Some(end) = buf.find("\n\n") {
            let raw: String = buf.drain(..end + 2).collect();
            let mut id = String::new();
            let mut data = String::new();
            for line in raw.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data.push_str(v);
                }
            }
            events.push((id, data));
        }
    }
    events
}

pub async fn initialize(app: &axum::Router) -> String {
    let resp = send(app, post(&init_body(), None)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let session = resp.headers()["mcp-session-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(session.len() >= 32 && session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let events = sse_events(resp, 1).await;
    assert_eq!(events[0].1, "", "the first event primes the stream");
    assert!(events[0].0.ends_with("-0"));
    let result: Value = serde_json::from_str(&events[1].1).expect("json");
    assert_eq!(result["result"]["protocolVersion"], "2025-11-25");
    let note = post(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        Some(&session),
    );
    assert_eq!(send(app, note).await.status(), StatusCode::ACCEPTED);
    session
}

/// `DELETE` of `session`.
pub fn delete(session: &str) -> Request<Body> {
    Request::delete("/mcp")
        .header("host", "localhost")
        .header("mcp-session-id", session)
        .body(Body::empty())
        .expect("req")
}
