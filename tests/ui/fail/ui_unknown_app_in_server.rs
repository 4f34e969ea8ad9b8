use tracksuit::mcp_server;

struct Game;

#[mcp_server]
impl Game {
    #[mcp_resource(uri = "ui://game/board.html", app)]
    async fn board(&self) -> String {
        "<p></p>".into()
    }

    #[mcp_tool(ui = "ui://game/bord.html")]
    async fn show(&self) -> String {
        String::new()
    }
}

fn main() {}
