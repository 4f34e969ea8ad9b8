//! MCP 2026-07-28 on the same registries: stateless requests that carry their protocol
//! version and client capabilities in `_meta`, `server/discover`, `resultType` and
//! `serverInfo` on every result, cache hints, and multi round-trip requests (MRTR) whose
//! answers travel in a sealed `requestState`.
//!
//! A modern request is served in a [`ModernScope`] of its own, made from the request's
//! `_meta` and dropped with it; the method table (`table.rs`) is the one 2025 sessions use,
//! over [`RequestScope`]. What
//! differs is here: what results carry, and how questions to the client become rounds
//! (see `context::rounds`).

mod listen;
mod meta;
mod rounds;

pub(crate) use listen::Listener;
pub(super) use listen::listen_ended;
pub use meta::MODERN_PROTOCOL_VERSIONS;
#[cfg(feature = "http")]
pub(crate) use meta::requested_version;
pub(crate) use meta::{ClientDescription, RequestMeta, admit, is_modern, keys};
use rounds::url_elicitations_as_input;

use super::ServerSession;
use super::answer::{Answer, Answering};
use super::dispatch::{Call, Serving};
use super::request_scope::{ModernScope, RequestScope};
use super::serve::Started;
use super::session::{level_index, progress_token_of};
use crate::context::ClientInit;
use crate::peer::Served;
use crate::protocol::*;
use futures::FutureExt as _;
use futures::future::Either;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

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

impl ModernScope {
    /// The scope of a modern request whose `_meta` said `meta`, its messages sent by
    /// `peer`: the line's (stdio, in memory), the HTTP response's, or a detached one for a
    /// request that sends none.
    pub(crate) fn new(
        server: super::ServerHandle,
        peer: Arc<crate::peer::Peer>,
        meta: RequestMeta,
    ) -> Arc<Self> {
        Arc::new(Self::of(server, peer, meta))
    }

    /// [`ModernScope::new`], unshared.
    pub(crate) fn of(
        server: super::ServerHandle,
        peer: Arc<crate::peer::Peer>,
        meta: RequestMeta,
    ) -> Self {
        let client_info = meta.client_info.unwrap_or_else(|| {
            static UNKNOWN: std::sync::LazyLock<Arc<Implementation>> =
                std::sync::LazyLock::new(|| Arc::new(Implementation::new("unknown-client", "0")));
            UNKNOWN.clone()
        });
        let schema_profile = (server.inner.options).profile_for(&client_info, &meta.capabilities);
        ModernScope {
            server,
            peer,
            client: ClientInit {
                protocol_version: meta.version,
                capabilities: meta.capabilities,
                client_info,
                schema_profile,
            },
            // Logs only when the request asks for them (`_meta` log level).
            log_level: meta.log_level.map_or(u8::MAX, level_index),
            unfiltered: false,
        }
    }
}

impl ServerSession {
    /// Handles one message of a line of modern requests (stdio or in memory), `self` being
    /// the line's session: a request is served in a [`ModernScope`] of its own that sends
    /// through the line's engine (so `notifications/cancelled` and the end of the
    /// input reach it as they reach a 2025 request), and comes back as its [`Served`]
    /// work for the host to spawn. No other message means anything on such a line.
    pub(super) fn handle_modern_from(
        self: &Arc<Self>,
        message: JsonRpcMessage,
        caller: crate::caller::Caller,
    ) -> Started<'_> {
        match message {
            JsonRpcMessage::Request(request) => {
                let JsonRpcRequest { id, method, params } = request;
                let client = ClientMeta::default();
                match admit(&self.server, &method, params.as_ref(), client) {
                    Ok(meta) => {
                        let one = ModernScope::new(self.server.clone(), self.peer.clone(), meta);
                        Either::Right(one.handle_modern(id, method, params, caller))
                    }
                    Err(error) => {
                        let reply = JsonRpcMessage::error(Some(id), error);
                        Either::Left(self.peer.send(reply, None))
                    }
                }
            }
            JsonRpcMessage::Notification(n) if n.method == methods::CANCELLED => {
                self.peer.on_cancelled(n.params);
                Either::Right(None)
            }
            // The server sends no requests on a modern line: a response answers nothing.
            _ => Either::Right(None),
        }
    }
}

impl ModernScope {
    /// Starts one modern request of a line, for the host to spawn; its result (or error) is
    /// shaped for the modern revision.
    fn handle_modern(
        self: &Arc<Self>,
        id: RequestId,
        method: String,
        params: Option<Value>,
        caller: crate::caller::Caller,
    ) -> Option<Served> {
        let cancel = CancellationToken::new();
        let fut = self.modern_request(id.clone(), method, params, caller, cancel.clone());
        self.peer.serve(id, cancel, fut)
    }

    /// One modern request, served by whoever polls the returned future: the line host
    /// spawns it ([`ModernScope::handle_modern`]), the HTTP host polls it on the POST's
    /// own future. `cancel` is the token a handler sees cancelled when the request is.
    pub(super) fn modern_request(
        self: &Arc<Self>,
        id: RequestId,
        method: String,
        params: Option<Value>,
        caller: crate::caller::Caller,
        cancel: CancellationToken,
    ) -> impl std::future::Future<Output = Result<ResultPayload, ErrorObject>> + Send + 'static
    {
        let span = super::traced::request_span(&method, &id, params.as_ref(), "2026");
        let call = Call {
            id,
            progress_token: progress_token_of(params.as_ref()),
            method,
            params,
            caller,
            cancel,
        };
        let answer = self.dispatch(call, Serving::Stateless);
        let this = self.clone();
        super::traced::traced(span, answer.map(move |outcome| this.modern_result(outcome)))
    }

    /// `call` answered by `table`: directly, or through the server's layers.
    fn dispatch(self: &Arc<Self>, call: Call, table: Serving) -> Answering {
        super::dispatch::answer(RequestScope::Modern(self.clone()), call, table)
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
            Answer::InputRequired(text) => ResultPayload::from(text),
        })
    }

    /// Serves a plain tool call (see [`ServerHandle::is_plain_tool_call`]) on the caller's
    /// own future, the way [`ModernScope::handle_modern`] would answer it: the tool's
    /// result or error, shaped as every modern result is. Dropping the future (the client
    /// closed the stream) cancels the call: the handler is dropped and its cancellation
    /// token fires.
    pub(super) async fn call_plain_tool(
        self: &Arc<Self>,
        request: JsonRpcRequest,
        caller: crate::caller::Caller,
    ) -> Result<ResultPayload, ErrorObject> {
        let JsonRpcRequest { id, method, params } = request;
        let span = super::traced::request_span(&method, &id, params.as_ref(), "2026");
        let cancel = CancellationToken::new();
        let call = Call {
            id,
            progress_token: progress_token_of(params.as_ref()),
            method,
            params,
            caller,
            cancel: cancel.clone(),
        };
        let answer = super::traced::traced(span, self.dispatch(call, Serving::PlainTool));
        super::serve::unless_dropped(cancel, answer.map(|outcome| self.modern_result(outcome)))
            .await
    }
}

impl ModernScope {
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
}

impl RequestScope {
    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension: `-32021` for a
    /// client that did not declare it.
    pub(super) async fn task_method(
        &self,
        method: &str,
        params: Option<Value>,
        owner: Option<String>,
    ) -> Result<Value, ErrorObject> {
        if !self.declares_tasks_extension() {
            return Err(crate::task::missing_extension(method));
        }
        let tasks = &self.server().inner.tasks;
        let owner = owner.as_deref();
        match method {
            crate::task::TASKS_GET => tasks.extension_get(params, owner).await,
            crate::task::TASKS_UPDATE => tasks.extension_update(params, owner).await,
            _ => tasks.extension_cancel(params, owner).await,
        }
    }

    /// Whether this request's client declared the tasks extension.
    fn declares_tasks_extension(&self) -> bool {
        self.client()
            .is_some_and(|init| crate::task::extension_declared(&init.capabilities))
    }

    /// `server/discover`.
    pub(super) fn discover(&self) -> Value {
        let mut result = json!({
            "supportedVersions": MODERN_PROTOCOL_VERSIONS,
            "capabilities": self.modern_capabilities(),
        });
        if let (Some(map), Some(instructions)) =
            (result.as_object_mut(), &self.server().inner.instructions)
        {
            map.insert("instructions".into(), instructions.clone().into());
        }
        self.cacheable(result)
    }

    /// What a modern request may use: no `logging` capability (the level travels in
    /// `_meta`), no subscribe (that is `subscriptions/listen`), no core tasks — tasks are
    /// the `io.modelcontextprotocol/tasks` extension.
    fn modern_capabilities(&self) -> ServerCapabilities {
        let mut extra = self.server().extensions();
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
    ///
    /// With visibility rules (or `hide_unauthorized`) what a result holds depends on the
    /// caller, so it is never `public`: a shared cache must not hand one caller's list (or
    /// a resource hidden from others) to another.
    pub(super) fn cacheable(&self, mut value: Value) -> Value {
        if let Value::Object(map) = &mut value {
            let mut hint = self.server().inner.options.cache;
            hint.public &= !self.filters();
            hint.apply(map);
        }
        value
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

/// The modern revision's error codes: resource-not-found is `-32602` (with the URI).
fn modern_error(mut error: ErrorObject) -> ErrorObject {
    if error.code == RESOURCE_NOT_FOUND {
        error.code = INVALID_PARAMS;
    }
    error
}
