//! Procedural macros for [tracksuit](https://docs.rs/tracksuit): `#[mcp_tool]`,
//! `#[mcp_prompt]`, `#[mcp_resource]` and `#[mcp_server]`.
//!
//! Use them through the `tracksuit` crate, which re-exports them; the generated code
//! reaches serde, serde_json and schemars through `tracksuit::__private`, so your crate
//! needs no other dependency. Set `TRACKSUIT_MACROS_DEBUG=1` while building to print each
//! expansion to stderr.
//!
//! This crate holds entry points only: parsing and checks are in `internals`, expansion in
//! `tool`, `prompt`, `resource` and `server`.

use proc_macro::TokenStream;

mod common;
mod internals;
mod prompt;
mod resource;
mod server;
mod tool;

/// Turns an `async fn` into an MCP tool: a unit struct of the same name implementing
/// `tracksuit::Tool`. See the `tracksuit` crate docs for the full reference.
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    common::debug("mcp_tool", tool::expand(attr.into(), item.into())).into()
}

/// Turns an `async fn` into an MCP prompt. See the `tracksuit` crate docs.
#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    common::debug("mcp_prompt", prompt::expand(attr.into(), item.into())).into()
}

/// Turns an `async fn` into an MCP resource or resource template. See the `tracksuit`
/// crate docs.
#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    common::debug("mcp_resource", resource::expand(attr.into(), item.into())).into()
}

/// On an `impl` block: every `#[mcp_tool]` method becomes a tool sharing the server state
/// (`&self`), registered together with `Server::tools`. Duplicate tool names are rejected
/// at compile time.
#[proc_macro_attribute]
pub fn mcp_server(attr: TokenStream, item: TokenStream) -> TokenStream {
    common::debug("mcp_server", server::expand(attr.into(), item.into())).into()
}
