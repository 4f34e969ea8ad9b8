//! One replica of a server scaled out behind a load balancer (feature `postgres`): tasks in
//! PostgreSQL (leased to the replica running them), list changes shared over PostgreSQL
//! `LISTEN`/`NOTIFY`, and the `requestState` key from `TRACKSUIT_STATE_KEYS`, the same on
//! every replica. `scripts/scale-out.sh` runs three behind HAProxy; docs/scaling.md explains.
//!
//! ```text
//! export TRACKSUIT_STATE_KEYS="$(head -c 32 /dev/urandom | base64)"
//! cargo run -p tracksuit-examples --features postgres --bin replica -- \
//!     --port 8311 --name r1 --database-url postgres://tracksuit@127.0.0.1:5432/postgres
//! ```

use clap::Parser;
use std::sync::Arc;
use std::time::Duration;
use tracksuit::events::PgEventBus;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::task::{PostgresOptions, PostgresTaskStore, TaskOptions};
use tracksuit::{Ctx, Elicits, PhaseCtx, Principal, Server, ServerOptions, ToolError, mcp_tool};

#[derive(Parser)]
#[command(about = "one tracksuit replica on a shared PostgreSQL")]
struct Args {
    /// Port for Streamable HTTP on 127.0.0.1.
    #[arg(long)]
    port: u16,
    /// This replica's name (its lease owner id, and what `whoami` answers).
    #[arg(long)]
    name: String,
    /// The shared database (`postgres://user@host:port/db`).
    #[arg(long)]
    database_url: String,
    /// How long a task lease lasts unless renewed, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    lease_ms: u64,
    /// Where `journey` logs its `before` and `after` phases (`before.log`, `after.log`,
    /// one line per run naming the replica), shared by the replicas of a test.
    #[arg(long)]
    log_dir: Option<std::path::PathBuf>,
    /// Takes a request's principal from its `X-User` header (tests only: any client can
    /// claim any name; in production authenticate with `HttpOptions::auth`). Without
    /// authentication a 2025-11-25 task belongs to its session, which dies with its
    /// replica; a principal's tasks outlive both.
    #[arg(long)]
    trust_user_header: bool,
}

/// Where `journey` logs its phases.
static LOG_DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

fn log_phase(file: &str) -> Result<(), ToolError> {
    use std::io::Write as _;
    let Some(dir) = LOG_DIR.get() else {
        return Ok(());
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(file))
        .map_err(|e| ToolError::new(e.to_string()))?;
    writeln!(f, "{}", name()).map_err(|e| ToolError::new(e.to_string()))
}

/// The replica's name, set once at start.
static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn name() -> String {
    NAME.get().cloned().unwrap_or_default()
}

/// Which replica answered.
#[mcp_tool]
async fn whoami() -> String {
    name()
}

/// A word from the user.
#[derive(serde::Deserialize, Elicits)]
struct Word {
    /// A word
    word: String,
}

/// Asks the user two words, one round each, and says which replica finished the call.
#[mcp_tool]
async fn two_words(ctx: &Ctx) -> Result<String, ToolError> {
    let first = ctx.elicit_form::<Word>("First word?").await?;
    let second = ctx.elicit_form::<Word>("Second word?").await?;
    let word = |w: tracksuit::Elicited<Word>| w.accepted().map(|w| w.word).unwrap_or_default();
    Ok(format!(
        "{} {} (finished on {})",
        word(first),
        word(second),
        name()
    ))
}

/// A handoff tool that asks the user two stops between a `before` and an `after` phase
/// (each logged with the replica that ran it). Run as a task of the tasks extension it
/// survives the death of its replica: another resumes it by replay — `before` is not run
/// again, `after` runs once.
struct Journey;

/// A journey of two stops.
#[mcp_tool(name = "journey", task_support = "optional")]
impl Journey {
    async fn before(args: Start, _ctx: &PhaseCtx) -> Result<Origin, ToolError> {
        log_phase("before.log")?;
        Ok(Origin(args.from))
    }

    async fn client(state: &Origin, ctx: &Ctx) -> Result<Vec<String>, ToolError> {
        let mut stops = vec![state.0.clone()];
        for n in 1..=2 {
            let answer = ctx.elicit_form::<Word>(format!("stop {n}?")).await?;
            stops.push(answer.accepted().map(|w| w.word).unwrap_or_default());
        }
        Ok(stops)
    }

    async fn after(
        _state: Origin,
        stops: Vec<String>,
        _ctx: &PhaseCtx,
    ) -> Result<String, ToolError> {
        log_phase("after.log")?;
        Ok(format!("{} (finished on {})", stops.join(" / "), name()))
    }
}

/// What `before` hands on: where the journey starts.
#[derive(serde::Serialize, serde::Deserialize)]
struct Origin(String);

/// Where the journey starts.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    /// The starting point
    from: String,
}

/// Tells every replica's listeners that the tool list changed; answers this replica's name.
#[mcp_tool]
async fn announce(ctx: &Ctx) -> String {
    ctx.server().notify_tools_list_changed();
    name()
}

/// Runs for `ms` milliseconds (or until cancelled), then answers this replica's name.
#[mcp_tool(task_support = "optional")]
async fn slow(
    /// How long to run.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    name()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let _ = NAME.set(args.name.clone());
    if let Some(dir) = args.log_dir.clone() {
        let _ = LOG_DIR.set(dir);
    }
    let io = |e: &dyn std::fmt::Display| std::io::Error::other(e.to_string());
    let store = PostgresTaskStore::connect_with(
        &args.database_url,
        PostgresOptions::default()
            .owner(&args.name)
            .lease(Duration::from_millis(args.lease_ms)),
    )
    .await
    .map_err(|e| io(&e))?;
    let bus = PgEventBus::connect(&args.database_url)
        .await
        .map_err(|e| io(&e))?;
    let options = ServerOptions::default()
        .tasks(TaskOptions::default().poll_interval(Duration::from_millis(100)));
    let server = Server::with_options(tracksuit::crate_info!(), options)
        .tool(whoami)
        .tool(two_words)
        .tool(announce)
        .tool(slow)
        .tool(Journey)
        .task_store(store)
        .event_bus(Arc::new(bus));
    eprintln!(
        "replica {} on http://127.0.0.1:{}/mcp",
        args.name, args.port
    );
    let options = HttpOptions::default();
    if !args.trust_user_header {
        return server
            .serve_http_with(("127.0.0.1", args.port), options)
            .await;
    }
    let server = server.build().map_err(|e| io(&e))?;
    let app = StreamableHttp::new(server, options.clone())
        .router("/mcp")
        .layer(axum::middleware::from_fn(user_from_header));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
    tracksuit::host::http::serve_with(listener, app, &options).await
}

/// The `X-User` header as the request's principal (`--trust-user-header`).
async fn user_from_header(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let user = request
        .headers()
        .get("x-user")
        .and_then(|v| v.to_str().ok());
    if let Some(user) = user.map(str::to_owned) {
        request.extensions_mut().insert(Arc::new(
            Principal::new(user).with_issuer("urn:replica:x-user"),
        ));
    }
    next.run(request).await
}
