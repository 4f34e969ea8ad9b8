use tracksuit::{Ctx as McpCtx, mcp_resource};

/// A resource cannot tell a renamed context taken by value from a template variable.
#[mcp_resource(uri = "notes://{id}")]
async fn note(id: u64, ctx: McpCtx) -> String {
    let _ = ctx;
    id.to_string()
}

fn main() {}
