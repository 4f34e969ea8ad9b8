//! A type alias of the context, by value and borrowed, is the context: neither parameter
//! is in the input schema.
use tracksuit::{Server, mcp_tool};

type Context = tracksuit::Ctx;

/// Counts, taking the context by value.
#[mcp_tool]
async fn count(ctx: Context, to: u32) -> String {
    let _ = ctx;
    to.to_string()
}

/// Counts, borrowing the context.
#[mcp_tool]
async fn count_again(to: u32, ctx: &Context) -> String {
    let _ = ctx;
    to.to_string()
}

fn main() {
    let server = Server::new(tracksuit::crate_info!())
        .tool(count)
        .tool(count_again)
        .build()
        .expect("builds");
    for name in ["count", "count_again"] {
        let tool = server.tool_descriptor(name).expect("listed");
        let properties = tool.input_schema["properties"]
            .as_object()
            .expect("an object schema");
        assert_eq!(properties.keys().collect::<Vec<_>>(), ["to"], "{name}");
    }
}
