//! A handoff tool's phase parameters are told apart by the signature's structure, not by
//! type names: the context is renamed on import and the parameters come in another order.
use tracksuit::{Ctx as Context, PhaseCtx as Phase, Server, ToolError, mcp_tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    n: u32,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    n: u32,
}

/// Doubles a number in three phases.
struct Double;

#[mcp_tool]
impl Double {
    async fn before(ctx: &Phase, start: Start) -> Result<State, ToolError> {
        let _ = ctx;
        Ok(State { n: start.n })
    }

    async fn client(ctx: &Context, state: &State) -> Result<u32, ToolError> {
        let _ = ctx;
        Ok(state.n * 2)
    }

    async fn after(state: State, doubled: u32, ctx: &Phase) -> String {
        let _ = ctx;
        format!("{} -> {doubled}", state.n)
    }
}

/// A handoff tool whose `before` takes no arguments.
struct Fixed;

#[mcp_tool(name = "fixed")]
impl Fixed {
    async fn before(_ctx: &Phase) -> Result<State, ToolError> {
        Ok(State { n: 1 })
    }

    async fn client(state: &State, _ctx: &Context) -> Result<u32, ToolError> {
        Ok(state.n)
    }

    async fn after(_state: State, out: u32, _ctx: &Phase) -> String {
        out.to_string()
    }
}

fn main() {
    let server = Server::new(tracksuit::crate_info!())
        .tool(Double)
        .tool(Fixed)
        .build()
        .expect("two tools");
    assert_eq!(server.tool_names(), ["Double", "fixed"]);
}
