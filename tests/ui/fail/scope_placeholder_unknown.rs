use tracksuit::{mcp_resource, mcp_tool};

/// Pushes to a repository.
#[mcp_tool(scopes = ["repo:{repository}:write"])]
async fn push(repo: String) -> String {
    repo
}

/// An item's data.
#[mcp_resource(uri = "test://template/{id}/data", scopes = ["item:{name}"])]
async fn data(id: String) -> String {
    id
}

/// A fixed resource has no variables.
#[mcp_resource(uri = "mem://fixed", scopes = ["fixed:{id}"])]
async fn fixed() -> String {
    String::new()
}

fn main() {}
