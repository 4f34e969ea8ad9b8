//! Visibility per caller: rules (`Server::visibility`, and `hide_unauthorized`) that decide
//! which tools, prompts, resources and templates a caller sees and can use. A hidden item
//! answers exactly as an absent one, wherever it is named.

use super::dispatch::Era;
use super::request_scope::RequestScope;
use super::{Entry, Registry};
use crate::caller::{Caller, Principal};
use crate::context::ClientInit;
use crate::protocol::{
    ClientCapabilities, Implementation, JsonObject, Prompt, Resource, ResourceTemplate, Tool,
};
use std::sync::Arc;

/// A visibility rule: whether `viewer` may see (and use) `item`.
pub(crate) type Rule = Arc<dyn Fn(&Item<'_>, &Viewer<'_>) -> bool + Send + Sync>;

/// What kind of item a visibility rule is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ItemKind {
    /// A tool (`tools/list`, `tools/call`).
    Tool,
    /// A prompt (`prompts/list`, `prompts/get`, its completions).
    Prompt,
    /// A fixed resource (`resources/list`, `resources/read`, `resources/subscribe`).
    Resource,
    /// A resource template (`resources/templates/list`, reads of URIs it matches, its
    /// completions).
    ResourceTemplate,
}

/// The item a visibility rule is asked about: its kind, its name (a tool's or prompt's
/// name, a resource's URI, a template's URI template), its descriptor as listed (so
/// `_meta`, annotations or a title can decide), and the scopes it always requires.
///
/// ```
/// use tracksuit::{Item, ItemKind, protocol::Tool};
/// let tool = Tool::new("pay", Default::default());
/// let item = Item::tool(&tool);
/// assert_eq!((item.kind(), item.name()), (ItemKind::Tool, "pay"));
/// assert!(item.meta().is_none() && item.scopes().is_empty());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    descriptor: Descriptor<'a>,
    scopes: &'a [String],
}

#[derive(Debug, Clone, Copy)]
enum Descriptor<'a> {
    Tool(&'a Tool),
    Prompt(&'a Prompt),
    Resource(&'a Resource),
    Template(&'a ResourceTemplate),
}

impl<'a> Item<'a> {
    /// The item for `tool` (for tests of a rule; the server makes its own).
    pub fn tool(tool: &'a Tool) -> Self {
        Item {
            descriptor: Descriptor::Tool(tool),
            scopes: &[],
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ItemKind {
        match self.descriptor {
            Descriptor::Tool(_) => ItemKind::Tool,
            Descriptor::Prompt(_) => ItemKind::Prompt,
            Descriptor::Resource(_) => ItemKind::Resource,
            Descriptor::Template(_) => ItemKind::ResourceTemplate,
        }
    }

    /// The name it is served under (a mounted item's, with the mount's prefix), or the URI
    /// of a resource, or the URI template of a template.
    pub fn name(&self) -> &'a str {
        match self.descriptor {
            Descriptor::Tool(t) => &t.name,
            Descriptor::Prompt(p) => &p.name,
            Descriptor::Resource(r) => &r.uri,
            Descriptor::Template(t) => &t.uri_template,
        }
    }

    /// Its descriptor's `_meta`, if any.
    pub fn meta(&self) -> Option<&'a JsonObject> {
        match self.descriptor {
            Descriptor::Tool(t) => t.meta.as_ref(),
            Descriptor::Prompt(p) => p.meta.as_ref(),
            Descriptor::Resource(r) => r.meta.as_ref(),
            Descriptor::Template(t) => t.meta.as_ref(),
        }
    }

    /// The tool's descriptor, if it is a tool.
    pub fn as_tool(&self) -> Option<&'a Tool> {
        match self.descriptor {
            Descriptor::Tool(t) => Some(t),
            _ => None,
        }
    }

    /// The prompt's descriptor, if it is a prompt.
    pub fn as_prompt(&self) -> Option<&'a Prompt> {
        match self.descriptor {
            Descriptor::Prompt(p) => Some(p),
            _ => None,
        }
    }

    /// The resource's descriptor, if it is a fixed resource.
    pub fn as_resource(&self) -> Option<&'a Resource> {
        match self.descriptor {
            Descriptor::Resource(r) => Some(r),
            _ => None,
        }
    }

    /// The template's descriptor, if it is a resource template.
    pub fn as_resource_template(&self) -> Option<&'a ResourceTemplate> {
        match self.descriptor {
            Descriptor::Template(t) => Some(t),
            _ => None,
        }
    }

    /// The scopes every use of it requires (its fixed `scopes`; a rule's computed scopes
    /// depend on a request's arguments, which a list does not have).
    pub fn scopes(&self) -> &'a [String] {
        self.scopes
    }
}

/// Who is looking, as a visibility rule sees them: the authenticated principal, the client's
/// description and capabilities (from `initialize` on 2025-11-25, from each request's
/// `_meta` on 2026-07-28), the protocol era, and on Streamable HTTP the request's head.
///
/// ```
/// use tracksuit::{Server, middleware::Era};
/// let server = Server::new(tracksuit::crate_info!())
///     .visibility(|item, viewer| {
///         let staff = viewer.principal().is_some_and(|p| p.subject.ends_with("@staff"));
///         let inspector = viewer.client_info().is_some_and(|c| c.name == "inspector");
///         // Drafts only for staff, or the inspector in a 2026 request.
///         !item.name().starts_with("draft_")
///             || staff
///             || (inspector && viewer.era() == Era::Stateless)
///     })
///     .build()?;
/// # let _ = server;
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
pub struct Viewer<'a> {
    caller: &'a Caller,
    client_info: Option<&'a Implementation>,
    capabilities: Option<&'a ClientCapabilities>,
    era: Era,
}

impl std::fmt::Debug for Viewer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Viewer")
            .field("principal", &self.principal().map(|p| &p.subject))
            .field("client", &self.client_info().map(|c| &c.name))
            .field("era", &self.era)
            .finish_non_exhaustive()
    }
}

impl<'a> Viewer<'a> {
    /// The authenticated principal, if the transport has one (see `docs/auth.md`).
    pub fn principal(&self) -> Option<&'a Principal> {
        self.caller.principal.as_deref()
    }

    /// Whether the principal was granted every scope of `scopes` (`false` without one,
    /// unless `scopes` is empty).
    pub fn has_scopes<S: AsRef<str>>(&self, scopes: &[S]) -> bool {
        match self.principal() {
            Some(p) => p.has_scopes(scopes),
            None => scopes.is_empty(),
        }
    }

    /// The client's `clientInfo`, once known.
    pub fn client_info(&self) -> Option<&'a Implementation> {
        self.client_info
    }

    /// The client's capabilities, once known.
    pub fn client_capabilities(&self) -> Option<&'a ClientCapabilities> {
        self.capabilities
    }

    /// The protocol era of the request.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The HTTP request's head (method, URI, headers, extensions) on Streamable HTTP.
    #[cfg(feature = "http")]
    pub fn http_request(&self) -> Option<&'a http::request::Parts> {
        self.caller.http.as_deref()
    }
}

/// A descriptor that can be shown to a visibility rule.
pub(crate) trait Describe {
    fn item<'a>(&'a self, scopes: &'a [String]) -> Item<'a>;
}

macro_rules! describe {
    ($($ty:ty => $variant:ident),*) => {$(
        impl Describe for $ty {
            fn item<'a>(&'a self, scopes: &'a [String]) -> Item<'a> {
                Item { descriptor: Descriptor::$variant(self), scopes }
            }
        }
    )*};
}
describe!(Tool => Tool, Prompt => Prompt, Resource => Resource, ResourceTemplate => Template);

impl RequestScope {
    /// Whether `caller` may see and use `entry`: every rule of `Server::visibility` allows
    /// it and, with `hide_unauthorized`, the caller holds its fixed scopes.
    pub(super) fn visible<D: Describe, T: ?Sized>(
        &self,
        entry: &Entry<D, T>,
        caller: &Caller,
    ) -> bool {
        if self.unfiltered() {
            return true;
        }
        if !self.filters() {
            return true;
        }
        let init: Option<&ClientInit> = self.client();
        let viewer = Viewer {
            caller,
            client_info: init.map(|c| &*c.client_info),
            capabilities: init.map(|c| &*c.capabilities),
            era: if self.is_modern() {
                Era::Stateless
            } else {
                Era::Session
            },
        };
        self.server().shows(entry, &viewer)
    }

    /// The entry under `key` if `caller` may see it: a hidden one is absent.
    pub(super) fn lookup<'r, D: Describe, T: ?Sized>(
        &self,
        registry: &'r Registry<Entry<D, T>>,
        key: &str,
        caller: &Caller,
    ) -> Option<&'r Entry<D, T>> {
        registry.get(key).filter(|e| self.visible(e, caller))
    }

    /// Whether any rule hides items from some callers.
    pub(super) fn filters(&self) -> bool {
        let inner = &self.server().inner;
        inner.options.hide_unauthorized || !inner.visibility.is_empty()
    }
}

impl RequestScope {
    /// Whether `uri` names a resource `caller` may not see: a hidden fixed resource, or a
    /// URI only hidden templates match. An unknown URI is not hidden (it is unknown).
    pub(super) fn hides_uri(&self, uri: &str, caller: &Caller) -> bool {
        if !self.filters() {
            return false;
        }
        let inner = &self.server().inner;
        if let Some(entry) = crate::peer::sync::read(&inner.resources).get(uri) {
            return !self.visible(entry, caller);
        }
        let templates = crate::peer::sync::read(&inner.templates);
        let mut matching = templates
            .values()
            .filter(|e| e.item.template().matches(uri).is_some())
            .peekable();
        matching.peek().is_some() && !matching.any(|e| self.visible(e, caller))
    }
}

impl super::ServerHandle {
    /// Whether `viewer` may see `entry`: `hide_unauthorized`, then every visibility rule.
    fn shows<D: Describe, T: ?Sized>(&self, entry: &Entry<D, T>, viewer: &Viewer<'_>) -> bool {
        let inner = &self.inner;
        if inner.options.hide_unauthorized
            && !viewer
                .caller
                .missing_scopes(entry.scopes.fixed())
                .is_empty()
        {
            return false;
        }
        if inner.visibility.is_empty() {
            return true;
        }
        let item = entry.descriptor.item(entry.scopes.fixed());
        inner.visibility.iter().all(|rule| rule(&item, viewer))
    }

    /// Whether tool `name` is hidden from `caller`, a 2026-07-28 request whose `_meta`
    /// described its client as `client_info` / `capabilities`: how the HTTP host, which
    /// checks a call's `Mcp-Param-*` headers before dispatch, leaves a hidden tool to be
    /// answered as an unknown one (its headers would tell it exists).
    #[cfg(feature = "http")]
    pub(crate) fn hides_tool(
        &self,
        name: &str,
        caller: &Caller,
        client_info: Option<&Implementation>,
        capabilities: &ClientCapabilities,
    ) -> bool {
        let inner = &self.inner;
        if !inner.options.hide_unauthorized && inner.visibility.is_empty() {
            return false;
        }
        let viewer = Viewer {
            caller,
            client_info,
            capabilities: Some(capabilities),
            era: Era::Stateless,
        };
        crate::peer::sync::read(&inner.tools)
            .get(name)
            .is_some_and(|entry| !self.shows(entry, &viewer))
    }
}

impl super::Server {
    /// Decides, per caller, which tools, prompts, resources and templates exist for them:
    /// `rule(item, viewer)` returning `false` hides `item` from `viewer`. A hidden item is
    /// left out of every list (pages stay full: each visible item is listed once) and
    /// answers exactly like an absent one wherever it is named — `tools/call` (also as a
    /// task), `prompts/get`, `resources/read` (a hidden template does not match),
    /// `completion/complete`, `resources/subscribe` (accepted, never updated) — in both
    /// eras, so a caller cannot tell hidden from absent. Several rules: an item is shown
    /// when all allow it. [`ServerOptions::hide_unauthorized`](crate::ServerOptions) is the
    /// built-in rule "the caller holds the item's fixed scopes".
    ///
    /// Rules run on every list and every lookup: keep them cheap and deterministic for a
    /// caller (a tool shown in a list must still be there for the call). Tasks stay their
    /// creator's: `tasks/get`, `tasks/result` and `tasks/list` of a task whose tool was
    /// visible when it started answer as before. With rules, the Streamable HTTP host
    /// leaves the scope check to the session (a visible item the caller lacks scopes for
    /// is refused with `-32600`, not `403`), since a rule may read what only the session
    /// knows (the client's description).
    ///
    /// ```
    /// use tracksuit::{ItemKind, Server, ToolFn, protocol::{CallToolResult, Tool}};
    /// let tool = |name: &str| ToolFn::new(Tool::new(name, Default::default()), |_ctx, _| async {
    ///     Ok(CallToolResult::text("done"))
    /// });
    /// let server = Server::new(tracksuit::crate_info!())
    ///     .tool(tool("read"))
    ///     .tool(tool("admin_reset"))
    ///     // Admin tools only for principals with the `admin` scope.
    ///     .visibility(|item, viewer| {
    ///         item.kind() != ItemKind::Tool
    ///             || !item.name().starts_with("admin_")
    ///             || viewer.has_scopes(&["admin"])
    ///     })
    ///     .build()?;
    /// assert_eq!(server.tool_names(), ["read", "admin_reset"]); // all are registered
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn visibility<F>(mut self, rule: F) -> Self
    where
        F: Fn(&Item<'_>, &Viewer<'_>) -> bool + Send + Sync + 'static,
    {
        self.inner.visibility.push(Arc::new(rule));
        self
    }
}
