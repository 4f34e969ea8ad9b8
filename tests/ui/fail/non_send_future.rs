use tracksuit::mcp_tool;

#[mcp_tool]
async fn local() -> String {
    let shared = std::rc::Rc::new(1);
    tokio::task::yield_now().await;
    shared.to_string()
}

fn main() {}
