use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_server};

struct Library;

#[mcp_server]
impl Library {
    /// Counts.
    #[mcp_tool(client = Self::ask, after = finsh)] // did you mean `finish`?
    async fn count(&self, _ctx: &PhaseCtx) -> Result<u32, ToolError> {
        Ok(1)
    }

    async fn ask(&self, n: &u32, _ctx: &Ctx) -> Result<u32, ToolError> {
        Ok(*n)
    }

    async fn finish(&self, n: u32, out: u32, _ctx: &PhaseCtx) -> String {
        format!("{n} {out}")
    }
}

fn main() {}
