use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    n: u32,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    n: u32,
}

/// `before` takes `&mut self`: one value serves every call at once.
struct Flow;

#[mcp_tool]
impl Flow {
    async fn before(&mut self, start: Start, _ctx: &PhaseCtx) -> Result<State, ToolError> {
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
