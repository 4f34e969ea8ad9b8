use tracksuit::mcp_tool;

#[mcp_tool(name = "a", title = "A", name = "b")]
async fn dup() -> String {
    String::new()
}

fn main() {}
