use tracksuit::mcp_tool;

#[mcp_tool]
async fn pair((a, b): (i32, i32)) -> String {
    (a + b).to_string()
}

fn main() {}
