//! The benchmark server on tracksuit: `echo` (text) and `add` (structured output).
//! `--stdio`, or Streamable HTTP on `--port` with `GET /stats` (live sessions, requests in
//! flight, running tasks) and `GET /heap` (glibc heap in use, RSS; `/heap/trim` also RSS
//! after `malloc_trim(0)`) for the robustness run.

use axum::routing::get;
use clap::Parser;
use tracksuit::host::http::{HttpOptions, StreamableHttp};

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
    serve(true)
}

/// Runs the twin; `glibc_heap` says whether `/heap` may ask glibc malloc (not when another
/// global allocator is in place, as in `tracksuit_twin_jemalloc`).
pub fn serve(glibc_heap: bool) -> std::io::Result<()> {
    serve_with(glibc_heap, tracksuit_bench::tracksuit_tools::server)
}

/// Runs the twin serving what `server` builds (inside the runtime: a layer may need one).
pub fn serve_with(
    glibc_heap: bool,
    server: impl FnOnce() -> tracksuit::ServerHandle + Send,
) -> std::io::Result<()> {
    let args = Args::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let server = server();
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
            .route("/stats", get(stats))
            .route(
                "/heap",
                get(move || async move { axum::Json(heap::report(glibc_heap, false)) }),
            )
            .route(
                "/heap/trim",
                get(move || async move { axum::Json(heap::report(glibc_heap, true)) }),
            );
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
        if args.no_nodelay {
            // Plain axum::serve: Nagle's algorithm left on, to show there is no cliff.
            return axum::serve(listener, app).await;
        }
        tracksuit::host::http::serve(listener, app).await
    })
}

/// What the allocator holds: the robustness run asks, to tell memory still in use from
/// memory freed but kept by glibc malloc for reuse.
mod heap {
    /// `{"rssKiB", "anonKiB"}` (all resident memory, and the anonymous part: the heap and
    /// stacks, not the binary's pages); under glibc malloc also `"inUseKiB"`, and with
    /// `trim` the same two RSS figures after `malloc_trim(0)` hands free pages back.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    pub fn report(glibc: bool, trim: bool) -> serde_json::Value {
        let mut report = serde_json::json!({
            "rssKiB": status_kib("VmRSS:"),
            "anonKiB": status_kib("RssAnon:"),
        });
        if glibc {
            // SAFETY: mallinfo2 only reads the allocator's statistics.
            let info = unsafe { libc::mallinfo2() };
            report["inUseKiB"] = ((info.uordblks + info.hblkhd) / 1024).into();
            if trim {
                // SAFETY: malloc_trim releases free memory; it is safe to call at any time.
                unsafe { libc::malloc_trim(0) };
                report["rssAfterTrimKiB"] = status_kib("VmRSS:").into();
                report["anonAfterTrimKiB"] = status_kib("RssAnon:").into();
            }
        }
        report
    }

    /// Not glibc on Linux: nothing to report.
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    pub fn report(_glibc: bool, _trim: bool) -> serde_json::Value {
        serde_json::Value::Null
    }

    /// A `/proc/self/status` figure in KiB.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn status_kib(key: &str) -> u64 {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .and_then(|v| v.split_whitespace().next()?.parse().ok())
            })
            .unwrap_or(0)
    }
}
