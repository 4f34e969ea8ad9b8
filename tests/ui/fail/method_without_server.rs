use tracksuit::mcp_tool;

struct Api;

impl Api {
    #[mcp_tool]
    async fn ping(&self) -> String {
        String::new()
    }
}

fn main() {}
