//! `#[derive(Elicits)]` on a key set adds impls only: a type named like a key can live
//! beside it, and an unused-looking key set raises no `dead_code` warning (denied here)
//! without an `#[allow]`.
#![deny(dead_code)]
use tracksuit::{Ctx, Elicited, Elicits, Server, ToolError, mcp_tool};

#[derive(serde::Deserialize, Elicits)]
struct Cell {
    row: u8,
    col: u8,
}

/// What the game asks.
#[derive(Elicits)]
pub enum GameKeys {
    /// Pick a cell.
    #[elicit(response = Cell)]
    PickMove { board: String, you: char },
    /// Anything else?
    #[elicit(response = Cell)]
    Again,
}

/// Not the key: the derive generated nothing named `PickMove` in this module.
#[allow(dead_code)]
struct PickMove;

/// Plays.
#[mcp_tool(elicits = GameKeys)]
async fn play(ctx: &Ctx<GameKeys>) -> Result<String, ToolError> {
    let answer: Option<Cell> = ctx
        .elicit(GameKeys::pick_move("...".into(), 'X'))
        .await?
        .accepted();
    Ok(match answer {
        Some(Cell { row, col }) => format!("{row},{col}"),
        None => match ctx.elicit(GameKeys::again()).await? {
            Elicited::Accept { value, .. } => format!("{},{}", value.row, value.col),
            _ => String::new(),
        },
    })
}

fn main() {
    let _ = Server::new(tracksuit::crate_info!()).tool(play);
}
