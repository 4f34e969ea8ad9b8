//! The [`ToolHandler`] trait every tool implements, and [`ToolFn`] for tools written as closures.

use crate::authoring::ToolError;
use crate::context::Ctx;
use crate::protocol::{CallToolResult, JsonObject, Tool as ToolDescriptor};
use futures::future::BoxFuture;
use std::future::Future;

/// A tool the server exposes through `tools/list` and `tools/call`.
///
/// `#[mcp_tool]` implements this for you; implement it by hand for dynamic tools.
pub trait ToolHandler: Send + Sync + 'static {
    /// The descriptor published in `tools/list` (name, description, schemas, annotations).
    fn descriptor(&self) -> ToolDescriptor;

    /// Runs the tool with the call's arguments (an empty object when the client sent none).
    fn call<'a>(
        &'a self,
        ctx: Ctx,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>>;
}

/// A tool made of a descriptor and an async closure.
///
/// ```
/// use tracksuit::{ToolFn, protocol::{CallToolResult, Tool}};
/// let echo = ToolFn::new(Tool::new("echo", Default::default()), |_ctx, args| async move {
///     Ok(CallToolResult::text(format!("{args:?}")))
/// });
/// # let _ = echo;
/// ```
pub struct ToolFn<F> {
    descriptor: ToolDescriptor,
    f: F,
}

impl<F> ToolFn<F> {
    /// A tool described by `descriptor` whose calls run `f`.
    pub fn new<Fut>(descriptor: ToolDescriptor, f: F) -> Self
    where
        F: Fn(Ctx, JsonObject) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
    {
        ToolFn { descriptor, f }
    }
}

impl<F, Fut> ToolHandler for ToolFn<F>
where
    F: Fn(Ctx, JsonObject) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
{
    fn descriptor(&self) -> ToolDescriptor {
        self.descriptor.clone()
    }

    fn call<'a>(
        &'a self,
        ctx: Ctx,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>> {
        Box::pin((self.f)(ctx, arguments))
    }
}

/// A group of tools registered together, such as the `#[mcp_tool]` methods of an
/// `#[mcp_server]` impl block (implemented for the server type and for `Arc` of it).
pub trait ToolSet {
    /// The tools, sharing whatever state the set holds.
    fn into_tools(self) -> Vec<std::sync::Arc<dyn ToolHandler>>;
}

/// Implemented by `#[mcp_server]` for the server type: its tools over shared state.
#[doc(hidden)]
pub trait ServerTools: Send + Sync + 'static {
    /// The tools of `this`.
    fn tools_of(this: std::sync::Arc<Self>) -> Vec<std::sync::Arc<dyn ToolHandler>>;
}

impl<T: ServerTools> ToolSet for std::sync::Arc<T> {
    fn into_tools(self) -> Vec<std::sync::Arc<dyn ToolHandler>> {
        T::tools_of(self)
    }
}
