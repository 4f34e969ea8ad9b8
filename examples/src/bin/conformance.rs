//! The server the official MCP conformance suite runs against
//! (`npx @modelcontextprotocol/conformance server --url http://127.0.0.1:8001/mcp`); its
//! fixtures are `tracksuit_examples::conformance`.
//!
//! ```text
//! cargo run -p tracksuit-examples --bin conformance -- --port 8001   # Streamable HTTP
//! cargo run -p tracksuit-examples --bin conformance -- --stdio       # stdio
//! cargo run -p tracksuit-examples --bin conformance -- --stateless   # HTTP without sessions
//! cargo run -p tracksuit-examples --bin conformance -- --scope-challenge  # conformance#481
//! ```

use clap::Parser;
use tracksuit_examples::conformance::{self, Fixtures};

#[derive(Parser)]
#[command(about = "tracksuit's conformance-suite server")]
struct Args {
    /// Port for Streamable HTTP on 127.0.0.1.
    #[arg(long, default_value_t = 8001)]
    port: u16,
    /// Serve over stdio instead of HTTP.
    #[arg(long)]
    stdio: bool,
    /// Answer POSTs with JSON bodies instead of SSE streams.
    #[arg(long)]
    json_response: bool,
    /// Serve Streamable HTTP without sessions (2025-11-25 stateless mode; the 2026 wire is
    /// the same): each POST is served on its own.
    #[arg(long)]
    stateless: bool,
    /// Serve the scope-challenge instance (`sep-2350-server-scope-challenge`): every
    /// request needs the token `mcp-conformance-scope-low` or `-full`.
    #[arg(long)]
    scope_challenge: bool,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let url = format!("http://127.0.0.1:{}/mcp", args.port);
    let fixtures = Fixtures {
        scope_challenge: args.scope_challenge.then(|| url.clone()),
    };
    let server = conformance::server(&fixtures)?;
    if args.stdio {
        return server.serve_stdio().await;
    }
    eprintln!("tracksuit conformance server on {url}");
    let options =
        conformance::http_options(&fixtures, args.json_response).stateless(args.stateless);
    server
        .serve_http_with(("127.0.0.1", args.port), options)
        .await
}
