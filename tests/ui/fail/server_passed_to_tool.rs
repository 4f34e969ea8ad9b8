use tracksuit::{Server, mcp_server};

struct Api;

#[mcp_server]
impl Api {
    /// Says hello.
    #[mcp_tool]
    async fn hello(&self) -> String {
        "hello".into()
    }
}

fn main() {
    // `.tool` takes one tool; a server's impl block goes to `.tools`.
    let _ = Server::new(tracksuit::crate_info!()).tool(Api);
}
