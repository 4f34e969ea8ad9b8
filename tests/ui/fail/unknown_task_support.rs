use tracksuit::mcp_tool;

/// Runs long.
#[mcp_tool(task_support = "optinal")]
async fn crunch() -> &'static str {
    "done"
}

fn main() {}
