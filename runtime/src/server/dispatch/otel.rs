//! [`OtelLayer`]: OpenTelemetry traces and metrics for every request, on the dispatch
//! seam (feature `otel`).
//!
//! Per request: a `SERVER` span named and attributed as the GenAI semantic conventions for
//! MCP say, whose parent is the context the request carries in `params._meta` (else the
//! W3C headers of its HTTP request, else the current context), and a
//! `mcp.server.operation.duration` measurement. The handler runs in the span's context, so
//! the requests it sends the client get spans of their own
//! ([`telemetry::exchange`](crate::telemetry::exchange)). A 2025-11-25 session's
//! `initialize` starts its `mcp.server.session.duration`, measured when the session goes.

use super::{BoxError, McpRequest, McpResponse};
use crate::json::member;
use crate::protocol::methods;
use crate::server::ServerSession;
use crate::server::request_scope::RequestScope;
use crate::telemetry::exchange::Scope;
use crate::telemetry::{self, TOOL_ERROR, Telemetry, keys};
use opentelemetry::trace::{
    Link, Span as _, SpanBuilder, SpanKind, Status, TraceContextExt as _, Tracer as _,
};
use opentelemetry::{Context, KeyValue};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, ready};
use std::time::Instant;

/// A tower layer for [`Server::layer`](crate::Server::layer) that traces and measures
/// every request with OpenTelemetry, following the
/// [semantic conventions for MCP](https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/).
///
/// - A `SERVER` span per request (each round of a 2026-07-28 multi round-trip request is
///   one), named `{mcp.method.name} {target}` (`tools/call add`), with `mcp.method.name`,
///   `jsonrpc.request.id`, `gen_ai.tool.name` / `gen_ai.prompt.name` / `mcp.resource.uri`,
///   `gen_ai.operation.name`, `mcp.protocol.version`, `mcp.session.id` (Streamable HTTP),
///   `network.*`, and on failure `error.type` (the JSON-RPC code, or `tool_error` for a
///   tool result with `isError: true`) with an error status.
/// - Its parent: the W3C context in `params._meta` (`traceparent`, `tracestate`,
///   `baggage`), else in the HTTP request's headers (then linked when both are there and
///   differ), else the current context.
/// - The handler runs in the span's context: sampling, elicitation, roots and ping
///   requests it sends are `CLIENT` spans under it, and carry their context to the client.
/// - Metrics: `mcp.server.operation.duration` (seconds; method, tool or prompt,
///   `error.type`), `mcp.server.session.duration` for 2025-11-25 sessions, and
///   `mcp.client.operation.duration` for the requests handlers send.
///
/// ```
/// use tracksuit::Server;
/// use tracksuit::otel::OtelLayer;
///
/// // After `opentelemetry::global::set_tracer_provider(..)` / `set_meter_provider(..)`:
/// let server = Server::new(tracksuit::crate_info!())
///     .layer(OtelLayer::new())
///     .build()?;
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
#[derive(Debug, Clone)]
pub struct OtelLayer {
    telemetry: Telemetry,
}

impl OtelLayer {
    /// Spans and metrics through the global providers ([`Telemetry::global`]).
    pub fn new() -> Self {
        Self::with_telemetry(Telemetry::global())
    }

    /// Spans and metrics through `telemetry` (providers of your own).
    ///
    /// ```
    /// use opentelemetry::metrics::noop::NoopMeterProvider;
    /// use opentelemetry::trace::noop::NoopTracerProvider;
    /// use tracksuit::otel::{OtelLayer, Telemetry};
    /// let telemetry = Telemetry::new(&NoopTracerProvider::new(), &NoopMeterProvider::new());
    /// let layer = OtelLayer::with_telemetry(telemetry);
    /// # let _ = layer;
    /// ```
    pub fn with_telemetry(telemetry: Telemetry) -> Self {
        OtelLayer { telemetry }
    }
}

impl Default for OtelLayer {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> tower::Layer<S> for OtelLayer {
    type Service = OtelService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        OtelService {
            inner,
            telemetry: self.telemetry.clone(),
        }
    }
}

/// The service [`OtelLayer`] wraps around the layers inside it.
#[derive(Debug, Clone)]
pub struct OtelService<S> {
    inner: S,
    telemetry: Telemetry,
}

impl<S> tower::Service<McpRequest> for OtelService<S>
where
    S: tower::Service<McpRequest, Response = McpResponse, Error = BoxError>,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = OtelFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let served = Served::open(&self.telemetry, &request);
        let handler_cx = match &served.span {
            Held::InContext(cx) => Some(cx.with_value(Scope(self.telemetry.clone()))),
            Held::Alone(_) => None,
        };
        OtelFuture {
            inner: self.inner.call(request),
            handler_cx,
            served: Some(served),
        }
    }
}

pin_project_lite::pin_project! {
    /// What [`OtelService`] returns: the inner service's future, polled in the request's
    /// span context, ending the span and recording the duration when it is ready.
    pub struct OtelFuture<F> {
        #[pin]
        inner: F,
        handler_cx: Option<Context>,
        served: Option<Served>,
    }
}

impl<F> Future for OtelFuture<F>
where
    F: Future<Output = Result<McpResponse, BoxError>>,
{
    type Output = Result<McpResponse, BoxError>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let this = self.project();
        // As `opentelemetry`'s `WithContext`: the context is current while the handler runs.
        let attached = this.handler_cx.as_ref().map(|c| c.clone().attach());
        let out = ready!(this.inner.poll(cx));
        drop(attached);
        if let Some(served) = this.served.take() {
            served.close(&out);
        }
        Poll::Ready(out)
    }
}

/// One request being served: its span, the attributes its measurement gets, and
/// the session an `initialize` starts.
struct Served {
    span: Held,
    telemetry: Telemetry,
    metric_attributes: Vec<KeyValue>,
    started: Instant,
    /// A 2025-11-25 `initialize`: the session whose duration starts with it.
    initializing: Option<Arc<ServerSession>>,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served").finish_non_exhaustive()
    }
}

impl Served {
    fn open(telemetry: &Telemetry, request: &McpRequest) -> Served {
        let started = Instant::now();
        let (method, params) = (request.method(), request.params());
        let (parent, links) = parent(request);
        let mut span = telemetry.0.tracer.build_with_context(
            SpanBuilder::from_name(telemetry::span_name(method, params))
                .with_kind(SpanKind::Server)
                .with_links(links),
            &parent,
        );
        let metric_attributes = metric_attributes(request);
        // Attributes a span that records nothing (no SDK installed, not sampled) would drop
        // are not built. (So a sampler sees the span's name and kind, not its attributes.)
        if span.is_recording() {
            // Room for the span's own three: pushing them must not grow the vector again.
            let mut attributes = Vec::with_capacity(metric_attributes.len() + 3);
            attributes.extend_from_slice(&metric_attributes);
            span_attributes(request, &mut attributes);
            span.set_attributes(attributes);
        }
        let initializing = match &request.route.scope {
            RequestScope::Session(session) if method == methods::INITIALIZE => {
                Some(session.clone())
            }
            _ => None,
        };
        // A span with no context to pass on (nothing installed, no parent): the handler runs
        // as it would without the layer, and its requests get no spans either.
        let span = if span.span_context().is_valid() {
            Held::InContext(parent.with_span(span))
        } else {
            Held::Alone(span)
        };
        Served {
            span,
            telemetry: telemetry.clone(),
            metric_attributes,
            started,
            initializing,
        }
    }

    /// Ends the span with how the request ended, and records its duration.
    fn close(mut self, out: &Result<McpResponse, BoxError>) {
        let mut input_required = false;
        let failure = match out {
            Ok(response) => match response.error() {
                Some(error) => Some((error.code.to_string(), Some(error.message.clone()))),
                None if response.is_tool_error() => Some((TOOL_ERROR.to_owned(), None)),
                None => {
                    input_required = response.is_input_required();
                    None
                }
            },
            Err(error) => {
                let (code, message) = failure(error);
                Some((code.to_string(), Some(message)))
            }
        };
        let mut ended = Ended {
            input_required,
            ..Ended::default()
        };
        if let Some((error_type, message)) = failure {
            ended.push(keys::ERROR_TYPE, &error_type);
            if error_type != TOOL_ERROR {
                ended.push(keys::STATUS_CODE, &error_type);
                self.metric_attributes
                    .push(KeyValue::new(keys::STATUS_CODE, error_type.clone()));
            }
            ended.status = Some(Status::error(message.unwrap_or_default()));
            self.metric_attributes
                .push(KeyValue::new(keys::ERROR_TYPE, error_type));
        } else if let Some(session) = self.initializing.take() {
            SessionClock::start(
                &self.telemetry,
                &session,
                self.started,
                &self.metric_attributes,
            );
        }
        ended.apply(self.span);
        let elapsed = self.started.elapsed().as_secs_f64();
        self.telemetry
            .0
            .server_operation
            .record(elapsed, &self.metric_attributes);
    }
}

/// A request's span: in the context its handler runs in, or alone when there is no
/// context to pass on.
enum Held {
    InContext(Context),
    Alone(opentelemetry::global::BoxedSpan),
}

/// How a request's span ends.
#[derive(Default)]
struct Ended {
    input_required: bool,
    attributes: Vec<KeyValue>,
    status: Option<Status>,
}

impl Ended {
    fn push(&mut self, key: &'static str, value: &str) {
        self.attributes.push(KeyValue::new(key, value.to_owned()));
    }

    fn apply(self, span: Held) {
        match span {
            Held::InContext(cx) => {
                let span = cx.span();
                if self.input_required {
                    span.add_event("input_required", Vec::new());
                }
                span.set_attributes(self.attributes);
                if let Some(status) = self.status {
                    span.set_status(status);
                }
                span.end();
            }
            Held::Alone(mut span) => {
                if self.input_required {
                    span.add_event("input_required", Vec::new());
                }
                span.set_attributes(self.attributes);
                if let Some(status) = self.status {
                    span.set_status(status);
                }
                span.end();
            }
        }
    }
}

/// The JSON-RPC code and message a layer's failure reaches the client as (as
/// `dispatch::layer_error` maps it).
fn failure(error: &BoxError) -> (i64, String) {
    if let Some(error) = error.downcast_ref::<crate::protocol::ErrorObject>() {
        (error.code, error.message.clone())
    } else if error.is::<tower::timeout::error::Elapsed>() {
        (crate::protocol::REQUEST_TIMEOUT, "request timed out".into())
    } else if error.is::<tower::load_shed::error::Overloaded>() {
        (
            crate::protocol::SERVER_OVERLOADED,
            "server overloaded".into(),
        )
    } else {
        (crate::protocol::INTERNAL_ERROR, error.to_string())
    }
}

#[cfg(feature = "http")]
fn http_parts(request: &McpRequest) -> Option<&http::request::Parts> {
    request.http_parts()
}

#[cfg(not(feature = "http"))]
fn http_parts(_: &McpRequest) -> Option<&http::request::Parts> {
    None
}

fn headers(request: &McpRequest) -> Option<&http::HeaderMap> {
    http_parts(request).map(|parts| &parts.headers)
}

/// The parent of a request's span: the context its `params._meta` carries, else its HTTP
/// request's headers, else the current one; with the HTTP request's context as a link when
/// both carry one and they differ.
fn parent(request: &McpRequest) -> (Context, Vec<Link>) {
    let base = Context::current();
    let from_meta = telemetry::from_meta(request.params(), &base);
    let from_headers = headers(request).and_then(|h| telemetry::from_headers(h, &base));
    match (from_meta, from_headers) {
        (Some(meta), Some(http)) => {
            let transport = http.span().span_context().clone();
            let links = if transport.span_id() != meta.span().span_context().span_id() {
                vec![Link::with_context(transport)]
            } else {
                Vec::new()
            };
            (meta, links)
        }
        (Some(parent), None) | (None, Some(parent)) => (parent, Vec::new()),
        (None, None) => (base, Vec::new()),
    }
}

/// The attributes of a request's measurement (and span): method, tool or prompt,
/// protocol version, network.
fn metric_attributes(request: &McpRequest) -> Vec<KeyValue> {
    let method = request.method();
    let mut out = Vec::with_capacity(8);
    out.push(KeyValue::new(keys::METHOD, telemetry::method_value(method)));
    telemetry::target_attributes(method, request.params(), false, &mut out);
    match request.protocol_version() {
        Some(version) => out.push(KeyValue::new(keys::PROTOCOL_VERSION, version)),
        None if method == methods::INITIALIZE => {
            let asked = request.params().and_then(|p| p.get("protocolVersion"));
            if let Some(asked) = asked.and_then(serde_json::Value::as_str) {
                out.push(KeyValue::new(keys::PROTOCOL_VERSION, asked.to_owned()));
            }
        }
        None => {}
    }
    match http_parts(request) {
        Some(parts) => {
            out.push(KeyValue::new(keys::NETWORK_TRANSPORT, "tcp"));
            out.push(KeyValue::new(keys::NETWORK_PROTOCOL, "http"));
            let version = match parts.version {
                http::Version::HTTP_10 => "1.0",
                http::Version::HTTP_2 => "2",
                http::Version::HTTP_3 => "3",
                _ => "1.1",
            };
            out.push(KeyValue::new(keys::NETWORK_PROTOCOL_VERSION, version));
        }
        None => out.push(KeyValue::new(keys::NETWORK_TRANSPORT, "pipe")),
    }
    out
}

/// The attributes only a span gets, each request's own: `jsonrpc.request.id`,
/// `mcp.session.id`, `mcp.resource.uri`.
fn span_attributes(request: &McpRequest, out: &mut Vec<KeyValue>) {
    out.push(KeyValue::new(keys::REQUEST_ID, request.id().to_string()));
    let by_uri = matches!(
        request.method(),
        methods::RESOURCES_READ | methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE
    );
    let uri = request.params().and_then(|p| member(p, "uri"));
    if let Some(uri) = uri.and_then(serde_json::Value::as_str).filter(|_| by_uri) {
        out.push(KeyValue::new(keys::RESOURCE_URI, uri.to_owned()));
    }
    const SESSION_ID: http::HeaderName = http::HeaderName::from_static("mcp-session-id");
    let session = headers(request).and_then(|h| h.get(SESSION_ID));
    if let Some(session) = session.and_then(|v| v.to_str().ok()) {
        out.push(KeyValue::new(keys::SESSION_ID, session.to_owned()));
    }
}

/// A 2025-11-25 session's clock: started by its `initialize`, read when the session is
/// dropped (closed and every request it served done), into `mcp.server.session.duration`.
struct SessionClock {
    telemetry: Telemetry,
    started: Instant,
    attributes: Vec<KeyValue>,
}

impl SessionClock {
    fn start(
        telemetry: &Telemetry,
        session: &ServerSession,
        started: Instant,
        request: &[KeyValue],
    ) {
        let kept = [
            keys::NETWORK_TRANSPORT,
            keys::NETWORK_PROTOCOL,
            keys::NETWORK_PROTOCOL_VERSION,
        ];
        let mut attributes: Vec<KeyValue> = request
            .iter()
            .filter(|kv| kept.contains(&kv.key.as_str()))
            .cloned()
            .collect();
        if let Some(init) = session.init.get() {
            attributes.push(KeyValue::new(keys::PROTOCOL_VERSION, init.protocol_version));
        }
        let clock = SessionClock {
            telemetry: telemetry.clone(),
            started,
            attributes,
        };
        // A session initializes once: a second clock would have nothing to time.
        let _ = session.attached.set(Box::new(clock));
    }
}

impl Drop for SessionClock {
    fn drop(&mut self) {
        let elapsed = self.started.elapsed().as_secs_f64();
        self.telemetry
            .0
            .server_session
            .record(elapsed, &self.attributes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_the_codes_the_client_gets() {
        for error in [
            Box::new(crate::protocol::ErrorObject::new(-32050, "mine")) as BoxError,
            Box::new(tower::timeout::error::Elapsed::new()),
            Box::new(tower::load_shed::error::Overloaded::new()),
            "no".into(),
        ] {
            let (code, _) = failure(&error);
            assert_eq!(code, super::super::layer_error(error).code);
        }
    }
}
