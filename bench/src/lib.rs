//! The load driver's parts: raw MCP clients over a child's stdio and over Streamable HTTP,
//! server processes with `/proc` accounting, latency statistics, the in-process floor and
//! the Markdown report. Everything is deliberately free of any MCP SDK: the driver speaks
//! JSON-RPC bytes, so it measures the three servers with the same ruler.

pub mod floor;
pub mod http_load;
pub mod payload;
pub mod process;
pub mod report;
pub mod robustness;
pub mod stats;
pub mod stdio_load;
pub mod tracksuit_tools;
