use tracksuit::mcp_tool;

async fn ask() -> u32 {
    1
}

/// A plain tool cannot name phases.
#[mcp_tool(client = ask)]
async fn count() -> String {
    "1".into()
}

fn main() {}
