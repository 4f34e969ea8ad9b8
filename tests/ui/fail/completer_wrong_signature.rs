use tracksuit::mcp_prompt;

/// Takes a number: not what a completer is given.
async fn languages(_limit: u32) -> Vec<String> {
    Vec::new()
}

/// Review code.
#[mcp_prompt(complete = languages)]
async fn review(language: String) -> String {
    format!("Review this {language}.")
}

fn main() {}
