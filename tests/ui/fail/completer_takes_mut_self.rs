use tracksuit::mcp_server;

struct Catalogue {
    asked: u32,
}

#[mcp_server]
impl Catalogue {
    /// Review code.
    #[mcp_prompt(complete = languages)]
    async fn review(&self, language: String) -> String {
        format!("Review this {language}.")
    }

    async fn languages(&mut self, _argument: &str, _typed: &str) -> Vec<String> {
        self.asked += 1;
        Vec::new()
    }
}

fn main() {}
