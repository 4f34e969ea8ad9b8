use tracksuit::mcp_tool;

#[derive(serde::Deserialize)]
struct Point {
    x: i32,
}

#[mcp_tool]
async fn plot(#[params] point: Point) -> String {
    point.x.to_string()
}

fn main() {}
