use tracksuit::mcp_tool;

#[mcp_tool(ui = "https://game.example/board.html")]
async fn show() -> String {
    String::new()
}

fn main() {}
