//! The guides, as rustdoc: every code block here is compiled by `cargo test --doc`, and
//! every `compile_fail` block proves that the macros refuse what the text says they refuse.
//!
//! - [`getting_started`]: dependencies, a first server, tracing, client configuration
//!   (Claude Desktop, Claude Code, Cursor, VS Code), proxies and containers;
//! - [`macros`]: every attribute of `#[mcp_tool]` (function, `#[params]`, handoff `impl`,
//!   keyed `elicits`, `task_support`), `#[mcp_prompt]`, `#[mcp_resource]`, `#[mcp_server]`,
//!   `#[derive(Elicits)]`, with an example each;
//! - [`rules`]: what does not compile, next to the form that does;
//! - [`schemas`]: the JSON Schemas tools publish, and the strict profile.
//!
//! The longer topic guides (sampling, elicitation, tasks, handoff, the two protocol eras,
//! authorization, scaling out, the client) are in the repository's `docs/` directory.

pub mod getting_started {
    #![doc = include_str!("getting_started.md")]
}
pub mod macros;
pub mod rules;
pub mod schemas;
