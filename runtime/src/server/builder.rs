//! [`Server`]: an MCP server being assembled (identity, options, state, stores, tools,
//! prompts, resources) and built into a running [`ServerHandle`].

use super::{
    IntoPrompt, IntoResource, IntoResourceTemplate, IntoTool, ResourceFn, ServerError,
    ServerHandle, ServerInner, ServerOptions, ToolSet, events, known_client, resume, tool,
};
use crate::peer::sync::lock;
use crate::protocol::Implementation;
use std::sync::{Arc, Mutex, RwLock};

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
    pub(super) inner: ServerInner,
    pub(super) error: Option<ServerError>,
    /// What was set that a mount cannot honour (see [`Server::mount`]).
    pub(super) unmountable: Vec<&'static str>,
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
                listeners: Mutex::default(),
                tasks: crate::task::TaskEngine::new(options.tasks.clone()),
                options,
                state_keys,
                known_client: known_client::KnownClient::default(),
                #[cfg(feature = "http")]
                mirrored_headers: std::sync::atomic::AtomicBool::new(false),
                scoped_items: std::sync::atomic::AtomicBool::new(false),
                detached: Arc::new(crate::peer::Peer::detached()),
                bus: None,
                rounds_store: Arc::new(crate::idempotency::MemoryIdempotencyStore::new()),
                subscriptions_end: tokio_util::sync::CancellationToken::new(),
                #[cfg(feature = "skills")]
                skills: None,
                task_notices: Mutex::default(),
                service: None,
                app_state: crate::context::AppState::default(),
                visibility: Vec::new(),
            },
            error,
            unmountable: Vec::new(),
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
    pub fn task_store(mut self, store: impl crate::task::TaskStore) -> Self {
        self.unmountable.push("a task store");
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
        self.unmountable.push("an event bus");
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
        self.unmountable.push("an idempotency store");
        self
    }

    /// Wraps a [`tower::Layer`] around the server's request handling: every request of
    /// both eras, from every host (stdio, Streamable HTTP, in memory), and every round of a
    /// 2026 multi round-trip request, passes through it as a
    /// [`McpRequest`](super::dispatch::McpRequest) and comes back as an
    /// [`McpResponse`](super::dispatch::McpResponse). The last layer added is the
    /// outermost, as with axum; `tower::ServiceBuilder` composes several into one. A
    /// layer's failure reaches the client as a JSON-RPC error (see
    /// [`BoxError`](super::dispatch::BoxError)). Without layers, requests take the same
    /// path with nothing built for them.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tower::ServiceBuilder;
    /// use tracksuit::Server;
    /// let server = Server::new(tracksuit::crate_info!())
    ///     .layer(
    ///         ServiceBuilder::new()
    ///             .load_shed()
    ///             .concurrency_limit(64)
    ///             .timeout(Duration::from_secs(30)),
    ///     )
    ///     .build()?;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<super::dispatch::McpService>,
        L::Service: tower::Service<
                super::dispatch::McpRequest,
                Response = super::dispatch::McpResponse,
                Error = super::dispatch::BoxError,
            > + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<super::dispatch::McpRequest>>::Future: Send + 'static,
    {
        let inner = self
            .inner
            .service
            .take()
            .unwrap_or_else(super::dispatch::handlers);
        self.inner.service = Some(super::dispatch::McpService::new(layer.layer(inner)));
        self.unmountable.push("layers");
        self
    }

    /// Registers a tool: a `#[mcp_tool]` function by name, or a [`ToolHandler`](crate::ToolHandler) value. A
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
        let result = self.inner.insert_tool(tool.tool(), None);
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
            let result = self.inner.insert_tool(tool, None);
            self = self.keep_first(result);
        }
        for prompt in parts.prompts {
            let result = self.inner.insert_prompt(prompt, None);
            self = self.keep_first(result);
        }
        for resource in parts.resources {
            let result = self.inner.insert_resource(resource, None);
            self = self.keep_first(result);
        }
        for template in parts.templates {
            let result = self.inner.insert_template(template, None);
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
        let result = self.inner.insert_prompt(prompt.prompt(), None);
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
        let result = self.inner.insert_resource(resource.resource(), None);
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
        let result = self
            .inner
            .insert_template(template.resource_template(), None);
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
            let result = self.inner.insert_resource(Arc::new(read), None);
            self = self.keep_first(result);
        }
        self.inner.skills = Some(Arc::new(skills));
        self.unmountable.push("skills");
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
        let result = self.inner.insert_resource(Arc::new(read), None);
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
        let result = self.inner.insert_tool(Arc::new(linked), None);
        self.keep_first(result)
    }

    pub(super) fn keep_first(mut self, result: Result<(), ServerError>) -> Self {
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
