use tracksuit::mcp_server;

struct Api;

#[mcp_server]
impl Api {
    #[mcp_prompt]
    async fn review(&self, code: String) -> String {
        code
    }

    #[mcp_prompt(name = "review")]
    async fn review_again(&self, code: String) -> String {
        code
    }
}

fn main() {}
