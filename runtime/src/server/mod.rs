//! The server: a [`Server`] holds the registries of tools, prompts, resources and templates,
//! and every connection gets a [`ServerSession`] that dispatches MCP requests to them.

mod answer;
mod builder;
mod calls;
pub(crate) mod dispatch;
mod events;
mod handle;
mod idempotent;
mod known_client;
mod listing;
mod modern;
mod mount;
mod options;
mod prompt;
mod register;
mod registry;
pub(crate) mod request_scope;
mod resource;
mod resume;
mod scopes;
mod serve;
mod session;
mod table;
mod tool;
mod traced;
mod uri_template;
mod visibility;

pub use builder::Server;
pub use handle::ServerHandle;
#[cfg(feature = "http")]
use handle::mirrored_in;
pub use modern::CacheHint;
pub(crate) use modern::{MODERN_PROTOCOL_VERSIONS, is_modern};
#[cfg(feature = "http")]
pub(crate) use modern::{RequestMeta, admit, requested_version};
pub use mount::Mount;
pub use options::{ProfileChooser, ServerOptions};
pub use prompt::{PromptFn, PromptHandler};
pub use register::{
    ByFn, ByValue, Generated, IntoPrompt, IntoResource, IntoResourceTemplate, IntoTool, Tagged,
    tagged,
};
pub use resource::{ResourceFn, ResourceHandler, ResourceTemplateFn, ResourceTemplateHandler};
pub use scopes::ScopeRule;
#[cfg(feature = "http")]
pub(crate) use serve::{PostWork, Served, Streamed};
pub(crate) use serve::{Scope, serve};
pub(crate) use session::ServerSession;
pub use tool::{ServerParts, ServerTools, ToolFn, ToolHandler, ToolSet};
pub use uri_template::UriTemplate;
pub use visibility::{Item, ItemKind, Viewer};

use crate::peer::sync::{read, write};
use crate::protocol::{Implementation, Tool as ToolDescriptor};
pub(crate) use registry::Registry;
use std::sync::{Arc, Mutex, RwLock, Weak};

pub(crate) struct Entry<D, T: ?Sized> {
    pub(crate) descriptor: D,
    pub(crate) item: Arc<T>,
    /// The scopes a caller must hold to use the item (its handler's `scopes()` and
    /// `scope_rule()`).
    pub(crate) scopes: scopes::Required,
    /// The descriptor in the other schema profiles, made on first use (tools only).
    pub(crate) profiled: listing::Profiled<D>,
    /// Where the item came from, for error messages: `None` when it was registered on the
    /// server itself, else the mount (`mount \`billing\``).
    pub(crate) origin: Option<Arc<str>>,
}

impl<T: ?Sized> Entry<crate::protocol::Tool, T> {
    /// The tool's `execution.taskSupport` (`forbidden` when it sets none).
    pub(crate) fn task_support(&self) -> crate::protocol::TaskSupport {
        self.descriptor
            .execution
            .as_ref()
            .and_then(|e| e.task_support)
            .unwrap_or(crate::protocol::TaskSupport::Forbidden)
    }
}

impl<D: Clone, T: ?Sized> Clone for Entry<D, T> {
    fn clone(&self) -> Self {
        Entry {
            descriptor: self.descriptor.clone(),
            item: self.item.clone(),
            scopes: self.scopes.clone(),
            profiled: self.profiled.clone(),
            origin: self.origin.clone(),
        }
    }
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    /// `info` as JSON, for the `serverInfo` of every modern result.
    pub(crate) info_json: serde_json::Value,
    /// `info` as JSON text, for the `serverInfo` of a modern tool result (written with it).
    pub(crate) info_text: Arc<serde_json::value::RawValue>,
    pub(crate) instructions: Option<String>,
    pub(crate) options: ServerOptions,
    pub(crate) tools: RwLock<Registry<Entry<ToolDescriptor, dyn ToolHandler>>>,
    pub(crate) prompts: RwLock<Registry<Entry<crate::protocol::Prompt, dyn PromptHandler>>>,
    pub(crate) resources: RwLock<Registry<Entry<crate::protocol::Resource, dyn ResourceHandler>>>,
    pub(crate) templates:
        RwLock<Registry<Entry<crate::protocol::ResourceTemplate, dyn ResourceTemplateHandler>>>,
    pub(crate) sessions: Mutex<Vec<Weak<ServerSession>>>,
    /// The open `subscriptions/listen` streams (2026-07-28).
    pub(crate) listeners: Mutex<Vec<Weak<modern::Listener>>>,
    pub(crate) tasks: Arc<crate::task::TaskEngine>,
    /// What seals modern requests' `requestState`.
    pub(crate) state_keys: crate::seal::StateKeys,
    /// The last client a modern request described, typed.
    pub(crate) known_client: known_client::KnownClient,
    /// Whether a tool ever registered has an `x-mcp-header` parameter (until then, modern
    /// calls have no `Mcp-Param-*` headers to check).
    #[cfg(feature = "http")]
    pub(crate) mirrored_headers: std::sync::atomic::AtomicBool,
    /// Whether any item registered so far requires scopes: most servers have none, and
    /// then no request needs its item looked up for them.
    scoped_items: std::sync::atomic::AtomicBool,
    /// The engine of requests whose messages have no client to go to, or that send none
    /// (`Peer::detached`).
    pub(crate) detached: Arc<crate::peer::Peer>,
    /// The bus shared with the other replicas, if any.
    pub(crate) bus: Option<events::Bus>,
    /// Where later MRTR rounds are claimed and their outcomes kept for re-sends.
    pub(crate) rounds_store: Arc<dyn crate::idempotency::IdempotencyStore>,
    /// Cancelled by [`ServerHandle::end_subscriptions`]: every `subscriptions/listen` ends.
    pub(crate) subscriptions_end: tokio_util::sync::CancellationToken,
    /// The skills served (SEP-2640), if any.
    #[cfg(feature = "skills")]
    pub(crate) skills: Option<Arc<crate::skills::Skills>>,
    /// The app state handlers read with `Ctx::state` (`Server::state`).
    pub(crate) app_state: crate::context::AppState,
    /// What the task store reports from other replicas, until the pump takes it.
    pub(crate) task_notices:
        Mutex<Option<tokio::sync::broadcast::Receiver<crate::task::TaskNotice>>>,
    /// The layers given to [`Server::layer`] around the handlers; `None` without layers
    /// (requests then go straight to their method table).
    pub(crate) service: Option<dispatch::McpService>,
    /// The rules of [`Server::visibility`]: an item is shown to a caller only if every one
    /// allows it.
    pub(crate) visibility: Vec<visibility::Rule>,
}

/// Why a server could not be assembled, or an item not added to a running one.
///
/// ```
/// use tracksuit::{Server, ServerError, mcp_tool};
/// #[mcp_tool]
/// /// Pings.
/// async fn ping() -> &'static str { "pong" }
/// let err = Server::new(tracksuit::crate_info!()).tool(ping).tool(ping).build().unwrap_err();
/// assert!(matches!(err, ServerError::Duplicate { .. }), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// `TRACKSUIT_STATE_KEYS` is set but does not hold valid keys.
    #[error("TRACKSUIT_STATE_KEYS: {0}")]
    StateKeys(String),
    /// A tool links (`_meta.ui.resourceUri`) to a `ui://` URI the server does not serve as
    /// an MCP App (`text/html;profile=mcp-app`), or an app's URI is not `ui://`.
    #[error("tool `{tool}` links to `{uri}`, which is not a ui:// MCP App resource of this server")]
    UnknownUiResource {
        /// The tool's name (empty for an app registered under another scheme).
        tool: String,
        /// The URI.
        uri: String,
    },
    /// Two items of one kind share a name (tools, prompts) or URI (resources, templates).
    ///
    /// When a mount is involved (see [`Server::mount`]) the message names where each came
    /// from: "tool `billing_pay` from mount `billing` collides with tool `billing_pay`
    /// registered on the server".
    #[error("{}", duplicate_message(kind, name, existing_from.as_deref(), added_from.as_deref()))]
    Duplicate {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The name or URI both share.
        name: String,
        /// Where the item registered first came from: `None` for the server itself, else
        /// the mount (e.g. ``mount `billing` ``).
        existing_from: Option<String>,
        /// Where the item that collided came from, likewise.
        added_from: Option<String>,
    },
    /// A server given to [`Server::mount`] (or `mount_with`, `mount_flat`) has something a
    /// mount cannot honour: its own layers, task store, idempotency store, event bus,
    /// skills, visibility rules or `hide_unauthorized`, which belong to the server that
    /// serves the endpoint; or the prefix cannot start a name.
    #[error("cannot mount {mount}: {reason}")]
    Mount {
        /// The mount (e.g. ``mount `billing` ``).
        mount: String,
        /// What it has that a mount cannot honour.
        reason: String,
    },
    /// [`Server::state`] was given two values of one type (it keeps one per type).
    #[error(
        "app state of type `{type_name}` is set twice; `Server::state` keeps one value per type"
    )]
    DuplicateState {
        /// The type's name (`std::any::type_name`).
        type_name: &'static str,
    },
}

/// `Duplicate`'s message: the plain one when both items were registered on the server.
fn duplicate_message(
    kind: &str,
    name: &str,
    existing: Option<&str>,
    added: Option<&str>,
) -> String {
    if existing.is_none() && added.is_none() {
        return format!("a {kind} named `{name}` is already registered on this server");
    }
    let from = |origin: Option<&str>| match origin {
        None => "registered on the server".to_owned(),
        Some(mount) => format!("from {mount}"),
    };
    format!(
        "{kind} `{name}` {} collides with {kind} `{name}` {}",
        from(added),
        from(existing)
    )
}

impl From<ServerError> for std::io::Error {
    fn from(e: ServerError) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e)
    }
}

impl ServerInner {
    /// The first tool linking to a `ui://` URI that is not an MCP App resource here.
    fn dangling_ui_link(&self) -> Option<ServerError> {
        let tools = read(&self.tools);
        let resources = read(&self.resources);
        tools.values().find_map(|entry| {
            let uri = crate::apps::linked_uri(&entry.descriptor)?;
            let served = resources
                .get(uri)
                .is_some_and(|r| r.descriptor.mime_type.as_deref() == Some(crate::apps::APP_MIME));
            (uri.starts_with("ui://") && !served).then(|| ServerError::UnknownUiResource {
                tool: entry.descriptor.name.clone(),
                uri: uri.to_owned(),
            })
        })
    }

    /// An item's scopes, noting that some item requires scopes.
    fn scopes_of(&self, fixed: Vec<String>, rule: Option<ScopeRule>) -> scopes::Required {
        let required = scopes::Required::new(fixed, rule);
        if required.any() {
            self.scoped_items
                .store(true, std::sync::atomic::Ordering::Release);
        }
        required
    }

    fn insert_tool(
        &self,
        item: Arc<dyn ToolHandler>,
        origin: Option<&Arc<str>>,
    ) -> Result<(), ServerError> {
        let descriptor = item.descriptor();
        #[cfg(feature = "http")]
        if !mirrored_in(&descriptor.input_schema).is_empty() {
            self.mirrored_headers
                .store(true, std::sync::atomic::Ordering::Release);
        }
        insert_new(
            &self.tools,
            "tool",
            descriptor.name.clone(),
            Entry {
                descriptor,
                scopes: self.scopes_of(item.scopes(), item.scope_rule()),
                item,
                profiled: Default::default(),
                origin: origin.cloned(),
            },
        )
    }

    fn insert_prompt(
        &self,
        item: Arc<dyn PromptHandler>,
        origin: Option<&Arc<str>>,
    ) -> Result<(), ServerError> {
        let descriptor = item.descriptor();
        insert_new(
            &self.prompts,
            "prompt",
            descriptor.name.clone(),
            Entry {
                descriptor,
                scopes: self.scopes_of(item.scopes(), item.scope_rule()),
                item,
                profiled: Default::default(),
                origin: origin.cloned(),
            },
        )
    }

    fn insert_resource(
        &self,
        item: Arc<dyn ResourceHandler>,
        origin: Option<&Arc<str>>,
    ) -> Result<(), ServerError> {
        let descriptor = item.descriptor();
        insert_new(
            &self.resources,
            "resource",
            descriptor.uri.clone(),
            Entry {
                descriptor,
                scopes: self.scopes_of(item.scopes(), None),
                item,
                profiled: Default::default(),
                origin: origin.cloned(),
            },
        )
    }

    fn insert_template(
        &self,
        item: Arc<dyn ResourceTemplateHandler>,
        origin: Option<&Arc<str>>,
    ) -> Result<(), ServerError> {
        let descriptor = item.descriptor();
        let key = descriptor.uri_template.clone();
        insert_new(
            &self.templates,
            "resource template",
            key,
            Entry {
                descriptor,
                scopes: self.scopes_of(item.scopes(), item.scope_rule()),
                item,
                profiled: Default::default(),
                origin: origin.cloned(),
            },
        )
    }
}

/// Inserts `entry` under `key` unless the key is taken.
fn insert_new<D, T: ?Sized>(
    registry: &RwLock<Registry<Entry<D, T>>>,
    kind: &'static str,
    key: String,
    entry: Entry<D, T>,
) -> Result<(), ServerError> {
    let mut registry = write(registry);
    if let Some(existing) = registry.get(&key) {
        return Err(ServerError::Duplicate {
            kind,
            name: key,
            existing_from: existing.origin.as_deref().map(str::to_owned),
            added_from: entry.origin.as_deref().map(str::to_owned),
        });
    }
    registry.insert(key, entry);
    Ok(())
}
