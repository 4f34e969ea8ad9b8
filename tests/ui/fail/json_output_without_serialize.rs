use tracksuit::{Json, ToolError, mcp_tool};

#[derive(schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

#[mcp_tool]
async fn add(a: i64, b: i64) -> Result<Json<Sum>, ToolError> {
    Ok(Json(Sum { sum: a + b }))
}

fn main() {}
