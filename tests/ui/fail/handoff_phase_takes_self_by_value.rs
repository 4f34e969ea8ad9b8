use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_server};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    n: u32,
}

struct Library;

#[mcp_server]
impl Library {
    /// Counts.
    #[mcp_tool(client = ask, after = finish)]
    async fn count(&self, start: Start, _ctx: &PhaseCtx) -> Result<u32, ToolError> {
        Ok(start.n)
    }

    async fn ask(&self, n: &u32, _ctx: &Ctx) -> Result<u32, ToolError> {
        Ok(*n)
    }

    // `after` owns the server: it would be moved out of the `Arc` every call shares.
    async fn finish(self, n: u32, out: u32, _ctx: &PhaseCtx) -> String {
        format!("{n} {out}")
    }
}

fn main() {}
