//! [`ClientBuilder`]: a client's identity, era, handlers for what the server asks
//! (sampling, elicitation, roots) and limits, before it connects.

use super::modern::Stamp;
use super::{
    Client, Era, Handler, MODERN_PROTOCOL_VERSION, OUTBOUND_QUEUE, TASKS_EXTENSION, dispatch,
};
use crate::peer::{Peer, RequestError, outbound_queue};
use crate::protocol::*;
use crate::transport::{MessageStream, SinkOutlet, Transport, drive};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

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
    pub(super) info: Implementation,
    pub(super) capabilities: ClientCapabilities,
    pub(super) protocol_version: String,
    pub(super) timeout: Duration,
    pub(super) sampling: Option<Handler<CreateMessageRequestParams, CreateMessageResult>>,
    pub(super) elicitation: Option<Handler<ElicitRequestParams, ElicitResult>>,
    pub(super) roots: Option<Vec<Root>>,
    pub(super) era: Era,
    pub(super) max_input_rounds: usize,
    /// Where request spans and `mcp.client.operation.duration` go (the global providers
    /// unless [`ClientBuilder::telemetry`] says otherwise); set when the client connects.
    #[cfg(feature = "otel")]
    pub(super) telemetry: Option<crate::telemetry::Telemetry>,
    /// The layers given to [`ClientBuilder::layer`] around the connection, if any.
    pub(super) layers: Option<super::middleware::ClientService>,
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
            #[cfg(feature = "otel")]
            telemetry: None,
            layers: None,
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

    /// Where the client's request spans and `mcp.client.operation.duration` go (feature
    /// `otel`); without it, the global providers as they are when the client connects.
    /// Each request is a `CLIENT` span, child of the current OpenTelemetry context, and
    /// carries its context to the server in `params._meta` (`traceparent`, `tracestate`,
    /// `baggage`).
    ///
    /// ```
    /// use opentelemetry::metrics::noop::NoopMeterProvider;
    /// use opentelemetry::trace::noop::NoopTracerProvider;
    /// use tracksuit::{client::Client, otel::Telemetry};
    /// let telemetry = Telemetry::new(&NoopTracerProvider::new(), &NoopMeterProvider::new());
    /// let builder = Client::builder().telemetry(telemetry);
    /// # let _ = builder;
    /// ```
    #[cfg(feature = "otel")]
    pub fn telemetry(mut self, telemetry: crate::telemetry::Telemetry) -> Self {
        self.telemetry = Some(telemetry);
        self
    }

    /// Wraps a [`tower::Layer`] around every request the client sends: a layer sees a
    /// [`ClientRequest`](super::middleware::ClientRequest) and the
    /// [`ClientResponse`](super::middleware::ClientResponse) that comes back, for every
    /// request of both eras and each round of a 2026-07-28 multi round-trip request. The
    /// last layer added is the outermost; `tower::ServiceBuilder` composes several. A
    /// layer's own failure reaches the caller as [`RequestError::Layer`] (a
    /// [`RequestError`] it returns, as it is). Without layers, requests take the same path
    /// with nothing built for them.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tower::ServiceBuilder;
    /// use tracksuit::{Server, client::Client};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let builder = Client::builder().layer(
    ///     ServiceBuilder::new()
    ///         .concurrency_limit(8)
    ///         .timeout(Duration::from_secs(5)),
    /// );
    /// let server = Server::new(tracksuit::crate_info!()).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, builder).await?;
    /// client.ping().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<super::middleware::ClientService>,
        L::Service: tower::Service<
                super::middleware::ClientRequest,
                Response = super::middleware::ClientResponse,
                Error = super::middleware::BoxError,
            > + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<super::middleware::ClientRequest>>::Future: Send + 'static,
    {
        let inner = self.layers.take().unwrap_or_else(|| {
            super::middleware::ClientService::new(super::middleware::Connection)
        });
        self.layers = Some(super::middleware::ClientService::new(layer.layer(inner)));
        self
    }

    /// A copy for the connected client (its telemetry resolved, with the `otel` feature).
    fn connected(&self) -> ClientBuilder {
        #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
        let mut builder = self.clone();
        #[cfg(feature = "otel")]
        if builder.telemetry.is_none() {
            builder.telemetry = Some(crate::telemetry::Telemetry::global());
        }
        builder
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
        let handlers = Arc::new(self.connected());
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
