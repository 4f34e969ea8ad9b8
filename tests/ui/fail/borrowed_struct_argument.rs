use tracksuit::mcp_tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i32,
}

/// A borrowed argument of the user's own type: not the context, and not owned.
#[mcp_tool]
async fn plot(point: &Point) -> String {
    point.x.to_string()
}

fn main() {}
