use tracksuit::{Json, mcp_tool};

#[derive(serde::Serialize)]
struct Sum {
    sum: i64,
}

#[mcp_tool]
async fn add(a: i64, b: i64) -> Json<Sum> {
    Json(Sum { sum: a + b })
}

fn main() {}
