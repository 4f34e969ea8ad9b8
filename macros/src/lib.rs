//! Procedural macros for [tracksuit](https://docs.rs/tracksuit).
//!
//! The authoring macros (`#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`,
//! `#[derive(Elicits)]`) live here; this crate holds no runtime logic.
