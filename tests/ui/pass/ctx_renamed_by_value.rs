//! The context imported under another name and taken by value is the context (recognised
//! by its type), not a JSON argument: it is not in the input schema.
use tracksuit::{Ctx as McpCtx, Server, mcp_prompt, mcp_tool};

/// Greets.
#[mcp_tool]
async fn greet(ctx: McpCtx, name: String) -> String {
    let _ = ctx;
    format!("hello {name}")
}

/// Suggests a greeting; prompts recognise the context by type too.
#[mcp_prompt]
async fn suggest(ctx: McpCtx, name: String) -> String {
    let _ = ctx;
    format!("Greet {name}.")
}

fn main() {
    let _ = Server::new(tracksuit::crate_info!()).prompt(suggest);
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
