use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    n: u32,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    n: u32,
}

/// `before` tries to sample: only `client` can.
struct Flow;

#[mcp_tool]
impl Flow {
    async fn before(start: Start, ctx: &PhaseCtx) -> Result<State, ToolError> {
        let _ = ctx.sample();
        Ok(State { n: start.n })
    }

    async fn client(state: &State, _ctx: &Ctx) -> Result<u32, ToolError> {
        Ok(state.n)
    }

    async fn after(state: State, out: u32, _ctx: &PhaseCtx) -> String {
        format!("{} {out}", state.n)
    }
}

fn main() {}
