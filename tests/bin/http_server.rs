//! A small MCP server on Streamable HTTP for tests that need a process of its own (a low
//! `ulimit -n`, say): `tests/connections.rs`. Prints `port <N>` on stdout once listening.
//!
//! `http_server [header_read_timeout_ms] [request_body_timeout_ms] [max_connections]`

use std::time::Duration;
use tracksuit::host::http::{HttpOptions, StreamableHttp, serve_with};
use tracksuit::protocol::*;
use tracksuit::{Server, ToolFn};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap_or(0))
        .collect();
    let mut options = HttpOptions::default();
    if let Some(&ms) = args.first() {
        options = options.header_read_timeout(Duration::from_millis(ms));
    }
    if let Some(&ms) = args.get(1) {
        options = options.request_body_timeout(Duration::from_millis(ms));
    }
    if let Some(&max) = args.get(2).filter(|m| **m > 0) {
        options = options.max_connections(Some(max as usize));
    }
    let object = match serde_json::json!({"type": "object"}) {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let server = Server::new(Implementation::new("http-server", "1"))
        .tool(ToolFn::new(Tool::new("hello", object), |_ctx, _| async {
            Ok(CallToolResult::text("hello"))
        }))
        .build()
        .map_err(std::io::Error::other)?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("port {}", listener.local_addr()?.port());
    let app = StreamableHttp::new(server, options.clone()).router("/mcp");
    serve_with(listener, app, &options).await
}
