use tracksuit::mcp_tool;

#[mcp_tool]
async fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
