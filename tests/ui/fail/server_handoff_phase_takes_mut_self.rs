use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_server};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    n: u32,
}

struct Library {
    asked: u32,
}

#[mcp_server]
impl Library {
    /// Counts.
    #[mcp_tool(client = ask, after = finish)]
    async fn count(&self, start: Start, _ctx: &PhaseCtx) -> Result<u32, ToolError> {
        Ok(start.n)
    }

    // `&mut self`: calls run at once, so the server is shared, never borrowed mutably.
    async fn ask(&mut self, n: &u32, _ctx: &Ctx) -> Result<u32, ToolError> {
        self.asked += 1;
        Ok(*n)
    }

    async fn finish(&self, n: u32, out: u32, _ctx: &PhaseCtx) -> String {
        format!("{n} {out}")
    }
}

fn main() {}
