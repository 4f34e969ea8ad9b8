//! Write MCP (Model Context Protocol) servers in plain Rust: a tool is an `async fn` with
//! [`#[mcp_tool]`](macro@mcp_tool), and one server speaks both protocol eras (2026-07-28
//! stateless requests and 2025-11-25 sessions) over stdio or Streamable HTTP.
//!
//! ```
//! use tracksuit::{Ctx, Json, Server, mcp_tool};
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Sum { sum: i64 }
//!
//! /// Adds two numbers.
//! #[mcp_tool(read_only)]
//! async fn add(ctx: &Ctx, /** left operand */ a: i64, /** right operand */ b: i64) -> Json<Sum> {
//!     let _ = ctx; // logging, progress, cancellation, sampling, elicitation
//!     Json(Sum { sum: a + b })
//! }
//!
//! let server = Server::new(tracksuit::crate_info!()).tool(add).build()?;
//! let tool = server.tool_descriptor("add").unwrap();
//! assert_eq!(tool.description.as_deref(), Some("Adds two numbers."));
//! assert_eq!(tool.input_schema["required"], serde_json::json!(["a", "b"]));
//! // In `main`: `Server::new(..).tool(add).serve_stdio().await` (or `.serve_http(addr)`).
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! Start with the [`guide`]: [getting started](guide::getting_started) (dependencies,
//! tracing, client configuration, deployment), [every macro attribute](guide::macros),
//! [what does not compile](guide::rules), [the schemas tools publish](guide::schemas).
//!
//! - [`Server`] assembles a server (tools, prompts, resources) and serves it; a running
//!   server is a [`ServerHandle`];
//! - [`Ctx`] is what a handler sees (log, progress, cancellation, sampling, elicitation,
//!   roots); [`sampling`], [`elicitation`], [`branch`] and [`handoff`] build on it;
//! - [`protocol`]: the wire types; [`task`]: task stores; [`client`]: an MCP client;
//! - [`host`]: stdio and Streamable HTTP hosts; [`transport`]: framing for your own.
//!
//! Without the macros, a tool is a [`ToolFn`] over a hand-written schema:
//!
//! ```
//! use tracksuit::{Server, ToolFn, protocol::{CallToolResult, Tool}};
//! let server = Server::new(tracksuit::crate_info!()).tool(ToolFn::new(
//!     Tool::new("hello", Default::default()),
//!     |_ctx, _args| async { Ok(CallToolResult::text("hello")) },
//! ));
//! assert_eq!(server.build()?.tool_names(), ["hello"]);
//! # Ok::<(), tracksuit::ServerError>(())
//! ```

// `deny`, not `forbid`: one audited call, `memory::release_free_memory` (glibc's
// `malloc_trim`), allows it.
#![deny(unsafe_code)]
#![warn(missing_docs)]

// The layers, lowest first (scripts/check_layers.py keeps imports pointing downwards):
// protocol → peer → transport / client → context → features (authoring, sampling,
// elicitation, branch, handoff) → server, task → host.
pub mod apps;
mod authoring;
pub mod branch;
mod caller;
mod capacity;
pub mod client;
mod context;
pub mod elicitation;
pub mod events;
pub mod guide;
pub mod handoff;
pub mod host;
pub mod idempotency;
mod json;
pub mod middleware {
    //! Tower middleware around a server's request handling ([`Server::layer`](crate::Server::layer)):
    //! rate limits, timeouts, audit logs, authorization rules per method, metrics.
    //!
    //! Every request reaches its handler through one tower service, [`McpService`]: a layer
    //! sees an [`McpRequest`] (method, target, params, era, client, principal, HTTP head,
    //! extensions) and the [`McpResponse`] that comes back (a result or a JSON-RPC error,
    //! and whether a tool failed), for every request of both eras, from every host, and
    //! every round of a 2026 multi round-trip request.
    //!
    //! ```
    //! use std::task::{Context, Poll};
    //! use tracksuit::middleware::{BoxError, McpRequest, McpResponse};
    //! use tracksuit::protocol::ErrorObject;
    //!
    //! /// Refuses `tools/call` of `drop_table` to callers without the `admin` scope.
    //! #[derive(Clone)]
    //! struct AdminOnly<S>(S);
    //!
    //! impl<S> tower::Service<McpRequest> for AdminOnly<S>
    //! where
    //!     S: tower::Service<McpRequest, Response = McpResponse, Error = BoxError>,
    //!     S::Future: Send + 'static,
    //! {
    //!     type Response = McpResponse;
    //!     type Error = BoxError;
    //!     type Future = futures::future::BoxFuture<'static, Result<McpResponse, BoxError>>;
    //!
    //!     fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
    //!         self.0.poll_ready(cx)
    //!     }
    //!
    //!     fn call(&mut self, request: McpRequest) -> Self::Future {
    //!         let admin = request.principal().is_some_and(|p| p.has_scope("admin"));
    //!         if request.target() == Some("drop_table") && !admin {
    //!             let refused = ErrorObject::new(-32003, "drop_table needs the admin scope");
    //!             return Box::pin(async move { Ok(McpResponse::from_error(refused)) });
    //!         }
    //!         Box::pin(self.0.call(request))
    //!     }
    //! }
    //!
    //! let server = tracksuit::Server::new(tracksuit::crate_info!())
    //!     .layer(tower::layer::layer_fn(AdminOnly))
    //!     .build()?;
    //! # Ok::<(), tracksuit::ServerError>(())
    //! ```
    pub use crate::server::dispatch::{BoxError, Era, McpRequest, McpResponse, McpService};
}
mod on_demand;
#[cfg(feature = "otel")]
pub mod otel {
    //! OpenTelemetry traces and metrics (feature `otel`), following the
    //! [semantic conventions for MCP](https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/).
    //!
    //! - Server: [`OtelLayer`] (for [`Server::layer`](crate::Server::layer)) opens a span per
    //!   request, its parent the W3C trace context the request carries in `params._meta`
    //!   (or its HTTP headers), runs the handler in it (the sampling and elicitation
    //!   requests a handler sends are child spans, and carry their context to the client),
    //!   and records `mcp.server.operation.duration` and `mcp.server.session.duration`.
    //! - Client: with this feature, [`Client`](crate::client::Client) opens a span per
    //!   request, writes its context into `params._meta`, and records
    //!   `mcp.client.operation.duration`
    //!   ([`ClientBuilder::telemetry`](crate::client::ClientBuilder::telemetry)).
    //!
    //! tracksuit uses the OpenTelemetry API only: the application installs the SDK and its
    //! exporters (OTLP, Prometheus, ...), as global providers or through [`Telemetry::new`].
    //!
    //! ```
    //! use tracksuit::{Server, otel::OtelLayer};
    //! let server = Server::new(tracksuit::crate_info!())
    //!     .layer(OtelLayer::new()) // the global providers
    //!     .build()?;
    //! # Ok::<(), tracksuit::ServerError>(())
    //! ```
    pub use crate::server::dispatch::otel::{OtelFuture, OtelLayer, OtelService};
    pub use crate::telemetry::Telemetry;
}
mod peer;
mod private;
pub mod protocol;
#[cfg(feature = "proxy")]
pub mod proxy;
pub mod sampling;
mod seal;
mod server;
#[cfg(feature = "skills")]
pub mod skills;
pub mod task;
#[cfg(feature = "otel")]
mod telemetry;
pub mod transport;

pub use authoring::{
    FromCtx, FromPromptArgument, IntoPromptResult, IntoResourceResult, IntoToolResult, Json,
    JsonOutput, PromptParameter, ToolError, ToolParameter, schema_for, strict_schema,
};
pub use caller::{Principal, PrincipalKind};
pub use context::{Ctx, LoggedExchange, MAX_ONCE_LEN, MissingState, OnceError, SchemaProfile};
pub use elicitation::{ElicitExchange, ElicitForm, Elicited};
pub use handoff::PhaseCtx;
pub use peer::RequestError;
pub use sampling::{SampleError, SampleExchange};
pub use seal::{KeyError, MAX_STATE_LEN, StateKeys};
pub use server::{
    CacheHint, IntoPrompt, IntoResource, IntoResourceTemplate, IntoTool, Item, ItemKind, Mount,
    ProfileChooser, PromptFn, PromptHandler, ResourceFn, ResourceHandler, ResourceTemplateFn,
    ResourceTemplateHandler, ScopeRule, Server, ServerError, ServerHandle, ServerOptions, ToolFn,
    ToolHandler, UriTemplate, Viewer,
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

/// Items for generated code; not a public API. Everything the macros' output calls is
/// here (besides the public traits and protocol types it implements and builds).
#[doc(hidden)]
pub mod __private {
    /// Named by every expansion of `tracksuit-macros` of the same version (its name is the
    /// version), so a mismatched pair fails to compile with "cannot find value
    /// `expects_tracksuit_X_Y_Z` in module `tracksuit::__private`". The runtime also pins the
    /// macros crate with `=version`.
    #[allow(non_upper_case_globals)]
    pub const expects_tracksuit_0_1_0: () = ();

    pub use crate::authoring::SchemaValidator;
    pub use crate::elicitation::{FieldMeta, KEYS_META};
    pub use crate::private::*;
    pub use crate::server::{
        ByFn, ByValue, Generated, ServerParts, ServerTools, Tagged, ToolSet, tagged,
    };
    pub use futures::future::BoxFuture;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

pub use tracksuit_macros::{Elicits, mcp_prompt, mcp_resource, mcp_server, mcp_tool};

// The crates a tool's types derive from, at the versions tracksuit is built with (schemars
// **1**: a `JsonSchema` from schemars 0.8 is another trait). A crate that depends on
// tracksuit alone derives through them with `#[serde(crate = "tracksuit::serde")]` and
// `#[schemars(crate = "tracksuit::schemars")]`; see `guide::getting_started`.
pub use schemars;
pub use serde;
pub use serde_json;
