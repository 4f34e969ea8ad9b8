use tracksuit::mcp_tool;

/// A handoff tool is an impl of a named type.
#[mcp_tool]
impl<T> [T; 1] {}

fn main() {}
