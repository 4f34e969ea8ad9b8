use tracksuit::{Ctx, Elicits, ToolError, mcp_tool};

#[derive(serde::Deserialize, Elicits)]
struct Yes {
    ok: bool,
}

#[derive(Elicits)]
enum GameKeys {
    #[elicit(response = Yes)]
    Confirm { question: String },
}

/// Declares keys but takes a plain `Ctx`.
#[mcp_tool(elicits = GameKeys)]
async fn play(ctx: &Ctx) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(String::new())
}

fn main() {
    let _ = GameKeys::Confirm { question: String::new() };
}
