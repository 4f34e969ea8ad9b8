//! A small MCP server on stdio, spawned as a child process by `tests/client_http.rs`
//! (`ChildTransport`): `hello` answers at once, `ask` lists the client's roots, `ask_task`
//! (a task when asked, in either era) asks the client's model.

use serde_json::json;
use tracksuit::protocol::*;
use tracksuit::{Server, ToolFn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let object = || match json!({"type": "object"}) {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let options =
        tracksuit::ServerOptions::default().tasks(tracksuit::task::TaskOptions::default());
    let server = Server::with_options(Implementation::new("stdio-child", "1"), options)
        .tool(ToolFn::new(Tool::new("hello", object()), |_ctx, _| async {
            Ok(CallToolResult::text("hello"))
        }))
        .tool(ToolFn::new(
            Tool::new("ask", object()),
            |ctx, _| async move {
                let roots = ctx.list_roots().await?;
                Ok(CallToolResult::text(format!("{} roots", roots.roots.len())))
            },
        ))
        .tool(ToolFn::new(
            {
                // Runs as a task when asked (either era) and asks the client's model.
                let mut tool = Tool::new("ask_task", object());
                tool.execution = Some(ToolExecution {
                    task_support: Some(TaskSupport::Optional),
                });
                tool
            },
            |ctx, _| async move {
                let reply = ctx
                    .create_message(CreateMessageRequestParams {
                        messages: vec![SamplingMessage::user_text("a word?")],
                        max_tokens: 5,
                        ..Default::default()
                    })
                    .await?;
                let text: String = reply
                    .content
                    .iter()
                    .filter_map(SamplingMessageContentBlock::as_text)
                    .collect();
                Ok(CallToolResult::text(format!("model said {text}")))
            },
        ))
        .build()
        .map_err(std::io::Error::other)?;
    server.serve_stdio().await
}
