//! OpenTelemetry end to end (feature `otel`): a Streamable HTTP server with `OtelLayer`,
//! exporting its spans and metrics over OTLP/HTTP (protobuf) and publishing the same
//! metrics for Prometheus to scrape at `/metrics`.
//!
//! `ask` asks the client's model once (a sampling request: a span of its own under the
//! call's), `fails` answers a tool error (`error.type = tool_error`). scripts/otel.sh runs
//! it against a Python MCP client instrumented with the OpenTelemetry SDK, an OTLP receiver
//! built on `opentelemetry-proto`, and a Prometheus server.
//!
//! ```text
//! cargo run -p tracksuit-examples --features otel --bin otel -- \
//!     --port 8010 --otlp http://127.0.0.1:4318
//! ```

use axum::routing::get;
use clap::Parser;
use opentelemetry::global;
use opentelemetry_otlp::{MetricExporter, SpanExporter, WithExportConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use std::time::Duration;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::otel::OtelLayer;
use tracksuit::protocol::Implementation;
use tracksuit::{Ctx, Server, ToolError, mcp_tool};

#[derive(Parser)]
struct Args {
    /// Port for Streamable HTTP (`/mcp`) and Prometheus (`/metrics`) on 127.0.0.1.
    #[arg(long, default_value_t = 8010)]
    port: u16,
    /// The OTLP/HTTP endpoint (`/v1/traces` and `/v1/metrics` are added).
    #[arg(long, default_value = "http://127.0.0.1:4318")]
    otlp: String,
    /// How often metrics are pushed over OTLP, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    metrics_interval_ms: u64,
}

/// Asks the client's model for a word.
#[mcp_tool]
async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
    Ok(ctx.sample().prompt("Say a word.").await?.text())
}

/// Always fails (a tool error, not a protocol error).
#[mcp_tool]
async fn fails() -> Result<String, ToolError> {
    Err(ToolError::new("this tool always fails"))
}

/// The tracer and meter providers, installed globally: OTLP for both, and a Prometheus
/// registry the `/metrics` route encodes.
fn install(
    args: &Args,
) -> Result<(SdkTracerProvider, SdkMeterProvider, prometheus::Registry), Box<dyn std::error::Error>>
{
    let resource = Resource::builder()
        .with_service_name("tracksuit-otel-example")
        .build();
    let spans = SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("{}/v1/traces", args.otlp))
        .build()?;
    // Spans leave every 100 ms: the end-to-end test waits for them.
    let batch = BatchConfigBuilder::default()
        .with_scheduled_delay(Duration::from_millis(100))
        .build();
    let tracers = SdkTracerProvider::builder()
        .with_resource(resource.clone())
        .with_span_processor(
            BatchSpanProcessor::builder(spans)
                .with_batch_config(batch)
                .build(),
        )
        .build();
    let metrics = MetricExporter::builder()
        .with_http()
        .with_endpoint(format!("{}/v1/metrics", args.otlp))
        .build()?;
    let registry = prometheus::Registry::new();
    let scraped = opentelemetry_prometheus::exporter()
        .with_registry(registry.clone())
        .build()?;
    let meters = SdkMeterProvider::builder()
        .with_resource(resource)
        .with_reader(
            PeriodicReader::builder(metrics)
                .with_interval(Duration::from_millis(args.metrics_interval_ms))
                .build(),
        )
        .with_reader(scraped)
        .build();
    global::set_tracer_provider(tracers.clone());
    global::set_meter_provider(meters.clone());
    Ok((tracers, meters, registry))
}

/// The Prometheus text exposition of `registry`.
fn exposition(registry: &prometheus::Registry) -> String {
    use prometheus::Encoder as _;
    let mut out = Vec::new();
    match prometheus::TextEncoder::new().encode(&registry.gather(), &mut out) {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(e) => format!("# encoding failed: {e}\n"),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let (tracers, meters, registry) = install(&args)?;
    // Built after the providers are installed: its instruments come from them.
    let server = Server::new(Implementation::new("tracksuit-otel-example", "0.1.0"))
        .tool(ask)
        .tool(fails)
        .layer(OtelLayer::new())
        .build()?;
    let app = StreamableHttp::new(server, HttpOptions::default())
        .router("/mcp")
        .route(
            "/metrics",
            get(move || std::future::ready(exposition(&registry))),
        );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
    eprintln!("otel example: http://127.0.0.1:{}/mcp, /metrics", args.port);
    // Spans leave in batches every 100 ms and metrics every interval while it serves; the
    // test stops the process once it has seen them.
    let served = tracksuit::host::http::serve(listener, app).await;
    let _ = (tracers.force_flush(), meters.force_flush());
    served?;
    Ok(())
}
