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

#[mcp_tool]
async fn play(ctx: &Ctx) -> Result<String, ToolError> {
    let _ = ctx.elicit(GameKeys::confirm("sure?".into())).await?;
    Ok(String::new())
}

fn main() {
    let _ = GameKeys::Confirm { question: String::new() };
}
