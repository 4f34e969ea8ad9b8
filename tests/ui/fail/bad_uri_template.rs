use tracksuit::mcp_resource;

#[mcp_resource(uri = "mem://items/{id")]
async fn item(id: String) -> String {
    id
}

fn main() {}
