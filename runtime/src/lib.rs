//! # tracksuit
//!
//! Write MCP (Model Context Protocol, revision 2025-11-25) servers in plain Rust.
//!
//! - [`protocol`]: the wire types;
//! - [`peer`]: the bidirectional JSON-RPC session engine;
//! - [`server`]: the [`Server`] and its per-connection dispatch;
//! - [`context`]: [`Ctx`], what a handler sees (log, progress, cancellation, sampling,
//!   elicitation, roots);
//! - [`task`]: task-augmented tool calls and the stores that keep them;
//! - [`transport`]: stdio, in-memory and Streamable HTTP;
//! - [`client`]: an MCP client on the same engine.
//!
//! ```
//! use tracksuit::{Server, ToolFn, protocol::{CallToolResult, Tool}};
//! let server = Server::new(tracksuit::crate_info!()).tool(ToolFn::new(
//!     Tool::new("hello", Default::default()),
//!     |_ctx, _args| async { Ok(CallToolResult::text("hello")) },
//! ));
//! # let _ = server;
//! ```

// `deny`, not `forbid`: one audited call, `memory::release_free_memory` (glibc's
// `malloc_trim`), allows it.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod authoring;
pub mod branch;
mod capacity;
pub mod client;
pub mod context;
pub mod elicitation;
pub mod handoff;
pub mod host;
mod on_demand;
pub mod peer;
mod private;
pub mod protocol;
pub mod sampling;
pub mod server;
pub mod task;
pub mod transport;

pub use authoring::{IntoPromptResult, IntoResourceResult, IntoToolResult, Json, ToolError};
pub use context::{Ctx, LoggedExchange};
pub use elicitation::{ElicitExchange, ElicitForm, Elicited};
pub use handoff::PhaseCtx;
pub use peer::RequestError;
pub use sampling::{SampleError, SampleExchange};
pub use server::{
    Prompt, PromptFn, Resource, ResourceFn, ResourceTemplate, ResourceTemplateFn, Server,
    ServerOptions, ServerSession, Tool, ToolFn, ToolSet, UriTemplate,
};

/// The [`protocol::Implementation`] of the crate that invokes it: its package name and
/// version (not tracksuit's).
///
/// ```
/// let info = tracksuit::crate_info!();
/// assert_eq!(info.name, env!("CARGO_PKG_NAME"));
/// ```
#[macro_export]
macro_rules! crate_info {
    () => {
        $crate::protocol::Implementation::new(
            ::core::env!("CARGO_PKG_NAME"),
            ::core::env!("CARGO_PKG_VERSION"),
        )
    };
}

/// Items for generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::private::*;
    pub use crate::server::ServerTools;
    pub use futures::future::BoxFuture;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

pub use tracksuit_macros::{Elicits, mcp_prompt, mcp_resource, mcp_server, mcp_tool};
