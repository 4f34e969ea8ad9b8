//! An MCP client on the same engine as the server: it answers the server's sampling,
//! elicitation and roots requests through handlers you provide, and exposes typed calls.
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

use crate::peer::outbound_queue;
use crate::peer::{Peer, RequestError};
use crate::protocol::*;
use crate::transport::{MessageStream, SinkOutlet, Transport, drive};
use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

type Handler<P, R> = Arc<dyn Fn(P) -> BoxFuture<'static, Result<R, ErrorObject>> + Send + Sync>;

/// Configures a [`Client`] before it connects.
#[derive(Clone)]
pub struct ClientBuilder {
    info: Implementation,
    capabilities: ClientCapabilities,
    protocol_version: String,
    timeout: Duration,
    sampling: Option<Handler<CreateMessageRequestParams, CreateMessageResult>>,
    elicitation: Option<Handler<ElicitRequestParams, ElicitResult>>,
    roots: Option<Vec<Root>>,
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
        }
    }
}

impl ClientBuilder {
    /// The client's name and version.
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// The protocol version to request (default: the latest).
    pub fn protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = version.into();
        self
    }

    /// How long each request may take (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Answers `sampling/createMessage`; declares the `sampling` capability with `tools`
    /// and `context`.
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
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self.capabilities.roots = Some(RootsCapability {
            list_changed: Some(true),
        });
        self
    }

    /// Replaces the declared capabilities (handlers still answer what they can).
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Connects over `transport` and performs the `initialize` handshake.
    pub async fn connect<T: Transport>(self, transport: T) -> Result<Client, RequestError> {
        let (tx, rx) = outbound_queue(OUTBOUND_QUEUE);
        let peer = Arc::new(Peer::new(tx));
        let (notifications, _) = broadcast::channel(1024);
        let (mut stream, sink) = transport.split();
        tokio::spawn(drive(rx, peer.closed_flag(), SinkOutlet::new(sink)));
        let handlers = Arc::new(self.clone());
        let reader_peer = peer.clone();
        let reader_notifications = notifications.clone();
        tokio::spawn(async move {
            while let Some(message) = stream.next().await {
                let Ok(message) = message else { continue };
                dispatch(&reader_peer, &handlers, &reader_notifications, message).await;
            }
            reader_peer.close();
        });
        let client = Client {
            peer,
            notifications,
            timeout: self.timeout,
            init: None,
        };
        client.initialize(self).await
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
                match req.method.as_str() {
                    methods::PING => Ok(json!({})),
                    methods::SAMPLING_CREATE_MESSAGE => match &handlers.sampling {
                        Some(h) => to_value(h(from_params(req.params)?).await?),
                        None => Err(ErrorObject::method_not_found(&req.method)),
                    },
                    methods::ELICITATION_CREATE => match &handlers.elicitation {
                        Some(h) => to_value(h(from_params(req.params)?).await?),
                        None => Err(ErrorObject::method_not_found(&req.method)),
                    },
                    methods::ROOTS_LIST => match &handlers.roots {
                        Some(roots) => to_value(ListRootsResult {
                            roots: roots.clone(),
                            ..Default::default()
                        }),
                        None => Err(ErrorObject::method_not_found(&req.method)),
                    },
                    other => Err(ErrorObject::method_not_found(other)),
                }
            });
        }
    }
}

fn from_params<T: DeserializeOwned>(params: Option<Value>) -> Result<T, ErrorObject> {
    serde_json::from_value(params.unwrap_or(Value::Null)).map_err(ErrorObject::invalid_params)
}

fn to_value<T: Serialize>(v: T) -> Result<Value, ErrorObject> {
    serde_json::to_value(v).map_err(ErrorObject::internal)
}

/// A connected MCP client. Dropping a call's future cancels the request
/// (`notifications/cancelled` is sent).
pub struct Client {
    peer: Arc<Peer>,
    notifications: broadcast::Sender<JsonRpcNotification>,
    timeout: Duration,
    init: Option<InitializeResult>,
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
    pub fn server_init(&self) -> Option<&InitializeResult> {
        self.init.as_ref()
    }

    /// Subscribes to every notification the server sends (logs, progress, list changes...).
    pub fn notifications(&self) -> broadcast::Receiver<JsonRpcNotification> {
        self.notifications.subscribe()
    }

    /// Sends any request and decodes its result.
    pub async fn request<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
    ) -> Result<R, RequestError> {
        let params =
            serde_json::to_value(params).map_err(|e| RequestError::Decode(e.to_string()))?;
        let value = self
            .peer
            .request(method, Some(params), None, self.timeout)
            .await?;
        serde_json::from_value(value).map_err(|e| RequestError::Decode(e.to_string()))
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: impl Serialize) {
        self.peer
            .notify(method, serde_json::to_value(params).ok(), None)
            .await;
    }

    /// `ping`.
    pub async fn ping(&self) -> Result<(), RequestError> {
        let _: Value = self.request(methods::PING, json!({})).await?;
        Ok(())
    }

    /// `tools/list` (one page).
    pub async fn list_tools(
        &self,
        cursor: Option<String>,
    ) -> Result<ListToolsResult, RequestError> {
        self.request(
            methods::TOOLS_LIST,
            PaginatedRequestParams {
                cursor,
                ..Default::default()
            },
        )
        .await
    }

    /// `tools/call` with JSON arguments.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, RequestError> {
        self.request(
            methods::TOOLS_CALL,
            json!({ "name": name, "arguments": arguments }),
        )
        .await
    }

    /// `tools/call` asking for progress notifications with `token`.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        token: ProgressToken,
    ) -> Result<CallToolResult, RequestError> {
        let params =
            json!({ "name": name, "arguments": arguments, "_meta": { "progressToken": token } });
        self.request(methods::TOOLS_CALL, params).await
    }

    /// `tools/call` as a task (`task: {ttl}`): the server answers at once with the task;
    /// follow it with [`Client::get_task`] and [`Client::task_result`].
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
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, RequestError> {
        self.request(methods::RESOURCES_READ, json!({ "uri": uri }))
            .await
    }

    /// `resources/subscribe`.
    pub async fn subscribe(&self, uri: &str) -> Result<(), RequestError> {
        let _: Value = self
            .request(methods::RESOURCES_SUBSCRIBE, json!({ "uri": uri }))
            .await?;
        Ok(())
    }

    /// `logging/setLevel`.
    pub async fn set_level(&self, level: LoggingLevel) -> Result<(), RequestError> {
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
    pub fn is_closed(&self) -> bool {
        self.peer.is_closed()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.peer.close();
    }
}
