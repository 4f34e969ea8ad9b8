//! The robustness run: many concurrent sessions misbehaving at random — dropping the
//! connection mid-call, cancelling calls, starting tasks and abandoning or cancelling
//! them — then checking the server's own counts (`GET /stats`) and memory.

use crate::http_load::HttpSession;
use crate::payload::{Requests, Tool};
use crate::process::ServerSpec;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// What the robustness run saw.
#[derive(Debug, Clone, Default)]
pub struct RobustnessFigures {
    /// Concurrent sessions per round.
    pub sessions: usize,
    /// Rounds run one after the other.
    pub rounds: usize,
    /// Completed calls.
    pub calls: u64,
    /// Connections dropped mid-call.
    pub disconnects: u64,
    /// `notifications/cancelled` sent for in-flight calls.
    pub cancellations: u64,
    /// Task-augmented calls started.
    pub tasks_started: u64,
    /// `tasks/cancel` sent.
    pub tasks_cancelled: u64,
    /// Errors the driver saw where the server should have answered.
    pub unexpected_errors: u64,
    /// RSS after a warm-up (a small round of the same misbehaviour), before the run.
    pub rss_baseline_kib: u64,
    /// RSS sampled at the busiest point.
    pub rss_peak_kib: u64,
    /// RSS once everything settled, after each round.
    pub rss_after_rounds: Vec<u64>,
    /// The twin's `/heap` before the run (after the baseline RSS was read) and after the
    /// last round: heap in use, RSS, RSS after `malloc_trim(0)`.
    pub heap_before: serde_json::Value,
    /// See `heap_before`.
    pub heap_after: serde_json::Value,
    /// glibc heap in use (KiB) after each round, read beside `rss_after_rounds`.
    pub heap_in_use_after_rounds: Vec<u64>,
    /// Anonymous RSS (KiB: heap and stacks, not the binary's pages) after each round.
    pub anon_after_rounds: Vec<u64>,
    /// `/stats` once everything settled.
    pub stats_after: serde_json::Value,
    /// How long the counts took to reach zero.
    pub settle: Duration,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// The twin's `/heap` when it had just started, before the warm-up.
    pub heap_cold: serde_json::Value,
}

#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    disconnects: AtomicU64,
    cancellations: AtomicU64,
    tasks_started: AtomicU64,
    tasks_cancelled: AtomicU64,
    unexpected: AtomicU64,
}

async fn stats(port: u16) -> io::Result<serde_json::Value> {
    get_json(port, "/stats").await
}

async fn get_json(port: u16, path: &str) -> io::Result<serde_json::Value> {
    use http_body_util::BodyExt;
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(io::Error::other)?;
    tokio::spawn(conn);
    let request = hyper::Request::get(path)
        .header(hyper::header::HOST, format!("127.0.0.1:{port}"))
        .body(http_body_util::Empty::<bytes::Bytes>::new())
        .map_err(io::Error::other)?;
    let body = sender
        .send_request(request)
        .await
        .map_err(io::Error::other)?
        .into_body()
        .collect()
        .await
        .map_err(io::Error::other)?
        .to_bytes();
    serde_json::from_slice(&body).map_err(io::Error::other)
}

fn settled(stats: &serde_json::Value) -> bool {
    ["sessions", "retained", "inFlight", "tasks"]
        .iter()
        .all(|k| stats[k].as_u64() == Some(0))
}

/// One misbehaving session: a few random actions, then `DELETE`.
async fn session_life(port: u16, seed: u64, counters: Arc<Counters>) -> io::Result<()> {
    let mut rng = StdRng::seed_from_u64(seed);
    let requests = Requests::default();
    let mut session = HttpSession::open(port).await?;
    let mut id = 1;
    for _ in 0..rng.random_range(3..8) {
        id += 1;
        match rng.random_range(0..100) {
            // A plain call.
            0..55 => {
                let tool = if rng.random_bool(0.5) {
                    Tool::Echo
                } else {
                    Tool::Add
                };
                match session.call(requests.call(tool, id)).await {
                    Ok(()) => counters.calls.fetch_add(1, Ordering::Relaxed),
                    Err(_) => counters.unexpected.fetch_add(1, Ordering::Relaxed),
                };
            }
            // Drop the connection while a slow call runs, then carry on on a new one.
            55..70 => {
                let ms = rng.random_range(50..400);
                let wait = Duration::from_millis(rng.random_range(1..40));
                let _ =
                    tokio::time::timeout(wait, session.post(Requests::sleep_call(id, ms, false)))
                        .await;
                session.disconnect();
                counters.disconnects.fetch_add(1, Ordering::Relaxed);
                session.reconnect().await?;
            }
            // Cancel a slow call from a second connection.
            70..85 => {
                let mut side = session.fork().await?;
                let call = session.post(Requests::sleep_call(id, 2_000, false));
                let cancel = async {
                    tokio::time::sleep(Duration::from_millis(rng.random_range(1..30))).await;
                    side.post(Requests::cancelled(id)).await
                };
                let (call, cancel) =
                    tokio::join!(tokio::time::timeout(Duration::from_secs(5), call), cancel);
                counters.cancellations.fetch_add(1, Ordering::Relaxed);
                if cancel.is_err() || call.is_err() {
                    // The cancelled call's stream must end without waiting for the tool.
                    counters.unexpected.fetch_add(1, Ordering::Relaxed);
                    session.reconnect().await?;
                }
            }
            // Start a task; cancel it, or leave it running.
            _ => {
                let ms = rng.random_range(50..800);
                let reply = session.post(Requests::sleep_call(id, ms, true)).await?;
                let task_id = reply
                    .json()
                    .and_then(|v| v["result"]["task"]["taskId"].as_str().map(str::to_owned));
                let Some(task_id) = task_id else {
                    counters.unexpected.fetch_add(1, Ordering::Relaxed);
                    continue;
                };
                counters.tasks_started.fetch_add(1, Ordering::Relaxed);
                if rng.random_bool(0.5) {
                    id += 1;
                    let cancel = format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/cancel","params":{{"taskId":"{task_id}"}}}}"#
                    );
                    match session.post(cancel).await {
                        Ok(r) if r.head().is_some_and(|h| h.error.is_none()) => {
                            counters.tasks_cancelled.fetch_add(1, Ordering::Relaxed);
                        }
                        // Already finished is a fine answer too.
                        Ok(_) => {}
                        Err(_) => {
                            counters.unexpected.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }
        }
    }
    if rng.random_bool(0.2) {
        // Vanish mid-call, then come back only to end the session.
        let _ = tokio::time::timeout(
            Duration::from_millis(5),
            session.post(Requests::sleep_call(id + 1, 300, false)),
        )
        .await;
        session.reconnect().await?;
    }
    session.delete().await?;
    Ok(())
}

/// Sessions in the warm-up round.
const WARM_UP_SESSIONS: usize = 64;

/// How long to wait once `/stats` is all zero before reading memory: past the tasks' 1 s
/// ttl (the store drops them when it runs out) and the 8 s after the last session closed in
/// which the HTTP transport gives memory back.
const QUIET: Duration = Duration::from_millis(8000);

/// Waits (up to 10 s) until `/stats` is all zero; how long it took and the last reading.
async fn settle(port: u16) -> io::Result<(Duration, serde_json::Value)> {
    let start = Instant::now();
    let mut stats_now = stats(port).await?;
    while !settled(&stats_now) && start.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        stats_now = stats(port).await?;
    }
    Ok((start.elapsed(), stats_now))
}

/// Runs `sessions` misbehaving sessions at once against a server with `/stats`.
pub async fn run(
    spec: &ServerSpec,
    sessions: usize,
    rounds: usize,
    seed: u64,
) -> io::Result<RobustnessFigures> {
    let server = spec.spawn_http().await?;
    let port = spec.port;
    let heap_cold = get_json(port, "/heap").await.unwrap_or_default();
    // Warm-up: one small round of the same misbehaviour, so what every server builds once
    // (validators compiled on first use, runtime and allocator per-thread structures) is in
    // the baseline; the rounds then show what a burst of 1 000 sessions leaves behind.
    let mut warm_up = JoinSet::new();
    let warm_counters = Arc::new(Counters::default());
    for i in 0..WARM_UP_SESSIONS {
        let seed = seed.wrapping_sub(1 + i as u64);
        warm_up.spawn(session_life(port, seed, warm_counters.clone()));
    }
    while let Some(joined) = warm_up.join_next().await {
        joined.map_err(io::Error::other)??;
    }
    let (_, warm_stats) = settle(port).await?;
    if !settled(&warm_stats) {
        return Err(io::Error::other(format!(
            "the warm-up did not settle: {warm_stats}"
        )));
    }
    tokio::time::sleep(QUIET).await;
    let rss_baseline_kib = server.rss_kib();
    let heap_before = get_json(port, "/heap/trim").await.unwrap_or_default();
    let counters = Arc::new(Counters::default());
    let started = Instant::now();
    let mut rss_peak_kib = 0;
    let mut failed = 0;
    let mut rss_after_rounds = Vec::new();
    let mut heap_in_use_after_rounds = Vec::new();
    let mut anon_after_rounds = Vec::new();
    let mut stats_after = serde_json::Value::Null;
    let mut settle_time = Duration::ZERO;
    for round in 0..rounds {
        let mut set = JoinSet::new();
        for i in 0..sessions {
            let counters = counters.clone();
            let seed = seed.wrapping_add((round * sessions + i) as u64);
            set.spawn(session_life(port, seed, counters));
        }
        let mut sample = tokio::time::interval(Duration::from_millis(50));
        loop {
            tokio::select! {
                joined = set.join_next() => match joined {
                    Some(Ok(Ok(()))) => {}
                    Some(_) => failed += 1,
                    None => break,
                },
                _ = sample.tick() => rss_peak_kib = rss_peak_kib.max(server.rss_kib()),
            }
        }
        let (took, after) = settle(port).await?;
        stats_after = after;
        settle_time = settle_time.max(took);
        tokio::time::sleep(QUIET).await;
        rss_after_rounds.push(server.rss_kib());
        let heap = get_json(port, "/heap").await.unwrap_or_default();
        // Absent when the twin runs another allocator than glibc malloc.
        if let Some(kib) = heap["inUseKiB"].as_u64() {
            heap_in_use_after_rounds.push(kib);
        }
        if let Some(kib) = heap["anonKiB"].as_u64() {
            anon_after_rounds.push(kib);
        }
    }
    let elapsed = started.elapsed();
    let heap_after = get_json(port, "/heap/trim").await.unwrap_or_default();
    server.stop().await;
    let c = &counters;
    Ok(RobustnessFigures {
        sessions,
        rounds,
        calls: c.calls.load(Ordering::Relaxed),
        disconnects: c.disconnects.load(Ordering::Relaxed),
        cancellations: c.cancellations.load(Ordering::Relaxed),
        tasks_started: c.tasks_started.load(Ordering::Relaxed),
        tasks_cancelled: c.tasks_cancelled.load(Ordering::Relaxed),
        unexpected_errors: c.unexpected.load(Ordering::Relaxed)
            + warm_counters.unexpected.load(Ordering::Relaxed)
            + failed,
        rss_baseline_kib,
        rss_peak_kib,
        rss_after_rounds,
        heap_before,
        heap_after,
        heap_in_use_after_rounds,
        anon_after_rounds,
        stats_after,
        settle: settle_time,
        elapsed,
        heap_cold,
    })
}
