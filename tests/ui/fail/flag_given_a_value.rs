use tracksuit::mcp_tool;

#[mcp_tool(read_only = "yes")]
async fn look() -> String {
    String::new()
}

fn main() {}
