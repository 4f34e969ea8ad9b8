use tracksuit::{Ctx, Elicits, ToolError, mcp_tool};

#[derive(serde::Deserialize, Elicits)]
struct Name {
    name: String,
}

#[mcp_tool]
async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
    let answer = ctx
        .branch(|b| async move { b.elicit_form::<Name>("Who are you?").await })
        .await?;
    let _ = answer;
    Ok(String::new())
}

fn main() {}
