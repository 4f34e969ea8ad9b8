//! [`ServerHandle`]: a running MCP server, what its sessions share: its items (added and
//! removed at run time, with `list_changed` notices), its sessions and its state.

use super::{
    PromptHandler, ResourceHandler, ResourceTemplateHandler, ServerError, ServerInner,
    ServerOptions, ServerSession, ToolHandler,
};
use crate::capacity::ReleaseSpare;
use crate::peer::sync::{lock, read, write};
use crate::protocol::{Implementation, ResourceUpdatedNotificationParams, methods};
use std::sync::{Arc, Weak};

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
    ///
    /// An item the caller may not see gets none (the session answers it as unknown, and a
    /// `403` would tell it exists): with visibility rules, which need the client's
    /// description this early check does not have, no item gets any here (the session
    /// refuses a visible one the caller lacks scopes for with `-32600`); with
    /// `hide_unauthorized`, an item whose fixed scopes the caller lacks.
    #[cfg(feature = "http")]
    pub(crate) fn required_scopes(
        &self,
        method: &str,
        params: Option<&serde_json::Value>,
        caller: &crate::caller::Caller,
    ) -> Vec<String> {
        if !self
            .inner
            .scoped_items
            .load(std::sync::atomic::Ordering::Acquire)
            || !self.inner.visibility.is_empty()
        {
            return Vec::new();
        }
        let hide = self.inner.options.hide_unauthorized;
        let field = |key: &str| params.and_then(|p| p.get(key));
        let name = || field("name").and_then(|v| v.as_str());
        use std::borrow::Cow;
        // Borrowed for a rule to read (an object without arguments reads as empty).
        let arguments = || match field("arguments").and_then(|a| a.as_object()) {
            Some(arguments) => Cow::Borrowed(arguments),
            None => Cow::Owned(crate::protocol::JsonObject::new()),
        };
        fn of<'i>(
            required: &super::scopes::Required,
            input: impl FnOnce() -> Cow<'i, crate::protocol::JsonObject>,
        ) -> Vec<String> {
            required
                .of(input)
                .map_or_else(|_| required.fixed().to_vec(), Cow::into_owned)
        }
        // Hidden from this caller: unknown to it, so nothing to refuse here.
        let hidden =
            |r: &super::scopes::Required| hide && !caller.missing_scopes(r.fixed()).is_empty();
        let found = match method {
            methods::TOOLS_CALL => name().and_then(|n| {
                let required = read(&self.inner.tools).get(n)?.scopes.clone();
                (!hidden(&required)).then(|| of(&required, arguments))
            }),
            methods::PROMPTS_GET => name().and_then(|n| {
                let required = read(&self.inner.prompts).get(n)?.scopes.clone();
                (!hidden(&required)).then(|| of(&required, arguments))
            }),
            methods::RESOURCES_READ => field("uri").and_then(|v| v.as_str()).and_then(|uri| {
                let fixed = read(&self.inner.resources)
                    .get(uri)
                    .map(|e| e.scopes.clone());
                if let Some(fixed) = fixed {
                    return (!hidden(&fixed)).then(|| fixed.fixed().to_vec());
                }
                let templates = read(&self.inner.templates);
                templates.values().find_map(|e| {
                    let vars = e.item.template().matches(uri)?;
                    (!hidden(&e.scopes))
                        .then(|| of(&e.scopes, || Cow::Owned(super::scopes::variables(vars))))
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
    pub(crate) fn plain_tool(&self, name: &str) -> Option<crate::protocol::TaskSupport> {
        let tools = read(&self.inner.tools);
        let entry = tools.get(name).filter(|entry| !entry.item.asks_client())?;
        Some(entry.task_support())
    }

    /// The keys sealing modern requests' `requestState`.
    pub(crate) fn state_keys(&self) -> crate::seal::StateKeys {
        self.inner.state_keys.clone()
    }

    /// The app state of type `T` given to [`Server::state`](crate::Server::state), as handlers see it with
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
        self.inner.insert_tool(Arc::new(tool), None)?;
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
        self.inner.insert_prompt(Arc::new(prompt), None)?;
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
        self.inner.insert_resource(Arc::new(resource), None)?;
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
        self.inner.insert_template(Arc::new(template), None)?;
        self.broadcast_list_changed(methods::RESOURCES_LIST_CHANGED);
        Ok(())
    }

    /// Removes a resource template by its URI template; returns whether it existed.
    ///
    /// ```
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// assert!(!server.remove_resource_template("mem://items/{id}"));
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        let removed = write(&self.inner.templates).remove(uri_template);
        if removed {
            self.broadcast_list_changed(methods::RESOURCES_LIST_CHANGED);
        }
        removed
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
    pub(super) fn deliver_resource_updated(&self, uri: &str) {
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
        self.tell_listeners_updated(uri, params);
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

    pub(super) fn broadcast(&self, method: &str, params: Option<serde_json::Value>) {
        for session in self.live_sessions() {
            // From the answer to `initialize` on, not only after
            // `notifications/initialized`: a client returns from its handshake before the
            // server has read that notification, and a change made at that moment must
            // not be lost (the spec restricts requests before it, not notifications).
            if session.is_initialized() || session.init.get().is_some() {
                session.peer().try_notify(method, params.clone(), None);
            }
        }
        self.tell_listeners(method, params);
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
pub(super) fn mirrored_in(schema: &crate::protocol::JsonObject) -> Vec<(Vec<String>, String)> {
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
