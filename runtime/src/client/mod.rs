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

mod builder;
mod calls;
mod child;
#[cfg(feature = "http")]
mod connect;
mod headers;
#[cfg(feature = "http")]
mod http;
pub mod middleware;
mod modern;
#[cfg(feature = "oauth")]
pub mod oauth;
#[cfg(feature = "skills")]
mod skills;
#[cfg(feature = "http")]
mod sse;
mod subscription;
mod task;
#[cfg(feature = "otel")]
mod traced;

pub use builder::{ClientBuilder, DEFAULT_INPUT_ROUNDS};
pub use child::{ChildStream, ChildTransport};
#[cfg(feature = "http")]
pub use connect::ConnectError;
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

use crate::peer::{Peer, RequestError};
use crate::protocol::*;

use futures::future::BoxFuture;
use modern::Stamp;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

type Handler<P, R> = Arc<dyn Fn(P) -> BoxFuture<'static, Result<R, ErrorObject>> + Send + Sync>;

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
            let handled = async move {
                answer(&handlers, &req.method, req.params)
                    .await
                    .map(ResultPayload::from)
            };
            // Boxed: a handler's state is the client's to size (`Peer::serve` boxes the
            // task it makes, not the handler inside it).
            if let Some(served) = peer.serve(req.id, cancel, Box::pin(handled)) {
                served.spawn();
            }
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
    /// answering every `input_required` round). With the `otel` feature, in a span of its
    /// own whose context the request carries.
    async fn request_payload(
        &self,
        method: &str,
        params: Value,
    ) -> Result<ResultPayload, RequestError> {
        #[cfg(feature = "otel")]
        if let Some(telemetry) = &self.handlers.telemetry {
            return self.traced_payload(telemetry, method, params).await;
        }
        self.send_payload(method, params).await
    }

    /// [`Client::request_payload`] without telemetry.
    async fn send_payload(
        &self,
        method: &str,
        params: Value,
    ) -> Result<ResultPayload, RequestError> {
        let wire = self.wire();
        let Some(stamp) = &self.stamp else {
            return wire.send(method, params, 0, self.timeout).await;
        };
        let mut current = params.clone();
        let mut rounds = 0;
        let mut renegotiated = false;
        loop {
            let sent = stamp.stamp(&current);
            let result = match wire.send(method, sent, rounds, self.timeout).await {
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

    /// Where requests go: the connection, through the layers if there are any.
    fn wire(&self) -> middleware::Wire {
        let layers = self.handlers.layers.clone();
        let protocol_version = layers.as_ref().and_then(|_| self.protocol_version_in_use());
        middleware::Wire {
            peer: self.peer.clone(),
            layers,
            era: self.era(),
            protocol_version,
        }
    }

    /// The protocol version requests go out with: the one `initialize` agreed, or the
    /// 2026-07-28 era's.
    fn protocol_version_in_use(&self) -> Option<String> {
        match (&self.stamp, &self.init) {
            (Some(stamp), _) => Some(crate::peer::sync::lock(&stamp.version).clone()),
            (None, Some(init)) => Some(init.protocol_version.clone()),
            (None, None) => None,
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

    /// Waits until the connection is closed (the server went away, or the client was
    /// closed): what a long-lived user of the client, such as a proxy, watches.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).build()?;
    /// let (server_end, client_end) = tracksuit::transport::memory::pair();
    /// let serving = tokio::spawn(server.serve(server_end));
    /// let client = Client::builder().connect(client_end).await?;
    /// serving.abort(); // the server goes away
    /// client.closed().await;
    /// assert!(client.is_closed());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn closed(&self) {
        self.peer.shutdown_token().cancelled().await;
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.peer.close();
    }
}
