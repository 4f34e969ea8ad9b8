use tracksuit::mcp_tool;

/// Not async.
#[mcp_tool]
fn hello() -> String {
    "hi".into()
}

fn main() {}
