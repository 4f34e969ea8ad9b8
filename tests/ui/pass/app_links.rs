//! `ui = "ui://..."` links a tool to an MCP App in all three forms (function, handoff impl,
//! `#[mcp_server]` method), merged with `meta`; an `app` resource is served as one.
use tracksuit::apps::UiResource;
use tracksuit::{Ctx, PhaseCtx, Server, ToolError, mcp_server, mcp_tool};

/// Shows the board.
#[mcp_tool(ui = "ui://game/board.html", meta = r#"{"ui": {"visibility": ["app"]}, "k": 1}"#)]
async fn show() -> String {
    String::new()
}

/// A move, in three phases.
struct Move;

#[mcp_tool(ui = "ui://game/board.html")]
impl Move {
    async fn before(_ctx: &PhaseCtx) -> Result<u32, ToolError> {
        Ok(1)
    }

    async fn client(_ctx: &Ctx, state: &u32) -> Result<u32, ToolError> {
        Ok(*state)
    }

    async fn after(_state: u32, out: u32, _ctx: &PhaseCtx) -> String {
        out.to_string()
    }
}

struct Game;

#[mcp_server]
impl Game {
    /// The board, as an MCP App.
    #[mcp_resource(uri = "ui://game/score.html", app)]
    async fn score(&self) -> String {
        "<p>0</p>".into()
    }

    /// Plays.
    #[mcp_tool(ui = "ui://game/score.html")]
    async fn play(&self) -> String {
        String::new()
    }
}

/// No app resource in this block: its tool may link to one registered at run time.
struct Elsewhere;

#[mcp_server]
impl Elsewhere {
    #[mcp_tool(ui = "ui://game/board.html")]
    async fn peek(&self) -> String {
        String::new()
    }
}

fn main() {
    // `build` refuses a `ui://` link that is not an App resource of the server, so this
    // also shows `app` served `ui://game/score.html` as one.
    let server = Server::new(tracksuit::crate_info!())
        .tool(show)
        .tool(Move)
        .tools(Game)
        .tools(Elsewhere)
        .ui_resource(UiResource::new("ui://game/board.html", "board", "<p></p>"))
        .build()
        .expect("every link is served");
    let mut names = server.tool_names();
    names.sort();
    assert_eq!(names, ["Move", "peek", "play", "show"]);
}
