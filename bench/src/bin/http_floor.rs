//! The HTTP floor of the MCP 2026-07-28 rows: not an MCP server, but the least any Rust
//! server on the same stack (tokio, hyper, axum, serde_json) must do to answer the
//! driver's sessionless `echo`, `add` and `three_rounds` calls — read the body, parse it,
//! write the result with `resultType` and `serverInfo` — and nothing else: no header or
//! `_meta` checks, no capabilities, no tool registry, no schemas, and for `three_rounds`
//! a `requestState` that is the answers so far in plain JSON (not sealed, not bound, not
//! checked). What a framework spends per call above this floor is the part of a 1-client
//! round trip it can influence.
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
#[serde(rename_all = "camelCase")]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Value,
    #[serde(default)]
    input_responses: serde_json::Map<String, Value>,
    request_state: Option<String>,
}

/// The questions `three_rounds` asks, in order (as the twins do).
const QUESTIONS: [&str; 3] = ["First?", "Second?", "Third?"];

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
        "three_rounds" => three_rounds(&call.params),
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
    if result.get("resultType").is_none() {
        result["resultType"] = "complete".into();
    }
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

/// One round of `three_rounds`: the answers so far travel in `requestState` as a JSON
/// list; the next question goes out until there are three answers.
fn three_rounds(params: &Params) -> Value {
    let mut answers: Vec<String> = params
        .request_state
        .as_deref()
        .and_then(|state| serde_json::from_str(state).ok())
        .unwrap_or_default();
    for response in params.input_responses.values() {
        let answer = response["content"]["answer"].as_str().unwrap_or_default();
        answers.push(answer.to_owned());
    }
    let Some(question) = QUESTIONS.get(answers.len()) else {
        return json!({"content": [{"type": "text", "text": answers.join(", ")}]});
    };
    json!({
        "resultType": "input_required",
        "inputRequests": {
            format!("q{}", answers.len()): {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": question,
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"answer": {"type": "string", "description": "The answer"}},
                        "required": ["answer"],
                    },
                },
            },
        },
        "requestState": serde_json::to_string(&answers).unwrap_or_default(),
    })
}
