use tracksuit::mcp_tool;

#[derive(schemars::JsonSchema)]
struct Point {
    x: i32,
}

#[mcp_tool]
async fn plot(point: Point) -> String {
    point.x.to_string()
}

fn main() {}
