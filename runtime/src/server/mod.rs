//! The server: a [`Server`] holds the registries of tools, prompts, resources and templates,
//! and every connection gets a [`ServerSession`] that dispatches MCP requests to them.

mod answer;
mod events;
mod idempotent;
mod known_client;
mod listing;
mod modern;
mod options;
mod prompt;
mod register;
mod registry;
mod resource;
mod resume;
mod scopes;
mod session;
mod tool;
mod uri_template;

pub use modern::CacheHint;
pub(crate) use modern::{MODERN_PROTOCOL_VERSIONS, admit, is_modern};
#[cfg(feature = "http")]
pub(crate) use modern::{RequestMeta, requested_version};
pub use options::{ProfileChooser, ServerOptions};
pub use prompt::{PromptFn, PromptHandler};
pub use register::{
    ByFn, ByValue, Generated, IntoPrompt, IntoResource, IntoResourceTemplate, IntoTool, Tagged,
    tagged,
};
pub use resource::{ResourceFn, ResourceHandler, ResourceTemplateFn, ResourceTemplateHandler};
pub use scopes::ScopeRule;
pub(crate) use session::ServerSession;
pub use tool::{ServerParts, ServerTools, ToolFn, ToolHandler, ToolSet};
pub use uri_template::UriTemplate;

use crate::capacity::ReleaseSpare;
use crate::peer::sync::{lock, read, write};
use crate::protocol::{
    Implementation, ResourceUpdatedNotificationParams, Tool as ToolDescriptor, methods,
};
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
    /// An outbound queue nobody reads: what is sent on it is drained and dropped.
    discarding: std::sync::OnceLock<crate::peer::OutboundSender>,
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
    #[error("a {kind} named `{name}` is already registered on this server")]
    Duplicate {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The name or URI both share.
        name: String,
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

impl From<ServerError> for std::io::Error {
    fn from(e: ServerError) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e)
    }
}

/// An MCP server being assembled: its identity, options, tools, prompts and resources.
/// [`build`](Server::build) it into a running [`ServerHandle`], or serve it directly
/// ([`serve_stdio`](Server::serve_stdio), [`serve_http`](Server::serve_http),
/// [`serve`](Server::serve)).
///
/// Registering two items under one name is not a panic: the builder remembers the first
/// such mistake and `build` (or `serve_*`) returns it as a [`ServerError`].
///
/// ```
/// use tracksuit::{Server, ServerError, ToolFn, protocol::{CallToolResult, Implementation, Tool}};
/// let hello = || ToolFn::new(Tool::new("hello", Default::default()), |_ctx, _args| async {
///     Ok(CallToolResult::text("hello"))
/// });
/// let server = Server::new(Implementation::new("demo", "1.0.0")).tool(hello()).build()?;
/// assert_eq!(server.tool_names(), ["hello"]);
///
/// let twice = Server::new(Implementation::new("demo", "1.0.0")).tool(hello()).tool(hello());
/// assert!(matches!(twice.build(), Err(ServerError::Duplicate { kind: "tool", .. })));
/// # Ok::<(), ServerError>(())
/// ```
#[must_use = "a Server does nothing until it is built or served"]
pub struct Server {
    inner: ServerInner,
    error: Option<ServerError>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server that introduces itself as `info` (use [`crate::crate_info!`] for your crate's
    /// name and version).
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert_eq!(server.info().name, env!("CARGO_PKG_NAME"));
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn new(info: Implementation) -> Self {
        Self::with_options(info, ServerOptions::default())
    }

    /// A server with explicit options.
    ///
    /// ```
    /// use tracksuit::{Server, ServerOptions};
    /// let server = Server::with_options(tracksuit::crate_info!(), ServerOptions::default().page_size(10));
    /// assert_eq!(server.build()?.options().page_size, 10);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn with_options(info: Implementation, options: ServerOptions) -> Self {
        let (state_keys, error) = match options.state_keys.clone() {
            Some(keys) => (keys, None),
            None => match crate::seal::StateKeys::from_env() {
                Ok(Some(keys)) => (keys, None),
                Ok(None) => (crate::seal::StateKeys::random(), None),
                Err(e) => (
                    crate::seal::StateKeys::random(),
                    Some(ServerError::StateKeys(e.to_string())),
                ),
            },
        };
        Server {
            inner: ServerInner {
                info_json: serde_json::to_value(&info).unwrap_or(serde_json::Value::Null),
                info_text: Arc::from(
                    serde_json::value::to_raw_value(&info)
                        .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()),
                ),
                info,
                instructions: None,
                tools: RwLock::default(),
                prompts: RwLock::default(),
                resources: RwLock::default(),
                templates: RwLock::default(),
                sessions: Mutex::default(),
                tasks: crate::task::TaskEngine::new(options.tasks.clone()),
                options,
                state_keys,
                known_client: known_client::KnownClient::default(),
                #[cfg(feature = "http")]
                mirrored_headers: std::sync::atomic::AtomicBool::new(false),
                scoped_items: std::sync::atomic::AtomicBool::new(false),
                discarding: std::sync::OnceLock::new(),
                bus: None,
                rounds_store: Arc::new(crate::idempotency::MemoryIdempotencyStore::new()),
                subscriptions_end: tokio_util::sync::CancellationToken::new(),
                #[cfg(feature = "skills")]
                skills: None,
                task_notices: Mutex::default(),
                app_state: crate::context::AppState::default(),
            },
            error,
        }
    }

    /// Gives the server app state: a value every handler reads by type with
    /// [`Ctx::state`](crate::Ctx::state) (and a handoff tool's phases with
    /// [`PhaseCtx::state`](crate::PhaseCtx::state), a completer through its `&Ctx`). Set once:
    /// one value per type, fixed when the server is built (share mutable parts through
    /// `Mutex`, atomics or a pool); a second value of the same type makes
    /// [`build`](Server::build) fail with [`ServerError::DuplicateState`]. Tools of an
    /// `#[mcp_server]` type reach their own fields through `&self` instead.
    ///
    /// ```
    /// use tracksuit::{Ctx, Server, ServerError, ToolError, mcp_tool};
    ///
    /// struct Greeting(String);
    ///
    /// /// Greets.
    /// #[mcp_tool]
    /// async fn greet(ctx: &Ctx, name: String) -> Result<String, ToolError> {
    ///     Ok(format!("{} {name}", ctx.state::<Greeting>()?.0))
    /// }
    ///
    /// let server = Server::new(tracksuit::crate_info!())
    ///     .state(Greeting("Hello,".into()))
    ///     .tool(greet)
    ///     .build()?;
    /// assert_eq!(server.state::<Greeting>().map(|g| g.0.as_str()), Ok("Hello,"));
    ///
    /// let twice = Server::new(tracksuit::crate_info!()).state(1u8).state(2u8).build();
    /// assert!(matches!(twice, Err(ServerError::DuplicateState { type_name: "u8" })));
    /// # Ok::<(), ServerError>(())
    /// ```
    ///
    /// The value is shared between tasks and sessions, so it must be `Send + Sync + 'static`:
    ///
    /// ```compile_fail
    /// let server = tracksuit::Server::new(tracksuit::crate_info!())
    ///     .state(std::rc::Rc::new(1)); // error: `Rc<i32>` cannot be sent between threads
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        let result = self
            .inner
            .app_state
            .insert(value)
            .map_err(|type_name| ServerError::DuplicateState { type_name });
        self.keep_first(result)
    }

    /// Sets the `instructions` sent in the initialize result.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!())
    ///     .instructions("Call `search` before `read`.");
    /// # let _ = server.build()?;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.inner.instructions = Some(text.into());
        self
    }

    /// Keeps tasks in `store` instead of memory (e.g. `SqliteTaskStore`, feature `sqlite`,
    /// so finished results survive a restart).
    ///
    /// A store shared by replicas (e.g. `PostgresTaskStore`, feature `postgres`) reports
    /// cancellations requested on other replicas for the tasks this one runs; the server
    /// cancels them here.
    ///
    /// ```
    /// use tracksuit::{Server, task::InMemoryTaskStore};
    /// // The default store, made explicit; `SqliteTaskStore` or `PostgresTaskStore` plug in the same way.
    /// let server = Server::new(tracksuit::crate_info!())
    ///     .task_store(InMemoryTaskStore::new())
    ///     .build()?;
    /// assert_eq!(server.running_tasks(), 0);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn task_store(self, store: impl crate::task::TaskStore) -> Self {
        let notices = store.notices();
        self.inner.tasks.set_store(Arc::new(store));
        *lock(&self.inner.task_notices) = notices;
        self
    }

    /// Shares list changes and resource updates with the other replicas of this server
    /// through `bus` (e.g. `PgEventBus`, feature `postgres`): `notify_*_list_changed`,
    /// `notify_resource_updated` and run-time `add_*` / `remove_*` on any replica reach the
    /// sessions and `subscriptions/listen` streams of every replica. See
    /// [`events`](crate::events).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tracksuit::{Server, events::InProcessEventBus};
    /// let bus = Arc::new(InProcessEventBus::new());
    /// let a = Server::new(tracksuit::crate_info!()).event_bus(bus.clone()).build()?;
    /// let b = Server::new(tracksuit::crate_info!()).event_bus(bus).build()?;
    /// a.notify_tools_list_changed(); // b's listeners hear it too
    /// # let _ = b;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn event_bus(mut self, bus: Arc<dyn crate::events::EventBus>) -> Self {
        self.inner.bus = Some(events::Bus::new(bus));
        self
    }

    /// Where later rounds of MCP 2026-07-28 multi round-trip calls are claimed and their
    /// outcomes kept, so that a round re-sent verbatim gets its first outcome and runs
    /// nothing again (see [`idempotency`](crate::idempotency)). The default is a
    /// [`MemoryIdempotencyStore`](crate::idempotency::MemoryIdempotencyStore); replicas
    /// behind one endpoint share a `PgIdempotencyStore` (feature `postgres`).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tracksuit::{Server, idempotency::MemoryIdempotencyStore};
    /// let store = Arc::new(MemoryIdempotencyStore::new().max_records(1_000));
    /// let server = Server::new(tracksuit::crate_info!()).idempotency_store(store).build()?;
    /// # let _ = server;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn idempotency_store(
        mut self,
        store: Arc<dyn crate::idempotency::IdempotencyStore>,
    ) -> Self {
        self.inner.rounds_store = store;
        self
    }

    /// Registers a tool: a `#[mcp_tool]` function by name, or a [`ToolHandler`] value. A
    /// second tool of the same name makes [`build`](Server::build) fail.
    ///
    /// ```
    /// /// Says hello.
    /// #[tracksuit::mcp_tool]
    /// async fn hello(name: String) -> String { format!("Hello, {name}") }
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(hello).build()?;
    /// assert_eq!(server.tool_names(), ["hello"]);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn tool<M>(self, tool: impl IntoTool<M>) -> Self {
        let result = self.inner.insert_tool(tool.tool());
        self.keep_first(result)
    }

    /// Registers every tool of an `#[mcp_server]` impl block, and its prompts and resources.
    ///
    /// ```
    /// struct Notes;
    /// #[tracksuit::mcp_server]
    /// impl Notes {
    ///     /// Lists the notes.
    ///     #[mcp_tool]
    ///     async fn list(&self) -> String { String::new() }
    /// }
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tools(Notes).build()?;
    /// assert_eq!(server.tool_names(), ["list"]);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn tools(mut self, set: impl ToolSet) -> Self {
        let parts = set.into_parts();
        for tool in parts.tools {
            let result = self.inner.insert_tool(tool);
            self = self.keep_first(result);
        }
        for prompt in parts.prompts {
            let result = self.inner.insert_prompt(prompt);
            self = self.keep_first(result);
        }
        for resource in parts.resources {
            let result = self.inner.insert_resource(resource);
            self = self.keep_first(result);
        }
        for template in parts.templates {
            let result = self.inner.insert_template(template);
            self = self.keep_first(result);
        }
        self
    }

    /// Registers a prompt.
    ///
    /// ```
    /// /// Greets someone.
    /// #[tracksuit::mcp_prompt]
    /// async fn greet(name: String) -> String { format!("Say hello to {name}") }
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).prompt(greet).build()?;
    /// # let _ = server;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn prompt<M>(self, prompt: impl IntoPrompt<M>) -> Self {
        let result = self.inner.insert_prompt(prompt.prompt());
        self.keep_first(result)
    }

    /// Registers a fixed resource.
    ///
    /// ```
    /// /// The readme.
    /// #[tracksuit::mcp_resource(uri = "mem://readme", mime_type = "text/markdown")]
    /// async fn readme() -> String { "# Hi".into() }
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).resource(readme).build()?;
    /// # let _ = server;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn resource<M>(self, resource: impl IntoResource<M>) -> Self {
        let result = self.inner.insert_resource(resource.resource());
        self.keep_first(result)
    }

    /// Registers a resource template.
    ///
    /// ```
    /// /// A note by id.
    /// #[tracksuit::mcp_resource(uri = "notes://{id}")]
    /// async fn note(id: u32) -> String { format!("note {id}") }
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).resource_template(note).build()?;
    /// # let _ = server;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn resource_template<M>(self, template: impl IntoResourceTemplate<M>) -> Self {
        let result = self.inner.insert_template(template.resource_template());
        self.keep_first(result)
    }

    /// Serves `skills` (SEP-2640, feature `skills`): declares the
    /// `io.modelcontextprotocol/skills` extension, answers `skills/list`, `skills/get` and
    /// `resources/directory/read`, and registers every skill file as a `skill://` resource.
    /// A file whose URI is already a resource makes [`build`](Server::build) fail.
    ///
    /// ```
    /// use tracksuit::skills::{Skill, Skills};
    /// let manifest = "---\nname: greeter\ndescription: Greets people\n---\nSay hi.\n";
    /// let skills = Skills::new().with(Skill::new("greeter", manifest)?)?;
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).skills(skills).build()?;
    /// # let _ = server;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "skills")]
    pub fn skills(mut self, skills: crate::skills::Skills) -> Self {
        for (descriptor, contents) in skills.resources() {
            let read = ResourceFn::new(descriptor, move |_ctx| {
                let contents = contents.clone();
                async move { Ok(crate::protocol::ReadResourceResult::new(vec![contents])) }
            });
            let result = self.inner.insert_resource(Arc::new(read));
            self = self.keep_first(result);
        }
        self.inner.skills = Some(Arc::new(skills));
        self
    }

    /// Serves an MCP App (SEP-1865): `app`'s HTML as a `ui://` resource of type
    /// `text/html;profile=mcp-app`, with its CSP and permissions in `_meta.ui`. Link tools to
    /// it with [`app_tool`](Server::app_tool). See [`apps`](crate::apps).
    ///
    /// ```
    /// use tracksuit::{Server, ServerError, apps::UiResource};
    /// let page = UiResource::new("ui://clock/face.html", "clock-face", "<p>12:00</p>");
    /// let server = Server::new(tracksuit::crate_info!()).ui_resource(page).build()?;
    /// assert!(server.remove_resource("ui://clock/face.html"));
    /// // Another scheme is refused when the server is built.
    /// let web = UiResource::new("https://example.com/app.html", "web", "<p/>");
    /// assert!(Server::new(tracksuit::crate_info!()).ui_resource(web).build().is_err());
    /// # Ok::<(), ServerError>(())
    /// ```
    pub fn ui_resource(self, app: crate::apps::UiResource) -> Self {
        if !app.uri().starts_with("ui://") {
            let error = ServerError::UnknownUiResource {
                tool: String::new(),
                uri: app.uri().to_owned(),
            };
            return self.keep_first(Err(error));
        }
        let contents = app.contents();
        let read = ResourceFn::new(app.descriptor(), move |_ctx| {
            let contents = contents.clone();
            async move { Ok(contents) }
        });
        let result = self.inner.insert_resource(Arc::new(read));
        self.keep_first(result)
    }

    /// Registers `tool` linked to the MCP App at `ui_uri` (`_meta.ui.resourceUri`): a host
    /// with Apps support renders that app next to the tool's calls. [`build`](Server::build)
    /// fails with [`ServerError::UnknownUiResource`] unless the server serves `ui_uri` with
    /// [`ui_resource`](Server::ui_resource) — a check every tool whose descriptor carries a
    /// `ui://` `resourceUri` gets, however it was set.
    ///
    /// ```
    /// use tracksuit::apps::UiResource;
    /// use tracksuit::{Server, ToolFn, protocol::{CallToolResult, Tool}};
    /// let show = ToolFn::new(Tool::new("show", Default::default()), |_ctx, _args| async {
    ///     Ok(CallToolResult::text("shown"))
    /// });
    /// let server = Server::new(tracksuit::crate_info!())
    ///     .ui_resource(UiResource::new("ui://show/view.html", "view", "<p>view</p>"))
    ///     .app_tool(show, "ui://show/view.html")
    ///     .build()?;
    /// assert_eq!(server.tool_names(), ["show"]);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn app_tool<M>(self, tool: impl IntoTool<M>, ui_uri: &str) -> Self {
        let linked = tool::UiLinked::new(tool.tool(), ui_uri);
        let result = self.inner.insert_tool(Arc::new(linked));
        self.keep_first(result)
    }

    fn keep_first(mut self, result: Result<(), ServerError>) -> Self {
        if let Err(e) = result {
            self.error.get_or_insert(e);
        }
        self
    }

    /// The server, running: the handle sessions share. Fails on the first duplicate name.
    ///
    /// ```
    /// let handle = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert_eq!(handle.session_count(), 0);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn build(self) -> Result<ServerHandle, ServerError> {
        match self.error.or_else(|| self.inner.dangling_ui_link()) {
            Some(e) => Err(e),
            None => {
                let inner = Arc::new(self.inner);
                // Tasks of the extension left behind by a dead process resume here.
                inner
                    .tasks
                    .set_resumer(Arc::new(resume::Resume(Arc::downgrade(&inner))));
                if let Some(bus) = &inner.bus {
                    inner.tasks.set_bus(bus.bus.clone());
                }
                let handle = ServerHandle { inner };
                handle.start_pump();
                Ok(handle)
            }
        }
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

    fn insert_tool(&self, item: Arc<dyn ToolHandler>) -> Result<(), ServerError> {
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
            },
        )
    }

    fn insert_prompt(&self, item: Arc<dyn PromptHandler>) -> Result<(), ServerError> {
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
            },
        )
    }

    fn insert_resource(&self, item: Arc<dyn ResourceHandler>) -> Result<(), ServerError> {
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
            },
        )
    }

    fn insert_template(&self, item: Arc<dyn ResourceTemplateHandler>) -> Result<(), ServerError> {
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
            },
        )
    }
}

/// Inserts `entry` under `key` unless the key is taken.
fn insert_new<T>(
    registry: &RwLock<Registry<T>>,
    kind: &'static str,
    key: String,
    entry: T,
) -> Result<(), ServerError> {
    let mut registry = write(registry);
    if registry.get(&key).is_some() {
        return Err(ServerError::Duplicate { kind, name: key });
    }
    registry.insert(key, entry);
    Ok(())
}

/// A running MCP server: what its sessions share. Cheap to clone (an `Arc`); items added or
/// removed at run time reach every session, which are told with `notifications/*/list_changed`.
/// A handler reaches it with [`Ctx::server`](crate::Ctx::server).
///
/// ```
/// use tracksuit::{Server, ToolFn, protocol::{CallToolResult, Implementation, Tool}};
/// let server = Server::new(Implementation::new("demo", "1.0.0")).build()?;
/// let hello = || ToolFn::new(Tool::new("hello", Default::default()), |_ctx, _args| async {
///     Ok(CallToolResult::text("hello"))
/// });
/// server.add_tool(hello())?;
/// assert!(server.add_tool(hello()).is_err());
/// assert!(server.remove_tool("hello"));
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
#[derive(Clone)]
pub struct ServerHandle {
    pub(crate) inner: Arc<ServerInner>,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

impl ServerHandle {
    /// Number of tasks running in this process.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert_eq!(server.running_tasks(), 0);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn running_tasks(&self) -> usize {
        self.inner.tasks.running()
    }

    /// The server's options.
    ///
    /// ```
    /// use tracksuit::{Server, ServerOptions};
    /// let options = ServerOptions::default().page_size(10);
    /// let server = Server::with_options(tracksuit::crate_info!(), options).build()?;
    /// assert_eq!(server.options().page_size, 10);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// The scopes the item a request targets requires (`tools/call` and `prompts/get` by
    /// name, `resources/read` by URI), those its rule computes from the request included;
    /// none for other requests or unknown items. A request whose scopes cannot be computed
    /// (arguments a rule cannot read) gets its item's fixed ones here, and its `-32602`
    /// from the session.
    #[cfg(feature = "http")]
    pub(crate) fn required_scopes(
        &self,
        method: &str,
        params: Option<&serde_json::Value>,
    ) -> Vec<String> {
        if !self
            .inner
            .scoped_items
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return Vec::new();
        }
        let field = |key: &str| params.and_then(|p| p.get(key));
        let name = || field("name").and_then(|v| v.as_str());
        use std::borrow::Cow;
        // Borrowed for a rule to read (an object without arguments reads as empty).
        let arguments = || match field("arguments").and_then(|a| a.as_object()) {
            Some(arguments) => Cow::Borrowed(arguments),
            None => Cow::Owned(crate::protocol::JsonObject::new()),
        };
        fn of<'i>(
            required: &scopes::Required,
            input: impl FnOnce() -> Cow<'i, crate::protocol::JsonObject>,
        ) -> Vec<String> {
            required
                .of(input)
                .map_or_else(|_| required.fixed().to_vec(), Cow::into_owned)
        }
        let found = match method {
            methods::TOOLS_CALL => name().and_then(|n| {
                let required = read(&self.inner.tools).get(n)?.scopes.clone();
                Some(of(&required, arguments))
            }),
            methods::PROMPTS_GET => name().and_then(|n| {
                let required = read(&self.inner.prompts).get(n)?.scopes.clone();
                Some(of(&required, arguments))
            }),
            methods::RESOURCES_READ => field("uri").and_then(|v| v.as_str()).and_then(|uri| {
                let fixed = read(&self.inner.resources)
                    .get(uri)
                    .map(|e| e.scopes.fixed().to_vec());
                fixed.or_else(|| {
                    let templates = read(&self.inner.templates);
                    templates.values().find_map(|e| {
                        let vars = e.item.template().matches(uri)?;
                        Some(of(&e.scopes, || Cow::Owned(scopes::variables(vars))))
                    })
                })
            }),
            _ => None,
        };
        found.unwrap_or_default()
    }

    /// The `x-mcp-header` parameters of tool `name`: each one's path of `properties` keys
    /// from the schema root and its header name (`Mcp-Param-{name}`).
    #[cfg(feature = "http")]
    pub(crate) fn mirrored_parameters(&self, name: &str) -> Vec<(Vec<String>, String)> {
        // This runs on every modern `tools/call`: most servers have no such parameter.
        if !self
            .inner
            .mirrored_headers
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return Vec::new();
        }
        read(&self.inner.tools)
            .get(name)
            .map(|entry| mirrored_in(&entry.descriptor.input_schema))
            .unwrap_or_default()
    }

    /// Whether tool `name` can ask the client anything ([`ToolHandler::asks_client`]); `true`
    /// for an unknown tool.
    pub(crate) fn tool_asks_client(&self, name: &str) -> bool {
        read(&self.inner.tools)
            .get(name)
            .is_none_or(|entry| entry.item.asks_client())
    }

    /// The task support of the tool `name` if it cannot ask the client anything (no
    /// `Ctx` parameter); `None` for a tool that can, or no such tool.
    #[cfg(feature = "http")]
    pub(crate) fn plain_tool(&self, name: &str) -> Option<crate::protocol::TaskSupport> {
        let tools = read(&self.inner.tools);
        let entry = tools.get(name).filter(|entry| !entry.item.asks_client())?;
        Some(entry.task_support())
    }

    /// A sender on an outbound queue whose messages go nowhere (drained and dropped by a
    /// task of its own, spawned on first use): for a session whose messages have no client
    /// to go to, or that sends none. Needs a tokio runtime.
    pub(crate) fn discarding_outbound(&self) -> crate::peer::OutboundSender {
        self.inner
            .discarding
            .get_or_init(|| {
                let (tx, mut rx) = crate::peer::outbound_queue(16);
                tokio::spawn(async move { while rx.recv().await.is_some() {} });
                tx
            })
            .clone()
    }

    /// The keys sealing modern requests' `requestState`.
    pub(crate) fn state_keys(&self) -> crate::seal::StateKeys {
        self.inner.state_keys.clone()
    }

    /// The app state of type `T` given to [`Server::state`], as handlers see it with
    /// [`Ctx::state`](crate::Ctx::state) (for code outside a request: a background job, a
    /// test).
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).state(7u32).build()?;
    /// assert_eq!(server.state::<u32>().copied(), Ok(7));
    /// assert!(server.state::<u64>().is_err());
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, crate::context::MissingState> {
        self.inner.app_state.get::<T>()
    }

    /// The server's identity.
    ///
    /// ```
    /// use tracksuit::{Server, protocol::Implementation};
    /// let server = Server::new(Implementation::new("weather", "1.2.0")).build()?;
    /// assert_eq!(server.info().name, "weather");
    /// assert_eq!(server.info().version, "1.2.0");
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// Adds a tool at run time; sessions get `notifications/tools/list_changed`. A tool of
    /// the same name is an error (remove it first to replace it).
    ///
    /// ```
    /// use tracksuit::{ToolFn, protocol::{CallToolResult, Tool}};
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// let late = ToolFn::new(Tool::new("late", Default::default()), |_ctx, _args| async {
    ///     Ok(CallToolResult::text("here"))
    /// });
    /// server.add_tool(late)?; // sessions are told the list changed
    /// assert_eq!(server.tool_names(), ["late"]);
    /// assert!(server.remove_tool("late"));
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn add_tool(&self, tool: impl ToolHandler) -> Result<(), ServerError> {
        self.inner.insert_tool(Arc::new(tool))?;
        self.broadcast_list_changed(methods::TOOLS_LIST_CHANGED);
        Ok(())
    }

    /// Removes a tool; returns whether it existed.
    ///
    /// ```
    /// #[tracksuit::mcp_tool]
    /// /// Says pong.
    /// async fn ping() -> String { "pong".into() }
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(ping).build()?;
    /// assert!(server.remove_tool("ping"));
    /// assert!(!server.remove_tool("ping")); // already gone
    /// assert!(server.tool_names().is_empty());
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = write(&self.inner.tools).remove(name);
        if removed {
            self.broadcast_list_changed(methods::TOOLS_LIST_CHANGED);
        }
        removed
    }

    /// Adds a prompt at run time (an error if one of the same name exists).
    ///
    /// ```
    /// use tracksuit::{PromptFn, protocol::{GetPromptResult, Prompt, PromptMessage}};
    /// let hello = || PromptFn::new(Prompt::new("hello"), |_ctx, _args| async move {
    ///     Ok(GetPromptResult::new(vec![PromptMessage::user_text("Say hello")]))
    /// });
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// server.add_prompt(hello())?;
    /// assert!(server.add_prompt(hello()).is_err()); // the name is taken
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn add_prompt(&self, prompt: impl PromptHandler) -> Result<(), ServerError> {
        self.inner.insert_prompt(Arc::new(prompt))?;
        self.broadcast_list_changed(methods::PROMPTS_LIST_CHANGED);
        Ok(())
    }

    /// Removes a prompt; returns whether it existed.
    ///
    /// ```
    /// use tracksuit::{PromptFn, protocol::{GetPromptResult, Prompt, PromptMessage}};
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// server.add_prompt(PromptFn::new(Prompt::new("hello"), |_ctx, _args| async move {
    ///     Ok(GetPromptResult::new(vec![PromptMessage::user_text("Say hello")]))
    /// }))?;
    /// assert!(server.remove_prompt("hello"));
    /// assert!(!server.remove_prompt("hello"));
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = write(&self.inner.prompts).remove(name);
        if removed {
            self.broadcast_list_changed(methods::PROMPTS_LIST_CHANGED);
        }
        removed
    }

    /// Adds a fixed resource at run time (an error if its URI is taken).
    ///
    /// ```
    /// use tracksuit::{ResourceFn, protocol::{ReadResourceResult, Resource, ResourceContents}};
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// server.add_resource(ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// }))?;
    /// assert!(server.remove_resource("mem://motd"));
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn add_resource(&self, resource: impl ResourceHandler) -> Result<(), ServerError> {
        self.inner.insert_resource(Arc::new(resource))?;
        self.broadcast_list_changed(methods::RESOURCES_LIST_CHANGED);
        Ok(())
    }

    /// Removes a resource by URI; returns whether it existed.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert!(!server.remove_resource("mem://never-added"));
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = write(&self.inner.resources).remove(uri);
        if removed {
            self.broadcast_list_changed(methods::RESOURCES_LIST_CHANGED);
        }
        removed
    }

    /// Adds a resource template at run time (an error if its template is taken).
    ///
    /// ```
    /// use tracksuit::{ResourceTemplateFn, protocol::{ReadResourceResult, ResourceContents, ResourceTemplate}};
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// let items = ResourceTemplateFn::new(
    ///     ResourceTemplate::new("mem://items/{id}", "item"),
    ///     |_ctx, uri, vars| async move {
    ///         let id = vars.get("id").cloned().unwrap_or_default();
    ///         Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {id}"))]))
    ///     },
    /// )
    /// .expect("a valid RFC 6570 template");
    /// server.add_resource_template(items)?;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn add_resource_template(
        &self,
        template: impl ResourceTemplateHandler,
    ) -> Result<(), ServerError> {
        self.inner.insert_template(Arc::new(template))?;
        self.broadcast_list_changed(methods::RESOURCES_LIST_CHANGED);
        Ok(())
    }

    /// Tells clients the tool list changed (`notifications/tools/list_changed`: 2025
    /// sessions, and modern `subscriptions/listen` streams that asked for it) — for servers
    /// whose tools depend on something outside the registry. `add_tool` and `remove_tool`
    /// notify by themselves.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// server.notify_tools_list_changed(); // no session yet: nobody to tell
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn notify_tools_list_changed(&self) {
        self.broadcast_list_changed(methods::TOOLS_LIST_CHANGED);
    }

    /// Tells clients the prompt list changed (see [`Self::notify_tools_list_changed`]).
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// server.notify_prompts_list_changed(); // no session yet: nobody to tell
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn notify_prompts_list_changed(&self) {
        self.broadcast_list_changed(methods::PROMPTS_LIST_CHANGED);
    }

    /// Tells clients the resource list changed (see [`Self::notify_tools_list_changed`]).
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// server.notify_resources_list_changed();
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn notify_resources_list_changed(&self) {
        self.broadcast_list_changed(methods::RESOURCES_LIST_CHANGED);
    }

    /// Tells every session subscribed to `uri` that it changed
    /// (`notifications/resources/updated`). A session whose outbound queue is full (its
    /// client is not reading) misses it.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// // Only sessions that sent `resources/subscribe` for this URI are told.
    /// server.notify_resource_updated("file:///notes.md");
    /// assert_eq!(server.session_count(), 0);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn notify_resource_updated(&self, uri: &str) {
        let event = crate::events::Event::ResourceUpdated {
            uri: uri.to_owned(),
        };
        if !self.publish(event) {
            self.deliver_resource_updated(uri);
        }
    }

    /// Sends `notifications/resources/updated` to this process's sessions subscribed to `uri`.
    fn deliver_resource_updated(&self, uri: &str) {
        let params = ResourceUpdatedNotificationParams {
            uri: uri.to_owned(),
            ..Default::default()
        };
        let params = serde_json::to_value(params).ok();
        for session in self.live_sessions() {
            if session.is_subscribed(uri) {
                let params = match session.listen.get() {
                    Some(listen) => listen.tag(params.clone()),
                    None => params.clone(),
                };
                session
                    .peer()
                    .try_notify(methods::RESOURCES_UPDATED, params, None);
            }
        }
    }

    /// Ends every MCP 2026-07-28 `subscriptions/listen` this server holds open, and any
    /// opened later, the graceful way: each gets its completion result (`resultType:
    /// "complete"`, its `subscriptionId` in `_meta`) and its stream closes, so clients can
    /// tell a shutdown from a dropped connection. Call it when shutting down.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// server.end_subscriptions();
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn end_subscriptions(&self) {
        self.inner.subscriptions_end.cancel();
    }

    /// The names of the registered tools, in registration order.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert!(server.tool_names().is_empty());
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn tool_names(&self) -> Vec<String> {
        read(&self.inner.tools).keys().map(str::to_owned).collect()
    }

    /// The descriptor `tools/list` publishes for the tool `name` (its schemas as sent).
    ///
    /// ```
    /// #[tracksuit::mcp_tool]
    /// /// Adds two numbers.
    /// async fn add(a: i64, b: i64) -> String { (a + b).to_string() }
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(add).build()?;
    /// let tool = server.tool_descriptor("add").unwrap();
    /// assert_eq!(tool.description.as_deref(), Some("Adds two numbers."));
    /// assert_eq!(tool.input_schema["required"], serde_json::json!(["a", "b"]));
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn tool_descriptor(&self, name: &str) -> Option<crate::protocol::Tool> {
        read(&self.inner.tools)
            .get(name)
            .map(|entry| entry.descriptor.clone())
    }

    /// Number of live sessions (connections that have not closed).
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert_eq!(server.session_count(), 0);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn session_count(&self) -> usize {
        self.live_sessions().len()
    }

    /// Number of sessions whose state is still in memory, closed ones included: once every
    /// connection and request of a closed session is gone this drops with
    /// [`session_count`](Self::session_count). A gap that persists is a leak.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert_eq!(server.retained_sessions(), 0);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn retained_sessions(&self) -> usize {
        self.sessions().len()
    }

    /// Number of requests being served across all sessions.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert_eq!(server.in_flight_requests(), 0);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn in_flight_requests(&self) -> usize {
        self.live_sessions()
            .iter()
            .map(|s| s.peer().in_flight())
            .sum()
    }

    pub(crate) fn register_session(&self, session: &Arc<ServerSession>) {
        self.start_pump();
        self.sessions().push(Arc::downgrade(session));
    }

    /// The session list, locked, with the entries of dropped sessions removed.
    fn sessions(&self) -> std::sync::MutexGuard<'_, Vec<Weak<ServerSession>>> {
        let mut sessions = lock(&self.inner.sessions);
        sessions.retain(|w| w.strong_count() > 0);
        sessions.release_spare();
        sessions
    }

    fn live_sessions(&self) -> Vec<Arc<ServerSession>> {
        self.sessions()
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| !s.peer().is_closed())
            .collect()
    }

    fn broadcast(&self, method: &str, params: Option<serde_json::Value>) {
        for session in self.live_sessions() {
            match session.listen.get() {
                Some(listen) if listen.wants(method) => {
                    session
                        .peer()
                        .try_notify(method, listen.tag(params.clone()), None);
                }
                Some(_) => {}
                // From the answer to `initialize` on, not only after
                // `notifications/initialized`: a client returns from its handshake before
                // the server has read that notification, and a change made at that moment
                // must not be lost (the spec restricts requests before it, not notifications).
                None if session.is_initialized() || session.init.get().is_some() => {
                    session.peer().try_notify(method, params.clone(), None);
                }
                None => {}
            }
        }
    }
}

impl<K> crate::context::Ctx<K> {
    /// The server serving this request (to add tools, notify resource updates, ...).
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError};
    /// #[tracksuit::mcp_tool]
    /// /// Unlocks the `secret` tool for everyone.
    /// async fn unlock(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let open = ctx.server().tool_names().contains(&"secret".to_owned());
    ///     Ok(if open { "already open" } else { "opened" }.into())
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(unlock).build()?;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn server(&self) -> &ServerHandle {
        self.session()
            .server()
            .downcast_ref::<ServerHandle>()
            .expect("a Ctx is only made by a ServerSession, whose server is a ServerHandle")
    }
}

/// The `x-mcp-header` parameters of an input schema: each one's path of `properties` keys
/// from the root and its header name.
#[cfg(feature = "http")]
fn mirrored_in(schema: &crate::protocol::JsonObject) -> Vec<(Vec<String>, String)> {
    // Keys are borrowed on the way down and copied only for a parameter that has a header.
    fn walk<'a>(
        schema: &'a crate::protocol::JsonObject,
        path: &mut Vec<&'a str>,
        out: &mut Vec<(Vec<String>, String)>,
    ) {
        let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
            return;
        };
        for (key, property) in properties {
            let Some(property) = property.as_object() else {
                continue;
            };
            path.push(key);
            if let Some(header) = property.get("x-mcp-header").and_then(|h| h.as_str()) {
                let owned = path.iter().map(|k| (*k).to_owned()).collect();
                out.push((owned, header.to_owned()));
            }
            walk(property, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}
