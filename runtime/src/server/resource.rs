//! The [`ResourceHandler`] and [`ResourceTemplateHandler`] traits, closure-backed implementations, and the
//! RFC 6570 matcher templates use.

use crate::context::Ctx;
use crate::protocol::{
    ErrorObject, ReadResourceResult, Resource as ResourceDescriptor,
    ResourceTemplate as TemplateDescriptor,
};
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::future::Future;

pub use super::uri_template::UriTemplate;

/// A resource with a fixed URI, listed in `resources/list` and read with `resources/read`.
///
/// ```
/// use futures::future::BoxFuture;
/// use tracksuit::{Ctx, ResourceHandler, Server, client::Client};
/// use tracksuit::protocol::{ErrorObject, ReadResourceResult, Resource, ResourceContents};
///
/// /// The process's uptime as a resource.
/// struct Uptime(std::time::Instant);
///
/// impl ResourceHandler for Uptime {
///     fn descriptor(&self) -> Resource {
///         Resource::new("sys://uptime", "uptime")
///     }
///     fn read<'a>(&'a self, _ctx: Ctx) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>> {
///         let secs = self.0.elapsed().as_secs();
///         Box::pin(async move {
///             Ok(ReadResourceResult::new(vec![ResourceContents::text("sys://uptime", secs.to_string())]))
///         })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!())
///     .resource(Uptime(std::time::Instant::now()))
///     .build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let read = client.read_resource("sys://uptime").await?;
/// assert_eq!(read.contents[0].uri(), "sys://uptime");
/// # Ok(())
/// # }
/// ```
pub trait ResourceHandler: Send + Sync + 'static {
    /// The descriptor published in `resources/list`.
    fn descriptor(&self) -> ResourceDescriptor;

    /// The OAuth scopes a caller's token must grant before this resource runs
    /// (`#[mcp_resource(scopes = [..])]`); none by default. Checked against
    /// [`Ctx::principal`](crate::Ctx::principal): a caller without them is refused before the
    /// handler runs (over HTTP with `403` and an `insufficient_scope` challenge).
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Reads the resource's contents.
    fn read<'a>(&'a self, ctx: Ctx) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>>;
}

/// A family of resources addressed by an RFC 6570 URI template.
///
/// ```
/// use tracksuit::{ResourceTemplateFn, Server, client::Client};
/// use tracksuit::protocol::{ReadResourceResult, ResourceContents, ResourceTemplate};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // `ResourceTemplateFn` implements this trait for a closure.
/// let users = ResourceTemplateFn::new(
///     ResourceTemplate::new("users://{id}/profile", "profile"),
///     |_ctx, uri, vars| async move {
///         Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("user {}", vars["id"]))]))
///     },
/// )?;
/// let server = Server::new(tracksuit::crate_info!()).resource_template(users).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let read = client.read_resource("users://42/profile").await?;
/// assert_eq!(serde_json::to_value(&read.contents[0])?["text"], "user 42");
/// # Ok(())
/// # }
/// ```
pub trait ResourceTemplateHandler: Send + Sync + 'static {
    /// The descriptor published in `resources/templates/list`.
    fn descriptor(&self) -> TemplateDescriptor;

    /// The OAuth scopes a caller's token must grant before this resource runs
    /// (`#[mcp_resource(scopes = [..])]`); none by default. Checked against
    /// [`Ctx::principal`](crate::Ctx::principal): a caller without them is refused before the
    /// handler runs (over HTTP with `403` and an `insufficient_scope` challenge).
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Scopes this template requires depending on the request (its URI's variables, each a string), on top of
    /// [`scopes`](Self::scopes): `#[mcp_resource(scopes = ["…{name}…"])]` or `scopes_with = path`;
    /// none by default. A caller without them is refused before the handler runs, and the
    /// `insufficient_scope` challenge names exactly the scopes the request needs.
    fn scope_rule(&self) -> Option<crate::server::ScopeRule> {
        None
    }

    /// The parsed template used to match URIs.
    fn template(&self) -> &UriTemplate;

    /// Reads the resource at `uri`, whose template variables are `vars`.
    fn read<'a>(
        &'a self,
        ctx: Ctx,
        uri: &'a str,
        vars: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>>;

    /// Completion values for a template variable (`context`: the variables already filled
    /// in). `ctx` is the `completion/complete` request's context (app state with
    /// [`Ctx::state`](crate::Ctx::state), the caller, ...).
    fn complete<'a>(
        &'a self,
        ctx: &'a Ctx,
        variable: &'a str,
        value: &'a str,
        context: &'a HashMap<String, String>,
    ) -> BoxFuture<'a, Vec<String>> {
        let _ = (ctx, variable, value, context);
        Box::pin(async { Vec::new() })
    }
}

/// A fixed resource made of a descriptor and an async closure.
///
/// ```
/// use tracksuit::{ResourceFn, protocol::{ReadResourceResult, Resource, ResourceContents}};
/// let r = ResourceFn::new(Resource::new("mem://a", "a"), |_ctx| async move {
///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://a", "hello")]))
/// });
/// # let _ = r;
/// ```
pub struct ResourceFn<F> {
    descriptor: ResourceDescriptor,
    f: F,
}

impl<F> ResourceFn<F> {
    /// A resource described by `descriptor` read by `f`.
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceHandler, protocol::{ReadResourceResult, Resource, ResourceContents}};
    /// let r = ResourceFn::new(Resource::new("mem://a", "a"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://a", "hello")]))
    /// });
    /// assert_eq!(r.descriptor().uri, "mem://a");
    /// ```
    pub fn new<Fut>(descriptor: ResourceDescriptor, f: F) -> Self
    where
        F: Fn(Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, ErrorObject>> + Send + 'static,
    {
        ResourceFn { descriptor, f }
    }
}

impl<F, Fut> ResourceHandler for ResourceFn<F>
where
    F: Fn(Ctx) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ReadResourceResult, ErrorObject>> + Send + 'static,
{
    fn descriptor(&self) -> ResourceDescriptor {
        self.descriptor.clone()
    }

    fn read<'a>(&'a self, ctx: Ctx) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>> {
        Box::pin((self.f)(ctx))
    }
}

/// A templated resource made of a descriptor and an async closure.
///
/// ```
/// use tracksuit::{ResourceTemplateFn, protocol::{ReadResourceResult, ResourceTemplate, ResourceContents}};
/// let t = ResourceTemplateFn::new(
///     ResourceTemplate::new("mem://items/{id}", "item"),
///     |_ctx, uri, vars| async move {
///         let id = vars.get("id").cloned().unwrap_or_default();
///         Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {id}"))]))
///     },
/// ).expect("valid template");
/// # let _ = t;
/// ```
pub struct ResourceTemplateFn<F> {
    descriptor: TemplateDescriptor,
    template: UriTemplate,
    f: F,
    scope_rule: Option<crate::server::ScopeRule>,
}

impl<F> ResourceTemplateFn<F> {
    /// A template described by `descriptor` read by `f(ctx, uri, vars)`. Fails if the
    /// descriptor's `uriTemplate` is not a valid RFC 6570 template.
    ///
    /// ```
    /// use tracksuit::{ResourceTemplateFn, protocol::{ReadResourceResult, ResourceTemplate}};
    /// let ok = ResourceTemplateFn::new(ResourceTemplate::new("mem://{id}", "ok"), |_ctx, _uri, _vars| async {
    ///     Ok(ReadResourceResult::new(vec![]))
    /// });
    /// assert!(ok.is_ok());
    /// let broken = ResourceTemplateFn::new(ResourceTemplate::new("mem://{id", "broken"), |_ctx, _uri, _vars| async {
    ///     Ok(ReadResourceResult::new(vec![]))
    /// });
    /// assert!(broken.is_err());
    /// ```
    pub fn new<Fut>(descriptor: TemplateDescriptor, f: F) -> Result<Self, String>
    where
        F: Fn(Ctx, String, HashMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, ErrorObject>> + Send + 'static,
    {
        let template = UriTemplate::parse(&descriptor.uri_template)?;
        Ok(ResourceTemplateFn {
            descriptor,
            template,
            f,
            scope_rule: None,
        })
    }

    /// Requires the scopes `rule` computes from each URI's variables (see
    /// [`ResourceTemplateHandler::scope_rule`]).
    pub fn scopes_with(mut self, rule: crate::server::ScopeRule) -> Self {
        self.scope_rule = Some(rule);
        self
    }
}

impl<F, Fut> ResourceTemplateHandler for ResourceTemplateFn<F>
where
    F: Fn(Ctx, String, HashMap<String, String>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ReadResourceResult, ErrorObject>> + Send + 'static,
{
    fn descriptor(&self) -> TemplateDescriptor {
        self.descriptor.clone()
    }

    fn template(&self) -> &UriTemplate {
        &self.template
    }

    fn scope_rule(&self) -> Option<crate::server::ScopeRule> {
        self.scope_rule.clone()
    }

    fn read<'a>(
        &'a self,
        ctx: Ctx,
        uri: &'a str,
        vars: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<ReadResourceResult, ErrorObject>> {
        Box::pin((self.f)(ctx, uri.to_owned(), vars))
    }
}
