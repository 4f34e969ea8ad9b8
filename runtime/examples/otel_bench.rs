//! What `OtelLayer` costs per call with no exporter: the same `tools/call` served in-process,
//! over the in-memory transport (decoded messages in and out, as bench/'s floor does) and
//! over a line transport on an in-process pipe (JSON text in and out), and over a line
//! transport on a Unix socket pair (JSON text and system calls, as on stdio), by a server
//! without layers, with a layer that does nothing (the seam's own cost), with
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

/// Per-call time of `variant` over a line transport: request lines written, response lines
/// read, as a stdio client does.
async fn per_call_lines(variant: Variant, iterations: u32, socket: bool) -> Duration {
    if socket {
        let (server_end, client_end) = tokio::net::UnixStream::pair().expect("a socket pair");
        lines_over(variant, iterations, server_end, client_end).await
    } else {
        let (server_end, client_end) = tokio::io::duplex(64 * 1024);
        lines_over(variant, iterations, server_end, client_end).await
    }
}

/// [`per_call_lines`] over the two ends of a byte stream.
async fn lines_over<S>(variant: Variant, iterations: u32, server_end: S, client_end: S) -> Duration
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
{
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
    let (r, w) = tokio::io::split(server_end);
    tokio::spawn(server(variant).serve(tracksuit::transport::io::LineTransport::new(r, w)));
    let (r, mut w) = tokio::io::split(client_end);
    let mut lines = BufReader::new(r).lines();
    let init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}\n";
    w.write_all(init.as_bytes()).await.expect("write");
    let _ = lines.next_line().await;
    w.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .expect("write");
    let call = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}\n";
    let client = tokio::spawn(async move {
        let mut run = async |n: u32| {
            for _ in 0..n {
                w.write_all(call).await.expect("write");
                let line = lines.next_line().await.expect("read").expect("a line");
                black_box(line);
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
    let modes = [
        ("in-memory transport (decoded messages)", 0),
        ("line transport on an in-process pipe (JSON text)", 1),
        (
            "line transport on a Unix socket pair (JSON text and system calls, as on stdio)",
            2,
        ),
    ];
    for (title, mode) in modes {
        let mut best = [Duration::MAX; 4];
        for _ in 0..rounds {
            for (i, variant) in variants.iter().enumerate() {
                if only.as_ref().is_some_and(|o| *o != format!("{variant:?}")) {
                    continue;
                }
                let t = match mode {
                    0 => runtime.block_on(per_call(*variant, iterations)),
                    _ => runtime.block_on(per_call_lines(*variant, iterations, mode == 2)),
                };
                best[i] = best[i].min(t);
            }
        }
        let base = best[0].as_secs_f64();
        println!("\n{title}\n");
        println!("| variant | per call (best of {rounds} × {iterations}) | ÷ no layer |");
        println!("|---|---|---|");
        let measured = variants
            .iter()
            .zip(best)
            .filter(|(_, t)| *t < Duration::MAX);
        for (variant, t) in measured {
            let (micros, ratio) = (t.as_secs_f64() * 1e6, t.as_secs_f64() / base);
            println!("| {variant:?} | {micros:.2} µs | {ratio:.2}× |");
        }
    }
}
