use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_tool};

/// Not `JsonSchema`: it cannot be the tool's input.
#[derive(serde::Deserialize)]
struct Start {
    n: u32,
}

struct Flow;

#[mcp_tool]
impl Flow {
    async fn before(start: Start, _ctx: &PhaseCtx) -> Result<u32, ToolError> {
        Ok(start.n)
    }

    async fn client(state: &u32, _ctx: &Ctx) -> Result<u32, ToolError> {
        Ok(*state)
    }

    async fn after(state: u32, out: u32, _ctx: &PhaseCtx) -> String {
        format!("{state} {out}")
    }
}

fn main() {}
