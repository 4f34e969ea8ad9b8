//! MCP 2026-07-28 on the same registries: stateless requests that carry their protocol
//! version and client capabilities in `_meta`, `server/discover`, `resultType` and
//! `serverInfo` on every result, cache hints, and multi round-trip requests (MRTR) whose
//! answers travel in a sealed `requestState`.
//!
//! A modern request is served by a [`ServerSession`] of its own, made from the request's
//! `_meta` and dropped with it: the dispatch, the handlers and the outbound path are the
//! session engine's. What differs is here: which methods exist, what results carry, and
//! how questions to the client become rounds (see `context::rounds`).

use super::ServerSession;
use super::answer::Answer;
use super::idempotent::{self, Admission};
use super::session::{level_index, progress_token_of};
use crate::context::{Carried, ClientInit, Ctx, Question, Rounds, Stuck};
use crate::peer::Sending;
use crate::protocol::*;
use crate::seal::{Binding, Bound, StateKeys, digest_json};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio_util::sync::CancellationToken;

/// The modern protocol revisions this crate serves, newest first.
pub const MODERN_PROTOCOL_VERSIONS: &[&str] = &["2026-07-28"];

/// `_meta` keys of the modern revision.
pub(crate) mod keys {
    pub(crate) use crate::protocol::{CLIENT_CAPABILITIES, CLIENT_INFO, PROTOCOL_VERSION};
    pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
}

/// `server/discover`
pub(crate) const SERVER_DISCOVER: &str = "server/discover";
/// `subscriptions/listen`
pub(crate) const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// The tasks extension's status notification.
const TASK_STATUS_NOTIFICATION: &str = "notifications/tasks";

/// The methods a modern request may call.
const METHODS: &[&str] = &[
    SERVER_DISCOVER,
    methods::TOOLS_LIST,
    methods::TOOLS_CALL,
    methods::PROMPTS_LIST,
    methods::PROMPTS_GET,
    methods::RESOURCES_LIST,
    methods::RESOURCES_READ,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::COMPLETION_COMPLETE,
    SUBSCRIPTIONS_LISTEN,
    crate::task::TASKS_GET,
    crate::task::TASKS_UPDATE,
    crate::task::TASKS_CANCEL,
    // Extensions' methods: `-32601` unless the server serves the extension.
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// What a `subscriptions/listen` request opted in to.
#[derive(Debug, Clone)]
pub(crate) struct Listen {
    /// The listen request's id: every notification on its stream carries it.
    id: RequestId,
    tools: bool,
    prompts: bool,
    resources: bool,
}

/// `_meta` key tagging notifications with their subscription.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

impl Listen {
    /// Whether the stream asked for `method` (resource updates are filtered by URI).
    pub(crate) fn wants(&self, method: &str) -> bool {
        match method {
            methods::TOOLS_LIST_CHANGED => self.tools,
            methods::PROMPTS_LIST_CHANGED => self.prompts,
            methods::RESOURCES_LIST_CHANGED => self.resources,
            _ => false,
        }
    }

    /// `params` with the subscription's id in `_meta`.
    pub(crate) fn tag(&self, params: Option<Value>) -> Option<Value> {
        let mut params = params.unwrap_or_else(|| Value::Object(JsonObject::new()));
        if let Value::Object(map) = &mut params {
            let meta = map
                .entry("_meta")
                .or_insert_with(|| Value::Object(JsonObject::new()));
            if let Value::Object(meta) = meta {
                meta.insert(
                    SUBSCRIPTION_ID.into(),
                    serde_json::to_value(&self.id).unwrap_or(Value::Null),
                );
            }
        }
        Some(params)
    }
}

/// The result a `subscriptions/listen` the server ends itself gets (the spec's "Graceful
/// Closure"): complete, its subscription id in `_meta`.
fn listen_ended(id: &RequestId) -> Value {
    json!({ "_meta": { SUBSCRIPTION_ID: id } })
}

/// Whether `method` exists in the modern revision (anything else is `-32601`; on HTTP 404).
pub(crate) fn is_modern_method(method: &str) -> bool {
    METHODS.contains(&method)
}

/// Whether a request speaks the modern revision: its `_meta` names a protocol version, or
/// it is `server/discover`. Everything else goes to the session engine.
pub(crate) fn is_modern(method: &str, params: Option<&Value>) -> bool {
    method == SERVER_DISCOVER
        || params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(keys::PROTOCOL_VERSION))
            .is_some()
}

/// The protocol version a modern request names, if it names one as a string.
#[cfg(feature = "http")]
pub(crate) fn requested_version<'a>(
    params: Option<&'a Value>,
    client: &ClientMeta<'a>,
) -> Option<&'a str> {
    match client.version {
        Some(raw) => serde_json::from_str(raw.get()).ok(),
        None => params?.get("_meta")?.get(keys::PROTOCOL_VERSION)?.as_str(),
    }
}

/// What a modern request says about its client, from its `_meta`.
#[derive(Debug, Clone)]
pub(crate) struct RequestMeta {
    /// One of [`MODERN_PROTOCOL_VERSIONS`].
    pub(crate) version: &'static str,
    pub(crate) capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    pub(crate) log_level: Option<LoggingLevel>,
}

/// Reads and checks a modern request's `_meta`: an unsupported version is `-32022` (with
/// the supported and requested versions), a missing or malformed field `-32602`.
/// `client` holds the client-describing members when the request was read with them kept
/// raw beside `params` (a member found there is not looked for in `params`).
pub(crate) fn read_meta(
    params: Option<&Value>,
    client: ClientMeta<'_>,
    known: &super::known_client::KnownClient,
) -> Result<RequestMeta, ErrorObject> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .ok_or_else(|| ErrorObject::invalid_params("params._meta is required"))?;
    let not_text = || {
        ErrorObject::invalid_params(format!(
            "_meta[\"{}\"] must be a string",
            keys::PROTOCOL_VERSION
        ))
    };
    let unescaped;
    let version = match (client.version, meta.get(keys::PROTOCOL_VERSION)) {
        // Borrowed from the request's text, unless it is written with escapes.
        (Some(raw), _) => match serde_json::from_str::<&str>(raw.get()) {
            Ok(v) => v,
            Err(_) => {
                unescaped = serde_json::from_str::<String>(raw.get()).map_err(|_| not_text())?;
                unescaped.as_str()
            }
        },
        (None, Some(Value::String(v))) => v.as_str(),
        (None, Some(_)) => {
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] must be a string",
                keys::PROTOCOL_VERSION
            )));
        }
        (None, None) => {
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] is required",
                keys::PROTOCOL_VERSION
            )));
        }
    };
    let Some(version) = MODERN_PROTOCOL_VERSIONS
        .iter()
        .find(|v| **v == version)
        .copied()
    else {
        return Err(unsupported_version(version));
    };
    let (capabilities, client_info) = match known.get(client) {
        Some(typed) => typed,
        None => {
            let typed = client_description(meta, client)?;
            known.remember(client, &typed);
            typed
        }
    };
    let log_level = match meta.get(keys::LOG_LEVEL) {
        Some(l) => Some(LoggingLevel::deserialize(l).map_err(|e| {
            ErrorObject::invalid_params(format!("_meta[\"{}\"] is not valid: {e}", keys::LOG_LEVEL))
        })?),
        None => None,
    };
    Ok(RequestMeta {
        version,
        capabilities,
        client_info,
        log_level,
    })
}

/// The client's capabilities and info from a modern request's `_meta` (or from `client`,
/// where they were kept raw): `-32602` when the capabilities are missing or either is
/// malformed.
fn client_description(
    meta: &JsonObject,
    client: ClientMeta<'_>,
) -> Result<ClientDescription, ErrorObject> {
    let invalid = |key: &str, e: serde_json::Error| {
        ErrorObject::invalid_params(format!("_meta[\"{key}\"] is not valid: {e}"))
    };
    let capabilities = match (client.capabilities, meta.get(keys::CLIENT_CAPABILITIES)) {
        // Typed straight from the request's text, or from the borrowed tree: no copy of the
        // `_meta` objects either way.
        (Some(raw), _) => serde_json::from_str::<ClientCapabilities>(raw.get())
            .map_err(|e| invalid(keys::CLIENT_CAPABILITIES, e))?,
        (None, Some(c)) => {
            ClientCapabilities::deserialize(c).map_err(|e| invalid(keys::CLIENT_CAPABILITIES, e))?
        }
        (None, None) => {
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] is required",
                keys::CLIENT_CAPABILITIES
            )));
        }
    };
    let client_info = match (client.info, meta.get(keys::CLIENT_INFO)) {
        (Some(raw), _) => Some(
            serde_json::from_str::<Implementation>(raw.get())
                .map_err(|e| invalid(keys::CLIENT_INFO, e))?,
        ),
        (None, Some(i)) => {
            Some(Implementation::deserialize(i).map_err(|e| invalid(keys::CLIENT_INFO, e))?)
        }
        (None, None) => None,
    };
    Ok((Arc::new(capabilities), client_info.map(Arc::new)))
}

/// A client's capabilities and info, shared by every request that carries the same.
pub(crate) type ClientDescription = (Arc<ClientCapabilities>, Option<Arc<Implementation>>);

/// Admits a modern request: its `_meta` (see [`read_meta`]) and its method (`-32601` for
/// one the modern revision does not have, `initialize` and `ping` included).
pub(crate) fn admit(
    server: &super::ServerHandle,
    method: &str,
    params: Option<&Value>,
    client: ClientMeta<'_>,
) -> Result<RequestMeta, ErrorObject> {
    let meta = read_meta(params, client, &server.inner.known_client)?;
    if !is_modern_method(method) {
        return Err(ErrorObject::method_not_found(method));
    }
    Ok(meta)
}

/// `-32022` for a request naming `requested`.
pub(crate) fn unsupported_version(requested: &str) -> ErrorObject {
    ErrorObject::new(
        UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "unsupported protocol version {} (supported: {})",
            ErrorObject::quote(requested),
            MODERN_PROTOCOL_VERSIONS.join(", ")
        ),
    )
    .with_data(json!({
        "supported": MODERN_PROTOCOL_VERSIONS,
        "requested": requested,
    }))
}

/// How long clients and intermediaries may cache a cacheable result (`tools/list`,
/// `prompts/list`, `resources/list`, `resources/templates/list`, `resources/read`,
/// `server/discover`) on the modern revision.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::{CacheHint, Server, ServerOptions, client::{Client, Era}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let hint = CacheHint { ttl: Duration::from_secs(60), public: true };
/// let server = Server::with_options(tracksuit::crate_info!(), ServerOptions::default().cache(hint))
///     .build()?;
/// let builder = Client::builder().era(Era::Stateless);
/// let client = tracksuit::host::connect_in_memory(server, builder).await?;
/// let listed: serde_json::Value = client.request("tools/list", serde_json::json!({})).await?;
/// assert_eq!((listed["ttlMs"].as_u64(), listed["cacheScope"].as_str()), (Some(60_000), Some("public")));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// Freshness: how long the result may be reused (`ttlMs`). Zero means stale at once.
    pub ttl: Duration,
    /// Whether shared caches may keep it across authorization contexts (`cacheScope`).
    pub public: bool,
}

impl Default for CacheHint {
    /// Stale at once, private: nothing is cached unless the author says so.
    fn default() -> Self {
        CacheHint {
            ttl: Duration::ZERO,
            public: false,
        }
    }
}

impl CacheHint {
    fn apply(&self, map: &mut JsonObject) {
        let ttl = u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX);
        map.insert("ttlMs".into(), ttl.into());
        map.insert(
            "cacheScope".into(),
            if self.public { "public" } else { "private" }.into(),
        );
    }
}

impl ServerSession {
    /// The one-request session of a modern request whose `_meta` said `meta`.
    pub(crate) fn new_modern(
        server: super::ServerHandle,
        tx: crate::peer::OutboundSender,
        meta: RequestMeta,
    ) -> Arc<Self> {
        let client_info = meta.client_info.unwrap_or_else(|| {
            static UNKNOWN: std::sync::LazyLock<Arc<Implementation>> =
                std::sync::LazyLock::new(|| Arc::new(Implementation::new("unknown-client", "0")));
            UNKNOWN.clone()
        });
        let options = &server.inner.options;
        let schema_profile = options.profile_for(&client_info, &meta.capabilities);
        let session = Self::unregistered(server, tx, true, true);
        let _ = session.init.set(ClientInit {
            protocol_version: meta.version,
            capabilities: meta.capabilities,
            client_info,
            schema_profile,
        });
        // Logs only when the request asks for them (`_meta` log level).
        let level = meta.log_level.map_or(u8::MAX, level_index);
        session
            .log_level
            .store(level, std::sync::atomic::Ordering::Relaxed);
        session
            .initialized
            .store(true, std::sync::atomic::Ordering::Release);
        session
    }

    /// Serves one modern request on its own task (the stdio engine, where requests share
    /// one stream); its result (or error) is shaped for the modern revision.
    pub(super) fn handle_modern(
        self: &Arc<Self>,
        id: RequestId,
        method: String,
        params: Option<Value>,
        caller: crate::caller::Caller,
    ) -> Sending<'_> {
        let cancel = CancellationToken::new();
        let fut = self.modern_request(id.clone(), method, params, caller, cancel.clone());
        self.peer.serve(id, cancel, fut);
        Sending::done()
    }

    /// One modern request, served by whoever polls the returned future: the stdio engine
    /// spawns it ([`ServerSession::handle_modern`]), the HTTP host polls it on the POST's
    /// own future. `cancel` is the token a handler sees cancelled when the request is.
    pub(crate) fn modern_request(
        self: &Arc<Self>,
        id: RequestId,
        method: String,
        params: Option<Value>,
        caller: crate::caller::Caller,
        cancel: CancellationToken,
    ) -> impl std::future::Future<Output = Result<ResultPayload, ErrorObject>> + Send + 'static
    {
        let progress_token = progress_token_of(params.as_ref());
        let this = self.clone();
        let request_id = id.clone();
        let span = super::session::request_span(&method, &id, params.as_ref(), "2026");
        let fut = async move {
            let cacheable = |v: Value| Answer::Tree(this.cacheable(v));
            let outcome = match method.as_str() {
                SERVER_DISCOVER => Ok(Answer::Tree(this.discover())),
                methods::TOOLS_LIST => this.list_tools(&caller, params).map(cacheable),
                methods::PROMPTS_LIST => this.list_prompts(&caller, params).map(cacheable),
                methods::RESOURCES_LIST => this.list_resources(&caller, params).map(cacheable),
                methods::RESOURCES_TEMPLATES_LIST => {
                    this.list_templates(&caller, params).map(cacheable)
                }
                methods::COMPLETION_COMPLETE => {
                    let ctx = Ctx::new(this.clone(), request_id, progress_token, cancel, caller);
                    this.complete(&ctx, params).await.map(Answer::Tree)
                }
                // Boxed, as the rarer paths with large states: a call's future stays small.
                SUBSCRIPTIONS_LISTEN => {
                    let end = this.server.inner.subscriptions_end.clone();
                    let id = request_id.clone();
                    let listening = Box::pin(this.listen(request_id, params, caller.owner()));
                    tokio::select! {
                        listened = listening => listened.map(Answer::Tree),
                        () = end.cancelled() => Ok(Answer::Tree(listen_ended(&id))),
                    }
                }
                crate::task::TASKS_GET | crate::task::TASKS_UPDATE | crate::task::TASKS_CANCEL => {
                    Box::pin(this.task_method(&method, params, caller.owner()))
                        .await
                        .map(Answer::Tree)
                }
                methods::TOOLS_CALL | methods::PROMPTS_GET => {
                    this.in_rounds(&method, request_id, progress_token, cancel, params, caller)
                        .await
                }
                methods::RESOURCES_READ => this
                    .in_rounds(&method, request_id, progress_token, cancel, params, caller)
                    .await
                    .map(|answer| match answer {
                        Answer::Tree(v) if v.get("resultType").is_none() => cacheable(v),
                        other => other,
                    }),
                "skills/list" | "skills/get" => this
                    .extension_method(&method, params.as_ref())
                    .map(cacheable),
                other => this
                    .extension_method(other, params.as_ref())
                    .map(Answer::Tree),
            };
            this.modern_result(outcome)
        };
        super::session::traced(span, fut)
    }

    /// A handler's outcome as a modern result: a URL elicitation the handler required
    /// becomes an `input_required` round, and every result carries `resultType` and
    /// `serverInfo`.
    fn modern_result(
        &self,
        outcome: Result<Answer, ErrorObject>,
    ) -> Result<ResultPayload, ErrorObject> {
        let answer = outcome
            .or_else(|e| url_elicitations_as_input(e).map(Answer::Tree))
            .map_err(modern_error)?;
        Ok(match answer {
            Answer::Tree(v) => ResultPayload::from(self.complete_result(v)),
            // Written straight from the tool's result when the response is encoded,
            // `resultType` and `serverInfo` beside its members: no tree is built for it.
            Answer::Tool(result) => ResultPayload::tool(
                result,
                Some(ServerInfo {
                    key: keys::SERVER_INFO,
                    info: self.server.inner.info_text.clone(),
                }),
            ),
            Answer::Shaped(text) => ResultPayload::from(text),
        })
    }

    /// Serves a plain tool call (see [`ServerHandle::is_plain_tool_call`]) on the caller's
    /// own future, the way [`ServerSession::handle_modern`] would answer it: the tool's
    /// result or error, shaped as every modern result is. Dropping the future (the client
    /// closed the stream) cancels the call: the handler is dropped and its cancellation
    /// token fires.
    #[cfg(feature = "http")]
    pub(crate) async fn call_plain_tool(
        self: &Arc<Self>,
        request: JsonRpcRequest,
        caller: crate::caller::Caller,
    ) -> Result<ResultPayload, ErrorObject> {
        use futures::FutureExt as _;
        let JsonRpcRequest {
            id,
            method,
            mut params,
        } = request;
        // The 2025-11-25 `task` param is tolerated and ignored, as in a round.
        if let Some(map) = params.as_mut().and_then(Value::as_object_mut) {
            map.remove("task");
        }
        let span = super::session::request_span(&method, &id, params.as_ref(), "2026");
        let cancel = CancellationToken::new();
        let progress_token = progress_token_of(params.as_ref());
        let ctx = Ctx::new(self.clone(), id, progress_token, cancel.clone(), caller);
        let cancel_if_dropped = cancel.drop_guard();
        let call = super::session::traced(span, self.call_tool(ctx, params));
        let outcome = std::panic::AssertUnwindSafe(call).catch_unwind().await;
        cancel_if_dropped.disarm();
        match outcome {
            Ok(outcome) => self.modern_result(outcome),
            Err(panic) => Err(ErrorObject::internal(crate::peer::panic_message(&panic))),
        }
    }

    /// `subscriptions/listen`: acknowledges the filter, then stays open (its notifications
    /// arrive through the server's broadcasts) until the client closes the stream, or the
    /// server ends it ([`super::ServerHandle::end_subscriptions`], answered by the caller).
    async fn listen(
        self: &Arc<Self>,
        id: RequestId,
        params: Option<Value>,
        owner: Option<String>,
    ) -> Result<Value, ErrorObject> {
        let filter = params
            .as_ref()
            .and_then(|p| p.get("notifications"))
            .and_then(Value::as_object)
            .ok_or_else(|| {
                ErrorObject::invalid_params("`notifications` (an object) is required")
            })?;
        let flag = |name: &str| filter.get(name).and_then(Value::as_bool).unwrap_or(false);
        let listen = Listen {
            id,
            tools: flag("toolsListChanged"),
            prompts: flag("promptsListChanged"),
            resources: flag("resourcesListChanged"),
        };
        let uris: Vec<String> = match filter.get("resourceSubscriptions") {
            None => Vec::new(),
            Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
                ErrorObject::invalid_params("`resourceSubscriptions` must be an array of URIs")
            })?,
        };
        let task_ids: Vec<String> = match filter.get("taskIds") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
                ErrorObject::invalid_params("`taskIds` must be an array of task ids")
            })?,
        };
        if !task_ids.is_empty() && !self.declares_tasks_extension() {
            return Err(crate::task::missing_extension("notifications/tasks"));
        }
        // Another principal's tasks are not found: their ids are left out of the stream.
        let mut visible = Vec::with_capacity(task_ids.len());
        for task_id in task_ids {
            let tasks = &self.server.inner.tasks;
            if !tasks.extension_foreign(&task_id, owner.as_deref()).await {
                visible.push(task_id);
            }
        }
        let task_ids = visible;
        // Subscribed before the acknowledgement: no change after it is missed.
        let mut statuses = (!task_ids.is_empty()).then(|| self.server.inner.tasks.task_statuses());
        let mut honoured = JsonObject::new();
        for (name, on) in [
            ("toolsListChanged", listen.tools),
            ("promptsListChanged", listen.prompts),
            ("resourcesListChanged", listen.resources),
        ] {
            if on {
                honoured.insert(name.into(), true.into());
            }
        }
        if !uris.is_empty() {
            honoured.insert("resourceSubscriptions".into(), json!(uris));
        }
        if !task_ids.is_empty() {
            honoured.insert("taskIds".into(), json!(task_ids));
        }
        for uri in uris {
            self.subscribe_uri(uri);
        }
        let ack = listen.tag(Some(json!({ "notifications": honoured })));
        let _ = self.listen.set(listen);
        self.peer
            .notify("notifications/subscriptions/acknowledged", ack, None)
            .await;
        self.server.register_session(self);
        let Some(statuses) = statuses.as_mut() else {
            return std::future::pending().await;
        };
        // `notifications/tasks`: each task's state now, then every change.
        let tag = |detail: Value| self.listen.get().and_then(|l| l.tag(Some(detail)));
        // The last state sent per task: a change heard twice (the bus brings the state as it
        // is when the event is read) is sent once.
        let mut sent: std::collections::HashMap<String, Value> = Default::default();
        for id in &task_ids {
            let tasks = &self.server.inner.tasks;
            if let Some(detail) = tasks.extension_detail(id, owner.as_deref()).await {
                sent.insert(id.clone(), detail.clone());
                self.peer
                    .notify(TASK_STATUS_NOTIFICATION, tag(detail), None)
                    .await;
            }
        }
        loop {
            match statuses.recv().await {
                Ok((id, detail)) if task_ids.contains(&id) => {
                    if sent.get(&id) == Some(&detail) {
                        continue;
                    }
                    sent.insert(id, detail.clone());
                    self.peer
                        .notify(TASK_STATUS_NOTIFICATION, tag(detail), None)
                        .await;
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                    return std::future::pending().await;
                }
            }
        }
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension: `-32021` for a
    /// client that did not declare it.
    async fn task_method(
        &self,
        method: &str,
        params: Option<Value>,
        owner: Option<String>,
    ) -> Result<Value, ErrorObject> {
        if !self.declares_tasks_extension() {
            return Err(crate::task::missing_extension(method));
        }
        let tasks = &self.server.inner.tasks;
        let owner = owner.as_deref();
        match method {
            crate::task::TASKS_GET => tasks.extension_get(params, owner).await,
            crate::task::TASKS_UPDATE => tasks.extension_update(params, owner).await,
            _ => tasks.extension_cancel(params, owner).await,
        }
    }

    /// Whether this request's client declared the tasks extension.
    fn declares_tasks_extension(&self) -> bool {
        self.init
            .get()
            .is_some_and(|init| crate::task::extension_declared(&init.capabilities))
    }

    /// `server/discover`.
    fn discover(&self) -> Value {
        let mut result = json!({
            "supportedVersions": MODERN_PROTOCOL_VERSIONS,
            "capabilities": self.modern_capabilities(),
        });
        if let (Some(map), Some(instructions)) =
            (result.as_object_mut(), &self.server.inner.instructions)
        {
            map.insert("instructions".into(), instructions.clone().into());
        }
        self.cacheable(result)
    }

    /// What a modern request may use: no `logging` capability (the level travels in
    /// `_meta`), no subscribe (that is `subscriptions/listen`), no core tasks — tasks are
    /// the `io.modelcontextprotocol/tasks` extension.
    fn modern_capabilities(&self) -> ServerCapabilities {
        let mut extra = self.extensions();
        let extensions = extra
            .entry("extensions")
            .or_insert_with(|| Value::Object(JsonObject::new()));
        if let Value::Object(map) = extensions {
            map.insert(crate::task::TASKS_EXTENSION.into(), json!({}));
        }
        ServerCapabilities {
            extra,
            tools: Some(ListChangedCapability {
                list_changed: Some(true),
            }),
            prompts: Some(ListChangedCapability {
                list_changed: Some(true),
            }),
            resources: Some(ResourcesCapability {
                subscribe: None,
                list_changed: Some(true),
            }),
            completions: Some(JsonObject::new()),
            ..Default::default()
        }
    }

    /// Adds the author's cache hint to a cacheable result.
    fn cacheable(&self, mut value: Value) -> Value {
        if let Value::Object(map) = &mut value {
            self.server.inner.options.cache.apply(map);
        }
        value
    }

    /// `resultType: "complete"` (unless the result says otherwise) and the server's identity
    /// in `_meta`.
    fn complete_result(&self, mut value: Value) -> Value {
        if let Value::Object(map) = &mut value {
            map.entry("resultType").or_insert_with(|| "complete".into());
            let meta = map
                .entry("_meta")
                .or_insert_with(|| Value::Object(JsonObject::new()));
            if let Value::Object(meta) = meta {
                meta.insert(
                    keys::SERVER_INFO.into(),
                    self.server.inner.info_json.clone(),
                );
            }
        }
        value
    }

    /// Serves `tools/call`, `prompts/get` or `resources/read` as one MRTR round: replays the
    /// handler against the answers so far, and either finishes or answers `input_required`
    /// with the handler's new questions and the sealed state of the call.
    async fn in_rounds(
        self: &Arc<Self>,
        method: &str,
        id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        params: Option<Value>,
        caller: crate::caller::Caller,
    ) -> Result<Answer, ErrorObject> {
        let mut params = params.unwrap_or_else(|| Value::Object(JsonObject::new()));
        let Some(map) = params.as_object_mut() else {
            return Err(ErrorObject::invalid_params("params must be an object"));
        };
        let responses = match map.remove("inputResponses") {
            None | Some(Value::Null) => None,
            Some(Value::Object(r)) => Some(r),
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "`inputResponses` must be an object",
                ));
            }
        };
        let state = match map.remove("requestState") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "`requestState` must be a string",
                ));
            }
        };
        // A tool call may become a task of the tasks extension: only for a client that
        // declared it, and only for a tool whose `taskSupport` allows it. The 2025-11-25
        // `task` param is tolerated and ignored (the server decides).
        let mut as_task = None;
        if method == methods::TOOLS_CALL {
            map.remove("task");
            if let Some(Value::String(name)) = map.get("name")
                && let Some((input_before_task, support)) = self.task_support(name)
            {
                match (support, self.declares_tasks_extension()) {
                    (TaskSupport::Forbidden, _) => {}
                    (TaskSupport::Required, false) => {
                        return Err(crate::task::missing_extension(&format!("tool `{name}`")));
                    }
                    (_, false) => {}
                    (_, true) => as_task = Some(input_before_task),
                }
            }
        }
        // The state is bound to the arguments' digest (taken from the params in place). A
        // first call of a tool that cannot ask anything never needs it.
        let arguments_digest = || digest_json(map.get("arguments").unwrap_or(&Value::Null));
        let (target, name, binding_digest) = match method {
            methods::TOOLS_CALL => {
                let name = str_param(map, "name")?;
                let needed = state.is_some() || self.server.tool_asks_client(&name);
                let digest = needed.then(arguments_digest);
                (format!("tool `{name}`"), name, digest)
            }
            methods::PROMPTS_GET => {
                let name = str_param(map, "name")?;
                (format!("prompt `{name}`"), name, Some(arguments_digest()))
            }
            _ => {
                let uri = str_param(map, "uri")?;
                let digest = Some(digest_json(&Value::Null));
                (format!("resource `{uri}`"), uri, digest)
            }
        };
        let keys = self.server.state_keys();
        // Bound to the caller too: a state minted for one principal is refused for another.
        let owner = caller.owner();
        let binding = Binding {
            method,
            name: &name,
            params_digest: binding_digest.unwrap_or_default(),
            principal: owner.as_deref(),
        };
        // Taken once for a request that opens a state and seals the next one.
        let mut bound = None;
        // The state's tag names the round (with the answers) for its claim.
        let (mut carried, tag) = match &state {
            None => (Carried::default(), None),
            Some(token) => {
                let b = *bound.insert(binding.bound());
                let opened = keys.open_bound(&b, token, SystemTime::now()).map_err(|e| {
                    ErrorObject::invalid_params(format!("requestState refused: {e}"))
                })?;
                let carried = serde_json::from_slice::<Carried>(&opened.payload).map_err(|_| {
                    ErrorObject::invalid_params(
                        "requestState refused: its contents are not a call state",
                    )
                })?;
                (carried, Some(opened.tag))
            }
        };
        let ttl = self.server.inner.options.request_state_ttl;
        // A later round is claimed before it runs: a re-sent one gets its first outcome.
        let held = match tag {
            None => None,
            Some(tag) => {
                let store = &self.server.inner.rounds_store;
                match idempotent::admit(store, tag, &carried.pending, responses.as_ref(), ttl)
                    .await?
                {
                    Admission::Serve(held) => Some(held),
                    Admission::Replay(outcome) => return outcome,
                }
            }
        };
        carried.absorb(responses.as_ref(), state.is_none());
        let rounds = Arc::new(Rounds::new(target, carried));
        // A call that may become a task gets a token of its own: the task's, cancelled by
        // `tasks/cancel` rather than by the request that started it.
        let cancel = if as_task.is_some() {
            CancellationToken::new()
        } else {
            cancel
        };
        // What a replay of the task needs to rebuild the call in another process.
        let call = as_task.map(|_| {
            let init = self.init.get();
            json!({
                "name": name,
                "arguments": params.get("arguments").cloned().unwrap_or(Value::Null),
                "capabilities": init.map(|i| serde_json::to_value(&*i.capabilities).unwrap_or(Value::Null)),
                "clientInfo": init.map(|i| serde_json::to_value(&*i.client_info).unwrap_or(Value::Null)),
            })
        });
        let ctx = Ctx::for_rounds(
            self.clone(),
            id,
            progress_token,
            cancel.clone(),
            rounds.clone(),
            caller,
        );
        let this = self.clone();
        let method_name = method.to_owned();
        // Made where it is polled (pinned in place, or boxed for a task), never moved: a
        // moved handler would take its room in this future twice.
        let handler = move || async move {
            match method_name.as_str() {
                methods::TOOLS_CALL => this.call_tool(ctx, Some(params)).await,
                methods::PROMPTS_GET => this.get_prompt(ctx, Some(params)).await.map(Answer::Tree),
                _ => this
                    .read_resource(ctx, Some(params))
                    .await
                    .map(Answer::Tree),
            }
        };
        let tasks = &self.server.inner.tasks;
        // The handler is polled here, and after each poll that leaves it waiting the rounds
        // say whether it is stuck on questions (or failed), or asks to become a task:
        // questions are only asked while it is polled, so no extra wake-up or task is
        // needed to notice. Only a call that may become a task is boxed (a task takes its
        // handler along); any other stays on this future's stack.
        let ended = match as_task {
            None => one_round(std::pin::pin!(handler()), &rounds, false).await,
            Some(before_task) => {
                let mut handler: futures::future::BoxFuture<'static, _> = Box::pin(handler());
                let ended = match before_task {
                    // The call is a task before the tool runs.
                    false => None,
                    true => one_round(handler.as_mut(), &rounds, true).await,
                };
                if ended.is_none() {
                    let outcome = start_task(tasks, rounds, cancel, handler, call, owner).await;
                    return settled(held, outcome, true).await;
                }
                ended
            }
        };
        // A round that finished, or ran a side effect, must not run again.
        let commit = matches!(ended, Some(Ok(_))) || rounds.ran_effects();
        let outcome = match ended {
            // Only a call that may become a task ends a round asking for it (handled above).
            None => Err(ErrorObject::internal("the call asked to become a task")),
            Some(Ok(outcome)) => outcome,
            Some(Err(Stuck::Failed(error))) => Err(error),
            Some(Err(Stuck::Input(_))) if binding_digest.is_none() => Err(ErrorObject::internal(
                format!("{} asked the client, but says it cannot", rounds.target()),
            )),
            Some(Err(Stuck::Input(questions))) => {
                let carried = rounds.carry(&questions);
                let bound = bound.unwrap_or_else(|| binding.bound());
                let info = &self.server.inner.info_text;
                input_required(&keys, &bound, &questions, &carried, ttl, info).map(Answer::Shaped)
            }
        };
        settled(held, outcome, commit).await
    }
}

/// `outcome`, after the round's claim (if it has one) is settled with it.
async fn settled(
    held: Option<idempotent::Held>,
    outcome: Result<Answer, ErrorObject>,
    commit: bool,
) -> Result<Answer, ErrorObject> {
    if let Some(held) = held {
        held.settle(&outcome, commit).await;
    }
    outcome
}

/// Continues a call as a task of the tasks extension (its result kept as a tree).
async fn start_task(
    tasks: &Arc<crate::task::TaskEngine>,
    rounds: Arc<Rounds>,
    cancel: CancellationToken,
    handler: futures::future::BoxFuture<'static, Result<Answer, ErrorObject>>,
    call: Option<Value>,
    owner: Option<String>,
) -> Result<Answer, ErrorObject> {
    use futures::FutureExt as _;
    let work = Box::pin(handler.map(|outcome| outcome.map(Answer::into_value)));
    // Boxed: the start of a task is a few store round trips whose state would otherwise
    // sit in every call's future.
    Box::pin(tasks.start_extension(rounds, cancel, work, call, owner))
        .await
        .map(Answer::Tree)
}

/// Polls `handler` until it finishes (`Some(Ok)`), is stuck on questions or failed
/// (`Some(Err)`), or, if `may_become_task`, asks to continue as a task (`None`).
async fn one_round<F>(
    mut handler: std::pin::Pin<&mut F>,
    rounds: &Rounds,
    may_become_task: bool,
) -> Option<Result<Result<Answer, ErrorObject>, Stuck>>
where
    F: std::future::Future<Output = Result<Answer, ErrorObject>> + ?Sized,
{
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(outcome) = handler.as_mut().poll(cx) {
            return std::task::Poll::Ready(Some(Ok(outcome)));
        }
        if let Some(stuck) = rounds.stuck() {
            return std::task::Poll::Ready(Some(Err(stuck)));
        }
        if may_become_task && rounds.task_requested() {
            return std::task::Poll::Ready(None);
        }
        std::task::Poll::Pending
    })
    .await
}

/// The `input_required` result of a round that ended on `questions`, written whole: the
/// questions go in as the text they were asked as, beside the server's info.
fn input_required(
    keys: &StateKeys,
    bound: &Bound,
    questions: &[Question],
    carried: &Carried,
    ttl: Duration,
    server_info: &serde_json::value::RawValue,
) -> Result<Box<serde_json::value::RawValue>, ErrorObject> {
    use serde::ser::{SerializeMap, Serializer};
    /// `inputRequests`: the questions by key.
    struct Requests<'a>(&'a [Question]);
    impl serde::Serialize for Requests<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(self.0.len()))?;
            for q in self.0 {
                map.serialize_entry(&q.key, &q.request)?;
            }
            map.end()
        }
    }
    #[derive(serde::Serialize)]
    struct Meta<'a> {
        #[serde(rename = "io.modelcontextprotocol/serverInfo")]
        server_info: &'a serde_json::value::RawValue,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct InputRequired<'a> {
        result_type: &'static str,
        input_requests: Requests<'a>,
        request_state: &'a str,
        #[serde(rename = "_meta")]
        meta: Meta<'a>,
    }
    let payload = carried
        .to_json()
        .map_err(|e| ErrorObject::internal(format!("could not serialise the call state: {e}")))?;
    let token = keys
        .seal_bound(bound, ttl, SystemTime::now(), &payload)
        .map_err(|e| ErrorObject::internal(format!("could not seal the call state: {e}")))?;
    serde_json::value::to_raw_value(&InputRequired {
        result_type: "input_required",
        input_requests: Requests(questions),
        request_state: &token,
        meta: Meta { server_info },
    })
    .map_err(|e| ErrorObject::internal(format!("could not write the round's result: {e}")))
}

impl super::ServerHandle {
    /// Whether `request`, from a client declaring `capabilities`, is a plain tool call:
    /// `tools/call` of a tool that cannot ask the client anything (no `Ctx` parameter), in
    /// a first round (no `inputResponses` or `requestState`), that does not become a task
    /// of the tasks extension here. Such a call needs none of what rounds, tasks or a
    /// handler on a task of its own bring, sends the client nothing but its result, and is
    /// served by [`ServerSession::call_plain_tool`].
    #[cfg(feature = "http")]
    pub(crate) fn is_plain_tool_call(
        &self,
        request: &JsonRpcRequest,
        capabilities: &ClientCapabilities,
    ) -> bool {
        if request.method != methods::TOOLS_CALL {
            return false;
        }
        let Some(params) = request.params.as_ref().and_then(Value::as_object) else {
            return false;
        };
        let Some(Value::String(name)) = params.get("name") else {
            return false;
        };
        if params.contains_key("inputResponses") || params.contains_key("requestState") {
            return false;
        }
        match self.plain_tool(name) {
            Some(TaskSupport::Forbidden) => true,
            Some(TaskSupport::Optional) => !crate::task::extension_declared(capabilities),
            Some(TaskSupport::Required) | None => false,
        }
    }
}

fn str_param(map: &JsonObject, field: &str) -> Result<String, ErrorObject> {
    match map.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(ErrorObject::invalid_params(format!(
            "`{field}` must be a string"
        ))),
    }
}

/// A 2025-style "URL elicitation required" error (`-32042`, which 2026-07-28 servers must
/// not send) becomes what the modern revision does instead: an `input_required` result
/// asking the client to open the URLs, after which it retries the call.
fn url_elicitations_as_input(error: ErrorObject) -> Result<Value, ErrorObject> {
    if error.code != URL_ELICITATION_REQUIRED {
        return Err(error);
    }
    let Some(data) = error
        .data
        .clone()
        .and_then(|d| serde_json::from_value::<UrlElicitationRequiredData>(d).ok())
    else {
        return Err(error);
    };
    let requests: JsonObject = data
        .elicitations
        .into_iter()
        .enumerate()
        .map(|(n, e)| {
            let params = json!({ "mode": "url", "message": e.message, "url": e.url });
            let request = json!({ "method": methods::ELICITATION_CREATE, "params": params });
            (format!("url-{n}"), request)
        })
        .collect();
    if requests.is_empty() {
        return Err(error);
    }
    Ok(json!({ "resultType": "input_required", "inputRequests": requests }))
}

/// The modern revision's error codes: resource-not-found is `-32602` (with the URI).
fn modern_error(mut error: ErrorObject) -> ErrorObject {
    if error.code == RESOURCE_NOT_FOUND {
        error.code = INVALID_PARAMS;
    }
    error
}
