use tracksuit::mcp_server;

struct Api;

#[mcp_server]
impl Api {
    #[mcp_resource(uri = "mem://items/{id}")]
    async fn item(&self, id: u32) -> String {
        id.to_string()
    }

    #[mcp_resource(uri = "mem://items/{id}")]
    async fn item_again(&self, id: u32) -> String {
        id.to_string()
    }
}

fn main() {}
