//! The server: a [`Server`] holds the registries of tools, prompts, resources and templates,
//! and every connection gets a [`ServerSession`] that dispatches MCP requests to them.

mod prompt;
mod registry;
mod resource;
mod session;
mod tool;
mod uri_template;

pub use prompt::{Prompt, PromptFn};
pub use resource::{Resource, ResourceFn, ResourceTemplate, ResourceTemplateFn};
pub use session::ServerSession;
pub use tool::{ServerTools, Tool, ToolFn, ToolSet};
pub use uri_template::UriTemplate;

use crate::capacity::ReleaseSpare;
use crate::peer::sync::{lock, read, write};
use crate::protocol::{
    Implementation, ResourceUpdatedNotificationParams, Tool as ToolDescriptor, methods,
};
pub(crate) use registry::Registry;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

/// Settings that shape how a server behaves; every field has a sensible default.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// How long a server→client request (sampling, elicitation, roots, ping) may take.
    pub request_timeout: Duration,
    /// Items per page in `*/list` results.
    pub page_size: usize,
    /// The largest message accepted, in bytes.
    pub max_message_size: usize,
    /// Messages a session may have queued for its client before senders wait
    /// (`ctx.log(..).await` and responses) or, for broadcasts from synchronous code, are
    /// dropped for that session. With the transport's own buffer this bounds what a client
    /// that stops reading can make the server hold.
    pub outbound_queue: usize,
    /// How task-augmented requests run.
    pub tasks: crate::task::TaskOptions,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            request_timeout: Duration::from_secs(300),
            page_size: 100,
            max_message_size: 4 * 1024 * 1024,
            outbound_queue: 64,
            tasks: crate::task::TaskOptions::default(),
        }
    }
}

impl ServerOptions {
    /// Sets how long server→client requests may take.
    ///
    /// ```
    /// let o = tracksuit::ServerOptions::default().request_timeout(std::time::Duration::from_secs(5));
    /// assert_eq!(o.request_timeout.as_secs(), 5);
    /// ```
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the items per page of `*/list` results.
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size;
        self
    }

    /// Sets the largest accepted message, in bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets how many messages a session may have queued for its client (at least one).
    ///
    /// ```
    /// let o = tracksuit::ServerOptions::default().outbound_queue(16);
    /// assert_eq!(o.outbound_queue, 16);
    /// ```
    pub fn outbound_queue(mut self, messages: usize) -> Self {
        self.outbound_queue = messages.max(1);
        self
    }

    /// Sets how task-augmented requests run (ttl, polling interval, limits).
    pub fn tasks(mut self, tasks: crate::task::TaskOptions) -> Self {
        self.tasks = tasks;
        self
    }
}

pub(crate) struct Entry<D, T: ?Sized> {
    pub(crate) descriptor: D,
    pub(crate) item: Arc<T>,
}

impl<D: Clone, T: ?Sized> Clone for Entry<D, T> {
    fn clone(&self) -> Self {
        Entry {
            descriptor: self.descriptor.clone(),
            item: self.item.clone(),
        }
    }
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) options: ServerOptions,
    pub(crate) tools: RwLock<Registry<Entry<ToolDescriptor, dyn Tool>>>,
    pub(crate) prompts: RwLock<Registry<Entry<crate::protocol::Prompt, dyn Prompt>>>,
    pub(crate) resources: RwLock<Registry<Entry<crate::protocol::Resource, dyn Resource>>>,
    pub(crate) templates:
        RwLock<Registry<Entry<crate::protocol::ResourceTemplate, dyn ResourceTemplate>>>,
    pub(crate) sessions: Mutex<Vec<Weak<ServerSession>>>,
    pub(crate) tasks: Arc<crate::task::TaskEngine>,
}

/// An MCP server: its identity, options and registries. Cheap to clone (it is an `Arc`);
/// every clone sees the same registries, so tools added at run time reach every session
/// (which are told with `notifications/tools/list_changed`).
///
/// ```
/// use tracksuit::{Server, ToolFn, protocol::{CallToolResult, Implementation, Tool}};
/// let server = Server::new(Implementation::new("demo", "1.0.0"))
///     .tool(ToolFn::new(Tool::new("hello", Default::default()), |_ctx, _args| async {
///         Ok(CallToolResult::text("hello"))
///     }));
/// assert_eq!(server.tool_names(), ["hello"]);
/// ```
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<ServerInner>,
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
    pub fn new(info: Implementation) -> Self {
        Self::with_options(info, ServerOptions::default())
    }

    /// A server with explicit options.
    pub fn with_options(info: Implementation, options: ServerOptions) -> Self {
        Server {
            inner: Arc::new(ServerInner {
                info,
                instructions: None,
                tools: RwLock::default(),
                prompts: RwLock::default(),
                resources: RwLock::default(),
                templates: RwLock::default(),
                sessions: Mutex::default(),
                tasks: crate::task::TaskEngine::new(options.tasks.clone()),
                options,
            }),
        }
    }

    /// Sets the `instructions` sent in the initialize result. Call before serving.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        match Arc::get_mut(&mut self.inner) {
            Some(inner) => inner.instructions = Some(text.into()),
            None => tracing::warn!("Server::instructions called after the server was shared"),
        }
        self
    }

    /// Keeps tasks in `store` instead of memory (e.g. `SqliteTaskStore`, feature `sqlite`,
    /// so finished results survive a restart). Set it before serving: tasks already created
    /// stay in the previous store.
    pub fn task_store(self, store: impl crate::task::TaskStore) -> Self {
        self.inner.tasks.set_store(Arc::new(store));
        self
    }

    /// Number of tasks running in this process.
    pub fn running_tasks(&self) -> usize {
        self.inner.tasks.running()
    }

    /// The server's options.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// Registers a tool (builder style).
    ///
    /// # Panics
    /// If a tool with the same name is already registered: two tools cannot share a name,
    /// and a server assembled that way is a programming error (like overlapping axum
    /// routes). To replace a tool at run time, use [`Server::add_tool`].
    pub fn tool(self, tool: impl Tool) -> Self {
        self.register_tool(Arc::new(tool));
        self
    }

    /// Registers every tool of a [`ToolSet`] (an `#[mcp_server]` impl block).
    ///
    /// # Panics
    /// On a duplicate tool name, as [`Server::tool`].
    pub fn tools(self, set: impl ToolSet) -> Self {
        for tool in set.into_tools() {
            self.register_tool(tool);
        }
        self
    }

    fn register_tool(&self, item: Arc<dyn Tool>) {
        let descriptor = item.descriptor();
        let name = descriptor.name.clone();
        let mut tools = write(&self.inner.tools);
        assert!(
            tools.get(&name).is_none(),
            "tracksuit: a tool named `{name}` is already registered on this server"
        );
        tools.insert(name, Entry { descriptor, item });
    }

    /// Registers a prompt (builder style).
    ///
    /// # Panics
    /// If a prompt with the same name is already registered.
    pub fn prompt(self, prompt: impl Prompt) -> Self {
        let name = prompt.descriptor().name;
        assert!(
            read(&self.inner.prompts).get(&name).is_none(),
            "tracksuit: a prompt named `{name}` is already registered on this server"
        );
        self.add_prompt(prompt);
        self
    }

    /// Registers a fixed resource (builder style).
    ///
    /// # Panics
    /// If a resource with the same URI is already registered.
    pub fn resource(self, resource: impl Resource) -> Self {
        let uri = resource.descriptor().uri;
        assert!(
            read(&self.inner.resources).get(&uri).is_none(),
            "tracksuit: a resource `{uri}` is already registered on this server"
        );
        self.add_resource(resource);
        self
    }

    /// Registers a resource template (builder style).
    ///
    /// # Panics
    /// If a template with the same URI template is already registered.
    pub fn resource_template(self, template: impl ResourceTemplate) -> Self {
        let uri = template.descriptor().uri_template;
        assert!(
            read(&self.inner.templates).get(&uri).is_none(),
            "tracksuit: a resource template `{uri}` is already registered on this server"
        );
        self.add_resource_template(template);
        self
    }

    /// Adds or replaces a tool at run time; sessions get `notifications/tools/list_changed`.
    pub fn add_tool(&self, tool: impl Tool) {
        let descriptor = tool.descriptor();
        let name = descriptor.name.clone();
        let item: Arc<dyn Tool> = Arc::new(tool);
        write(&self.inner.tools).insert(name, Entry { descriptor, item });
        self.broadcast(methods::TOOLS_LIST_CHANGED, None);
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = write(&self.inner.tools).remove(name);
        if removed {
            self.broadcast(methods::TOOLS_LIST_CHANGED, None);
        }
        removed
    }

    /// Adds or replaces a prompt at run time.
    pub fn add_prompt(&self, prompt: impl Prompt) {
        let descriptor = prompt.descriptor();
        let name = descriptor.name.clone();
        let item: Arc<dyn Prompt> = Arc::new(prompt);
        write(&self.inner.prompts).insert(name, Entry { descriptor, item });
        self.broadcast(methods::PROMPTS_LIST_CHANGED, None);
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = write(&self.inner.prompts).remove(name);
        if removed {
            self.broadcast(methods::PROMPTS_LIST_CHANGED, None);
        }
        removed
    }

    /// Adds or replaces a fixed resource at run time.
    pub fn add_resource(&self, resource: impl Resource) {
        let descriptor = resource.descriptor();
        let uri = descriptor.uri.clone();
        let item: Arc<dyn Resource> = Arc::new(resource);
        write(&self.inner.resources).insert(uri, Entry { descriptor, item });
        self.broadcast(methods::RESOURCES_LIST_CHANGED, None);
    }

    /// Removes a resource by URI; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = write(&self.inner.resources).remove(uri);
        if removed {
            self.broadcast(methods::RESOURCES_LIST_CHANGED, None);
        }
        removed
    }

    /// Adds or replaces a resource template at run time.
    pub fn add_resource_template(&self, template: impl ResourceTemplate) {
        let descriptor = template.descriptor();
        let key = descriptor.uri_template.clone();
        let item: Arc<dyn ResourceTemplate> = Arc::new(template);
        write(&self.inner.templates).insert(key, Entry { descriptor, item });
        self.broadcast(methods::RESOURCES_LIST_CHANGED, None);
    }

    /// Tells every session subscribed to `uri` that it changed
    /// (`notifications/resources/updated`).
    pub fn notify_resource_updated(&self, uri: &str) {
        let params = ResourceUpdatedNotificationParams {
            uri: uri.to_owned(),
            ..Default::default()
        };
        let params = serde_json::to_value(params).ok();
        for session in self.live_sessions() {
            if session.is_subscribed(uri) {
                session
                    .peer()
                    .try_notify(methods::RESOURCES_UPDATED, params.clone(), None);
            }
        }
    }

    /// The names of the registered tools, in registration order.
    pub fn tool_names(&self) -> Vec<String> {
        read(&self.inner.tools).keys().map(str::to_owned).collect()
    }

    /// Number of live sessions (connections that have not closed).
    pub fn session_count(&self) -> usize {
        self.live_sessions().len()
    }

    /// Number of sessions whose state is still in memory, closed ones included: once every
    /// connection and request of a closed session is gone this drops with
    /// [`session_count`](Self::session_count). A gap that persists is a leak.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!());
    /// assert_eq!(server.retained_sessions(), 0);
    /// ```
    pub fn retained_sessions(&self) -> usize {
        self.sessions().len()
    }

    /// Number of requests being served across all sessions.
    pub fn in_flight_requests(&self) -> usize {
        self.live_sessions()
            .iter()
            .map(|s| s.peer().in_flight())
            .sum()
    }

    pub(crate) fn register_session(&self, session: &Arc<ServerSession>) {
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
            if session.is_initialized() {
                session.peer().try_notify(method, params.clone(), None);
            }
        }
    }
}

impl<K> crate::context::Ctx<K> {
    /// The server serving this request (to add tools, notify resource updates, ...).
    pub fn server(&self) -> &Server {
        self.session()
            .server()
            .downcast_ref::<Server>()
            .expect("a Ctx is only made by a ServerSession, whose server is a Server")
    }
}
