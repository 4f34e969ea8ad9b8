use tracksuit::{Ctx, ToolError, mcp_tool};

/// Not `JsonSchema`: the model cannot be asked for it.
#[derive(serde::Deserialize)]
struct Move {
    cell: u8,
}

#[mcp_tool]
async fn play(ctx: &Ctx) -> Result<String, ToolError> {
    let reply = ctx
        .sample_schema::<Move>()
        .prompt("Pick a cell.")
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
    let _ = reply;
    Ok(String::new())
}

fn main() {}
