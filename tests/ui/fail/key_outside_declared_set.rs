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

#[derive(Elicits)]
enum AdminKeys {
    #[elicit(response = Yes)]
    Wipe { disk: String },
}

#[mcp_tool(elicits = GameKeys)]
async fn play(ctx: &Ctx<GameKeys>) -> Result<String, ToolError> {
    let _ = ctx.elicit(AdminKeys::wipe("/".into())).await?;
    Ok(String::new())
}

fn main() {
    let _ = (GameKeys::Confirm { question: String::new() }, AdminKeys::Wipe { disk: String::new() });
}
