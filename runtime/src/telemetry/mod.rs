//! OpenTelemetry support shared by the server, the handler context and the client (feature
//! `otel`): where spans and metrics go ([`Telemetry`]), the attribute names of the GenAI
//! semantic conventions for MCP, and W3C trace context carried in a request's
//! `params._meta` (`traceparent`, `tracestate`, `baggage`, SEP-414) or in HTTP headers.
//!
//! A support module (layer 0): it knows JSON values and HTTP headers, nothing of sessions.
//! The server's [`OtelLayer`](crate::otel::OtelLayer) builds on it, and so do the sampling /
//! elicitation requests a handler sends ([`exchange`]) and the client ([`client`]).

pub(crate) mod client;
pub(crate) mod exchange;

use crate::json::member;
use opentelemetry::metrics::{Histogram, Meter, MeterProvider};
use opentelemetry::propagation::{
    Extractor, Injector, TextMapCompositePropagator, TextMapPropagator,
};
use opentelemetry::trace::{Tracer, TracerProvider};
use opentelemetry::{Context, InstrumentationScope, global};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

/// Attribute names of the OpenTelemetry semantic conventions for MCP (and the JSON-RPC,
/// GenAI, network and error attributes they use).
pub(crate) mod keys {
    pub(crate) const METHOD: &str = "mcp.method.name";
    pub(crate) const PROTOCOL_VERSION: &str = "mcp.protocol.version";
    pub(crate) const SESSION_ID: &str = "mcp.session.id";
    pub(crate) const RESOURCE_URI: &str = "mcp.resource.uri";
    pub(crate) const REQUEST_ID: &str = "jsonrpc.request.id";
    pub(crate) const TOOL_NAME: &str = "gen_ai.tool.name";
    pub(crate) const PROMPT_NAME: &str = "gen_ai.prompt.name";
    pub(crate) const OPERATION_NAME: &str = "gen_ai.operation.name";
    pub(crate) const ERROR_TYPE: &str = "error.type";
    pub(crate) const STATUS_CODE: &str = "rpc.response.status_code";
    pub(crate) const NETWORK_TRANSPORT: &str = "network.transport";
    pub(crate) const NETWORK_PROTOCOL: &str = "network.protocol.name";
    pub(crate) const NETWORK_PROTOCOL_VERSION: &str = "network.protocol.version";
}

/// `error.type` of a `tools/call` whose result says `isError: true`.
pub(crate) const TOOL_ERROR: &str = "tool_error";

/// The bucket boundaries (seconds) the conventions give for the four MCP histograms.
const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// Where a server's or a client's spans and metrics go: a tracer and the MCP duration
/// histograms (`mcp.server.operation.duration`, `mcp.server.session.duration`,
/// `mcp.client.operation.duration`), from the global providers or from providers you give.
///
/// Build it after installing the providers: instruments made from a provider that is not
/// installed yet record nothing.
///
/// ```
/// use tracksuit::otel::Telemetry;
/// // From whatever `opentelemetry::global::set_tracer_provider` / `set_meter_provider`
/// // installed (no-op providers until something is installed):
/// let telemetry = Telemetry::global();
/// # let _ = telemetry;
/// ```
#[derive(Clone)]
pub struct Telemetry(pub(crate) Arc<Instruments>);

/// What a [`Telemetry`] holds.
pub(crate) struct Instruments {
    pub(crate) tracer: global::BoxedTracer,
    pub(crate) server_operation: Histogram<f64>,
    pub(crate) server_session: Histogram<f64>,
    pub(crate) client_operation: Histogram<f64>,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

/// The instrumentation scope spans and metrics are reported under: `tracksuit` and its
/// version.
fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("tracksuit")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

impl Telemetry {
    /// Spans and metrics through the global providers (`opentelemetry::global`), as they are
    /// when this is called.
    pub fn global() -> Self {
        let tracer = global::tracer_with_scope(scope());
        Self::build(tracer, &global::meter_with_scope(scope()))
    }

    /// Spans through `tracer_provider` and metrics through `meter_provider`, for an
    /// application that does not install global providers (or a test with its own
    /// in-memory exporter).
    ///
    /// ```
    /// use opentelemetry::trace::noop::NoopTracerProvider;
    /// use opentelemetry::metrics::noop::NoopMeterProvider;
    /// let telemetry = tracksuit::otel::Telemetry::new(&NoopTracerProvider::new(), &NoopMeterProvider::new());
    /// # let _ = telemetry;
    /// ```
    pub fn new<T, M>(tracer_provider: &T, meter_provider: &M) -> Self
    where
        T: TracerProvider,
        T::Tracer: Send + Sync + 'static,
        <T::Tracer as Tracer>::Span: Send + Sync + 'static,
        M: MeterProvider,
    {
        let tracer = global::BoxedTracer::new(Box::new(tracer_provider.tracer_with_scope(scope())));
        Self::build(tracer, &meter_provider.meter_with_scope(scope()))
    }

    fn build(tracer: global::BoxedTracer, meter: &Meter) -> Self {
        let histogram = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build()
        };
        Telemetry(Arc::new(Instruments {
            tracer,
            server_operation: histogram(
                "mcp.server.operation.duration",
                "MCP request duration as observed on the receiver, from the time it was \
                 received until the result was sent.",
            ),
            server_session: histogram(
                "mcp.server.session.duration",
                "The duration of the MCP session as observed on the MCP server.",
            ),
            client_operation: histogram(
                "mcp.client.operation.duration",
                "The duration of the MCP request as observed on the sender, from the time \
                 it was sent until the response was received.",
            ),
        }))
    }
}

/// W3C Trace Context and Baggage: the two formats SEP-414 reserves `_meta` keys for.
static PROPAGATOR: LazyLock<TextMapCompositePropagator> = LazyLock::new(|| {
    TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ])
});

/// The `_meta` keys trace context travels in.
const META_KEYS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

/// The same as HTTP header names (named once: comparing with a `&str` parses it each time).
const TRACE_HEADERS: [http::HeaderName; 3] = [
    http::HeaderName::from_static("traceparent"),
    http::HeaderName::from_static("tracestate"),
    http::HeaderName::from_static("baggage"),
];

/// A request's `_meta` as a propagator reads it.
struct MetaReader<'a>(&'a Map<String, Value>);

impl Extractor for MetaReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.as_str()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// HTTP headers as a propagator reads them.
struct HeaderReader<'a>(&'a http::HeaderMap);

impl Extractor for HeaderReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.to_str().ok()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// What a propagator writes, before it goes into `_meta`.
#[derive(Default)]
struct Written(Vec<(String, String)>);

impl Injector for Written {
    fn set(&mut self, key: &str, value: String) {
        self.0.push((key.to_owned(), value));
    }
}

/// The context carried by `params._meta`, if it names a valid remote parent (or baggage);
/// `base` holds what the extracted context does not replace.
pub(crate) fn from_meta(params: Option<&Value>, base: &Context) -> Option<Context> {
    let meta = member(params?, "_meta")?.as_object()?;
    if !meta.keys().any(|key| META_KEYS.contains(&key.as_str())) {
        return None;
    }
    let cx = PROPAGATOR.extract_with_context(base, &MetaReader(meta));
    is_remote_parent(&cx).then_some(cx)
}

/// The context carried by W3C `traceparent` / `tracestate` / `baggage` HTTP headers.
pub(crate) fn from_headers(headers: &http::HeaderMap, base: &Context) -> Option<Context> {
    // A request has a few headers: comparing each with the three names costs less than
    // hashing three lookups.
    if !headers.keys().any(|name| TRACE_HEADERS.contains(name)) {
        return None;
    }
    let cx = PROPAGATOR.extract_with_context(base, &HeaderReader(headers));
    is_remote_parent(&cx).then_some(cx)
}

fn is_remote_parent(cx: &Context) -> bool {
    use opentelemetry::trace::TraceContextExt as _;
    cx.span().span_context().is_valid()
}

/// Writes `cx` (its span and baggage) into `params._meta`, making `params` an object and
/// `_meta` one if they are not. Writes nothing (and adds no `_meta`) when `cx` carries
/// neither a valid span nor baggage.
pub(crate) fn inject(cx: &Context, params: &mut Value) {
    let mut written = Written::default();
    PROPAGATOR.inject_context(cx, &mut written);
    if written.0.is_empty() {
        return;
    }
    if !params.is_object() {
        *params = Value::Object(Map::new());
    }
    let Value::Object(params) = params else {
        return;
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Value::Object(meta) = meta {
        for (key, value) in written.0 {
            meta.insert(key, Value::String(value));
        }
    }
}

/// The methods whose names are attribute values often enough to keep as `'static` (no
/// allocation per request).
const KNOWN_METHODS: [&str; 23] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
    "tasks/update",
    "server/discover",
    "subscriptions/listen",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
];

/// `method` as an attribute value (`'static` for the known ones).
pub(crate) fn method_value(method: &str) -> opentelemetry::Value {
    match KNOWN_METHODS.iter().find(|m| **m == method) {
        Some(known) => (*known).into(),
        None => method.to_owned().into(),
    }
}

/// The span name the conventions give: `{mcp.method.name} {target}`, where the target is a
/// tool's or prompt's name (a resource URI is left out: too many distinct names).
pub(crate) fn span_name(method: &str, params: Option<&Value>) -> Cow<'static, str> {
    match low_cardinality_target(method, params) {
        // Written by hand: `format!` costs ten times as much, on every request.
        Some(target) => {
            let mut name = String::with_capacity(method.len() + 1 + target.len());
            name.push_str(method);
            name.push(' ');
            name.push_str(target);
            name.into()
        }
        None => match KNOWN_METHODS.iter().find(|m| **m == method) {
            Some(known) => Cow::Borrowed(known),
            None => method.to_owned().into(),
        },
    }
}

/// The tool's name of `tools/call`, the prompt's of `prompts/get`.
pub(crate) fn low_cardinality_target<'a>(
    method: &str,
    params: Option<&'a Value>,
) -> Option<&'a str> {
    match method {
        "tools/call" | "prompts/get" => member(params?, "name")?.as_str(),
        _ => None,
    }
}

/// The attributes naming what a request is about: `gen_ai.tool.name` (and
/// `gen_ai.operation.name = execute_tool`), `gen_ai.prompt.name`, and with `uri` (spans
/// only: too many distinct values for a metric) `mcp.resource.uri`.
pub(crate) fn target_attributes(
    method: &str,
    params: Option<&Value>,
    uri: bool,
    out: &mut Vec<opentelemetry::KeyValue>,
) {
    use opentelemetry::KeyValue;
    let text = |key: &str| params.and_then(|p| member(p, key)).and_then(Value::as_str);
    match method {
        "tools/call" => {
            out.push(KeyValue::new(keys::OPERATION_NAME, "execute_tool"));
            if let Some(name) = text("name") {
                out.push(KeyValue::new(keys::TOOL_NAME, name.to_owned()));
            }
        }
        "prompts/get" => {
            if let Some(name) = text("name") {
                out.push(KeyValue::new(keys::PROMPT_NAME, name.to_owned()));
            }
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" if uri => {
            if let Some(uri) = text("uri") {
                out.push(KeyValue::new(keys::RESOURCE_URI, uri.to_owned()));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
    };
    use serde_json::json;

    const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn meta_carries_the_parent_and_baggage() {
        use opentelemetry::baggage::BaggageExt as _;
        let params = json!({"name": "t", "_meta": {
            "traceparent": PARENT, "tracestate": "rojo=00f067aa0ba902b7", "baggage": "user=alice"
        }});
        let cx = from_meta(Some(&params), &Context::new()).expect("a parent");
        let span = cx.span().span_context().clone();
        assert_eq!(
            span.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(span.span_id().to_string(), "00f067aa0ba902b7");
        assert!(span.is_remote() && span.is_sampled());
        assert_eq!(span.trace_state().get("rojo"), Some("00f067aa0ba902b7"));
        assert_eq!(
            cx.baggage().get("user").map(|v| v.as_str().to_owned()),
            Some("alice".into())
        );
    }

    #[test]
    fn no_or_bad_context_is_no_parent() {
        assert!(from_meta(None, &Context::new()).is_none());
        assert!(from_meta(Some(&json!({"_meta": {}})), &Context::new()).is_none());
        assert!(from_meta(Some(&json!({"_meta": "x"})), &Context::new()).is_none());
        for bad in [
            json!("00-zz-yy-01"),
            json!(7),
            json!("00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
        ] {
            let params = json!({"_meta": {"traceparent": bad}});
            assert!(
                from_meta(Some(&params), &Context::new()).is_none(),
                "{params}"
            );
        }
    }

    #[test]
    fn headers_carry_the_parent() {
        let mut headers = http::HeaderMap::new();
        assert!(from_headers(&headers, &Context::new()).is_none());
        headers.insert("traceparent", PARENT.parse().expect("a header value"));
        let cx = from_headers(&headers, &Context::new()).expect("a parent");
        assert_eq!(
            cx.span().span_context().span_id().to_string(),
            "00f067aa0ba902b7"
        );
    }

    #[test]
    fn inject_writes_meta_only_when_there_is_something() {
        let mut params = json!({"name": "t"});
        inject(&Context::new(), &mut params);
        assert_eq!(params, json!({"name": "t"}));
        let span = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").expect("hex"),
            SpanId::from_hex("00f067aa0ba902b7").expect("hex"),
            TraceFlags::SAMPLED,
            true,
            TraceState::default(),
        );
        let cx = Context::new().with_remote_span_context(span);
        let mut params = json!({"name": "t", "_meta": {"progressToken": 1}});
        inject(&cx, &mut params);
        assert_eq!(params["_meta"]["traceparent"], PARENT);
        assert_eq!(params["_meta"]["progressToken"], 1);
        let mut bare = Value::Null;
        inject(&cx, &mut bare);
        assert_eq!(bare["_meta"]["traceparent"], PARENT);
    }

    #[test]
    fn names_follow_the_conventions() {
        let call = json!({"name": "add", "arguments": {}});
        assert_eq!(span_name("tools/call", Some(&call)), "tools/call add");
        assert_eq!(span_name("prompts/get", Some(&call)), "prompts/get add");
        let read = json!({"uri": "file:///a"});
        assert_eq!(span_name("resources/read", Some(&read)), "resources/read");
        assert_eq!(
            span_name("tools/call", Some(&json!({"name": 3}))),
            "tools/call"
        );
        let mut attributes = Vec::new();
        target_attributes("resources/read", Some(&read), false, &mut attributes);
        assert!(attributes.is_empty(), "a URI only with `uri`");
        target_attributes("resources/read", Some(&read), true, &mut attributes);
        assert_eq!(attributes[0].key.as_str(), keys::RESOURCE_URI);
        assert!(matches!(
            span_name("tools/list", None),
            Cow::Borrowed("tools/list")
        ));
        assert_eq!(method_value("x/y").as_str(), "x/y");
    }
}
