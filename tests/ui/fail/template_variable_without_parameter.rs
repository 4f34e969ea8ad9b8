use tracksuit::mcp_resource;

#[mcp_resource(uri = "mem://users/{user}/posts/{post}")]
async fn post(user: String) -> String {
    user
}

fn main() {}
