use tracksuit::mcp_tool;

#[mcp_tool(meta = "{ui: card}")]
async fn card() -> String {
    String::new()
}

fn main() {}
