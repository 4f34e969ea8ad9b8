//! An annotated function's name stays an ordinary identifier in its module: `let` can
//! shadow it and `tokio::select!` (whose expansion binds short names such as `t`) compiles
//! beside a tool named `t`; the function stays callable, and registering it by name works.
use tracksuit::{Ctx, Server, mcp_prompt, mcp_resource, mcp_tool};

/// Searches.
#[mcp_tool]
async fn search(query: String) -> String {
    query
}

/// A tool with a one-letter name.
#[mcp_tool]
async fn t(ctx: &Ctx) -> String {
    let _ = ctx;
    String::new()
}

/// A prompt.
#[mcp_prompt]
async fn review(code: String) -> String {
    code
}

#[mcp_resource(uri = "mem://motto")]
async fn motto() -> String {
    String::new()
}

#[mcp_resource(uri = "mem://users/{id}")]
async fn user(id: u64) -> String {
    id.to_string()
}

async fn shadowing(items: Vec<u8>) -> usize {
    let search = items.len();
    let review = search + 1;
    let (motto, user) = (review, review);
    let t = motto + user;
    t
}

async fn selecting() -> u8 {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<u8>(1);
    tx.send(7).await.unwrap_or(());
    tokio::select! {
        Some(t) = rx.recv() => t,
        else => 0,
    }
}

async fn called_directly() -> String {
    search("rust".into()).await + &review("fn main() {}".into()).await + &motto().await + &user(7).await
}

fn main() {
    let _ = (shadowing(Vec::new()), selecting(), called_directly());
    let _ = Server::new(tracksuit::crate_info!())
        .tool(search)
        .tool(t)
        .prompt(review)
        .resource(motto)
        .resource_template(user);
}
