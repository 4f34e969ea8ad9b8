use tracksuit::mcp_prompt;

#[mcp_prompt]
async fn repeat(times: u32) -> String {
    "again ".repeat(times as usize)
}

fn main() {}
