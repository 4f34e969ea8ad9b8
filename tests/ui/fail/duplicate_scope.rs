use tracksuit::mcp_resource;

/// A resource.
#[mcp_resource(uri = "mem://x", scopes = ["read", "read"])]
async fn x() -> String {
    "x".into()
}

fn main() {}
