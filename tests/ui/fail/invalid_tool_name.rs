use tracksuit::mcp_tool;

#[mcp_tool(name = "get weather!")]
async fn weather() -> String {
    String::new()
}

fn main() {}
