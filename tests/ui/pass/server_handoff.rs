//! A handoff tool inside `#[mcp_server]`: the method is `before`, `client` and `after` are
//! named (by name or `Self::`), each phase with or without `&self`; completers of the block
//! with `&self` and with `&Ctx`.

use std::sync::atomic::{AtomicU64, Ordering};
use tracksuit::{Ctx, Elicits, PhaseCtx, Server, ToolError, mcp_server};

#[derive(serde::Deserialize, Elicits)]
struct Pick {
    cell: u8,
}

#[derive(Elicits)]
enum Keys {
    /// Your move?
    #[elicit(response = Pick)]
    PickCell { board: String },
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NewGame {
    size: u8,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Board(String);

struct Games {
    played: AtomicU64,
}

#[mcp_server]
impl Games {
    /// Plays a game.
    #[mcp_tool(elicits = Keys, name = "play", client = Self::turns, after = finish)]
    async fn start(&self, game: NewGame, _ctx: &PhaseCtx) -> Result<Board, ToolError> {
        Ok(Board(".".repeat(usize::from(game.size))))
    }

    async fn turns(board: &Board, ctx: &Ctx<Keys>) -> Result<u8, ToolError> {
        let answer = ctx.elicit(Keys::pick_cell(board.0.clone())).await?;
        Ok(answer.accepted().map_or(0, |p| p.cell))
    }

    async fn finish(&self, _board: Board, cell: u8, _ctx: &PhaseCtx) -> String {
        let n = self.played.fetch_add(1, Ordering::SeqCst);
        format!("game {n}: {cell}")
    }

    /// A game's record.
    #[mcp_resource(uri = "games://{id}", complete = Self::ids)]
    async fn record(&self, id: u64) -> String {
        format!("game {id}")
    }

    async fn ids(&self, ctx: &Ctx, _argument: &str, _typed: &str) -> Vec<String> {
        let _ = ctx.state::<u8>();
        (0..self.played.load(Ordering::SeqCst)).map(|n| n.to_string()).collect()
    }
}

fn main() {
    let games = Games {
        played: AtomicU64::new(0),
    };
    let server = Server::new(tracksuit::crate_info!()).state(3u8).tools(games);
    let _ = server.build().expect("one tool, one template");
}
