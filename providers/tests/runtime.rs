//! The bridge under tracksuit's typed sampling, end to end in process: a server's
//! `sample_schema::<Cell>()` and `sample_tools()` go through a tracksuit client whose
//! sampling handler is the bridge, over HTTP to a loopback endpoint answering in each
//! provider's documented shape. Pins that native structured output, the JSON-schema choice
//! and the forced Anthropic tool all come back as what the runtime expects (a validated `T`,
//! tool calls).

use axum::Json;
use axum::routing::post;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tracksuit::client::Client;
use tracksuit::host::connect_in_memory;
use tracksuit::protocol::{Implementation, Tool};
use tracksuit::{Ctx, Server, ToolError, mcp_tool};
use tracksuit_providers::{Anthropic, OpenAi, ToolMode, handler};

/// A board cell.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Cell {
    /// Row, 0 to 2
    #[schemars(range(max = 2))]
    row: u8,
    /// Column, 0 to 2
    #[schemars(range(max = 2))]
    col: u8,
}

/// Asks for a structured move.
#[mcp_tool]
async fn structured(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx.sample_schema::<Cell>().prompt("Your move").await?;
    Ok(format!("{},{}", out.parsed.row, out.parsed.col))
}

/// Asks the model to pick a side with a tool.
#[mcp_tool]
async fn pick(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx
        .sample_tools()
        .prompt("Pick a side")
        .tool(Tool::new("left", Default::default()))
        .tool(Tool::new("right", Default::default()))
        .await?;
    Ok(out
        .parsed
        .iter()
        .map(|c| c.name.clone())
        .collect::<Vec<_>>()
        .join(","))
}

type Bodies = Arc<Mutex<Vec<Value>>>;

/// Answers like llama.cpp / OpenAI with structured output, and like Anthropic with a tool.
async fn endpoint() -> (String, Bodies) {
    let bodies: Bodies = Arc::default();
    let (a, b) = (bodies.clone(), bodies.clone());
    let app = axum::Router::new()
        .route(
            "/v1/chat/completions",
            post(move |Json(body): Json<Value>| async move {
                a.lock().unwrap().push(body.clone());
                let schema = &body["response_format"]["json_schema"]["schema"];
                let content = if schema.get("anyOf").is_some() {
                    json!({"tool": "right", "arguments": {}}).to_string()
                } else {
                    "{ \"row\": 2, \"col\": 0 }".to_owned()
                };
                Json(json!({
                    "id": "chatcmpl-1", "object": "chat.completion", "model": "local",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28}
                }))
            }),
        )
        .route(
            "/v1/messages",
            post(move |Json(body): Json<Value>| async move {
                b.lock().unwrap().push(body.clone());
                let name = body["tool_choice"]["name"].as_str().unwrap_or("left").to_owned();
                let input = if name == "__schema__" { json!({"row": 1, "col": 1}) } else { json!({}) };
                Json(json!({
                    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                    "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": input}],
                    "stop_reason": "tool_use", "usage": {"input_tokens": 20, "output_tokens": 8}
                }))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), bodies)
}

fn server() -> tracksuit::ServerHandle {
    Server::new(Implementation::new("bridge-test", "1.0.0"))
        .tool(structured)
        .tool(pick)
        .build()
        .unwrap()
}

fn text(r: &tracksuit::protocol::CallToolResult) -> String {
    assert_ne!(r.is_error, Some(true), "{r:?}");
    r.content
        .iter()
        .find_map(|c| c.as_text())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn openai_structured_output_and_json_choice_satisfy_sample_schema_and_sample_tools() {
    let (base, bodies) = endpoint().await;
    let model = OpenAi::builder()
        .base_url(format!("{base}/v1"))
        .model("local")
        .tool_mode(ToolMode::JsonChoice)
        .build()
        .unwrap();
    let client = connect_in_memory(server(), Client::builder().on_sampling(handler(model)))
        .await
        .unwrap();
    let moved = client.call_tool("structured", json!({})).await.unwrap();
    assert_eq!(text(&moved), "2,0");
    let picked = client.call_tool("pick", json!({})).await.unwrap();
    assert_eq!(text(&picked), "right");
    let bodies = bodies.lock().unwrap();
    assert_eq!(bodies.len(), 2, "one model call each, no re-asks");
    let schema = &bodies[0]["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["properties"]["row"]["maximum"], 2, "{schema}");
    assert!(bodies[0].get("tools").is_none());
    let choice = &bodies[1]["response_format"]["json_schema"]["schema"]["anyOf"];
    assert_eq!(
        choice.as_array().map(|b| b
            .iter()
            .map(|x| x["properties"]["tool"]["const"].clone())
            .collect::<Vec<_>>()),
        Some(vec![json!("left"), json!("right")]),
        "sample_tools asks for a tool: no text branch"
    );
}

#[tokio::test]
async fn anthropic_forced_tool_satisfies_sample_schema_and_any_satisfies_sample_tools() {
    let (base, bodies) = endpoint().await;
    let model = Anthropic::builder()
        .base_url(&base)
        .model("claude-test")
        .build()
        .unwrap();
    let client = connect_in_memory(server(), Client::builder().on_sampling(handler(model)))
        .await
        .unwrap();
    let moved = client.call_tool("structured", json!({})).await.unwrap();
    assert_eq!(text(&moved), "1,1");
    let picked = client.call_tool("pick", json!({})).await.unwrap();
    assert_eq!(text(&picked), "left");
    let bodies = bodies.lock().unwrap();
    assert_eq!(
        bodies[0]["tool_choice"],
        json!({"type": "tool", "name": "__schema__", "disable_parallel_tool_use": true})
    );
    assert_eq!(bodies[1]["tool_choice"], json!({"type": "any"}));
}
