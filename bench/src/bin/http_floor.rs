//! The HTTP floor of the MCP 2026-07-28 rows: not an MCP server, but the least any Rust
//! server on the same stack (tokio, hyper, axum, serde_json) must do to answer the
//! driver's sessionless `echo` and `add` calls — read the body, parse it, write a
//! `resultType: "complete"` result with `serverInfo` — and nothing else: no header or
//! `_meta` checks, no capabilities, no tool registry, no schemas. What a framework spends
//! per call above this floor is the part of a 1-client round trip it can influence.
//!
//! `--port N` (Streamable HTTP on `/mcp`, TCP_NODELAY like the twins).

use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::post;
use clap::Parser;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = 9104)]
    port: u16,
}

/// The part of a `tools/call` request the floor reads.
#[derive(Deserialize)]
struct Call {
    id: Value,
    params: Params,
}

#[derive(Deserialize)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Value,
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let app = axum::Router::new().route("/mcp", post(answer));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
        let listener = axum::serve::ListenerExt::tap_io(listener, |socket| {
            let _ = socket.set_nodelay(true);
        });
        axum::serve(listener, app).await
    })
}

async fn answer(body: Bytes) -> axum::response::Response {
    let Ok(call) = serde_json::from_slice::<Call>(&body) else {
        return (axum::http::StatusCode::BAD_REQUEST, "not a tools/call").into_response();
    };
    let args = &call.params.arguments;
    let result = match call.params.name.as_str() {
        "echo" => json!({
            "content": [{"type": "text", "text": args["text"].as_str().unwrap_or_default()}],
        }),
        "add" => {
            let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
            json!({
                "content": [{"type": "text", "text": json!({"sum": sum}).to_string()}],
                "structuredContent": {"sum": sum},
            })
        }
        _ => return (axum::http::StatusCode::NOT_FOUND, "no such tool").into_response(),
    };
    let mut result = result;
    result["resultType"] = "complete".into();
    result["_meta"] = json!({
        "io.modelcontextprotocol/serverInfo": {"name": "http-floor", "version": "0.1.0"}
    });
    let response = json!({"jsonrpc": "2.0", "id": call.id, "result": result});
    (
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::to_vec(&response).unwrap_or_default(),
    )
        .into_response()
}
