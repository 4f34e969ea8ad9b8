use tracksuit::mcp_tool;

#[mcp_tool(
    meta = r#"{"ui": {"resourceUri": "ui://game/board.html"}}"#,
    ui = "ui://game/board.html"
)]
async fn show() -> String {
    String::new()
}

fn main() {}
