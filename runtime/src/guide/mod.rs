//! The guides, as rustdoc: every code block here is compiled by `cargo test --doc`, and
//! every `compile_fail` block proves that the macros refuse what the text says they refuse.
//!
//! - [`getting_started`]: dependencies, a first server, tracing, client configuration
//!   (Claude Desktop, Claude Code, Cursor, VS Code), the dev loop (`cargo tracksuit`),
//!   proxies and containers;
//! - [`macros`]: every attribute of `#[mcp_tool]` (function, `#[params]`, handoff `impl`,
//!   keyed `elicits`, `task_support`), `#[mcp_prompt]`, `#[mcp_resource]`, `#[mcp_server]`,
//!   `#[derive(Elicits)]`, with an example each;
//! - [`rules`]: what does not compile, next to the form that does;
//! - [`schemas`]: the JSON Schemas tools publish, and the strict profile.
//!
//! The longer topic guides (sampling, elicitation, tasks, handoff, the two protocol eras,
//! authorization, scaling out, the client) are in the repository's `docs/` directory.
//!
//! Each guide's blocks are tests. The smallest, a tool and what `tools/list` publishes for it:
//!
//! ```
//! /// Converts Celsius to Fahrenheit.
//! #[tracksuit::mcp_tool(read_only)]
//! async fn to_fahrenheit(/** Degrees Celsius. */ celsius: f64) -> String {
//!     format!("{}", celsius * 9.0 / 5.0 + 32.0)
//! }
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(to_fahrenheit).build()?;
//! let tool = server.tool_descriptor("to_fahrenheit").unwrap();
//! assert_eq!(tool.input_schema["properties"]["celsius"]["description"], "Degrees Celsius.");
//! assert_eq!(tool.annotations.unwrap().read_only_hint, Some(true));
//! # Ok::<(), tracksuit::ServerError>(())
//! ```

pub mod getting_started {
    #![doc = include_str!("getting_started.md")]
}
pub mod macros;
pub mod rules;
pub mod schemas;
