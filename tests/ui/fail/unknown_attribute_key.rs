use tracksuit::mcp_tool;

#[mcp_tool(nmae = "typo")]
async fn typo() -> String {
    String::new()
}

fn main() {}
