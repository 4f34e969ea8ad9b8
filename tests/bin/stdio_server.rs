//! A small MCP server on stdio, spawned as a child process by `tests/client_http.rs`
//! (`ChildTransport`): `hello` answers at once, `ask` lists the client's roots.

use serde_json::json;
use tracksuit::protocol::*;
use tracksuit::{Server, ToolFn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let object = || match json!({"type": "object"}) {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let server = Server::new(Implementation::new("stdio-child", "1"))
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
        .build()
        .map_err(std::io::Error::other)?;
    server.serve_stdio().await
}
