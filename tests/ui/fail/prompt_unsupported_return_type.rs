use tracksuit::mcp_prompt;

#[mcp_prompt]
async fn greet(name: String) -> u32 {
    name.len() as u32
}

fn main() {}
