//! One connection's server side: the lifecycle (initialize, version negotiation), the
//! per-session state (client capabilities, log level, subscriptions) and the dispatch of
//! every MCP request to the server's registries.

use super::ServerHandle;
use super::answer::Answer;
use super::dispatch::{self, Call, MethodTable};
use super::traced::{request_span, traced};
use crate::caller::Caller;
use crate::context::{ClientInit, Ctx, SessionScope};
use crate::peer::sync::{lock, read};
use crate::peer::{OutboundSender, Peer, Sending, panic_message};
use crate::protocol::*;
use base64::Engine as _;
use futures::future::Either;
use futures::{FutureExt, TryFutureExt as _};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

/// The server side of one connection.
pub struct ServerSession {
    pub(super) server: ServerHandle,
    pub(super) peer: Arc<Peer>,
    pub(super) init: OnceLock<ClientInit>,
    pub(super) initialized: AtomicBool,
    /// Minimum level for `notifications/message`, as an index into [`LEVELS`]; 0 = debug,
    /// `u8::MAX` = none (a modern request that did not ask for logs).
    pub(super) log_level: AtomicU8,
    subscriptions: Mutex<HashSet<String>>,
    stateless: bool,
    /// Serves one modern (2026-07-28) request rather than a 2025 session.
    modern: bool,
    /// A modern `subscriptions/listen` request: what it listens for.
    pub(super) listen: OnceLock<super::modern::Listen>,
    /// Whom its tasks belong to when a request has no principal: a 2025-11-25 HTTP
    /// session's own key (see [`ServerSession::bind_tasks_to_session`]).
    anonymous_owner: OnceLock<String>,
    #[cfg(feature = "otel")] // `OtelLayer`'s session clock: its drop records the duration
    pub(super) attached: OnceLock<Box<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for ServerSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSession")
            .field("initialized", &self.is_initialized())
            .finish_non_exhaustive()
    }
}

const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

pub(super) fn level_index(level: LoggingLevel) -> u8 {
    LEVELS.iter().position(|l| *l == level).unwrap_or(0) as u8
}

impl ServerSession {
    /// A session of `server` writing to `tx`.
    pub fn new(server: ServerHandle, tx: OutboundSender) -> Arc<Self> {
        Self::build(server, tx, false)
    }

    #[cfg(feature = "http")]
    /// A session that needs no `initialize` (stateless HTTP): it serves one request with
    /// default client capabilities, so it can make no server→client requests.
    pub fn new_stateless(server: ServerHandle, tx: OutboundSender) -> Arc<Self> {
        let session = Self::build(server, tx, true);
        let info = Implementation::new("stateless-client", "0");
        let profile = session
            .server
            .inner
            .options
            .profile_for(&info, &Default::default());
        let _ = session.init.set(ClientInit {
            protocol_version: LATEST_PROTOCOL_VERSION,
            capabilities: Arc::default(),
            client_info: Arc::new(info),
            schema_profile: profile,
        });
        session.initialized.store(true, Ordering::Release);
        session
    }

    fn build(server: ServerHandle, tx: OutboundSender, stateless: bool) -> Arc<Self> {
        let session = Self::unregistered(server.clone(), tx, stateless, false);
        server.register_session(&session);
        session
    }

    /// A session the server does not broadcast to (a modern request's).
    pub(super) fn unregistered(
        server: ServerHandle,
        tx: OutboundSender,
        stateless: bool,
        modern: bool,
    ) -> Arc<Self> {
        Arc::new(ServerSession {
            server,
            peer: Arc::new(Peer::new(tx)),
            init: OnceLock::new(),
            initialized: AtomicBool::new(false),
            log_level: AtomicU8::new(0),
            subscriptions: Mutex::new(HashSet::new()),
            stateless,
            modern,
            listen: OnceLock::new(),
            anonymous_owner: OnceLock::new(),
            #[cfg(feature = "otel")]
            attached: OnceLock::new(),
        })
    }

    /// Binds the tasks this session creates without a principal to the session: another
    /// session neither finds nor lists them. For a 2025-11-25 HTTP session (whose id is
    /// its only credential); a stdio server's one client needs none.
    #[cfg(feature = "http")]
    pub(crate) fn bind_tasks_to_session(&self, session_id: &str) {
        use sha2::{Digest, Sha256};
        // A digest, so a task store's rows do not hold a live session's id. Principals'
        // binding keys start with a digit: this one never equals one.
        let digest = Sha256::digest(session_id.as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        let _ = self.anonymous_owner.set(format!("session:{hex}"));
    }

    /// Whom a task this caller creates or asks about belongs to: its principal, or
    /// without one the session's own key (if bound), else nobody.
    pub(crate) fn task_owner(&self, caller: &Caller) -> Option<String> {
        caller
            .owner()
            .or_else(|| self.anonymous_owner.get().cloned())
    }

    /// The JSON-RPC engine under this session.
    pub fn peer(&self) -> &Arc<Peer> {
        &self.peer
    }

    /// Whether the client has sent `notifications/initialized` (always true for a stateless
    /// or modern request's session).
    pub fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    #[cfg(feature = "http")]
    /// The protocol version agreed in `initialize`.
    pub fn protocol_version(&self) -> Option<&str> {
        self.init.get().map(|i| i.protocol_version)
    }

    /// Subscribes to resource updates of `uri` (a modern listen request's filter).
    pub(super) fn subscribe_uri(&self, uri: String) {
        lock(&self.subscriptions).insert(uri);
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Ends the session: every in-flight handler is cancelled.
    pub fn close(&self) {
        self.peer.close();
    }

    /// Handles one decoded message from the client, made by `caller` (a request's handler
    /// sees it in its `Ctx`).
    pub(crate) async fn handle_from(self: &Arc<Self>, message: JsonRpcMessage, caller: Caller) {
        match message {
            JsonRpcMessage::Request(req) => self.handle_request(req, caller).await,
            JsonRpcMessage::Notification(n) => self.handle_notification(n),
            JsonRpcMessage::Response(r) => {
                self.peer.resolve(&r.id, Ok(r.result));
            }
            JsonRpcMessage::Error(e) => match e.id {
                Some(id) => {
                    self.peer.resolve(&id, Err(e.error));
                }
                None => tracing::debug!(error = ?e.error, "client reported an error"),
            },
        }
    }

    /// Answers a message that could not be decoded (`-32700` / `-32600`) with `rejection`,
    /// the error response [`JsonRpcMessage::from_slice`] made of it (`"id": null` unless the
    /// message's id could be read).
    pub async fn reject(&self, rejection: JsonRpcError) {
        self.peer.send(JsonRpcMessage::Error(rejection), None).await;
    }

    fn handle_notification(&self, n: JsonRpcNotification) {
        match n.method.as_str() {
            methods::INITIALIZED => self.initialized.store(true, Ordering::Release),
            methods::CANCELLED => self.peer.on_cancelled(n.params),
            other => tracing::trace!(method = other, "notification ignored"),
        }
    }

    /// Answers `initialize`, `ping` and refusals at once (the returned future finishes
    /// sending the answer), and starts every other request on its own task. Synchronous, so
    /// the future awaiting it stays small (no handler state inside it). With layers, every
    /// request goes through them on its own task.
    fn handle_request(self: &Arc<Self>, req: JsonRpcRequest, caller: Caller) -> Sending<'_> {
        let JsonRpcRequest { id, method, params } = req;
        if self.modern {
            return self.handle_modern(id, method, params, caller);
        }
        let mut params = params;
        let layers = self.server.inner.service.as_ref();
        if layers.is_none()
            && let Some(result) = self.answer_at_once(&method, &mut params)
        {
            let message = match result {
                Ok(v) => JsonRpcMessage::response(id.clone(), v),
                Err(e) => JsonRpcMessage::error(Some(id.clone()), e),
            };
            return self.peer.send(message, Some(id));
        }
        let cancel = CancellationToken::new();
        let span = request_span(&method, &id, params.as_ref(), "2025");
        let call = Call {
            id: id.clone(),
            progress_token: progress_token_of(params.as_ref()),
            method,
            params,
            caller,
            cancel: cancel.clone(),
        };
        let answer = match layers {
            None => Either::Left(self.clone().session_table(call)),
            Some(service) => {
                let request = call.into_request(self.clone(), MethodTable::Session);
                Either::Right(dispatch::through(service, request))
            }
        };
        let fut = answer.map_ok(Answer::into_payload);
        self.peer.serve(id, cancel, traced(span, fut));
        Sending::done()
    }

    /// The answer of `initialize`, `ping`, or a refusal before `initialize`: none of them
    /// waits for anything.
    fn answer_at_once(
        &self,
        method: &str,
        params: &mut Option<Value>,
    ) -> Option<Result<Value, ErrorObject>> {
        match method {
            methods::INITIALIZE => return Some(self.initialize(params.take())),
            methods::PING => return Some(Ok(json!({}))),
            _ => {}
        }
        if self.init.get().is_some() {
            return None;
        }
        // server/discover (2026-era clients) is unknown here: answer at once so they fall back.
        Some(Err(if method == "server/discover" {
            ErrorObject::method_not_found(method)
        } else {
            ErrorObject::invalid_request("the session is not initialized; send `initialize` first")
        }))
    }

    /// The 2025-11-25 method table.
    pub(super) async fn session_table(self: Arc<Self>, call: Call) -> Result<Answer, ErrorObject> {
        let Call {
            id,
            method,
            mut params,
            caller,
            progress_token,
            cancel,
        } = call;
        // Reached only through layers: without them these were answered at once.
        if let Some(result) = self.answer_at_once(&method, &mut params) {
            return result.map(Answer::Tree);
        }
        let ctx = Ctx::new(self.clone(), id, progress_token, cancel, caller);
        let tasks = &self.server.inner.tasks;
        // Whose tasks: taken by the task methods only (an owner is a `String`).
        let owner = || self.task_owner(ctx.caller());
        let tree = match method.as_str() {
            methods::TOOLS_LIST => self.list_tools(ctx.caller(), params),
            methods::TOOLS_CALL => return self.call_tool(ctx, params).await,
            // The task methods are boxed: their states are large and rare, and a
            // call's future (copied whole when its task is boxed) stays small.
            methods::TASKS_GET => Box::pin(tasks.get(params, owner().as_deref())).await,
            methods::TASKS_RESULT => {
                let (id, owner) = (ctx.request_id().clone(), owner());
                Box::pin(tasks.result(params, &self.peer, id, owner.as_deref())).await
            }
            methods::TASKS_CANCEL => Box::pin(tasks.cancel(params, owner().as_deref())).await,
            methods::TASKS_LIST if tasks.options().list => {
                let page_size = self.server.inner.options.page_size;
                Box::pin(tasks.list(params, page_size, owner().as_deref())).await
            }
            methods::PROMPTS_LIST => self.list_prompts(ctx.caller(), params),
            methods::PROMPTS_GET => self.get_prompt(ctx, params).await,
            methods::RESOURCES_LIST => self.list_resources(ctx.caller(), params),
            methods::RESOURCES_TEMPLATES_LIST => self.list_templates(ctx.caller(), params),
            methods::RESOURCES_READ => self.read_resource(ctx, params).await,
            methods::RESOURCES_SUBSCRIBE => self.subscribe(params, true),
            methods::RESOURCES_UNSUBSCRIBE => self.subscribe(params, false),
            methods::LOGGING_SET_LEVEL => self.set_level(params),
            methods::COMPLETION_COMPLETE => self.complete(&ctx, params).await,
            other => self.extension_method(other, params.as_ref()),
        };
        tree.map(Answer::Tree)
    }

    fn initialize(&self, params: Option<Value>) -> Result<Value, ErrorObject> {
        let p: InitializeRequestParams = decode(params)?;
        let version = SUPPORTED_PROTOCOL_VERSIONS
            .iter()
            .find(|v| **v == p.protocol_version)
            .copied()
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        let init = ClientInit {
            protocol_version: version,
            schema_profile: (self.server.inner.options)
                .profile_for(&p.client_info, &p.capabilities),
            capabilities: Arc::new(p.capabilities),
            client_info: Arc::new(p.client_info),
        };
        if self.init.set(init).is_err() && !self.stateless {
            return Err(ErrorObject::invalid_request(
                "the session is already initialized",
            ));
        }
        let result = InitializeResult {
            protocol_version: version.to_owned(),
            capabilities: self.capabilities(),
            server_info: self.server.inner.info.clone(),
            instructions: self.server.inner.instructions.clone(),
            ..Default::default()
        };
        encode(result)
    }

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities {
            tools: Some(ListChangedCapability {
                list_changed: Some(true),
            }),
            prompts: Some(ListChangedCapability {
                list_changed: Some(true),
            }),
            resources: Some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
            }),
            logging: Some(JsonObject::new()),
            completions: Some(JsonObject::new()),
            extra: self.extensions(),
            tasks: Some(TasksCapability {
                list: self.server.inner.tasks.options().list.then(JsonObject::new),
                cancel: Some(JsonObject::new()),
                requests: serde_json::from_value(json!({ "tools": { "call": {} } })).ok(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// `capabilities.extensions` of an initialize result: the extensions served besides the
    /// core (the tasks extension is modern-only and added there).
    pub(super) fn extensions(&self) -> JsonObject {
        #[cfg_attr(not(feature = "skills"), allow(unused_mut))]
        let mut extensions = JsonObject::new();
        #[cfg(feature = "skills")]
        if self.server.inner.skills.is_some() {
            extensions.insert(
                crate::skills::SKILLS_EXTENSION.into(),
                json!({ "directoryRead": true }),
            );
        }
        let mut extra = JsonObject::new();
        if !extensions.is_empty() {
            extra.insert("extensions".into(), Value::Object(extensions));
        }
        extra
    }

    /// The methods of the extensions this server serves (`skills/*`,
    /// `resources/directory/read`); `-32601` for anything else.
    pub(super) fn extension_method(
        &self,
        method: &str,
        params: Option<&Value>,
    ) -> Result<Value, ErrorObject> {
        #[cfg(feature = "skills")]
        if let Some(skills) = &self.server.inner.skills {
            let page = self.server.inner.options.page_size;
            match method {
                crate::skills::SKILLS_LIST => return skills.list(params, page),
                crate::skills::SKILLS_GET => return skills.get(params),
                crate::skills::DIRECTORY_READ => return skills.read_directory(params, page),
                _ => {}
            }
        }
        let _ = params;
        Err(ErrorObject::method_not_found(method))
    }

    pub(super) fn list_prompts(
        &self,
        caller: &Caller,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let (prompts, next_cursor) =
            self.page_of(caller, &read(&self.server.inner.prompts), params)?;
        encode(ListPromptsResult {
            prompts,
            next_cursor,
            ..Default::default()
        })
    }

    pub(super) fn list_resources(
        &self,
        caller: &Caller,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let (resources, next_cursor) =
            self.page_of(caller, &read(&self.server.inner.resources), params)?;
        encode(ListResourcesResult {
            resources,
            next_cursor,
            ..Default::default()
        })
    }

    pub(super) fn list_templates(
        &self,
        caller: &Caller,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let (resource_templates, next_cursor) =
            self.page_of(caller, &read(&self.server.inner.templates), params)?;
        encode(ListResourceTemplatesResult {
            resource_templates,
            next_cursor,
            ..Default::default()
        })
    }

    /// Of the tool named `name`: whether it gathers input before it becomes a task
    /// ([`ToolHandler::input_before_task`](super::ToolHandler::input_before_task)), and its
    /// task support.
    pub(super) fn task_support(&self, name: &str) -> Option<(bool, TaskSupport)> {
        read(&self.server.inner.tools)
            .get(name)
            .map(|entry| (entry.item.input_before_task(), entry.task_support()))
    }

    pub(super) async fn call_tool(
        self: &Arc<Self>,
        ctx: Ctx,
        params: Option<Value>,
    ) -> Result<Answer, ErrorObject> {
        // The arguments map is taken out as it is: decoding it into `CallToolRequestParams`
        // would rebuild it entry by entry (re-hashing every key) only to hand it on. `_meta`
        // is dropped for the same reason (on 2026-07-28 it carries the client's capabilities
        // and identity): what it says reached the context already, and `p.meta` is unread.
        let mut params = params;
        let arguments = match params.as_mut().and_then(Value::as_object_mut) {
            Some(map) => {
                map.remove("_meta");
                match map.remove("arguments") {
                    None | Some(Value::Null) => None,
                    Some(Value::Object(arguments)) => Some(arguments),
                    Some(_) => {
                        return Err(ErrorObject::invalid_params("`arguments` must be an object"));
                    }
                }
            }
            None => None,
        };
        let mut p: CallToolRequestParams = decode(params)?;
        p.arguments = arguments;
        // Only the handler and its task support leave the lock: cloning the descriptor
        // (schemas included) per call was a tenth of the in-memory call cost.
        let found = read(&self.server.inner.tools).get(&p.name).map(|entry| {
            (
                entry.item.clone(),
                entry.task_support(),
                entry.scopes.clone(),
            )
        });
        let Some((tool, support, scopes)) = found else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown tool: {}",
                ErrorObject::quote(&p.name)
            )));
        };
        let arguments = p.arguments.unwrap_or_default();
        let required = scopes.of(|| Cow::Borrowed(&arguments))?;
        check_scopes(&ctx, "tool", &p.name, &required)?;
        match (p.task, support) {
            (Some(_), TaskSupport::Forbidden) => Err(ErrorObject::new(
                METHOD_NOT_FOUND,
                format!(
                    "tool `{}` cannot run as a task (its execution.taskSupport is \"forbidden\"); call it without `task`",
                    p.name
                ),
            )),
            // A modern request checked the tasks extension itself.
            (None, TaskSupport::Required) if ctx.rounds().is_none() => Err(ErrorObject::new(
                METHOD_NOT_FOUND,
                format!(
                    "tool `{}` must run as a task (its execution.taskSupport is \"required\"); add `task` to the params",
                    p.name
                ),
            )),
            (Some(task), _) => {
                let progress = ctx.progress_token().cloned();
                let origin = ctx.request_id().clone();
                let session = self.clone();
                let caller = ctx.caller().clone();
                // Boxed: the task path's state would otherwise enlarge every call's future.
                let task = Box::pin(self.server.inner.tasks.start(
                    &self.peer,
                    origin.clone(),
                    methods::TOOLS_CALL,
                    task.ttl,
                    self.task_owner(&caller),
                    move |live, cancel| {
                        let ctx = Ctx::for_task(session, origin, progress, cancel, live, caller);
                        async move { run_tool(tool, ctx, arguments).await.map(Value::from) }
                    },
                ))
                .await?;
                encode(CreateTaskResult::new(task)).map(Answer::Tree)
            }
            (None, _) => run_tool(tool, ctx, arguments).await.map(Answer::Tool),
        }
    }

    pub(super) async fn get_prompt(
        &self,
        ctx: Ctx,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let p: GetPromptRequestParams = decode(params)?;
        let entry = read(&self.server.inner.prompts).get(&p.name).cloned();
        let Some(entry) = entry else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown prompt: {}",
                ErrorObject::quote(&p.name)
            )));
        };
        let args: HashMap<String, String> = p.arguments.unwrap_or_default().into_iter().collect();
        let required = entry.scopes.of(|| {
            let strings = args
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())));
            Cow::Owned(strings.collect())
        })?;
        check_scopes(&ctx, "prompt", &p.name, &required)?;
        for arg in entry.descriptor.arguments.iter().flatten() {
            if arg.required == Some(true) && !args.contains_key(&arg.name) {
                return Err(ErrorObject::invalid_params(format!(
                    "missing required argument `{}` for prompt `{}`",
                    arg.name, p.name
                )));
            }
        }
        encode(entry.item.get(ctx, args).await?)
    }

    pub(super) async fn read_resource(
        &self,
        ctx: Ctx,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let p: ReadResourceRequestParams = decode(params)?;
        let fixed = read(&self.server.inner.resources)
            .get(&p.uri)
            .map(|e| (e.item.clone(), e.scopes.clone()));
        if let Some((resource, scopes)) = fixed {
            check_scopes(&ctx, "resource", &p.uri, scopes.fixed())?;
            return encode(resource.read(ctx).await?);
        }
        let matched = read(&self.server.inner.templates).values().find_map(|e| {
            e.item
                .template()
                .matches(&p.uri)
                .map(|vars| (e.item.clone(), vars, e.scopes.clone()))
        });
        match matched {
            Some((template, vars, scopes)) => {
                let required = scopes.of(|| Cow::Owned(super::scopes::variables(vars.clone())))?;
                check_scopes(&ctx, "resource", &p.uri, &required)?;
                encode(template.read(ctx, &p.uri, vars).await?)
            }
            None => Err(ErrorObject::new(
                RESOURCE_NOT_FOUND,
                format!("Resource not found: {}", ErrorObject::quote(&p.uri)),
            )
            .with_data(json!({ "uri": p.uri }))),
        }
    }

    fn subscribe(&self, params: Option<Value>, on: bool) -> Result<Value, ErrorObject> {
        let p: SubscribeRequestParams = decode(params)?;
        let mut subs = lock(&self.subscriptions);
        if on {
            subs.insert(p.uri);
        } else {
            subs.remove(&p.uri);
        }
        Ok(json!({}))
    }

    fn set_level(&self, params: Option<Value>) -> Result<Value, ErrorObject> {
        let p: SetLevelRequestParams = decode(params)?;
        self.log_level
            .store(level_index(p.level), Ordering::Relaxed);
        Ok(json!({}))
    }

    /// `completion/complete`: the prompt's or template's completer, given the request's
    /// context (so it reaches the app state).
    pub(super) async fn complete(
        &self,
        ctx: &Ctx,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let p: CompleteRequestParams = decode(params)?;
        let context: HashMap<String, String> = p
            .context
            .and_then(|c| c.arguments)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let (name, value) = (&p.argument.name, &p.argument.value);
        let values = match &p.reference {
            CompletionReference::Prompt(r) => {
                let prompt = read(&self.server.inner.prompts)
                    .get(&r.name)
                    .map(|e| e.item.clone());
                let prompt = prompt.ok_or_else(|| {
                    ErrorObject::invalid_params(format!(
                        "Unknown prompt: {}",
                        ErrorObject::quote(&r.name)
                    ))
                })?;
                prompt.complete(ctx, name, value, &context).await
            }
            CompletionReference::Resource(r) => {
                let template = read(&self.server.inner.templates)
                    .get(&r.uri)
                    .map(|e| e.item.clone());
                match template {
                    Some(t) => t.complete(ctx, name, value, &context).await,
                    None => Vec::new(),
                }
            }
        };
        let total = values.len();
        let completion = Completion {
            has_more: Some(total > MAX_COMPLETIONS),
            total: Some(total as u64),
            values: values.into_iter().take(MAX_COMPLETIONS).collect(),
        };
        encode(CompleteResult {
            completion,
            meta: None,
        })
    }
}

impl SessionScope for ServerSession {
    fn peer(&self) -> &Arc<Peer> {
        &self.peer
    }

    fn client(&self) -> Option<&ClientInit> {
        self.init.get()
    }

    fn log_enabled(&self, level: LoggingLevel) -> bool {
        level_index(level) >= self.log_level.load(Ordering::Relaxed)
    }

    fn can_request(&self) -> bool {
        !self.stateless
    }

    fn request_timeout(&self) -> std::time::Duration {
        self.server.inner.options.request_timeout
    }

    fn server(&self) -> &dyn std::any::Any {
        &self.server
    }

    fn app_state(&self) -> &crate::context::AppState {
        &self.server.inner.app_state
    }
}

/// Runs a tool to the answer `tools/call` gives: execution errors and panics become
/// `isError` results, protocol errors stay JSON-RPC errors.
async fn run_tool(
    tool: Arc<dyn super::ToolHandler>,
    ctx: Ctx,
    arguments: JsonObject,
) -> Result<CallToolResult, ErrorObject> {
    let outcome = AssertUnwindSafe(tool.call(ctx, arguments))
        .catch_unwind()
        .await;
    let result = match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(crate::authoring::ToolError::Execution(message))) => {
            CallToolResult::error_text(message)
        }
        Ok(Err(crate::authoring::ToolError::Protocol(error))) => return Err(error),
        Err(panic) => CallToolResult::error_text(panic_message(&panic)),
    };
    Ok(result)
}

/// Refuses a caller whose principal lacks one of `required` (a request without a principal
/// lacks them all): `-32600` naming the scopes, in `data.requiredScopes` too. Over HTTP the
/// host refuses such a request earlier, with `403` and an `insufficient_scope` challenge;
/// this is the same rule for every other way in (stdio, tasks).
pub(crate) fn check_scopes(
    ctx: &Ctx,
    kind: &str,
    name: &str,
    required: &[String],
) -> Result<(), ErrorObject> {
    let missing = ctx.caller().missing_scopes(required);
    if missing.is_empty() {
        return Ok(());
    }
    Err(ErrorObject::invalid_request(format!(
        "Forbidden: {kind} {} requires the scope(s) {}",
        ErrorObject::quote(name),
        missing.join(" ")
    ))
    .with_data(json!({ "requiredScopes": required, "missingScopes": missing })))
}

/// The spec caps completion values at 100 per response.
const MAX_COMPLETIONS: usize = 100;

const CURSOR_PREFIX: &str = "tracksuit:";

pub(super) fn encode_cursor(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{offset}"))
}

pub(super) fn decode_cursor(cursor: &str) -> Result<usize, ErrorObject> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.strip_prefix(CURSOR_PREFIX).and_then(|n| n.parse().ok()))
        .ok_or_else(|| {
            ErrorObject::invalid_params(format!("invalid cursor {:?}", ErrorObject::quote(cursor)))
        })
}

/// The span a request's handler runs in: `mcp.request` with the method, the request id, the
/// protocol era and, for `tools/call` / `prompts/get` / `resources/read`, the tool, prompt
/// or resource. DEBUG level, so it costs nothing unless a subscriber wants it.
/// The progress token a request's `_meta` carries, if any.
pub(super) fn progress_token_of(params: Option<&Value>) -> Option<ProgressToken> {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("progressToken"))
        .and_then(|t| serde_json::from_value::<ProgressToken>(t.clone()).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(decode_cursor(&encode_cursor(42)).ok(), Some(42));
        assert_eq!(
            decode_cursor("nope").map_err(|e| e.code),
            Err(INVALID_PARAMS)
        );
    }

    #[test]
    fn levels_are_ordered() {
        assert!(level_index(LoggingLevel::Debug) < level_index(LoggingLevel::Emergency));
    }
}
