//! Task rows of the bench (feature `tasks`): tasks of the MCP 2026-07-28 tasks extension
//! over Streamable HTTP, on the in-memory, SQLite and PostgreSQL stores, one replica or
//! several behind a load balancer. `scripts/bench-tasks.sh` runs it (and `scripts/bench.sh`
//! runs that).
//!
//! ```text
//! task_bench serve --port P --store memory|sqlite|postgres [--path FILE] [--database-url URL] [--name r1]
//! task_bench load --port P --label "PostgreSQL, 3 replicas" [--clients 16] [--seconds 5]
//! ```
//!
//! `load` prints one Markdown table row: create→complete throughput (a client calls the
//! `quick` tool, which becomes a task, and polls `tasks/get` until it is `completed`;
//! tasks per second over every client, and the p50 / p99 of one task from the call to the
//! poll that saw it completed), then `tasks/get` on finished tasks (requests per second and
//! p50 / p99).

use bytes::Bytes;
use clap::{Parser, Subcommand};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracksuit::task::{InMemoryTaskStore, PostgresOptions, PostgresTaskStore, SqliteTaskStore};
use tracksuit::{Server, ServerOptions, mcp_tool};
use tracksuit_bench::stats::Latencies;

#[derive(Parser)]
#[command(about = "task rows of the tracksuit bench")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serves `quick` as a task tool on 127.0.0.1:PORT.
    Serve {
        #[arg(long)]
        port: u16,
        /// `memory`, `sqlite` or `postgres`.
        #[arg(long)]
        store: String,
        /// The SQLite file.
        #[arg(long)]
        path: Option<String>,
        /// The PostgreSQL database.
        #[arg(long)]
        database_url: Option<String>,
        /// The replica's lease owner id (PostgreSQL).
        #[arg(long, default_value = "r1")]
        name: String,
    },
    /// Measures a server (or a balancer in front of several) and prints a table row.
    Load {
        #[arg(long)]
        port: u16,
        /// The row's first cell.
        #[arg(long)]
        label: String,
        /// Concurrent clients, each on its own keep-alive connection.
        #[arg(long, default_value_t = 16)]
        clients: usize,
        /// Seconds per measured phase (after a one-second warm-up).
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
    },
}

/// Returns `n` at once (run as a task).
#[mcp_tool(task_support = "optional")]
async fn quick(
    /// Any number.
    n: u64,
) -> String {
    n.to_string()
}

async fn serve(
    port: u16,
    store: &str,
    path: Option<String>,
    url: Option<String>,
    name: String,
) -> io::Result<()> {
    let io = |e: &dyn std::fmt::Display| io::Error::other(e.to_string());
    let server =
        Server::with_options(tracksuit::crate_info!(), ServerOptions::default()).tool(quick);
    let server = match store {
        "memory" => server.task_store(InMemoryTaskStore::new()),
        "sqlite" => {
            let path = path.ok_or_else(|| io(&"--path is required for sqlite"))?;
            server.task_store(SqliteTaskStore::open(&path).map_err(|e| io(&e))?)
        }
        "postgres" => {
            let url = url.ok_or_else(|| io(&"--database-url is required for postgres"))?;
            let store =
                PostgresTaskStore::connect_with(&url, PostgresOptions::default().owner(name))
                    .await
                    .map_err(|e| io(&e))?;
            let bus = tracksuit::events::PgEventBus::connect(&url)
                .await
                .map_err(|e| io(&e))?;
            server.task_store(store).event_bus(Arc::new(bus))
        }
        other => return Err(io(&format!("unknown store {other:?}"))),
    };
    server.serve_http(("127.0.0.1", port)).await
}

/// A sessionless 2026-07-28 client of the tasks extension on one keep-alive connection.
struct Client {
    sender: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    next_id: u64,
}

impl Client {
    async fn open(port: u16) -> io::Result<Client> {
        let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        stream.set_nodelay(true)?;
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(io::Error::other)?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let host = HeaderValue::from_str(&format!("127.0.0.1:{port}")).map_err(io::Error::other)?;
        Ok(Client {
            sender,
            host,
            next_id: 1,
        })
    }

    /// One request; its JSON-RPC result (an error is an `Err`).
    async fn rpc(&mut self, method: &str, name: &str, mut params: Value) -> io::Result<Value> {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}},
            },
        });
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let request = Request::builder()
            .method(Method::POST)
            .uri("/mcp")
            .header(HOST, self.host.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .header("mcp-name", name)
            .body(Full::new(Bytes::from(body.to_string())))
            .map_err(io::Error::other)?;
        self.sender.ready().await.map_err(io::Error::other)?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(io::Error::other)?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(io::Error::other)?
            .to_bytes();
        let text = String::from_utf8_lossy(&body);
        let json = text
            .lines()
            .find_map(|l| l.strip_prefix("data:").map(str::trim))
            .unwrap_or(&text);
        let reply: Value = serde_json::from_str(json)
            .map_err(|e| io::Error::other(format!("HTTP {status}: {e}: {text}")))?;
        if status != StatusCode::OK {
            return Err(io::Error::other(format!("HTTP {status}: {text}")));
        }
        reply
            .get("result")
            .cloned()
            .ok_or_else(|| io::Error::other(format!("{method} failed: {reply}")))
    }

    /// Creates a task and polls it until it completes; returns its id.
    async fn create_and_complete(&mut self, n: u64) -> io::Result<String> {
        let created = self
            .rpc(
                "tools/call",
                "quick",
                json!({"name": "quick", "arguments": {"n": n}}),
            )
            .await?;
        let id = created["taskId"]
            .as_str()
            .ok_or_else(|| io::Error::other(format!("not a task: {created}")))?
            .to_owned();
        loop {
            let got = self.rpc("tasks/get", &id, json!({"taskId": id})).await?;
            match got["status"].as_str() {
                Some("completed") => return Ok(id),
                Some("working") => tokio::task::yield_now().await,
                _ => return Err(io::Error::other(format!("task {id}: {got}"))),
            }
        }
    }
}

/// What one phase measured over every client.
struct Phase {
    done: u64,
    elapsed: Duration,
    latencies: Latencies,
}

impl Phase {
    fn rate(&self) -> f64 {
        self.done as f64 / self.elapsed.as_secs_f64()
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Runs `clients` loops of `op` for a warm-up second, then `seconds`; counts and times the
/// operations that ended in the measured window.
async fn phase<F, Fut>(
    clients: Vec<Client>,
    seconds: f64,
    op: F,
) -> io::Result<(Phase, Vec<Client>)>
where
    F: Fn(Client, u64) -> Fut + Send + Sync + Clone + 'static,
    Fut: std::future::Future<Output = (Client, io::Result<()>)> + Send,
{
    let warm = Instant::now() + Duration::from_secs(1);
    let end = warm + Duration::from_secs_f64(seconds);
    let mut set = tokio::task::JoinSet::new();
    for (k, client) in clients.into_iter().enumerate() {
        let op = op.clone();
        set.spawn(async move {
            let mut client = client;
            let mut latencies = Latencies::with_capacity(1024);
            let mut done = 0u64;
            let mut n = (k as u64) << 32;
            loop {
                let started = Instant::now();
                if started >= end {
                    return Ok::<_, io::Error>((client, done, latencies));
                }
                n += 1;
                let (back, outcome) = op(client, n).await;
                client = back;
                outcome?;
                if started >= warm && Instant::now() <= end {
                    done += 1;
                    latencies.record(started.elapsed());
                }
            }
        });
    }
    let mut all = Latencies::default();
    let mut done = 0;
    let mut back = Vec::new();
    while let Some(joined) = set.join_next().await {
        let (client, n, latencies) = joined.map_err(io::Error::other)??;
        done += n;
        all.extend(latencies);
        back.push(client);
    }
    Ok((
        Phase {
            done,
            elapsed: Duration::from_secs_f64(seconds),
            latencies: all,
        },
        back,
    ))
}

async fn load(port: u16, label: &str, clients: usize, seconds: f64) -> io::Result<()> {
    let mut conns = Vec::with_capacity(clients);
    for _ in 0..clients {
        conns.push(Client::open(port).await?);
    }
    let finished: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let keep = finished.clone();
    let (mut create, conns) = phase(conns, seconds, move |mut client, n| {
        let keep = keep.clone();
        async move {
            let outcome = client.create_and_complete(n).await.map(|id| {
                let mut ids = keep.lock().unwrap_or_else(|p| p.into_inner());
                if ids.len() < 4096 {
                    ids.push(id);
                }
            });
            (client, outcome)
        }
    })
    .await?;
    let ids: Arc<Vec<String>> =
        Arc::new(finished.lock().unwrap_or_else(|p| p.into_inner()).clone());
    if ids.is_empty() {
        return Err(io::Error::other("no task completed"));
    }
    let (mut get, _) = phase(conns, seconds, move |mut client, n| {
        let ids = ids.clone();
        async move {
            let id = &ids[(n as usize) % ids.len()];
            let outcome = client
                .rpc("tasks/get", id, json!({"taskId": id}))
                .await
                .and_then(|got| match got["status"].as_str() {
                    Some("completed") => Ok(()),
                    _ => Err(io::Error::other(format!("task {id}: {got}"))),
                });
            (client, outcome)
        }
    })
    .await?;
    println!(
        "| {label} | {:.0} | {} / {} | {:.0} | {} / {} |",
        create.rate(),
        ms(create.latencies.quantile(0.5)),
        ms(create.latencies.quantile(0.99)),
        get.rate(),
        ms(get.latencies.quantile(0.5)),
        ms(get.latencies.quantile(0.99)),
    );
    Ok(())
}

#[tokio::main]
async fn main() -> io::Result<()> {
    match Args::parse().command {
        Command::Serve {
            port,
            store,
            path,
            database_url,
            name,
        } => serve(port, &store, path, database_url, name).await,
        Command::Load {
            port,
            label,
            clients,
            seconds,
        } => load(port, &label, clients, seconds).await,
    }
}
