//! What `OtelLayer` costs per call with no exporter: the same `tools/call` served in-process
//! over the in-memory transport (decoded messages in and out, as bench/'s floor does) by a
//! server without layers, with a layer that does nothing (the seam's own cost), with
//! `OtelLayer` on the global no-op providers (nothing installed), and with `OtelLayer` on an
//! SDK tracer provider that has no exporter. One thread; the variants alternate, and each
//! figure is the best of the rounds.
//!
//! ```text
//! cargo run --release -p tracksuit --features otel --example otel_bench [ITERATIONS] [ROUNDS] [ONLY]
//! ```

use opentelemetry::metrics::noop::NoopMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::hint::black_box;
use std::time::{Duration, Instant};
use tracksuit::otel::{OtelLayer, Telemetry};
use tracksuit::protocol::{CallToolResult, Implementation, JsonRpcMessage, Tool};
use tracksuit::transport::{MessageSink, MessageStream, Transport, memory};
use tracksuit::{Server, ToolFn};

#[derive(Clone, Copy, Debug)]
enum Variant {
    NoLayer,
    IdentityLayer,
    OtelNoop,
    OtelSdkNoExporter,
}

fn server(variant: Variant) -> Server {
    let echo = ToolFn::new(
        Tool::new("echo", Default::default()),
        |_, args| async move {
            let text = args
                .get("text")
                .and_then(|t| t.as_str())
                .unwrap_or_default()
                .to_owned();
            Ok(CallToolResult::text(text))
        },
    );
    let server = Server::new(Implementation::new("otel-bench", "1")).tool(echo);
    match variant {
        Variant::NoLayer => server,
        Variant::IdentityLayer => server.layer(tower::layer::util::Identity::new()),
        Variant::OtelNoop => server.layer(OtelLayer::new()),
        Variant::OtelSdkNoExporter => {
            let tracers = SdkTracerProvider::builder().build();
            let telemetry = Telemetry::new(&tracers, &NoopMeterProvider::new());
            server.layer(OtelLayer::with_telemetry(telemetry))
        }
    }
}

fn message(line: &str) -> JsonRpcMessage {
    serde_json::from_str(line).expect("a message")
}

/// Per-call time of `variant` over `iterations` calls (after a tenth as many to warm up).
async fn per_call(variant: Variant, iterations: u32) -> Duration {
    let (server_end, client_end) = memory::pair();
    tokio::spawn(server(variant).serve(server_end));
    let (mut rx, mut tx) = client_end.split();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
    tx.send(message(init)).await.expect("send");
    let _ = rx.next().await;
    tx.send(message(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ))
    .await
    .expect("send");
    let call = message(
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#,
    );
    // The calling loop is a task beside the server's, as in bench/'s floor.
    let client = tokio::spawn(async move {
        let mut run = async |n: u32| {
            for _ in 0..n {
                tx.send(call.clone()).await.expect("send");
                match rx.next().await {
                    Some(Ok(JsonRpcMessage::Response(r))) => {
                        black_box(r);
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
        };
        run(iterations / 10).await;
        let started = Instant::now();
        run(iterations).await;
        started.elapsed() / iterations
    });
    client.await.expect("the calling loop")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let iterations: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let rounds: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(7);
    // A variant's name: only that one runs (to profile it).
    let only = args.next();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let variants = [
        Variant::NoLayer,
        Variant::IdentityLayer,
        Variant::OtelNoop,
        Variant::OtelSdkNoExporter,
    ];
    let mut best = [Duration::MAX; 4];
    for _ in 0..rounds {
        for (i, variant) in variants.iter().enumerate() {
            if only.as_ref().is_some_and(|o| *o != format!("{variant:?}")) {
                continue;
            }
            let t = runtime.block_on(per_call(*variant, iterations));
            best[i] = best[i].min(t);
        }
    }
    let base = best[0].as_secs_f64();
    println!("| variant | per call (best of {rounds} × {iterations}) | ÷ no layer |");
    println!("|---|---|---|");
    for (variant, t) in variants
        .iter()
        .zip(best)
        .filter(|(_, t)| *t < Duration::MAX)
    {
        println!(
            "| {variant:?} | {:.2} µs | {:.2}× |",
            t.as_secs_f64() * 1e6,
            t.as_secs_f64() / base
        );
    }
}
