use tracksuit::mcp_resource;

#[mcp_resource(uri = "mem://users/{user}")]
async fn user(user: String, page: u32) -> String {
    format!("{user} {page}")
}

fn main() {}
