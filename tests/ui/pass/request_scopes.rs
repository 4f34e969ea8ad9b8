//! Scopes that depend on the request: placeholders and `scopes_with`, on every item kind.
#![deny(warnings)]

use tracksuit::{Server, mcp_prompt, mcp_resource, mcp_tool};

#[derive(serde::Deserialize)]
struct Amount {
    amount: u64,
}

fn large(a: &Amount) -> Vec<String> {
    if a.amount > 100 {
        vec!["payments:large".into()]
    } else {
        Vec::new()
    }
}

/// Pays.
#[mcp_tool(scopes = ["payments", "payee:{to}"], scopes_with = large)]
async fn pay(to: String, amount: u64) -> String {
    format!("{amount} to {to}")
}

/// A brief on a topic.
#[mcp_prompt(scopes = ["topic:{topic}"])]
async fn brief(topic: String) -> String {
    topic
}

/// An item's data.
#[mcp_resource(uri = "test://template/{id}/data", scopes = ["item:{id}"])]
async fn data(id: String) -> String {
    id
}

fn main() {
    let _ = Server::new(tracksuit::crate_info!())
        .tool(pay)
        .prompt(brief)
        .resource_template(data)
        .build();
}
