//! OpenTelemetry (feature `otel`) with the OpenTelemetry SDK's in-memory exporters: the
//! spans `OtelLayer` and the client make, how they are parented (the client's span over the
//! server's, a sampling request's span under the server's, each 2026 round under the call's
//! client span, a parent from HTTP headers), their attributes and error types, and the
//! duration metrics. Run by scripts/otel.sh (`--features otel`).

use opentelemetry::trace::{
    FutureExt as _, SpanId, SpanKind, Status, TraceContextExt as _, TraceId, Tracer as _,
    TracerProvider as _,
};
use opentelemetry::{Context, Value as OtelValue};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tracksuit::client::{Client, ClientBuilder, Era as ClientEra};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::otel::{OtelLayer, Telemetry};
use tracksuit::protocol::*;
use tracksuit::{Ctx, Server, ServerHandle, ToolError, ToolFn, mcp_tool};
use tracksuit_tests::support::{Model, wait_for, within};

#[path = "http_requests.rs"]
mod http_requests;

/// Providers of its own for each test (no global state), exporting to memory.
struct Otel {
    spans: InMemorySpanExporter,
    tracers: SdkTracerProvider,
    metrics: InMemoryMetricExporter,
    meters: SdkMeterProvider,
}

impl Otel {
    fn new() -> Self {
        let spans = InMemorySpanExporter::default();
        let tracers = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let metrics = InMemoryMetricExporter::default();
        let meters = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        Otel {
            spans,
            tracers,
            metrics,
            meters,
        }
    }

    fn telemetry(&self) -> Telemetry {
        Telemetry::new(&self.tracers, &self.meters)
    }

    fn server(&self) -> ServerHandle {
        Server::new(Implementation::new("otel-test", "1"))
            .tool(ask)
            .tool(ToolFn::new(
                Tool::new("fails", Default::default()),
                |_, _| async { Ok(CallToolResult::error_text("no")) },
            ))
            .layer(OtelLayer::with_telemetry(self.telemetry()))
            .build()
            .expect("server")
    }

    fn client(&self, model: &Model, era: ClientEra) -> ClientBuilder {
        model.client().era(era).telemetry(self.telemetry())
    }

    /// The finished spans of `trace`, once `n` of them have ended.
    async fn trace(&self, trace: TraceId, n: usize) -> Vec<SpanData> {
        wait_for(&format!("{n} spans of the trace end"), || async {
            let spans: Vec<SpanData> = self
                .spans
                .get_finished_spans()
                .expect("spans")
                .into_iter()
                .filter(|s| s.span_context.trace_id() == trace)
                .collect();
            (spans.len() >= n).then_some(spans)
        })
        .await
    }

    /// The data points (attributes, count) of histogram `name`, once `ready` holds for them.
    async fn histogram(
        &self,
        name: &str,
        ready: impl Fn(&[(Vec<(String, String)>, u64)]) -> bool,
    ) -> Vec<(Vec<(String, String)>, u64)> {
        wait_for(&format!("{name} is recorded"), || {
            let _ = self.meters.force_flush();
            let points = self.points(name);
            std::future::ready(ready(&points).then_some(points))
        })
        .await
    }

    fn points(&self, name: &str) -> Vec<(Vec<(String, String)>, u64)> {
        let exported = self.metrics.get_finished_metrics().expect("metrics");
        let Some(last) = exported.last() else {
            return Vec::new();
        };
        let mut points = Vec::new();
        for scope in last.scope_metrics() {
            for metric in scope.metrics().filter(|m| m.name() == name) {
                assert_eq!(metric.unit(), "s");
                if let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() {
                    for p in h.data_points() {
                        let mut attributes: Vec<(String, String)> = p
                            .attributes()
                            .map(|kv| (kv.key.to_string(), kv.value.to_string()))
                            .collect();
                        attributes.sort();
                        points.push((attributes, p.count()));
                    }
                }
            }
        }
        points
    }
}

/// Asks the client's model once.
#[mcp_tool]
async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
    Ok(ctx.sample().prompt("hi").await?.text())
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn text_attribute(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(OtelValue::to_string)
}

fn find<'a>(spans: &'a [SpanData], name: &str, kind: SpanKind) -> Vec<&'a SpanData> {
    spans
        .iter()
        .filter(|s| s.name == name && s.span_kind == kind)
        .collect()
}

/// Runs `work` under a root span of the test's own, and returns the root's trace and span.
async fn under_root<F: std::future::Future>(otel: &Otel, work: F) -> (TraceId, SpanId, F::Output) {
    let root = otel.tracers.tracer("test").start("test root");
    let cx = Context::current_with_span(root);
    let ids = cx.span().span_context().clone();
    let out = work.with_context(cx.clone()).await;
    cx.span().end();
    (ids.trace_id(), ids.span_id(), out)
}

#[tokio::test]
async fn a_session_call_that_samples_is_one_trace_client_server_exchange() {
    let otel = Otel::new();
    let model = Model::answering();
    let client = otel.client(&model, ClientEra::Session);
    let client = within(
        "connect",
        tracksuit::host::connect_in_memory(otel.server(), client),
    )
    .await
    .expect("connect");
    let (trace, root, result) =
        under_root(&otel, within("call", client.call_tool("ask", json!({})))).await;
    assert_eq!(result.expect("call").content[0].as_text(), Some("ok"));
    let spans = otel.trace(trace, 4).await;

    let calls = find(&spans, "tools/call ask", SpanKind::Client);
    let served = find(&spans, "tools/call ask", SpanKind::Server);
    let asked = find(&spans, "sampling/createMessage", SpanKind::Client);
    assert_eq!(
        (calls.len(), served.len(), asked.len()),
        (1, 1, 1),
        "{spans:#?}"
    );
    let (call, served, asked) = (calls[0], served[0], asked[0]);
    assert_eq!(call.parent_span_id, root);
    assert_eq!(served.parent_span_id, call.span_context.span_id());
    assert!(
        served.parent_span_is_remote,
        "the server's parent came in _meta"
    );
    assert_eq!(asked.parent_span_id, served.span_context.span_id());

    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "ask"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
    ] {
        assert_eq!(text_attribute(served, key).as_deref(), Some(value), "{key}");
        if key != "network.transport" {
            assert_eq!(
                text_attribute(call, key).as_deref(),
                Some(value),
                "client {key}"
            );
        }
    }
    assert!(attribute(served, "jsonrpc.request.id").is_some());
    assert_eq!(served.status, Status::Unset);
    assert_eq!(
        text_attribute(asked, "mcp.method.name").as_deref(),
        Some("sampling/createMessage")
    );

    // The sampling request carried its span's context to the client.
    let sent = serde_json::to_value(&model.requests()[0]).expect("params");
    let traceparent = sent["_meta"]["traceparent"].as_str().expect("traceparent");
    let expected = format!("00-{trace}-{}-01", asked.span_context.span_id());
    assert_eq!(traceparent, expected);
}

#[tokio::test]
async fn each_2026_round_is_a_server_span_under_the_calls_client_span() {
    let otel = Otel::new();
    let model = Model::answering();
    let client = otel.client(&model, ClientEra::Stateless);
    let client = within(
        "connect",
        tracksuit::host::connect_in_memory(otel.server(), client),
    )
    .await
    .expect("connect");
    let (trace, root, result) =
        under_root(&otel, within("call", client.call_tool("ask", json!({})))).await;
    assert_eq!(result.expect("call").content[0].as_text(), Some("ok"));
    let spans = otel.trace(trace, 4).await;

    let calls = find(&spans, "tools/call ask", SpanKind::Client);
    let rounds = find(&spans, "tools/call ask", SpanKind::Server);
    assert_eq!((calls.len(), rounds.len()), (1, 2), "{spans:#?}");
    assert_eq!(calls[0].parent_span_id, root);
    let call = calls[0].span_context.span_id();
    assert!(rounds.iter().all(|r| r.parent_span_id == call));
    let asking: Vec<bool> = rounds
        .iter()
        .map(|r| r.events.iter().any(|e| e.name == "input_required"))
        .collect();
    assert_eq!(asking.iter().filter(|a| **a).count(), 1, "one round asked");
    for round in rounds {
        assert_eq!(
            text_attribute(round, "mcp.protocol.version").as_deref(),
            Some("2026-07-28")
        );
    }
    // No live request to the client on 2026: the question went back in a result.
    assert!(find(&spans, "sampling/createMessage", SpanKind::Client).is_empty());
}

#[tokio::test]
async fn errors_set_error_type_and_status_and_are_counted() {
    let otel = Otel::new();
    let model = Model::answering();
    let client = otel.client(&model, ClientEra::Session);
    let client = within(
        "connect",
        tracksuit::host::connect_in_memory(otel.server(), client),
    )
    .await
    .expect("connect");
    let (trace, _, out) = under_root(&otel, async {
        let failed = client
            .call_tool("fails", json!({}))
            .await
            .expect("a result");
        let unknown = client.call_tool("nope", json!({})).await;
        (failed, unknown)
    })
    .await;
    assert_eq!(out.0.is_error, Some(true));
    let code = match out.1 {
        Err(tracksuit::RequestError::Peer(e)) => e.code,
        other => panic!("unknown tool: {other:?}"),
    };
    let spans = otel.trace(trace, 5).await;
    for kind in [SpanKind::Client, SpanKind::Server] {
        let failed = find(&spans, "tools/call fails", kind.clone());
        assert_eq!(
            text_attribute(failed[0], "error.type").as_deref(),
            Some("tool_error")
        );
        assert!(matches!(failed[0].status, Status::Error { .. }));
        let unknown = find(&spans, "tools/call nope", kind);
        let code = code.to_string();
        assert_eq!(text_attribute(unknown[0], "error.type"), Some(code.clone()));
        assert_eq!(
            text_attribute(unknown[0], "rpc.response.status_code"),
            Some(code)
        );
        assert!(matches!(unknown[0].status, Status::Error { .. }));
    }

    let tool_errors = |points: &[(Vec<(String, String)>, u64)]| {
        points.iter().any(|(attributes, count)| {
            *count >= 1
                && attributes.contains(&("error.type".into(), "tool_error".into()))
                && attributes.contains(&("gen_ai.tool.name".into(), "fails".into()))
        })
    };
    let server = otel
        .histogram("mcp.server.operation.duration", tool_errors)
        .await;
    // No per-request attribute on a metric.
    assert!(server.iter().all(|(attributes, _)| {
        attributes
            .iter()
            .all(|(k, _)| k != "jsonrpc.request.id" && k != "mcp.session.id")
    }));
    otel.histogram("mcp.client.operation.duration", tool_errors)
        .await;

    // The session's duration is recorded once it is gone.
    drop(client);
    otel.histogram("mcp.server.session.duration", |points| {
        points.iter().any(|(attributes, count)| {
            *count == 1
                && attributes.contains(&("mcp.protocol.version".into(), "2025-11-25".into()))
        })
    })
    .await;
}

#[tokio::test]
async fn over_http_the_parent_comes_from_meta_else_from_the_headers() {
    use http_requests::{init_body, post, send};
    let otel = Otel::new();
    let app = StreamableHttp::new(otel.server(), HttpOptions::default()).router("/mcp");
    let header_parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let mut init = post(&init_body(), None);
    init.headers_mut()
        .insert("traceparent", header_parent.parse().expect("header"));
    let response = within("initialize", send(&app, init)).await;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let header_trace = TraceId::from_hex("0af7651916cd43dd8448eb211c80319c").expect("hex");
    let spans = otel.trace(header_trace, 1).await;
    let init = find(&spans, "initialize", SpanKind::Server);
    assert_eq!(init[0].parent_span_id.to_string(), "b7ad6b7169203331");
    assert_eq!(
        text_attribute(init[0], "network.protocol.name").as_deref(),
        Some("http")
    );

    // Both: `_meta` is the parent, the HTTP request's context a link.
    let meta_parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {"traceparent": meta_parent}}});
    let mut list = post(&body.to_string(), Some(&session));
    list.headers_mut()
        .insert("traceparent", header_parent.parse().expect("header"));
    let _ = within("tools/list", send(&app, list)).await;
    let meta_trace = TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").expect("hex");
    let spans = otel.trace(meta_trace, 1).await;
    let listed = find(&spans, "tools/list", SpanKind::Server)[0];
    assert_eq!(listed.parent_span_id.to_string(), "00f067aa0ba902b7");
    assert_eq!(text_attribute(listed, "mcp.session.id"), Some(session));
    let links: Vec<String> = listed
        .links
        .iter()
        .map(|l| l.span_context.span_id().to_string())
        .collect();
    assert_eq!(links, ["b7ad6b7169203331"]);
}

#[tokio::test]
async fn without_a_context_the_spans_start_their_own_trace() {
    let otel = Otel::new();
    let model = Model::answering();
    let client = otel.client(&model, ClientEra::Session);
    let client = within(
        "connect",
        tracksuit::host::connect_in_memory(otel.server(), client),
    )
    .await
    .expect("connect");
    within("call", client.call_tool("fails", json!({})))
        .await
        .expect("call");
    let spans = wait_for("the call's spans", || async {
        let spans = otel.spans.get_finished_spans().expect("spans");
        let server = spans
            .iter()
            .find(|s| s.name == "tools/call fails" && s.span_kind == SpanKind::Server)?
            .clone();
        let client = spans
            .iter()
            .find(|s| s.name == "tools/call fails" && s.span_kind == SpanKind::Client)?
            .clone();
        Some((client, server))
    })
    .await;
    let (client, server) = spans;
    assert_eq!(
        client.parent_span_id,
        SpanId::INVALID,
        "the client's span is a root"
    );
    assert_eq!(
        server.span_context.trace_id(),
        client.span_context.trace_id()
    );
    assert_eq!(server.parent_span_id, client.span_context.span_id());
}

/// A plain client without `telemetry(..)` uses the global providers (no-op here): requests
/// still work and carry no `_meta` trace context.
#[tokio::test]
async fn a_client_without_providers_sends_no_context() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let record = seen.clone();
    let server = Server::new(Implementation::new("plain", "1"))
        .tool(ToolFn::new(
            Tool::new("echo", Default::default()),
            |_, _| async { Ok(CallToolResult::text("hi")) },
        ))
        .layer(tower::layer::layer_fn(move |inner| Recorder {
            inner,
            seen: record.clone(),
        }))
        .build()
        .expect("server");
    let client = within(
        "connect",
        tracksuit::host::connect_in_memory(server, Client::builder()),
    )
    .await
    .expect("connect");
    within("call", client.call_tool("echo", json!({})))
        .await
        .expect("call");
    let seen = seen.lock().expect("lock").clone();
    assert!(
        seen.iter()
            .all(|params| params["_meta"].get("traceparent").is_none()),
        "{seen:?}"
    );
}

/// Records each request's params.
#[derive(Clone)]
struct Recorder<S> {
    inner: S,
    seen: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

impl<S> tower::Service<tracksuit::middleware::McpRequest> for Recorder<S>
where
    S: tower::Service<tracksuit::middleware::McpRequest>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: tracksuit::middleware::McpRequest) -> S::Future {
        let params = request.params().cloned().unwrap_or(Value::Null);
        self.seen.lock().expect("lock").push(params);
        self.inner.call(request)
    }
}

/// With no-op providers (nothing installed): calls work; without a parent nothing is
/// propagated, and a parent the client sent still reaches the sampling request (a no-op
/// span passes its parent's context on).
#[tokio::test]
async fn noop_providers_pass_on_only_the_context_they_were_given() {
    use opentelemetry::metrics::noop::NoopMeterProvider;
    use opentelemetry::trace::noop::NoopTracerProvider;
    let noop = Telemetry::new(&NoopTracerProvider::new(), &NoopMeterProvider::new());
    let server = Server::new(Implementation::new("noop", "1"))
        .tool(ask)
        .layer(OtelLayer::with_telemetry(noop))
        .build()
        .expect("server");
    let otel = Otel::new();
    let model = Model::answering();
    let client = otel.client(&model, ClientEra::Session);
    let client = within(
        "connect",
        tracksuit::host::connect_in_memory(server, client),
    )
    .await
    .expect("connect");
    // The client's own span is a root here (no context around it): it is still a parent.
    let (trace, _, result) =
        under_root(&otel, within("call", client.call_tool("ask", json!({})))).await;
    result.expect("call");
    let spans = otel.trace(trace, 2).await;
    let call = find(&spans, "tools/call ask", SpanKind::Client)[0];
    let sent = serde_json::to_value(&model.requests()[0]).expect("params");
    let expected = format!("00-{trace}-{}-01", call.span_context.span_id());
    assert_eq!(sent["_meta"]["traceparent"], expected);

    // A client sending no context: the sampling request carries none.
    let plain = Model::answering();
    let server = Server::new(Implementation::new("noop", "1"))
        .tool(ask)
        .layer(OtelLayer::with_telemetry(Telemetry::new(
            &NoopTracerProvider::new(),
            &NoopMeterProvider::new(),
        )))
        .build()
        .expect("server");
    let quiet = Telemetry::new(&NoopTracerProvider::new(), &NoopMeterProvider::new());
    let client = plain.client().telemetry(quiet);
    let client = within(
        "connect",
        tracksuit::host::connect_in_memory(server, client),
    )
    .await
    .expect("connect");
    within("call", client.call_tool("ask", json!({})))
        .await
        .expect("call");
    let sent = serde_json::to_value(&plain.requests()[0]).expect("params");
    assert!(
        sent.get("_meta")
            .and_then(|m| m.get("traceparent"))
            .is_none(),
        "{sent}"
    );
}

/// Looks a row up inside a `tracing` span of its own (as an application's handler would).
#[mcp_tool]
async fn lookup() -> String {
    use tracing::Instrument as _;
    async { tokio::task::yield_now().await }
        .instrument(tracing::info_span!("db.query"))
        .await;
    "found".into()
}

#[tokio::test]
async fn a_handlers_tracing_spans_nest_under_the_server_span() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let otel = Otel::new();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(otel.tracers.tracer("app")));
    let _default = tracing::subscriber::set_default(subscriber);
    for era in [ClientEra::Session, ClientEra::Stateless] {
        let server = Server::new(Implementation::new("otel-test", "1"))
            .tool(lookup)
            .layer(OtelLayer::with_telemetry(otel.telemetry()))
            .build()
            .expect("server");
        let client = Client::builder().era(era).telemetry(otel.telemetry());
        let client = within(
            "connect",
            tracksuit::host::connect_in_memory(server, client),
        )
        .await
        .expect("connect");
        let (trace, _, result) =
            under_root(&otel, within("call", client.call_tool("lookup", json!({})))).await;
        assert_eq!(result.expect("call").content[0].as_text(), Some("found"));
        let spans = otel.trace(trace, 4).await;
        let served = find(&spans, "tools/call lookup", SpanKind::Server);
        let queried = find(&spans, "db.query", SpanKind::Internal);
        assert_eq!((served.len(), queried.len()), (1, 1), "{era:?}: {spans:#?}");
        assert_eq!(
            queried[0].parent_span_id,
            served[0].span_context.span_id(),
            "{era:?}: the handler's span is a child of the server span"
        );
    }
}

/// Asks the client's model once, as a task's background work.
#[mcp_tool(task_support = "optional")]
async fn ask_later(ctx: &Ctx) -> Result<String, ToolError> {
    Ok(ctx.sample().prompt("hi").await?.text())
}

#[tokio::test]
async fn a_tasks_background_requests_are_spans_under_the_call() {
    let otel = Otel::new();
    let model = Model::answering();
    let server = Server::new(Implementation::new("otel-test", "1"))
        .tool(ask_later)
        .layer(OtelLayer::with_telemetry(otel.telemetry()))
        .build()
        .expect("server");
    let client = otel.client(&model, ClientEra::Session);
    let client = within(
        "connect",
        tracksuit::host::connect_in_memory(server, client),
    )
    .await
    .expect("connect");
    let (trace, _, result) = under_root(&otel, async {
        let call = client
            .call_tool_task("ask_later", json!({}), Some(60_000))
            .await
            .expect("a task");
        within("the task's result", call.result()).await
    })
    .await;
    assert_eq!(result.expect("result").content[0].as_text(), Some("ok"));
    let spans = otel.trace(trace, 6).await;
    let served = find(&spans, "tools/call ask_later", SpanKind::Server);
    let asked = find(&spans, "sampling/createMessage", SpanKind::Client);
    assert_eq!((served.len(), asked.len()), (1, 1), "{spans:#?}");
    assert_eq!(
        asked[0].parent_span_id,
        served[0].span_context.span_id(),
        "the background request is a child of the call that started the task"
    );
}
