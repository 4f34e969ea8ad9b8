//! A resource borrows the context under another name.
use tracksuit::{Ctx as McpCtx, Server, mcp_resource};

/// A note by id.
#[mcp_resource(uri = "notes://{id}")]
async fn note(id: u64, ctx: &McpCtx) -> String {
    let _ = ctx;
    id.to_string()
}

fn main() {
    let _ = Server::new(tracksuit::crate_info!()).resource_template(note);
}
