//! The benchmark server on tracksuit: `echo` (text) and `add` (structured output).
//! `--stdio`, or Streamable HTTP on `--port` with `GET /stats` (live sessions, requests in
//! flight, running tasks) for the robustness run.

use axum::routing::get;
use clap::Parser;
use tracksuit::transport::http::{HttpOptions, StreamableHttp};

#[derive(Parser)]
struct Args {
    #[arg(long)]
    stdio: bool,
    #[arg(long, default_value_t = 9101)]
    port: u16,
    /// Serve with plain `axum::serve` (no TCP_NODELAY).
    #[arg(long)]
    no_nodelay: bool,
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let server = tracksuit_bench::tracksuit_tools::server();
        if args.stdio {
            return server.serve_stdio().await;
        }
        let stats = {
            let server = server.clone();
            move || {
                let server = server.clone();
                async move {
                    axum::Json(serde_json::json!({
                        "sessions": server.session_count(),
                        "retained": server.retained_sessions(),
                        "inFlight": server.in_flight_requests(),
                        "tasks": server.running_tasks(),
                    }))
                }
            }
        };
        let app = StreamableHttp::new(server, HttpOptions::default())
            .router("/mcp")
            .route("/stats", get(stats));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
        if args.no_nodelay {
            // Plain axum::serve: Nagle's algorithm left on, to show there is no cliff.
            return axum::serve(listener, app).await;
        }
        tracksuit::transport::http::serve(listener, app).await
    })
}
