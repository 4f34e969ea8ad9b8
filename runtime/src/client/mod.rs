//! An MCP client on the same engine as the server: it answers the server's sampling,
//! elicitation and roots requests through handlers you provide, and exposes typed calls.
//!
//! Tasks have one API in both eras ([`Client::call_tool_task`], [`TaskHandle`]): 2025-11-25
//! tasks and the 2026-07-28 tasks extension ([`ClientBuilder::tasks_extension`]).
//!
//! Used by tests (pair it with a server in memory with [`connect_in_memory`](crate::host::connect_in_memory)) and by
//! anyone who wants to drive an MCP server from Rust.
//!
//! ```
//! use tracksuit::{Server, ToolFn, client::Client, protocol::*};
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let server = Server::new(Implementation::new("demo", "1.0.0")).tool(ToolFn::new(
//!     Tool::new("hello", Default::default()),
//!     |_ctx, _args| async { Ok(CallToolResult::text("hi")) },
//! ));
//! let client = tracksuit::host::connect_in_memory(server.build().unwrap(), Client::builder())
//!     .await
//!     .unwrap();
//! let result = client.call_tool("hello", serde_json::json!({})).await.unwrap();
//! assert_eq!(result.content.len(), 1);
//! # }
//! ```

mod child;
mod headers;
#[cfg(feature = "http")]
mod http;
mod modern;
#[cfg(feature = "skills")]
mod skills;
#[cfg(feature = "oauth")]
pub mod oauth;
#[cfg(feature = "http")]
mod sse;
mod subscription;
mod task;

pub use child::{ChildStream, ChildTransport};
#[cfg(feature = "http")]
pub use http::{HttpSink, HttpStream, HttpTransport, InvalidUrl};
pub use modern::{
    DiscoverResult, Era, MODERN_PROTOCOL_VERSION, SERVER_DISCOVER, SUBSCRIPTIONS_LISTEN,
};
#[cfg(feature = "skills")]
pub use skills::{SkillClientError, SkillHandle, SkillsClient};
pub use subscription::{SUBSCRIPTIONS_ACKNOWLEDGED, Subscription, SubscriptionFilter};
pub use task::{
    TASKS_EXTENSION, TASKS_NOTIFICATION, TASKS_UPDATE, TaskCall, TaskHandle, TaskState, TaskUpdates,
};

use crate::peer::outbound_queue;
use crate::peer::{Peer, RequestError};
use crate::protocol::*;
use crate::transport::{MessageStream, SinkOutlet, Transport, drive};
use futures::future::BoxFuture;
use modern::Stamp;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

type Handler<P, R> = Arc<dyn Fn(P) -> BoxFuture<'static, Result<R, ErrorObject>> + Send + Sync>;

/// Configures a [`Client`] before it connects.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::{client::Client, protocol::{Implementation, Root}};
/// let builder = Client::builder()
///     .info(Implementation::new("my-agent", "0.1.0"))
///     .timeout(Duration::from_secs(30))
///     .roots(vec![Root::new("file:///work")]);
/// # let _ = builder;
/// ```
#[derive(Clone)]
pub struct ClientBuilder {
    info: Implementation,
    capabilities: ClientCapabilities,
    protocol_version: String,
    timeout: Duration,
    sampling: Option<Handler<CreateMessageRequestParams, CreateMessageResult>>,
    elicitation: Option<Handler<ElicitRequestParams, ElicitResult>>,
    roots: Option<Vec<Root>>,
    era: Era,
    max_input_rounds: usize,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            info: Implementation::new("tracksuit-client", env!("CARGO_PKG_VERSION")),
            capabilities: ClientCapabilities::default(),
            protocol_version: LATEST_PROTOCOL_VERSION.to_owned(),
            timeout: Duration::from_secs(60),
            sampling: None,
            elicitation: None,
            roots: None,
            era: Era::Session,
            max_input_rounds: DEFAULT_INPUT_ROUNDS,
        }
    }
}

/// How many `input_required` rounds one call may take by default (as in the TypeScript and
/// Python SDKs).
///
/// ```
/// assert_eq!(tracksuit::client::DEFAULT_INPUT_ROUNDS, 10);
/// ```
pub const DEFAULT_INPUT_ROUNDS: usize = 10;

impl ClientBuilder {
    /// The client's name and version.
    ///
    /// ```
    /// use tracksuit::{Ctx, Server, client::Client, mcp_tool, protocol::Implementation};
    /// /// Names the connected client.
    /// #[mcp_tool]
    /// async fn whoami(ctx: &Ctx) -> String {
    ///     ctx.client_info().map(|i| i.name).unwrap_or_default()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(whoami).build()?;
    /// let builder = Client::builder().info(Implementation::new("my-agent", "0.1.0"));
    /// let client = tracksuit::host::connect_in_memory(server, builder).await?;
    /// let result = client.call_tool("whoami", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("my-agent"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// The protocol version to request (default: the latest).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tracksuit::{Server, client::Client};
    /// let server = Server::new(tracksuit::crate_info!()).build()?;
    /// let builder = Client::builder().protocol_version("2025-06-18");
    /// let client = tracksuit::host::connect_in_memory(server, builder).await?;
    /// assert_eq!(client.server_init().unwrap().protocol_version, "2025-06-18");
    /// # Ok(())
    /// # }
    /// ```
    pub fn protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = version.into();
        self
    }

    /// Which protocol era to speak (default [`Era::Session`], 2025-11-25).
    ///
    /// ```
    /// use tracksuit::client::{Client, Era};
    /// let builder = Client::builder().era(Era::Stateless).max_input_rounds(20);
    /// # let _ = builder;
    /// ```
    pub fn era(mut self, era: Era) -> Self {
        self.era = era;
        self
    }

    /// The most `input_required` rounds one 2026-07-28 request may take before it fails
    /// (default [`DEFAULT_INPUT_ROUNDS`]).
    ///
    /// ```
    /// let builder = tracksuit::client::Client::builder().max_input_rounds(3);
    /// # let _ = builder;
    /// ```
    pub fn max_input_rounds(mut self, rounds: usize) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// How long each request may take (default 60 s).
    ///
    /// ```
    /// let builder = tracksuit::client::Client::builder().timeout(std::time::Duration::from_secs(5));
    /// # let _ = builder;
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Answers `sampling/createMessage`; declares the `sampling` capability with `tools`
    /// and `context`.
    ///
    /// ```
    /// use tracksuit::protocol::*;
    /// let builder = tracksuit::client::Client::builder().on_sampling(|params| async move {
    ///     // A real client asks its model; this one echoes the last message's text.
    ///     let last = params.messages.last().and_then(|m| m.content.iter().find_map(|b| b.as_text()));
    ///     Ok(CreateMessageResult {
    ///         role: Role::Assistant,
    ///         content: SamplingMessageContentBlock::text(last.unwrap_or_default()).into(),
    ///         model: "echo".into(),
    ///         stop_reason: Some(StopReason::EndTurn),
    ///         meta: None,
    ///         extra: Default::default(),
    ///     })
    /// });
    /// # let _ = builder;
    /// ```
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.sampling = Some(Arc::new(move |p| Box::pin(f(p))));
        self.capabilities.sampling = Some(SamplingCapability {
            tools: Some(JsonObject::new()),
            context: Some(JsonObject::new()),
        });
        self
    }

    /// Answers `elicitation/create`; declares `elicitation` with `form` and `url`.
    ///
    /// ```
    /// use tracksuit::protocol::{ElicitAction, ElicitResult};
    /// let builder = tracksuit::client::Client::builder().on_elicitation(|params| async move {
    ///     // Fill every form with its defaults and accept it.
    ///     let content = tracksuit::client::form_defaults(&params);
    ///     Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content), meta: None, extra: Default::default() })
    /// });
    /// # let _ = builder;
    /// ```
    pub fn on_elicitation<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
    {
        self.elicitation = Some(Arc::new(move |p| Box::pin(f(p))));
        self.capabilities.elicitation = Some(ElicitationCapability {
            form: Some(JsonObject::new()),
            url: Some(JsonObject::new()),
        });
        self
    }

    /// Answers `roots/list` with these roots; declares `roots`.
    ///
    /// ```
    /// use tracksuit::protocol::Root;
    /// let builder = tracksuit::client::Client::builder()
    ///     .roots(vec![Root { name: Some("project".into()), ..Root::new("file:///home/me/project") }]);
    /// # let _ = builder;
    /// ```
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self.capabilities.roots = Some(RootsCapability {
            list_changed: Some(true),
        });
        self
    }

    /// Declares the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`) in the
    /// capabilities every request carries: the server may then answer a `tools/call` with a
    /// task (see [`Client::call_tool_task`]; [`Client::call_tool`] follows it to its end).
    ///
    /// ```
    /// use tracksuit::client::{Client, Era, TASKS_EXTENSION};
    /// let builder = Client::builder().era(Era::Stateless).tasks_extension();
    /// # let _ = builder;
    /// ```
    pub fn tasks_extension(mut self) -> Self {
        let extensions = self
            .capabilities
            .extra
            .entry("extensions")
            .or_insert_with(|| Value::Object(JsonObject::new()));
        if !extensions.is_object() {
            *extensions = Value::Object(JsonObject::new());
        }
        if let Value::Object(map) = extensions {
            map.insert(TASKS_EXTENSION.into(), Value::Object(JsonObject::new()));
        }
        self
    }

    /// Replaces the declared capabilities (handlers still answer what they can).
    ///
    /// ```
    /// use tracksuit::protocol::ClientCapabilities;
    /// // Declare nothing, even though a handler is set.
    /// let builder = tracksuit::client::Client::builder().capabilities(ClientCapabilities::default());
    /// # let _ = builder;
    /// ```
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Connects over `transport` and opens the conversation: `initialize` in a 2025
    /// session, `server/discover` in 2026-07-28 (see [`ClientBuilder::era`]).
    ///
    /// ```
    /// use tracksuit::{Server, client::Client};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).build()?;
    /// let (server_end, client_end) = tracksuit::transport::memory::pair();
    /// tokio::spawn(server.serve(server_end));
    /// let client = Client::builder().connect(client_end).await?;
    /// assert!(client.server_init().is_some());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect<T: Transport>(self, transport: T) -> Result<Client, RequestError> {
        let (tx, rx) = outbound_queue(OUTBOUND_QUEUE);
        let peer = Arc::new(Peer::new(tx));
        let (notifications, _) = broadcast::channel(1024);
        let (mut stream, sink) = transport.split();
        tokio::spawn(drive(rx, peer.closed_flag(), SinkOutlet::new(sink)));
        let handlers = Arc::new(self.clone());
        let reader_peer = peer.clone();
        let reader_handlers = handlers.clone();
        let reader_notifications = notifications.clone();
        let shutdown = peer.shutdown_token().clone();
        tokio::spawn(async move {
            loop {
                let message = tokio::select! {
                    _ = shutdown.cancelled() => break,
                    m = stream.next() => m,
                };
                let Some(message) = message else { break };
                let Ok(message) = message else { continue };
                dispatch(
                    &reader_peer,
                    &reader_handlers,
                    &reader_notifications,
                    message,
                )
                .await;
            }
            reader_peer.close();
        });
        let mut client = Client {
            peer,
            notifications,
            timeout: self.timeout,
            init: None,
            discovered: None,
            stamp: None,
            handlers,
            max_rounds: self.max_input_rounds,
        };
        match self.era {
            Era::Session => client.initialize(self).await,
            Era::Stateless => {
                client.stamp = Some(Arc::new(Stamp::new(&self.capabilities, &self.info)));
                client.discovered = Some(client.discover().await?);
                Ok(client)
            }
            Era::Negotiate => {
                client.stamp = Some(Arc::new(Stamp::new(&self.capabilities, &self.info)));
                match client.discover().await {
                    Ok(d)
                        if d.supported_versions
                            .iter()
                            .any(|v| v == MODERN_PROTOCOL_VERSION) =>
                    {
                        client.discovered = Some(d);
                        Ok(client)
                    }
                    Err(RequestError::Timeout(t)) => Err(RequestError::Timeout(t)),
                    Err(RequestError::Closed) => Err(RequestError::Closed),
                    _ => {
                        client.stamp = None;
                        client.initialize(self).await
                    }
                }
            }
        }
    }
}

/// Messages the client may have queued for the server before senders wait.
const OUTBOUND_QUEUE: usize = 64;

async fn dispatch(
    peer: &Arc<Peer>,
    handlers: &Arc<ClientBuilder>,
    notifications: &broadcast::Sender<JsonRpcNotification>,
    message: JsonRpcMessage,
) {
    match message {
        JsonRpcMessage::Response(r) => {
            peer.resolve(&r.id, Ok(r.result));
        }
        JsonRpcMessage::Error(e) => {
            if let Some(id) = e.id {
                peer.resolve(&id, Err(e.error));
            }
        }
        JsonRpcMessage::Notification(n) => {
            if n.method == methods::CANCELLED {
                peer.on_cancelled(n.params.clone());
            }
            let _ = notifications.send(n);
        }
        JsonRpcMessage::Request(req) => {
            let handlers = handlers.clone();
            let cancel = tokio_util::sync::CancellationToken::new();
            peer.serve(req.id, cancel, async move {
                answer(&handlers, &req.method, req.params)
                    .await
                    .map(ResultPayload::from)
            });
        }
    }
}

/// Answers a server request (on a 2025 session, or inside an `input_required` result) with
/// the client's handlers.
async fn answer(
    handlers: &ClientBuilder,
    method: &str,
    params: Option<Value>,
) -> Result<Value, ErrorObject> {
    match method {
        methods::PING => Ok(json!({})),
        methods::SAMPLING_CREATE_MESSAGE => match &handlers.sampling {
            Some(h) => to_value(h(from_params(params)?).await?),
            None => Err(ErrorObject::method_not_found(method)),
        },
        methods::ELICITATION_CREATE => match &handlers.elicitation {
            Some(h) => to_value(h(from_params(params)?).await?),
            None => Err(ErrorObject::method_not_found(method)),
        },
        methods::ROOTS_LIST => match &handlers.roots {
            Some(roots) => to_value(ListRootsResult {
                roots: roots.clone(),
                ..Default::default()
            }),
            None => Err(ErrorObject::method_not_found(method)),
        },
        other => Err(ErrorObject::method_not_found(other)),
    }
}

/// The values a form's schema gives as `default`s (SEP-1034): what an elicitation handler
/// can submit when the user accepts without editing. Empty for URL elicitations.
///
/// ```
/// use tracksuit::protocol::ElicitRequestParams;
/// let params: ElicitRequestParams = serde_json::from_value(serde_json::json!({
///     "message": "ok?",
///     "requestedSchema": {"type": "object", "properties": {
///         "name": {"type": "string", "default": "Ann"}, "age": {"type": "integer"}}}
/// })).unwrap();
/// let defaults = tracksuit::client::form_defaults(&params);
/// assert_eq!(defaults["name"], "Ann");
/// assert!(!defaults.contains_key("age"));
/// ```
pub fn form_defaults(params: &ElicitRequestParams) -> JsonObject {
    let ElicitRequestParams::Form(form) = params else {
        return JsonObject::new();
    };
    let schema = serde_json::to_value(&form.requested_schema).unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, p)| Some((name.clone(), p.get("default")?.clone())))
        .collect()
}

fn from_params<T: DeserializeOwned>(params: Option<Value>) -> Result<T, ErrorObject> {
    serde_json::from_value(params.unwrap_or(Value::Null)).map_err(ErrorObject::invalid_params)
}

fn to_value<T: Serialize>(v: T) -> Result<Value, ErrorObject> {
    serde_json::to_value(v).map_err(ErrorObject::internal)
}

/// A connected MCP client. Dropping a call's future cancels the request
/// (`notifications/cancelled` is sent).
///
/// ```
/// use tracksuit::{Server, client::Client, mcp_tool};
/// /// Echoes its text.
/// #[mcp_tool]
/// async fn echo(text: String) -> String { text }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
///
/// let tools = client.list_tools(None).await?;
/// assert_eq!(tools.tools[0].name, "echo");
/// let result = client.call_tool("echo", serde_json::json!({"text": "hi"})).await?;
/// assert_eq!(result.content[0].as_text(), Some("hi"));
/// # Ok(())
/// # }
/// ```
pub struct Client {
    peer: Arc<Peer>,
    notifications: broadcast::Sender<JsonRpcNotification>,
    timeout: Duration,
    init: Option<InitializeResult>,
    discovered: Option<DiscoverResult>,
    /// Set in the 2026-07-28 era: the `_meta` every request carries.
    stamp: Option<Arc<Stamp>>,
    handlers: Arc<ClientBuilder>,
    max_rounds: usize,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.init.as_ref().map(|i| &i.server_info))
            .finish()
    }
}

impl Client {
    /// A builder with no handlers and no capabilities.
    ///
    /// ```
    /// let builder = tracksuit::client::Client::builder();
    /// # let _ = builder;
    /// ```
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    async fn initialize(mut self, builder: ClientBuilder) -> Result<Client, RequestError> {
        let params = InitializeRequestParams {
            protocol_version: builder.protocol_version,
            capabilities: builder.capabilities,
            client_info: builder.info,
            ..Default::default()
        };
        let result: InitializeResult = self.request(methods::INITIALIZE, params).await?;
        self.peer.notify(methods::INITIALIZED, None, None).await;
        self.init = Some(result);
        Ok(self)
    }

    /// What the server answered to `initialize`.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, protocol::Implementation};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(Implementation::new("notes", "2.0.0")).instructions("Search first.").build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let init = client.server_init().unwrap();
    /// assert_eq!(init.server_info.name, "notes");
    /// assert_eq!(init.instructions.as_deref(), Some("Search first."));
    /// # Ok(())
    /// # }
    /// ```
    pub fn server_init(&self) -> Option<&InitializeResult> {
        self.init.as_ref()
    }

    /// What the server answered to `server/discover` (2026-07-28).
    ///
    /// ```
    /// use tracksuit::{Server, client::Client};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// assert!(client.discovered().is_none()); // a 2025 session initializes instead
    /// # Ok(())
    /// # }
    /// ```
    pub fn discovered(&self) -> Option<&DiscoverResult> {
        self.discovered.as_ref()
    }

    /// The era this client ended up speaking.
    ///
    /// ```
    /// use tracksuit::{Server, client::{Client, Era}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// assert_eq!(client.era(), Era::Session);
    /// # Ok(())
    /// # }
    /// ```
    pub fn era(&self) -> Era {
        if self.stamp.is_some() {
            Era::Stateless
        } else {
            Era::Session
        }
    }

    /// `server/discover` (2026-07-28).
    pub async fn discover(&self) -> Result<DiscoverResult, RequestError> {
        self.request(SERVER_DISCOVER, json!({})).await
    }

    /// Subscribes to every notification the server sends (logs, progress, list changes...).
    ///
    /// ```
    /// use tracksuit::{Ctx, Server, client::Client, mcp_tool, protocol::LoggingLevel};
    /// /// Logs while it works.
    /// #[mcp_tool]
    /// async fn work(ctx: &Ctx) -> String {
    ///     ctx.log(LoggingLevel::Info, "halfway").await;
    ///     "done".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(work).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.set_level(LoggingLevel::Info).await?;
    /// client.call_tool("work", serde_json::json!({})).await?;
    /// assert_eq!(notes.recv().await?.method, "notifications/message");
    /// # Ok(())
    /// # }
    /// ```
    pub fn notifications(&self) -> broadcast::Receiver<JsonRpcNotification> {
        self.notifications.subscribe()
    }

    /// Sends any request and decodes its result.
    ///
    /// In the 2026-07-28 era the request carries the client's `_meta`; an
    /// `input_required` result is answered with the client's handlers and the request is
    /// retried (with a new id, `inputResponses` and the server's `requestState`), at most
    /// [`ClientBuilder::max_input_rounds`] times; an unsupported-version error (`-32022`)
    /// listing a version this client speaks is retried once with that version.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let tools: tracksuit::protocol::ListToolsResult = client.request("tools/list", serde_json::json!({})).await?;
    /// assert_eq!(tools.tools.len(), 1);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn request<P: Serialize, R: DeserializeOwned + 'static>(
        &self,
        method: &str,
        params: P,
    ) -> Result<R, RequestError> {
        let params =
            serde_json::to_value(params).map_err(|e| RequestError::Decode(e.to_string()))?;
        let result = self.request_payload(method, params).await?;
        result
            .into_decoded()
            .map_err(|e| RequestError::Decode(e.to_string()))
    }

    /// Sends a request and returns its result (on 2026-07-28, the final one, after
    /// answering every `input_required` round).
    async fn request_payload(
        &self,
        method: &str,
        params: Value,
    ) -> Result<ResultPayload, RequestError> {
        let Some(stamp) = &self.stamp else {
            return self
                .peer
                .request(method, Some(params), None, self.timeout)
                .await;
        };
        let mut current = params.clone();
        let mut rounds = 0;
        let mut renegotiated = false;
        loop {
            let sent = stamp.stamp(&current);
            let result = match self
                .peer
                .request(method, Some(sent), None, self.timeout)
                .await
            {
                Err(RequestError::Peer(e))
                    if e.code == UNSUPPORTED_PROTOCOL_VERSION && !renegotiated =>
                {
                    renegotiated = true;
                    if stamp.renegotiate(&e) {
                        continue;
                    }
                    return Err(RequestError::Peer(e));
                }
                other => other?,
            };
            if result.result_type().as_deref() != Some("input_required") {
                return Ok(result);
            }
            let result: Value = result
                .to_value()
                .map_err(|e| RequestError::Decode(e.to_string()))?;
            if rounds >= self.max_rounds {
                return Err(RequestError::InputRoundsExceeded {
                    method: method.to_owned(),
                    rounds,
                    last: Box::new(result),
                });
            }
            rounds += 1;
            let responses = self.answer_inputs(&result).await?;
            current = modern::retry_params(&params, &result, responses);
        }
    }

    /// Answers every entry of an `input_required` result's `inputRequests`.
    async fn answer_inputs(&self, result: &Value) -> Result<JsonObject, RequestError> {
        let requests = result.get("inputRequests").and_then(Value::as_object);
        let asked = requests
            .into_iter()
            .flatten()
            .map(|(key, request)| async move {
                let method = request.get("method").and_then(Value::as_str).unwrap_or("");
                let params = request.get("params").cloned();
                let answer = answer(&self.handlers, method, params).await?;
                Ok::<_, ErrorObject>((key.clone(), answer))
            });
        let answers = futures::future::join_all(asked).await;
        answers
            .into_iter()
            .collect::<Result<JsonObject, _>>()
            .map_err(RequestError::Peer)
    }

    /// Sends a notification.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// client.notify("notifications/roots/list_changed", serde_json::json!({})).await;
    /// client.ping().await?; // the server is still there
    /// # Ok(())
    /// # }
    /// ```
    pub async fn notify(&self, method: &str, params: impl Serialize) {
        self.peer
            .notify(method, serde_json::to_value(params).ok(), None)
            .await;
    }

    /// `ping`.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// client.ping().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn ping(&self) -> Result<(), RequestError> {
        let _: Value = self.request(methods::PING, json!({})).await?;
        Ok(())
    }

    /// `tools/list` (one page). In the 2026-07-28 era, tools whose `x-mcp-header`
    /// annotations are invalid (SEP-2243) are left out, with a warning in the log.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let page = client.list_tools(None).await?;
    /// assert_eq!(page.tools[0].name, "echo");
    /// assert!(page.next_cursor.is_none()); // one page
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_tools(
        &self,
        cursor: Option<String>,
    ) -> Result<ListToolsResult, RequestError> {
        let mut result: ListToolsResult = self
            .request(
                methods::TOOLS_LIST,
                PaginatedRequestParams {
                    cursor,
                    ..Default::default()
                },
            )
            .await?;
        if self.stamp.is_some() {
            result.tools.retain(|tool| {
                let schema = Value::Object(tool.input_schema.clone());
                match headers::header_params(&schema) {
                    Ok(_) => true,
                    Err(why) => {
                        tracing::warn!(tool = %tool.name, "tool definition rejected: {why}");
                        false
                    }
                }
            });
        }
        Ok(result)
    }

    /// `tools/call` with JSON arguments. If the server runs it as a task (tasks
    /// extension), the task is followed to its end (see [`TaskHandle::result`]).
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let result = client.call_tool("echo", serde_json::json!({"text": "hi"})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("hi"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, RequestError> {
        self.call_tool_value(json!({ "name": name, "arguments": arguments }))
            .await
    }

    /// `tools/call` asking for progress notifications with `token`.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// use tracksuit::protocol::ProgressToken;
    /// let result = client
    ///     .call_tool_with_progress("echo", serde_json::json!({"text": "hi"}), ProgressToken::Number(1))
    ///     .await?;
    /// assert_eq!(result.content[0].as_text(), Some("hi"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        token: ProgressToken,
    ) -> Result<CallToolResult, RequestError> {
        let params =
            json!({ "name": name, "arguments": arguments, "_meta": { "progressToken": token } });
        self.call_tool_value(params).await
    }

    /// 2025-11-25 `tools/call` as a task (`task: {ttl}`), the wire call: the server answers
    /// at once with the task; follow it with [`Client::get_task`] and
    /// [`Client::task_result`]. [`Client::call_tool_task`] does this in either era.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<u64>,
    ) -> Result<CreateTaskResult, RequestError> {
        let task = TaskMetadata { ttl };
        self.request(
            methods::TOOLS_CALL,
            json!({ "name": name, "arguments": arguments, "task": task }),
        )
        .await
    }

    /// `tasks/get`.
    pub async fn get_task(&self, task_id: &str) -> Result<GetTaskResult, RequestError> {
        self.request(methods::TASKS_GET, json!({ "taskId": task_id }))
            .await
    }

    /// `tasks/result` for a tool task: waits until the task finishes and returns what the
    /// `tools/call` would have (a JSON-RPC error comes back as [`RequestError::Peer`]).
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult, RequestError> {
        self.request(methods::TASKS_RESULT, json!({ "taskId": task_id }))
            .await
    }

    /// `tasks/list` (one page).
    pub async fn list_tasks(
        &self,
        cursor: Option<String>,
    ) -> Result<ListTasksResult, RequestError> {
        self.request(
            methods::TASKS_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<GetTaskResult, RequestError> {
        self.request(methods::TASKS_CANCEL, json!({ "taskId": task_id }))
            .await
    }

    /// `prompts/list` (one page).
    ///
    /// ```
    /// use tracksuit::{PromptFn, Server, client::Client, protocol::{GetPromptResult, Prompt, PromptMessage}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let greet = PromptFn::new(Prompt::new("greet"), |_ctx, args| async move {
    ///     let name = args.get("name").cloned().unwrap_or_default();
    ///     Ok(GetPromptResult::new(vec![PromptMessage::user_text(format!("Say hello to {name}"))]))
    /// });
    /// let server = Server::new(tracksuit::crate_info!()).prompt(greet).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let page = client.list_prompts(None).await?;
    /// assert_eq!(page.prompts[0].name, "greet");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_prompts(
        &self,
        cursor: Option<String>,
    ) -> Result<ListPromptsResult, RequestError> {
        self.request(
            methods::PROMPTS_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `prompts/get`.
    ///
    /// ```
    /// use tracksuit::{PromptFn, Server, client::Client, protocol::{GetPromptResult, Prompt, PromptMessage}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let greet = PromptFn::new(Prompt::new("greet"), |_ctx, args| async move {
    ///     let name = args.get("name").cloned().unwrap_or_default();
    ///     Ok(GetPromptResult::new(vec![PromptMessage::user_text(format!("Say hello to {name}"))]))
    /// });
    /// let server = Server::new(tracksuit::crate_info!()).prompt(greet).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let prompt = client.get_prompt("greet", serde_json::json!({"name": "Ada"})).await?;
    /// assert_eq!(serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"], "Say hello to Ada");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, RequestError> {
        self.request(
            methods::PROMPTS_GET,
            json!({ "name": name, "arguments": arguments }),
        )
        .await
    }

    /// `resources/list` (one page).
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let page = client.list_resources(None).await?;
    /// assert_eq!(page.resources[0].uri, "mem://motd");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, RequestError> {
        self.request(
            methods::RESOURCES_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `resources/templates/list` (one page).
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let page = client.list_resource_templates(None).await?;
    /// assert_eq!(page.resource_templates[0].uri_template, "mem://items/{id}");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, RequestError> {
        self.request(
            methods::RESOURCES_TEMPLATES_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `resources/read`.
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// let read = client.read_resource("mem://items/7").await?;
    /// assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "item 7");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, RequestError> {
        self.request(methods::RESOURCES_READ, json!({ "uri": uri }))
            .await
    }

    /// `resources/subscribe`.
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let handle = server.clone();
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.subscribe("mem://motd").await?;
    /// handle.notify_resource_updated("mem://motd");
    /// let note = notes.recv().await?;
    /// assert_eq!(note.method, "notifications/resources/updated");
    /// assert_eq!(note.params.unwrap()["uri"], "mem://motd");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn subscribe(&self, uri: &str) -> Result<(), RequestError> {
        let _: Value = self
            .request(methods::RESOURCES_SUBSCRIBE, json!({ "uri": uri }))
            .await?;
        Ok(())
    }

    /// `resources/unsubscribe` (2025-11-25).
    ///
    /// ```
    /// use tracksuit::{ResourceFn, ResourceTemplateFn, Server, client::Client};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let motd = ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://motd", "Welcome")]))
    /// });
    /// let items = ResourceTemplateFn::new(ResourceTemplate::new("mem://items/{id}", "item"), |_ctx, uri, vars| async move {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text(uri, format!("item {}", vars["id"]))]))
    /// })?;
    /// let server = Server::new(tracksuit::crate_info!()).resource(motd).resource_template(items).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// client.subscribe("mem://motd").await?;
    /// client.unsubscribe("mem://motd").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), RequestError> {
        let _: Value = self
            .request(methods::RESOURCES_UNSUBSCRIBE, json!({ "uri": uri }))
            .await?;
        Ok(())
    }

    /// Subscribes to list changes and resource updates, in either era.
    ///
    /// 2026-07-28: a `subscriptions/listen` request stays open (until the subscription is
    /// dropped) and this returns once the server acknowledged it. 2025-11-25: each resource
    /// is subscribed with `resources/subscribe`; list changes arrive on the session.
    pub async fn subscribe_to(
        &self,
        filter: SubscriptionFilter,
    ) -> Result<Subscription, RequestError> {
        let mut notifications = self.notifications.subscribe();
        let end = tokio_util::sync::CancellationToken::new();
        let Some(stamp) = &self.stamp else {
            for uri in filter.resources() {
                self.subscribe(uri).await?;
            }
            let (peer, uris, timeout) =
                (self.peer.clone(), filter.resources().to_vec(), self.timeout);
            let ended = end.clone();
            tokio::spawn(async move {
                ended.cancelled().await;
                for uri in uris {
                    let params = json!({ "uri": uri });
                    let _ = peer
                        .request(methods::RESOURCES_UNSUBSCRIBE, Some(params), None, timeout)
                        .await;
                }
            });
            return Ok(Subscription {
                filter,
                notifications,
                acknowledged: None,
                _end: Some(end.drop_guard()),
            });
        };
        let params = stamp.stamp(&json!({ "notifications": filter }));
        let (peer, ended) = (self.peer.clone(), end.clone());
        let (failed_tx, mut failed) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            // The listen request never completes on its own; dropping it cancels it.
            let listen = peer.request(SUBSCRIPTIONS_LISTEN, Some(params), None, Duration::MAX);
            tokio::select! {
                _ = ended.cancelled() => {}
                outcome = listen => { let _ = failed_tx.send(outcome); }
            }
        });
        let acknowledged = async {
            loop {
                match notifications.recv().await {
                    Ok(n) if n.method == SUBSCRIPTIONS_ACKNOWLEDGED => return Ok(n.params),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Err(RequestError::Closed),
                }
            }
        };
        let ack = tokio::select! {
            ack = tokio::time::timeout(self.timeout, acknowledged) => {
                ack.map_err(|_| RequestError::Timeout(self.timeout))??
            }
            outcome = &mut failed => {
                return Err(match outcome {
                    Ok(Err(e)) => e,
                    _ => RequestError::Closed,
                });
            }
        };
        Ok(Subscription {
            filter,
            notifications,
            acknowledged: ack,
            _end: Some(end.drop_guard()),
        })
    }

    /// `logging/setLevel`; in the 2026-07-28 era, the log level every later request names
    /// in its `_meta`.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// client.set_level(tracksuit::protocol::LoggingLevel::Warning).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_level(&self, level: LoggingLevel) -> Result<(), RequestError> {
        if let Some(stamp) = &self.stamp {
            *stamp.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(level);
            return Ok(());
        }
        let _: Value = self
            .request(methods::LOGGING_SET_LEVEL, json!({ "level": level }))
            .await?;
        Ok(())
    }

    /// `completion/complete`.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
    ) -> Result<Value, RequestError> {
        self.request(
            methods::COMPLETION_COMPLETE,
            json!({ "ref": reference, "argument": { "name": argument, "value": value } }),
        )
        .await
    }

    /// Whether the connection is closed.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_tool};
    /// /// Echoes its text.
    /// #[mcp_tool]
    /// async fn echo(text: String) -> String { text }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(echo).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    ///
    /// assert!(!client.is_closed());
    /// # Ok(())
    /// # }
    /// ```
    pub fn is_closed(&self) -> bool {
        self.peer.is_closed()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.peer.close();
    }
}
