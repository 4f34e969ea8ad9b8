use tracksuit::mcp_tool;

/// Writes a file.
#[mcp_tool(scopes = ["files:read files:write"])]
async fn write() -> String {
    "written".into()
}

fn main() {}
