//! Mounting: one [`Server`] serving another's tools, prompts, resources and templates,
//! under a prefix ([`Server::mount`], [`Server::mount_with`]) or as they are
//! ([`Server::mount_flat`]). The mounted items are wrapped (a new name, the mounted server's
//! app state for their `Ctx`) and registered on the outer server like its own, so every
//! path a request takes (both eras, tasks, MRTR rounds, completion, scopes, visibility)
//! treats them alike.

use super::{
    PromptHandler, ResourceHandler, ResourceTemplateHandler, Server, ServerError, ServerInner,
    ToolHandler, UriTemplate,
};
use crate::authoring::ToolError;
use crate::context::{AppState, Ctx};
use crate::protocol::{
    CallToolResult, ErrorObject, GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Arc;

/// How [`Server::mount_with`] names a mounted server's tools and prompts:
/// `{prefix}{separator}{name}`. The default separator is `_` (`billing_pay`); tool names may
/// use `A-Z a-z 0-9 _ - .` (SEP-986), so `.` and `-` are the other choices.
///
/// ```
/// use tracksuit::{Mount, Server, ToolFn, protocol::{CallToolResult, Tool}};
/// let pay = ToolFn::new(Tool::new("pay", Default::default()), |_ctx, _args| async {
///     Ok(CallToolResult::text("paid"))
/// });
/// let billing = Server::new(tracksuit::crate_info!()).tool(pay);
/// let server = Server::new(tracksuit::crate_info!())
///     .mount_with("billing", billing, Mount::separator("."))
///     .build()?;
/// assert_eq!(server.tool_names(), ["billing.pay"]);
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    separator: String,
}

impl Default for Mount {
    fn default() -> Self {
        Mount::separator("_")
    }
}

impl Mount {
    /// Names joined as `{prefix}{separator}{name}`.
    ///
    /// ```
    /// assert_eq!(tracksuit::Mount::separator("-"), tracksuit::Mount::separator("-"));
    /// ```
    pub fn separator(separator: impl Into<String>) -> Self {
        Mount {
            separator: separator.into(),
        }
    }
}

impl Server {
    /// Serves `other`'s tools, prompts, resources and resource templates as part of this
    /// server, its tools and prompts named `{prefix}_{name}` ([`mount_with`](Self::mount_with)
    /// chooses another separator, [`mount_flat`](Self::mount_flat) none).
    ///
    /// - **Resource URIs are kept as they are**, templates too: a URI names a thing (a
    ///   file, a row), and the mounted server's tools return links to it, embed it and send
    ///   `notifications/resources/updated` for it under that URI. A URI both servers serve
    ///   is a duplicate.
    /// - **Duplicates** (a name or URI taken on this server or by another mount) make
    ///   [`build`](Self::build) fail with [`ServerError::Duplicate`], naming both sources.
    /// - **App state**: a mounted handler's [`Ctx::state`](crate::Ctx::state) reads
    ///   `other`'s values first, then this server's (so both may hold a value of one type:
    ///   each server's handlers get their own).
    /// - **Instructions**: `other`'s are appended to this server's, after a line naming
    ///   the mount.
    /// - Scopes, scope rules, task support, completions, MCP Apps links: kept, per item.
    /// - `other`'s identity and [`ServerOptions`](crate::ServerOptions) (page size,
    ///   timeouts, task options, keys, ...) are **ignored**: this server's govern the
    ///   endpoint. What would change how requests are served and cannot be honoured for a
    ///   part of a server is a [`ServerError::Mount`] at `build()` instead: `other`'s
    ///   layers, task store, idempotency store, event bus, skills, visibility rules and
    ///   `hide_unauthorized` (give them to this server).
    ///
    /// ```
    /// use tracksuit::{Ctx, Server, ToolError, mcp_tool};
    ///
    /// struct Ledger(&'static str);
    ///
    /// /// Pays an invoice.
    /// #[mcp_tool]
    /// async fn pay(ctx: &Ctx, invoice: u32) -> Result<String, ToolError> {
    ///     Ok(format!("{invoice} paid from {}", ctx.state::<Ledger>()?.0))
    /// }
    ///
    /// let billing = Server::new(tracksuit::crate_info!()).state(Ledger("main")).tool(pay);
    /// let server = Server::new(tracksuit::crate_info!()).mount("billing", billing).build()?;
    /// assert_eq!(server.tool_names(), ["billing_pay"]);
    ///
    /// // A name taken twice names both sources.
    /// let twice = Server::new(tracksuit::crate_info!())
    ///     .mount("billing", Server::new(tracksuit::crate_info!()).tool(pay))
    ///     .mount("billing", Server::new(tracksuit::crate_info!()).tool(pay))
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(
    ///     twice.to_string(),
    ///     "tool `billing_pay` from mount `billing` collides with tool `billing_pay` from mount `billing`"
    /// );
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn mount(self, prefix: impl Into<String>, other: Server) -> Self {
        self.mount_with(prefix, other, Mount::default())
    }

    /// [`mount`](Self::mount) with names joined by `mount`'s separator. A prefix that
    /// cannot start a tool name (empty, or a character outside `A-Z a-z 0-9 _ - .`) is a
    /// [`ServerError::Mount`].
    ///
    /// ```
    /// use tracksuit::{Mount, Server, ServerError};
    /// let bad = Server::new(tracksuit::crate_info!())
    ///     .mount_with("bill ing", Server::new(tracksuit::crate_info!()), Mount::default())
    ///     .build();
    /// assert!(matches!(bad, Err(ServerError::Mount { .. })));
    /// ```
    pub fn mount_with(self, prefix: impl Into<String>, other: Server, mount: Mount) -> Self {
        let prefix = prefix.into();
        let label = format!("mount `{prefix}`");
        let joined = format!("{prefix}{}", mount.separator);
        let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
        if prefix.is_empty() || !joined.chars().all(valid) {
            let reason = format!(
                "the prefix {joined:?} cannot start a tool name (1 or more of A-Z a-z 0-9 _ - .); mount_flat mounts without one"
            );
            return self.keep_first(Err(ServerError::Mount {
                mount: label,
                reason,
            }));
        }
        self.attach(other, label, joined)
    }

    /// Serves `other`'s tools, prompts, resources and templates under their own names, as
    /// if registered here; everything else is as for [`mount`](Self::mount).
    ///
    /// ```
    /// use tracksuit::{Server, ToolFn, protocol::{CallToolResult, Tool}};
    /// let ping = ToolFn::new(Tool::new("ping", Default::default()), |_ctx, _args| async {
    ///     Ok(CallToolResult::text("pong"))
    /// });
    /// let part = Server::new(tracksuit::crate_info!()).tool(ping);
    /// let server = Server::new(tracksuit::crate_info!()).mount_flat(part).build()?;
    /// assert_eq!(server.tool_names(), ["ping"]);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn mount_flat(self, other: Server) -> Self {
        let label = format!("the flat mount of `{}`", other.inner.info.name);
        self.attach(other, label, String::new())
    }

    /// Registers `other`'s items here, named `{prefix}{name}`, their origin `label`.
    fn attach(mut self, other: Server, label: String, prefix: String) -> Self {
        if let Some(error) = other.error {
            return self.keep_first(Err(error));
        }
        if let Err(error) = mountable(&other.inner, &other.unmountable, &label) {
            return self.keep_first(Err(error));
        }
        let inner = other.inner;
        if let Some(text) = inner.instructions {
            let part = format!("From {label}:\n{text}");
            self.inner.instructions = Some(match self.inner.instructions.take() {
                Some(own) => format!("{own}\n\n{part}"),
                None => part,
            });
        }
        let state = Arc::new(inner.app_state);
        let origin = |entry_origin: Option<Arc<str>>| -> Arc<str> {
            match entry_origin {
                None => label.as_str().into(),
                Some(nested) => format!("{label} (its {nested})").into(),
            }
        };
        for entry in into(inner.tools).into_values() {
            let tool = Mounted::new(entry.item, &prefix, &state);
            let result = self.inner.insert_tool(tool, Some(&origin(entry.origin)));
            self = self.keep_first(result);
        }
        for entry in into(inner.prompts).into_values() {
            let prompt = Mounted::new(entry.item, &prefix, &state);
            let result = self
                .inner
                .insert_prompt(prompt, Some(&origin(entry.origin)));
            self = self.keep_first(result);
        }
        for entry in into(inner.resources).into_values() {
            let resource = Mounted::new(entry.item, "", &state);
            let result = self
                .inner
                .insert_resource(resource, Some(&origin(entry.origin)));
            self = self.keep_first(result);
        }
        for entry in into(inner.templates).into_values() {
            let template = Mounted::new(entry.item, "", &state);
            let result = self
                .inner
                .insert_template(template, Some(&origin(entry.origin)));
            self = self.keep_first(result);
        }
        self
    }
}

/// A registry taken out of its lock (a poisoned one as it is).
fn into<T>(lock: std::sync::RwLock<super::Registry<T>>) -> super::Registry<T> {
    match lock.into_inner() {
        Ok(registry) => registry,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// What `inner` has that a mount cannot honour, as an error.
fn mountable(inner: &ServerInner, set: &[&'static str], label: &str) -> Result<(), ServerError> {
    let mut what: Vec<&str> = set.to_vec();
    if !inner.visibility.is_empty() {
        what.push("visibility rules");
    }
    if inner.options.hide_unauthorized {
        what.push("`hide_unauthorized`");
    }
    if what.is_empty() {
        return Ok(());
    }
    what.dedup();
    Err(ServerError::Mount {
        mount: label.to_owned(),
        reason: format!(
            "it has {}, which only the server that serves the endpoint can have (give them to it)",
            what.join(", ")
        ),
    })
}

/// A mounted item: the mounted server's handler, its descriptor renamed, and the mounted
/// server's app state put in front of its `Ctx`.
struct Mounted<H: ?Sized, D> {
    inner: Arc<H>,
    descriptor: D,
    state: Arc<AppState>,
}

/// A descriptor a mount can rename.
trait Rename {
    fn renamed(self, prefix: &str) -> Self;
}

impl Rename for Tool {
    fn renamed(mut self, prefix: &str) -> Self {
        self.name.insert_str(0, prefix);
        self
    }
}

impl Rename for Prompt {
    fn renamed(mut self, prefix: &str) -> Self {
        self.name.insert_str(0, prefix);
        self
    }
}

impl Rename for Resource {
    fn renamed(self, _: &str) -> Self {
        self
    }
}

impl Rename for ResourceTemplate {
    fn renamed(self, _: &str) -> Self {
        self
    }
}

/// A handler whose descriptor a mount can take.
trait Described {
    type Descriptor: Rename;
    fn described(&self) -> Self::Descriptor;
}

macro_rules! described {
    ($($handler:ident => $descriptor:ty),*) => {$(
        impl Described for dyn $handler {
            type Descriptor = $descriptor;
            fn described(&self) -> $descriptor {
                self.descriptor()
            }
        }
    )*};
}
described!(
    ToolHandler => Tool,
    PromptHandler => Prompt,
    ResourceHandler => Resource,
    ResourceTemplateHandler => ResourceTemplate
);

impl<H: ?Sized + Described> Mounted<H, H::Descriptor> {
    fn new(inner: Arc<H>, prefix: &str, state: &Arc<AppState>) -> Arc<Self> {
        Arc::new(Mounted {
            descriptor: inner.described().renamed(prefix),
            inner,
            state: state.clone(),
        })
    }
}

impl ToolHandler for Mounted<dyn ToolHandler, Tool> {
    fn descriptor(&self) -> Tool {
        self.descriptor.clone()
    }

    fn raw_input_schema(&self) -> Option<JsonObject> {
        self.inner.raw_input_schema()
    }

    fn scopes(&self) -> Vec<String> {
        self.inner.scopes()
    }

    fn scope_rule(&self) -> Option<super::ScopeRule> {
        self.inner.scope_rule()
    }

    fn call<'a>(
        &'a self,
        ctx: Ctx,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, ToolError>> {
        self.inner.call(ctx.in_mount(&self.state), arguments)
    }

    fn asks_client(&self) -> bool {
        self.inner.asks_client()
    }

    fn input_before_task(&self) -> bool {
        self.inner.input_before_task()
    }
}

impl PromptHandler for Mounted<dyn PromptHandler, Prompt> {
    fn descriptor(&self) -> Prompt {
        self.descriptor.clone()
    }

    fn scopes(&self) -> Vec<String> {
        self.inner.scopes()
    }

    fn scope_rule(&self) -> Option<super::ScopeRule> {
        self.inner.scope_rule()
    }

    fn get<'a>(
        &'a self,
        ctx: Ctx,
        arguments: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<GetPromptResult, ErrorObject>> {
        self.inner.get(ctx.in_mount(&self.state), arguments)
    }

    fn complete<'a>(
        &'a self,
        ctx: &'a Ctx,
        argument: &'a str,
        value: &'a str,
        context: &'a HashMap<String, String>,
    ) -> BoxFuture<'a, Vec<String>> {
        Box::pin(async move {
            let ctx = ctx.in_mount(&self.state);
            self.inner.complete(&ctx, argument, value, context).await
        })
    }
}

impl ResourceHandler for Mounted<dyn ResourceHandler, Resource> {
    fn descriptor(&self) -> Resource {
        self.descriptor.clone()
    }

    fn scopes(&self) -> Vec<String> {
        self.inner.scopes()
    }

    fn read<'a>(&'a self, ctx: Ctx) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>> {
        self.inner.read(ctx.in_mount(&self.state))
    }
}

impl ResourceTemplateHandler for Mounted<dyn ResourceTemplateHandler, ResourceTemplate> {
    fn descriptor(&self) -> ResourceTemplate {
        self.descriptor.clone()
    }

    fn scopes(&self) -> Vec<String> {
        self.inner.scopes()
    }

    fn scope_rule(&self) -> Option<super::ScopeRule> {
        self.inner.scope_rule()
    }

    fn template(&self) -> &UriTemplate {
        self.inner.template()
    }

    fn read<'a>(
        &'a self,
        ctx: Ctx,
        uri: &'a str,
        vars: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>> {
        self.inner.read(ctx.in_mount(&self.state), uri, vars)
    }

    fn complete<'a>(
        &'a self,
        ctx: &'a Ctx,
        variable: &'a str,
        value: &'a str,
        context: &'a HashMap<String, String>,
    ) -> BoxFuture<'a, Vec<String>> {
        Box::pin(async move {
            let ctx = ctx.in_mount(&self.state);
            self.inner.complete(&ctx, variable, value, context).await
        })
    }
}
