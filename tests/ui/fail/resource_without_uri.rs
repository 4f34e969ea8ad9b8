use tracksuit::mcp_resource;

#[mcp_resource(mime_type = "text/plain")]
async fn nowhere() -> String {
    String::new()
}

fn main() {}
