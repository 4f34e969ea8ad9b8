use tracksuit::mcp_resource;

#[mcp_resource(uri = "notes://count")]
async fn count() -> std::time::Duration {
    std::time::Duration::from_secs(1)
}

fn main() {}
