use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    n: u32,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    n: u32,
}

/// Not `Serialize`: `client`'s output is kept between rounds too.
#[derive(serde::Deserialize)]
struct Out {
    n: u32,
}

struct Flow;

#[mcp_tool]
impl Flow {
    async fn before(start: Start, _ctx: &PhaseCtx) -> Result<State, ToolError> {
        Ok(State { n: start.n })
    }

    async fn client(state: &State, _ctx: &Ctx) -> Result<Out, ToolError> {
        Ok(Out { n: state.n })
    }

    async fn after(state: State, out: Out, _ctx: &PhaseCtx) -> String {
        format!("{} {}", state.n, out.n)
    }
}

fn main() {}
