//! A plain 2026-07-28 tool call in process, for profilers and old-vs-new timing:
//! `plain_inprocess [N] [echo]` makes N `tools/call` of `add` (or `echo`) through the
//! twin's router with `tower::ServiceExt::oneshot`, on one thread, and prints the time they
//! took. Like `mrtr_inprocess`: no sockets, so two builds timed back to back
//! (`taskset -c 1`) show the server's own work per call; the driver's rows remain the
//! measure of record.
use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt as _;
use tower::ServiceExt as _;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit_bench::payload::{Requests, Tool};

fn main() {
    let mut args = std::env::args().skip(1);
    let calls: u64 = args.next().map(|n| n.parse().expect("N")).unwrap_or(50_000);
    let echo = args.next().as_deref() == Some("echo");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    rt.block_on(async move {
        let server = tracksuit_bench::tracksuit_tools::server();
        let app = StreamableHttp::new(server, HttpOptions::default()).router("/mcp");
        let requests = Requests::default();
        let (tool, name) = if echo {
            (Tool::Echo, "echo")
        } else {
            (Tool::Add, "add")
        };
        let started = std::time::Instant::now();
        for id in 0..calls {
            let request = Request::post("/mcp")
                .header("host", "127.0.0.1:9101")
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", name)
                .body(Body::from(requests.modern_call(tool, id)))
                .expect("a request");
            let response = app.clone().oneshot(request).await.expect("infallible");
            let bytes = response
                .into_body()
                .collect()
                .await
                .expect("a body")
                .to_bytes();
            assert!(bytes.len() > 10);
        }
        eprintln!("{calls} calls in {:?}", started.elapsed());
    });
}
