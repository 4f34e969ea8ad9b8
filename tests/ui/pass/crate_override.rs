//! `crate = path` for code that reaches tracksuit through a re-export.
mod framework {
    pub use tracksuit::*;
}

#[framework::mcp_tool(crate = framework)]
async fn ping() -> &'static str {
    "pong"
}

#[framework::mcp_prompt(crate = framework)]
async fn hello(name: String) -> String {
    name
}

#[framework::mcp_resource(crate = framework, uri = "x://y")]
async fn thing() -> String {
    String::new()
}

fn main() {
    let _ = framework::Server::new(framework::crate_info!()).tool(ping).prompt(hello).resource(thing);
}
