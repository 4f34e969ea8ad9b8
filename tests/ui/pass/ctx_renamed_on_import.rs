use tracksuit::{Ctx as McpCtx, ToolError, mcp_tool};

/// Logs, then answers: the context is imported under another name.
#[mcp_tool]
async fn greet(ctx: &McpCtx, name: String) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!("hello {name}"))
}

fn main() {}
