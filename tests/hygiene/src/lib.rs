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

/// A point, derived through tracksuit's re-exports (no serde or schemars dependency).
#[derive(
    tracksuit::serde::Serialize, tracksuit::serde::Deserialize, tracksuit::schemars::JsonSchema,
)]
#[serde(crate = "tracksuit::serde")]
#[schemars(crate = "tracksuit::schemars")]
pub struct Point {
    /// x
    pub x: i64,
    /// y
    pub y: Option<i64>,
}

/// Mirrors a point.
#[mcp_tool]
pub async fn mirror(#[params] p: Point) -> tracksuit::Json<Vec<Point>> {
    let back = Point {
        x: -p.x,
        y: p.y.map(|y| -y),
    };
    tracksuit::Json(vec![p, back])
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
        .tool(mirror)
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
            ["add", "mirror", "ping"]
        );
    }
}
