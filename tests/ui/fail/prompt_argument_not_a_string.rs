use tracksuit::mcp_prompt;

#[mcp_prompt]
async fn repeat(times: Vec<u32>) -> String {
    format!("{times:?}")
}

fn main() {}
