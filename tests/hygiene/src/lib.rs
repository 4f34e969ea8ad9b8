//! A crate whose only dependency is `tracksuit`: if the macros' output named serde,
//! schemars, serde_json or futures directly, this would not compile.

use tracksuit::{Ctx, Server, mcp_prompt, mcp_resource, mcp_server, mcp_tool};

/// Adds two numbers.
#[mcp_tool(read_only)]
pub async fn add(
    /// left
    a: i64,
    /// right
    b: Option<i64>,
    ctx: &Ctx,
) -> String {
    let _ = ctx;
    (a + b.unwrap_or(0)).to_string()
}

/// A greeting.
#[mcp_prompt]
pub async fn greet(name: String) -> String {
    format!("Hello {name}")
}

/// A templated resource.
#[mcp_resource(uri = "mem://n/{n}")]
pub async fn number(n: u8) -> String {
    n.to_string()
}

/// State shared by tools.
pub struct State;

#[mcp_server]
impl State {
    /// Pings.
    #[mcp_tool]
    async fn ping(&self) -> &'static str {
        "pong"
    }
}

/// The assembled server.
pub fn server() -> Server {
    Server::new(tracksuit::crate_info!())
        .tool(add)
        .prompt(greet)
        .resource_template(number)
        .tools(State)
}

#[cfg(test)]
mod tests {
    #[test]
    fn assembles() {
        assert_eq!(
            super::server().build().expect("distinct").tool_names(),
            ["add", "ping"]
        );
    }
}
