use tracksuit::mcp_tool;

#[mcp_tool]
async fn count() -> std::time::Duration {
    std::time::Duration::from_secs(1)
}

fn main() {}
