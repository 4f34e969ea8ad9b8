use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_server};

struct Library;

#[mcp_server]
impl Library {
    /// Counts: a `client` phase, but no `after`.
    #[mcp_tool(client = ask)]
    async fn count(&self, _ctx: &PhaseCtx) -> Result<u32, ToolError> {
        Ok(1)
    }

    async fn ask(&self, n: &u32, _ctx: &Ctx) -> Result<u32, ToolError> {
        Ok(*n)
    }
}

fn main() {}
