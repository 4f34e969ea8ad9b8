use tracksuit::mcp_server;

struct Api;

#[mcp_server]
impl Api {
    #[mcp_tool(name = "fetch")]
    async fn fetch_one(&self) -> String {
        String::new()
    }

    #[mcp_tool(name = "fetch")]
    async fn fetch_two(&self) -> String {
        String::new()
    }
}

fn main() {}
