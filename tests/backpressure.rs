//! Backpressure: a client that stops reading stalls its own session's senders
//! (`ctx.log(..).await` waits) instead of growing the server's memory, and other sessions
//! keep being served. Over a line transport and over Streamable HTTP.
//!
//! The tests run on paused time: `quiesce` sleeps on the paused clock, which only moves
//! once every task is idle, so when it returns the flooding tool is either finished (an
//! unbounded queue) or blocked on a full one — no wall-clock guess involved.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures::StreamExt;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tower::ServiceExt;
use tracksuit::client::Client;
use tracksuit::host::connect_in_memory;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::transport::io::LineTransport;
use tracksuit::{Server, ServerHandle, ServerOptions, ToolFn};

/// Messages a session may queue (set low so the bound is easy to see).
const QUEUE: usize = 8;
/// Log lines the flooding tool sends.
const TOTAL: usize = 2_000;
/// Bytes of padding per log line.
const PAD: usize = 200;

fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// A server whose `flood` tool logs `TOTAL` lines, counting each one `ctx.log` accepted,
/// and whose `add` tool answers at once.
fn server(sent: Arc<AtomicUsize>) -> ServerHandle {
    let options = ServerOptions::default().outbound_queue(QUEUE);
    Server::with_options(Implementation::new("backpressure", "1"), options)
        .tool(ToolFn::new(
            Tool::new("flood", obj(json!({"type":"object"}))),
            move |ctx, _| {
                let sent = sent.clone();
                async move {
                    let pad = "x".repeat(PAD);
                    for i in 0..TOTAL {
                        ctx.log(LoggingLevel::Info, format!("line {i} {pad}")).await;
                        sent.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(CallToolResult::text("done"))
                }
            },
        ))
        .tool(ToolFn::new(
            Tool::new("add", obj(json!({"type":"object"}))),
            |_, args| async move {
                let n = |k: &str| args.get(k).and_then(Value::as_i64).unwrap_or(0);
                Ok(CallToolResult::text((n("a") + n("b")).to_string()))
            },
        ))
        .build()
        .expect("distinct names")
}

/// Returns once every task is idle: the paused clock only advances then.
async fn quiesce() {
    tokio::time::sleep(Duration::from_secs(3600)).await;
}

/// Another session makes calls while the first is stalled; each must be answered, and
/// promptly (real time: generous, the point is that none waits on the stalled session).
async fn other_session_is_served(server: ServerHandle) {
    let client = connect_in_memory(server, Client::builder())
        .await
        .expect("second session connects");
    for i in 0..50 {
        let started = Instant::now();
        let result = client
            .call_tool("add", json!({"a": i, "b": 1}))
            .await
            .expect("second session is served");
        assert_eq!(
            serde_json::to_value(&result.content).expect("json")[0]["text"],
            json!((i + 1).to_string())
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "a call on another session took {:?}",
            started.elapsed()
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_client_that_stops_reading_stalls_its_session_not_the_server_over_lines() {
    const PIPE: usize = 4096;
    let sent = Arc::new(AtomicUsize::new(0));
    let server = server(sent.clone());
    let (client_io, server_io) = tokio::io::duplex(PIPE);
    let (r, w) = tokio::io::split(server_io);
    tokio::spawn(server.clone().serve(LineTransport::new(r, w)));
    let (client_r, mut client_w) = tokio::io::split(client_io);
    let mut lines = BufReader::new(client_r).lines();
    let mut write = async |v: Value| {
        let mut line = v.to_string();
        line.push('\n');
        client_w.write_all(line.as_bytes()).await.expect("write");
    };
    write(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"slow","version":"1"}}})).await;
    let init: Value =
        serde_json::from_str(&lines.next_line().await.expect("read").expect("line")).expect("json");
    assert_eq!(init["id"], json!(1));
    write(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).await;
    write(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{}}})).await;

    // The client reads nothing now.
    quiesce().await;
    let stalled = sent.load(Ordering::SeqCst);
    // What can be in flight: the queue, the pipe and the line writer's buffer (8 KiB), and
    // one message in the driver's hands.
    let line = PAD + 100;
    let bound = QUEUE + (PIPE + 8 * 1024) / line + 2;
    assert!(
        stalled > 0 && stalled <= bound,
        "the tool got {stalled} log lines out to a client that reads nothing (bound {bound})"
    );

    other_session_is_served(server).await;
    quiesce().await;
    assert_eq!(
        sent.load(Ordering::SeqCst),
        stalled,
        "the stalled tool made progress without the client reading"
    );

    // The client reads again: every line arrives, in order, then the result.
    let mut logs = 0;
    loop {
        let line = lines.next_line().await.expect("read").expect("line");
        let v: Value = serde_json::from_str(&line).expect("json");
        if v.get("id") == Some(&json!(2)) {
            assert_eq!(v["result"]["content"][0]["text"], json!("done"));
            break;
        }
        assert_eq!(v["method"], json!("notifications/message"));
        assert!(
            v["params"]["data"]
                .as_str()
                .is_some_and(|d| d.starts_with(&format!("line {logs} "))),
            "log line {logs} out of order: {v}"
        );
        logs += 1;
    }
    assert_eq!(logs, TOTAL);
}

#[tokio::test(start_paused = true)]
async fn a_client_that_stops_reading_stalls_its_session_not_the_server_over_http() {
    let sent = Arc::new(AtomicUsize::new(0));
    let server = server(sent.clone());
    let app = StreamableHttp::new(server.clone(), HttpOptions::default()).router("/mcp");
    let post = |body: Value, session: Option<&str>| {
        let mut b = Request::post("/mcp")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(s) = session {
            b = b.header("mcp-session-id", s);
        }
        b.body(Body::from(body.to_string())).expect("request")
    };
    let init = app
        .clone()
        .oneshot(post(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"slow","version":"1"}}}), None))
        .await
        .expect("infallible");
    assert_eq!(init.status(), StatusCode::OK);
    let session = init.headers()["mcp-session-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    drop(init);
    let call = app
        .clone()
        .oneshot(post(
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{}}}),
            Some(&session),
        ))
        .await
        .expect("infallible");
    assert_eq!(call.status(), StatusCode::OK);

    // The SSE body is not read.
    quiesce().await;
    let stalled = sent.load(Ordering::SeqCst);
    // The queue, the connection's channel (32 chunks) and the first chunk the response
    // took with it, and one message in the driver's hands.
    let bound = QUEUE + 2 * 32 + 2;
    assert!(
        stalled > 0 && stalled <= bound,
        "the tool got {stalled} log lines out to a stream nobody reads (bound {bound})"
    );

    other_session_is_served(server).await;
    quiesce().await;
    assert_eq!(sent.load(Ordering::SeqCst), stalled);

    // Reading the stream lets the tool finish: every log line, then the result.
    let mut body = call.into_body().into_data_stream();
    let mut text = String::new();
    while let Some(chunk) = body.next().await {
        text.push_str(&String::from_utf8_lossy(&chunk.expect("chunk")));
    }
    let data: Vec<Value> = text
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
        .filter(|d| !d.is_empty())
        .map(|d| serde_json::from_str(d).expect("json event"))
        .collect();
    assert_eq!(data.len(), TOTAL + 1, "every log line and the result");
    assert_eq!(data[TOTAL]["result"]["content"][0]["text"], json!("done"));
    assert_eq!(sent.load(Ordering::SeqCst), TOTAL);
}
