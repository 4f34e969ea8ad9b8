use tracksuit::mcp_resource;

#[mcp_resource(uri = "mem://board.html", app)]
async fn board() -> String {
    "<p></p>".into()
}

fn main() {}
