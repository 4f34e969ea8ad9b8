//! Long-running jobs as MCP tasks: the client adds `task: {ttl}` to `tools/call`, gets a
//! task id at once, and polls or waits for the result. With `--task-db` the tasks live in a
//! SQLite file, so finished results survive a restart of this server.
//!
//! ```text
//! cargo run -p tracksuit-examples --bin tasks -- --stdio --task-db /tmp/tasks.db
//! cargo run -p tracksuit-examples --bin tasks -- --port 8003
//! ```

use clap::Parser;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;
use tracksuit::host::http::HttpOptions;
use tracksuit::task::{SqliteTaskStore, TaskOptions, TaskStoreError};
use tracksuit::{Ctx, Elicited, Elicits, Json, Server, ServerOptions, ToolError, mcp_tool};

#[derive(Parser)]
#[command(about = "tracksuit's task-augmented tools demo")]
struct Args {
    /// Port for Streamable HTTP on 127.0.0.1.
    #[arg(long, default_value_t = 8003)]
    port: u16,
    /// Serve over stdio instead of HTTP.
    #[arg(long)]
    stdio: bool,
    /// Keep tasks in this SQLite database file (created if missing).
    #[arg(long)]
    task_db: Option<PathBuf>,
    /// The polling interval suggested to clients, in milliseconds.
    #[arg(long, default_value_t = 100)]
    poll_ms: u64,
}

/// The result of a crunch.
#[derive(Serialize, schemars::JsonSchema)]
struct Crunched {
    /// 1 + 2 + ... + n.
    sum: u64,
    /// Steps taken.
    steps: u64,
}

/// Adds 1..=n, one number per step, reporting progress. Slow on purpose.
#[mcp_tool(task_support = "optional")]
async fn crunch(
    ctx: &Ctx,
    /// How many numbers to add.
    n: u64,
    /// Milliseconds per step.
    ms_per_step: u64,
) -> Json<Crunched> {
    let mut sum = 0;
    for i in 1..=n {
        tokio::time::sleep(Duration::from_millis(ms_per_step)).await;
        sum += i;
        ctx.progress(i as f64, Some(n as f64), None).await;
    }
    Json(Crunched { sum, steps: n })
}

/// Builds the nightly report; only runs as a task.
#[mcp_tool(task_support = "required")]
async fn nightly_report() -> &'static str {
    tokio::time::sleep(Duration::from_millis(50)).await;
    "all 3 jobs succeeded"
}

/// A deployment confirmation.
#[derive(Debug, Deserialize, Serialize, Elicits)]
struct Approval {
    /// Go ahead?
    approve: bool,
}

/// Deploys `service` once a human approves (the task is `input_required` meanwhile).
#[mcp_tool(task_support = "optional")]
async fn deploy(ctx: &Ctx, service: String) -> Result<String, ToolError> {
    match ctx
        .elicit_form::<Approval>(format!("Deploy {service}?"))
        .await?
    {
        Elicited::Accept {
            value: Approval { approve: true },
            ..
        } => Ok(format!("deployed {service}")),
        _ => Err(ToolError::new(format!(
            "deployment of {service} not approved"
        ))),
    }
}

/// Asks the model for arguments for and against `topic`, in two concurrent branches.
#[mcp_tool(task_support = "optional")]
async fn debate(ctx: &Ctx, topic: String) -> Result<String, ToolError> {
    let (pro, con) = tokio::try_join!(
        ctx.branch(|b| {
            let t = topic.clone();
            async move { b.sample().prompt(format!("for {t}")).await }
        }),
        ctx.branch(|b| {
            let t = topic.clone();
            async move { b.sample().prompt(format!("against {t}")).await }
        }),
    )?;
    Ok(format!("pro: {} / con: {}", pro?.text(), con?.text()))
}

/// Always fails (the task ends `failed`).
#[mcp_tool(task_support = "optional")]
async fn flaky() -> Result<String, ToolError> {
    Err(ToolError::new("upstream timed out"))
}

fn build(args: &Args) -> Result<Server, Box<dyn std::error::Error>> {
    let options = ServerOptions::default().tasks(
        // A stdio server's one client, or a demo: listing its tasks shows no one else's.
        TaskOptions::default()
            .poll_interval(Duration::from_millis(args.poll_ms))
            .list(true),
    );
    let mut server = Server::with_options(tracksuit::crate_info!(), options)
        .tool(crunch)
        .tool(nightly_report)
        .tool(deploy)
        .tool(debate)
        .tool(flaky);
    if let Some(path) = &args.task_db {
        server = server.task_store(open_store(path)?);
    }
    Ok(server)
}

/// Opens the task database. One live process holds a database file; on a restart the
/// previous process may still be exiting, so a held file is retried for a few seconds.
fn open_store(path: &std::path::Path) -> Result<SqliteTaskStore, TaskStoreError> {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        match SqliteTaskStore::open(path) {
            Err(TaskStoreError::InUse(_)) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let server = build(&args)?;
    if args.stdio {
        server.serve_stdio().await?;
        return Ok(());
    }
    eprintln!(
        "tracksuit tasks server on http://127.0.0.1:{}/mcp",
        args.port
    );
    server
        .serve_http_with(("127.0.0.1", args.port), HttpOptions::default())
        .await?;
    Ok(())
}
