//! The context imported under another name and taken by value is the context (recognised
//! by its type), not a JSON argument: it is not in the input schema.
use tracksuit::{Ctx as McpCtx, Server, mcp_tool};

/// Greets.
#[mcp_tool]
async fn greet(ctx: McpCtx, name: String) -> String {
    let _ = ctx;
    format!("hello {name}")
}

fn main() {
    let server = Server::new(tracksuit::crate_info!())
        .tool(greet)
        .build()
        .expect("builds");
    let tool = server.tool_descriptor("greet").expect("listed");
    let properties = tool.input_schema["properties"]
        .as_object()
        .expect("an object schema");
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["name"]);
    assert_eq!(tool.input_schema["required"], serde_json::json!(["name"]));
}
