//! The [`ToolHandler`] trait every tool implements, and [`ToolFn`] for tools written as closures.

use crate::authoring::ToolError;
use crate::context::Ctx;
use crate::protocol::{CallToolResult, JsonObject, Tool as ToolDescriptor};
use futures::future::BoxFuture;
use std::future::Future;

/// A tool the server exposes through `tools/list` and `tools/call`.
///
/// `#[mcp_tool]` implements this for you; implement it by hand for dynamic tools.
///
/// ```
/// use futures::future::BoxFuture;
/// use tracksuit::{Ctx, Server, ToolError, ToolHandler, client::Client};
/// use tracksuit::protocol::{CallToolResult, JsonObject, Tool};
///
/// /// A tool whose name is chosen at run time.
/// struct Greeter { name: String }
///
/// impl ToolHandler for Greeter {
///     fn descriptor(&self) -> Tool {
///         Tool::new(self.name.clone(), JsonObject::new())
///     }
///     fn call<'a>(&'a self, _ctx: Ctx, _args: JsonObject) -> BoxFuture<'a, Result<CallToolResult, ToolError>> {
///         Box::pin(async move { Ok(CallToolResult::text(format!("hello from {}", self.name))) })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).tool(Greeter { name: "hi".into() }).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let result = client.call_tool("hi", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("hello from hi"));
/// # Ok(())
/// # }
/// ```
pub trait ToolHandler: Send + Sync + 'static {
    /// The descriptor published in `tools/list` (name, description, schemas, annotations).
    fn descriptor(&self) -> ToolDescriptor;

    /// The input schema before it was made portable, for clients given
    /// [`SchemaProfile::Raw`](crate::SchemaProfile::Raw): `#[mcp_tool]` answers with the
    /// schema schemars derived (wrapped like the descriptor's when that one is). `None`, the
    /// default: the descriptor's `inputSchema` is the tool's own (a hand-written one).
    fn raw_input_schema(&self) -> Option<JsonObject> {
        None
    }

    /// The OAuth scopes a caller's token must grant before this tool runs
    /// (`#[mcp_tool(scopes = [..])]`); none by default. Checked against
    /// [`Ctx::principal`](crate::Ctx::principal): a caller without them is refused before the
    /// handler runs (over HTTP with `403` and an `insufficient_scope` challenge).
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Scopes this tool requires depending on the request (its arguments), on top of
    /// [`scopes`](Self::scopes): `#[mcp_tool(scopes = ["…{name}…"])]` or `scopes_with = path`;
    /// none by default. A caller without them is refused before the handler runs, and the
    /// `insufficient_scope` challenge names exactly the scopes the request needs.
    fn scope_rule(&self) -> Option<crate::server::ScopeRule> {
        None
    }

    /// Runs the tool with the call's arguments (an empty object when the client sent none).
    fn call<'a>(
        &'a self,
        ctx: Ctx,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>>;

    /// Whether a call can ask the client anything (elicit, sample, list roots): `true`
    /// unless the tool cannot reach a [`Ctx`]. `#[mcp_tool]` answers `false` for a function
    /// without a `Ctx` parameter; a 2026-07-28 call of such a tool then skips what only a
    /// multi-round call needs (the digest binding its `requestState` to the arguments).
    fn asks_client(&self) -> bool {
        true
    }

    /// Whether a call of this tool as a task of the tasks extension (MCP 2026-07-28) first
    /// gathers its input in multi round-trip rounds and becomes a task only when it calls
    /// [`Ctx::become_task`]. The default, `false`, makes the call a task before the tool
    /// runs, so every question it asks becomes one of the task's `inputRequests`.
    ///
    /// ```
    /// # use tracksuit::{ToolFn, ToolHandler, protocol::{CallToolResult, Tool}};
    /// let t = ToolFn::new(Tool::new("t", Default::default()), |_ctx, _| async {
    ///     Ok(CallToolResult::text("done"))
    /// });
    /// assert!(!t.input_before_task());
    /// assert!(t.input_before_task_then().input_before_task());
    /// ```
    fn input_before_task(&self) -> bool {
        false
    }
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
    input_before_task: bool,
    scopes: Vec<String>,
    scope_rule: Option<crate::server::ScopeRule>,
}

impl<F> ToolFn<F> {
    /// A tool described by `descriptor` whose calls run `f`.
    pub fn new<Fut>(descriptor: ToolDescriptor, f: F) -> Self
    where
        F: Fn(Ctx, JsonObject) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
    {
        ToolFn {
            descriptor,
            f,
            input_before_task: false,
            scopes: Vec::new(),
            scope_rule: None,
        }
    }

    /// The same tool, gathering its input in multi round-trip rounds before it becomes a
    /// task (see [`ToolHandler::input_before_task`]).
    ///
    /// ```
    /// use tracksuit::{ToolFn, ToolHandler, protocol::{CallToolResult, Tool}};
    /// let t = ToolFn::new(Tool::new("t", Default::default()), |_ctx, _| async {
    ///     Ok(CallToolResult::text("done"))
    /// })
    /// .input_before_task_then();
    /// assert!(t.input_before_task());
    /// ```
    pub fn input_before_task_then(mut self) -> Self {
        self.input_before_task = true;
        self
    }

    /// Requires the caller's token to grant `scopes` (see [`ToolHandler::scopes`]).
    ///
    /// ```
    /// use tracksuit::{ToolFn, ToolHandler, protocol::{CallToolResult, Tool}};
    /// let delete = ToolFn::new(Tool::new("delete", Default::default()), |_ctx, _args| async {
    ///     Ok(CallToolResult::text("deleted"))
    /// })
    /// .scopes(["files:write"]);
    /// assert_eq!(ToolHandler::scopes(&delete), ["files:write"]);
    /// ```
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Also requires the scopes `rule` computes from each call's arguments (see
    /// [`ToolHandler::scope_rule`]).
    ///
    /// ```
    /// use tracksuit::{ScopeRule, ToolFn, ToolHandler, protocol::{CallToolResult, Tool}};
    /// let push = ToolFn::new(Tool::new("push", Default::default()), |_ctx, _args| async {
    ///     Ok(CallToolResult::text("pushed"))
    /// })
    /// .scopes_with(ScopeRule::template(["repo:{repo}:write"]));
    /// let args = serde_json::json!({"repo": "site"});
    /// let rule = push.scope_rule().unwrap();
    /// assert_eq!(rule.scopes(args.as_object().unwrap()).unwrap(), ["repo:site:write"]);
    /// ```
    pub fn scopes_with(mut self, rule: crate::server::ScopeRule) -> Self {
        self.scope_rule = Some(rule);
        self
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

    fn scopes(&self) -> Vec<String> {
        self.scopes.clone()
    }

    fn scope_rule(&self) -> Option<crate::server::ScopeRule> {
        self.scope_rule.clone()
    }

    fn call<'a>(
        &'a self,
        ctx: Ctx,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>> {
        Box::pin((self.f)(ctx, arguments))
    }

    fn input_before_task(&self) -> bool {
        self.input_before_task
    }
}

/// A group of tools registered together, such as the `#[mcp_tool]` methods of an
/// `#[mcp_server]` impl block (implemented for the server type and for `Arc` of it); with
/// [`Server::tools`](super::Server::tools), the block's `#[mcp_prompt]` and
/// `#[mcp_resource]` methods are registered too.
pub trait ToolSet {
    /// The tools, sharing whatever state the set holds.
    fn into_tools(self) -> Vec<std::sync::Arc<dyn ToolHandler>>;

    /// Everything the set registers: its tools, and any prompts and resources.
    #[doc(hidden)]
    fn into_parts(self) -> ServerParts
    where
        Self: Sized,
    {
        ServerParts {
            tools: self.into_tools(),
            ..ServerParts::default()
        }
    }
}

/// The handlers of an `#[mcp_server]` impl block, by kind.
#[doc(hidden)]
#[derive(Default)]
pub struct ServerParts {
    /// `#[mcp_tool]` methods.
    pub tools: Vec<std::sync::Arc<dyn ToolHandler>>,
    /// `#[mcp_prompt]` methods.
    pub prompts: Vec<std::sync::Arc<dyn super::PromptHandler>>,
    /// `#[mcp_resource]` methods with a fixed URI.
    pub resources: Vec<std::sync::Arc<dyn super::ResourceHandler>>,
    /// `#[mcp_resource]` methods with a URI template.
    pub templates: Vec<std::sync::Arc<dyn super::ResourceTemplateHandler>>,
}

/// Implemented by `#[mcp_server]` for the server type: its handlers over shared state.
#[doc(hidden)]
pub trait ServerTools: Send + Sync + 'static {
    /// The handlers of `this`.
    fn parts_of(this: std::sync::Arc<Self>) -> ServerParts;
}

impl<T: ServerTools> ToolSet for std::sync::Arc<T> {
    fn into_tools(self) -> Vec<std::sync::Arc<dyn ToolHandler>> {
        T::parts_of(self).tools
    }

    fn into_parts(self) -> ServerParts {
        T::parts_of(self)
    }
}

/// A tool whose descriptor links it to an MCP App (`_meta.ui.resourceUri`); everything else
/// is the wrapped tool's.
pub(crate) struct UiLinked {
    inner: std::sync::Arc<dyn ToolHandler>,
    descriptor: ToolDescriptor,
}

impl UiLinked {
    pub(crate) fn new(inner: std::sync::Arc<dyn ToolHandler>, uri: &str) -> Self {
        let mut descriptor = inner.descriptor();
        crate::apps::link(&mut descriptor, uri);
        UiLinked { inner, descriptor }
    }
}

impl ToolHandler for UiLinked {
    fn descriptor(&self) -> ToolDescriptor {
        self.descriptor.clone()
    }

    fn scopes(&self) -> Vec<String> {
        self.inner.scopes()
    }

    fn scope_rule(&self) -> Option<crate::server::ScopeRule> {
        self.inner.scope_rule()
    }

    fn raw_input_schema(&self) -> Option<JsonObject> {
        self.inner.raw_input_schema()
    }

    fn call<'a>(
        &'a self,
        ctx: Ctx,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>> {
        self.inner.call(ctx, arguments)
    }

    fn asks_client(&self) -> bool {
        self.inner.asks_client()
    }

    fn input_before_task(&self) -> bool {
        self.inner.input_before_task()
    }
}
