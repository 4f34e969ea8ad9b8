use tracksuit::mcp_prompt;

/// A prompt.
#[mcp_prompt(scopes = [])]
async fn greet() -> String {
    "hello".into()
}

fn main() {}
