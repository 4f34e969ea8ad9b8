//! One connection's server side: the lifecycle (initialize, version negotiation), the
//! per-session state (client capabilities, log level, subscriptions) and a 2025-11-25
//! request's way to the method table (`table.rs`).

use super::ServerHandle;
use super::answer::Answering;
use super::dispatch::{self, Call, Serving};
use super::request_scope::RequestScope;
use super::serve::Started;
use super::traced::{Traced, request_span, traced};
use crate::caller::Caller;
use crate::context::{ClientInit, SessionScope};
use crate::json::member;
use crate::peer::sync::{lock, read};
use crate::peer::{OutboundSender, Peer};
use crate::protocol::*;
use base64::Engine as _;
use futures::future::Either;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

/// What a request comes to: an answer at once, or the work that answers it and the token
/// that cancels it.
pub(super) enum Work {
    AtOnce(Result<Value, ErrorObject>),
    Later(CancellationToken, Traced<Answering>),
}

/// The server side of one connection.
pub struct ServerSession {
    pub(super) server: ServerHandle,
    pub(super) peer: Arc<Peer>,
    pub(super) init: OnceLock<ClientInit>,
    pub(super) initialized: AtomicBool,
    /// Minimum level for `notifications/message`, as an index into [`LEVELS`]; 0 = debug.
    pub(super) log_level: AtomicU8,
    subscriptions: Mutex<HashSet<String>>,
    /// Made for one request (a 2025 POST to a stateless endpoint): no `initialize` came
    /// before it, and it carries no server→client request.
    one_request: bool,
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
        Self::build(server, Arc::new(Peer::new(tx)), false)
    }

    pub(super) fn build(server: ServerHandle, peer: Arc<Peer>, one_request: bool) -> Arc<Self> {
        let session = Arc::new(ServerSession {
            server: server.clone(),
            peer,
            init: OnceLock::new(),
            initialized: AtomicBool::new(false),
            log_level: AtomicU8::new(0),
            subscriptions: Mutex::new(HashSet::new()),
            one_request,
            anonymous_owner: OnceLock::new(),
            #[cfg(feature = "otel")]
            attached: OnceLock::new(),
        });
        server.register_session(&session);
        session
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

    /// Whether it carries server→client requests (one made for one request does not).
    pub(super) fn can_request(&self) -> bool {
        !self.one_request
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

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Ends the session: every in-flight handler is cancelled.
    pub fn close(&self) {
        self.peer.close();
    }

    /// Handles one decoded message from the client, made by `caller` (a request's handler
    /// sees it in its `Ctx`): a request answered at once comes back as the answer being
    /// queued; one that runs a handler as its [`Served`] work, for the host to spawn or poll.
    pub(super) fn handle_from(
        self: &Arc<Self>,
        message: JsonRpcMessage,
        caller: Caller,
    ) -> Started<'_> {
        match message {
            JsonRpcMessage::Request(req) => return self.handle_request(req, caller),
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
        Either::Right(None)
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
    /// sending the answer), and starts every other request as its [`Served`] work.
    /// Synchronous, so the future awaiting it stays small (no handler state inside it).
    fn handle_request(self: &Arc<Self>, req: JsonRpcRequest, caller: Caller) -> Started<'_> {
        let JsonRpcRequest { id, method, params } = req;
        match self.work_of(&id, method, params, caller) {
            Work::AtOnce(result) => {
                let message = match result {
                    Ok(v) => JsonRpcMessage::response(id.clone(), v),
                    Err(e) => JsonRpcMessage::error(Some(id.clone()), e),
                };
                Either::Left(self.peer.send(message, Some(id)))
            }
            Work::Later(cancel, work) => Either::Right(self.peer.serve(id, cancel, work)),
        }
    }

    /// What a 2025 request comes to: `initialize`, `ping` and refusals answered at once
    /// (when there are no layers), anything else the work that answers it, through the
    /// layers to the method table, with the token that cancels it.
    pub(super) fn work_of(
        self: &Arc<Self>,
        id: &RequestId,
        method: String,
        params: Option<Value>,
        caller: Caller,
    ) -> Work {
        let mut params = params;
        if self.server.inner.service.is_none()
            && let Some(result) = self.answer_at_once(&method, &mut params)
        {
            return Work::AtOnce(result);
        }
        let cancel = CancellationToken::new();
        let span = request_span(&method, id, params.as_ref(), "2025");
        let call = Call {
            id: id.clone(),
            progress_token: progress_token_of(params.as_ref()),
            method,
            params,
            caller,
            cancel: cancel.clone(),
        };
        let answer = dispatch::answer(RequestScope::Session(self.clone()), call, Serving::Session);
        Work::Later(cancel, traced(span, answer))
    }

    /// The answer of `initialize`, `ping`, or a refusal before `initialize`: none of them
    /// waits for anything.
    pub(super) fn answer_at_once(
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
        if self.init.set(init).is_err() && !self.one_request {
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
            extra: self.server.extensions(),
            tasks: Some(TasksCapability {
                list: self.server.inner.tasks.options().list.then(JsonObject::new),
                cancel: Some(JsonObject::new()),
                requests: serde_json::from_value(json!({ "tools": { "call": {} } })).ok(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// `resources/subscribe` / `unsubscribe`. Any URI is accepted (a resource may appear
    /// later); one the caller may not see is answered the same but not recorded, so its
    /// updates never reach this session.
    pub(super) fn subscribe(
        &self,
        scope: &RequestScope,
        caller: &Caller,
        params: Option<Value>,
        on: bool,
    ) -> Result<Value, ErrorObject> {
        let p: SubscribeRequestParams = decode(params)?;
        if on && scope.hides_uri(&p.uri, caller) {
            return Ok(json!({}));
        }
        let mut subs = lock(&self.subscriptions);
        if on {
            subs.insert(p.uri);
        } else {
            subs.remove(&p.uri);
        }
        Ok(json!({}))
    }

    pub(super) fn set_level(&self, params: Option<Value>) -> Result<Value, ErrorObject> {
        let p: SetLevelRequestParams = decode(params)?;
        self.log_level
            .store(level_index(p.level), Ordering::Relaxed);
        Ok(json!({}))
    }
}

impl ServerHandle {
    /// `capabilities.extensions` of an initialize result: the extensions served besides the
    /// core (the tasks extension is modern-only and added there).
    pub(super) fn extensions(&self) -> JsonObject {
        #[cfg_attr(not(feature = "skills"), allow(unused_mut))]
        let mut extensions = JsonObject::new();
        #[cfg(feature = "skills")]
        if self.inner.skills.is_some() {
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
        if let Some(skills) = &self.inner.skills {
            let page = self.inner.options.page_size;
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
}

impl RequestScope {
    pub(super) fn list_prompts(
        &self,
        caller: &Caller,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let (prompts, next_cursor) =
            self.page_of(caller, &read(&self.server().inner.prompts), params)?;
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
            self.page_of(caller, &read(&self.server().inner.resources), params)?;
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
            self.page_of(caller, &read(&self.server().inner.templates), params)?;
        encode(ListResourceTemplatesResult {
            resource_templates,
            next_cursor,
            ..Default::default()
        })
    }
}

impl SessionScope for ServerSession {
    fn client(&self) -> Option<&ClientInit> {
        self.init.get()
    }

    fn log_enabled(&self, level: LoggingLevel) -> bool {
        level_index(level) >= self.log_level.load(Ordering::Relaxed)
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

/// The progress token a request's `_meta` carries, if any.
pub(super) fn progress_token_of(params: Option<&Value>) -> Option<ProgressToken> {
    params
        .and_then(|p| member(p, "_meta"))
        .and_then(|m| member(m, "progressToken"))
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
