//! Load over a child process's stdin/stdout: newline-delimited JSON-RPC, in a 2025-11-25
//! session (after `initialize`) or as MCP 2026-07-28 requests (no handshake; each request
//! carries the modern `_meta`).

use crate::payload::{
    Call, ModernHead, NextRound, Requests, ResponseHead, THREE_ROUNDS_ROUNDS, Tool,
    three_rounds_step, verify,
};
use crate::process::{ServerProcess, ServerSpec};
use crate::stats::{Latencies, RunFigures};
use std::cell::RefCell;
use std::io;
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::Semaphore;

/// A raw client on a server's stdio.
pub struct StdioClient {
    writer: BufWriter<ChildStdin>,
    reader: BufReader<ChildStdout>,
    line: Vec<u8>,
}

fn broken(what: impl Into<String>) -> io::Error {
    io::Error::other(what.into())
}

impl StdioClient {
    /// Takes the child's pipes and runs the initialize handshake.
    pub async fn connect(server: &mut ServerProcess) -> io::Result<StdioClient> {
        let mut client = StdioClient::open(server)?;
        client.send(&Requests::initialize(0)).await?;
        client.writer.flush().await?;
        let head = client.read_response().await?;
        if head.result.is_none() && head.error.is_some() {
            return Err(broken("initialize failed"));
        }
        client.send(Requests::initialized()).await?;
        client.writer.flush().await?;
        Ok(client)
    }

    /// Takes the child's pipes, with no handshake (an MCP 2026-07-28 line needs none).
    fn open(server: &mut ServerProcess) -> io::Result<StdioClient> {
        let stdin = server
            .child
            .stdin
            .take()
            .ok_or_else(|| broken("no stdin"))?;
        let stdout = server
            .child
            .stdout
            .take()
            .ok_or_else(|| broken("no stdout"))?;
        Ok(StdioClient {
            writer: BufWriter::with_capacity(64 * 1024, stdin),
            reader: BufReader::with_capacity(64 * 1024, stdout),
            line: Vec::with_capacity(4096),
        })
    }

    async fn send(&mut self, line: &str) -> io::Result<()> {
        self.writer.write_all(line.as_bytes()).await?;
        self.writer.write_all(b"\n").await
    }

    /// Reads lines until a response (a message with an id) arrives.
    async fn read_response(&mut self) -> io::Result<ResponseHead> {
        loop {
            self.line.clear();
            if self.reader.read_until(b'\n', &mut self.line).await? == 0 {
                return Err(broken("server closed stdout"));
            }
            if let Some(head) = ResponseHead::parse(&self.line)
                && head.id.is_some()
            {
                return Ok(head);
            }
        }
    }

    /// Sends `line` and reads until the response (a message with an id): its bytes are
    /// `self.line` when this returns.
    async fn round_trip(&mut self, line: &str) -> io::Result<()> {
        self.send(line).await?;
        self.writer.flush().await?;
        loop {
            self.line.clear();
            if self.reader.read_until(b'\n', &mut self.line).await? == 0 {
                return Err(broken("server closed stdout"));
            }
            if ModernHead::parse(&self.line).is_some_and(|head| head.id.is_some()) {
                return Ok(());
            }
        }
    }

    /// One MCP 2026-07-28 `tools/call` of `tool`, checked as the HTTP rows check it (a
    /// complete, non-error result); `full` checks the result itself too.
    async fn modern_call(
        &mut self,
        requests: &Requests,
        tool: Tool,
        id: u64,
        full: bool,
    ) -> io::Result<()> {
        self.round_trip(&requests.modern_call(tool, id)).await?;
        let failed = || {
            broken(format!(
                "modern call {id} failed: {}",
                String::from_utf8_lossy(&self.line)
            ))
        };
        if !ModernHead::parse(&self.line).is_some_and(|head| head.ok()) {
            return Err(failed());
        }
        if full {
            let value: serde_json::Value = serde_json::from_slice(&self.line)?;
            verify(tool, id, &value).map_err(broken)?;
        }
        Ok(())
    }

    /// One whole `three_rounds` call on the line, as the HTTP rows make it (see
    /// [`crate::payload::three_rounds_step`]): four requests, ids from `first_id` on.
    async fn three_rounds(&mut self, first_id: u64) -> io::Result<()> {
        let mut retry: Option<(String, Option<String>)> = None;
        let mut answered = 0u32;
        for post in 0..=THREE_ROUNDS_ROUNDS {
            let body = Requests::three_rounds(
                first_id + u64::from(post),
                retry.as_ref().map(|(r, s)| (r.as_str(), s.as_deref())),
            );
            self.round_trip(&body).await?;
            let value: serde_json::Value = serde_json::from_slice(&self.line)?;
            match three_rounds_step(&value, post, &mut answered) {
                Some(NextRound::Retry(responses, state)) => retry = Some((responses, state)),
                Some(NextRound::Done) => return Ok(()),
                None => {
                    return Err(broken(format!(
                        "three_rounds, request {}: {value}",
                        post + 1
                    )));
                }
            }
        }
        Err(broken("three_rounds: no result after the last round"))
    }

    /// One call, checked in full (off the clock).
    pub async fn verify(&mut self, requests: &Requests, tool: Tool) -> io::Result<()> {
        let id = 1_000_000_000;
        self.send(&requests.call(tool, id)).await?;
        self.writer.flush().await?;
        loop {
            self.line.clear();
            if self.reader.read_until(b'\n', &mut self.line).await? == 0 {
                return Err(broken("server closed stdout"));
            }
            let value: serde_json::Value = serde_json::from_slice(&self.line)?;
            if value.get("id").is_some() {
                return verify(tool, id, &value).map_err(broken);
            }
        }
    }

    /// `calls` calls one after the other.
    pub async fn sequential(
        &mut self,
        requests: &Requests,
        tool: Tool,
        first_id: u64,
        calls: u64,
        latencies: &mut Latencies,
    ) -> io::Result<()> {
        for id in first_id..first_id + calls {
            let body = requests.call(tool, id);
            let started = Instant::now();
            self.send(&body).await?;
            self.writer.flush().await?;
            let head = self.read_response().await?;
            latencies.record(started.elapsed());
            if !head.ok() {
                return Err(broken(format!("call {id} failed")));
            }
        }
        Ok(())
    }

    /// `calls` calls with up to `window` in flight.
    pub async fn pipelined(
        &mut self,
        requests: &Requests,
        tool: Tool,
        first_id: u64,
        calls: u64,
        window: usize,
        latencies: &mut Latencies,
    ) -> io::Result<()> {
        let permits = Semaphore::new(window);
        let sent: RefCell<Vec<Option<Instant>>> = RefCell::new(vec![None; calls as usize]);
        let StdioClient {
            writer,
            reader,
            line,
        } = self;
        let write = async {
            for id in first_id..first_id + calls {
                let permit = permits.acquire().await.map_err(|_| broken("closed"))?;
                permit.forget();
                let body = requests.call(tool, id);
                sent.borrow_mut()[(id - first_id) as usize] = Some(Instant::now());
                writer.write_all(body.as_bytes()).await?;
                writer.write_all(b"\n").await?;
                if permits.available_permits() == 0 || id + 1 == first_id + calls {
                    writer.flush().await?;
                }
            }
            Ok::<_, io::Error>(())
        };
        let read = async {
            let mut done = 0;
            while done < calls {
                line.clear();
                if reader.read_until(b'\n', line).await? == 0 {
                    return Err(broken("server closed stdout"));
                }
                let Some(head) = ResponseHead::parse(line) else {
                    continue;
                };
                let Some(id) = head.id else { continue };
                let slot = id
                    .checked_sub(first_id)
                    .and_then(|i| sent.borrow_mut().get_mut(i as usize).and_then(Option::take));
                let Some(started) = slot else {
                    return Err(broken(format!("unexpected response id {id}")));
                };
                latencies.record(started.elapsed());
                if !head.ok() {
                    return Err(broken(format!("call {id} failed")));
                }
                done += 1;
                permits.add_permits(1);
            }
            Ok::<_, io::Error>(())
        };
        let (w, r) = tokio::join!(write, read);
        w.and(r)
    }
}

/// How a stdio run issues calls.
#[derive(Debug, Clone, Copy)]
pub enum StdioMode {
    /// One call at a time.
    Sequential,
    /// Up to this many calls in flight.
    Pipelined(usize),
}

/// Starts the server, warms up, and measures `calls` calls of `tool` in a 2025 session.
pub async fn run(
    spec: &ServerSpec,
    mode: StdioMode,
    tool: Tool,
    warmup: u64,
    calls: u64,
) -> io::Result<RunFigures> {
    let mut server = spec.spawn_stdio()?;
    let mut client = StdioClient::connect(&mut server).await?;
    let requests = Requests::default();
    client.verify(&requests, tool).await?;
    let calls_of = async |client: &mut StdioClient, first, n, latencies: &mut Latencies| {
        calls_in(client, &requests, mode, tool, first, n, latencies).await
    };
    measure(server, client, warmup, calls, calls_of).await
}

/// Starts the server and measures `calls` MCP 2026-07-28 calls of `call` one after the
/// other on its stdio, after `warmup` (no `initialize`; a `three_rounds` call is its four
/// requests, counted once).
pub async fn run_modern(
    spec: &ServerSpec,
    call: Call,
    warmup: u64,
    calls: u64,
) -> io::Result<RunFigures> {
    let mut server = spec.spawn_stdio()?;
    let mut client = StdioClient::open(&mut server)?;
    let requests = Requests::default();
    match call {
        Call::Tool(tool) => {
            client
                .modern_call(&requests, tool, 1_000_000_000, true)
                .await?
        }
        Call::ThreeRounds => client.three_rounds(1_000_000_000).await?,
    }
    let calls_of = async |client: &mut StdioClient, first, n, latencies: &mut Latencies| {
        for i in first..first + n {
            let started = Instant::now();
            match call {
                Call::Tool(tool) => client.modern_call(&requests, tool, i, false).await?,
                // Ids: a call takes four (one per request).
                Call::ThreeRounds => client.three_rounds(i * 4).await?,
            }
            latencies.record(started.elapsed());
        }
        Ok(())
    };
    measure(server, client, warmup, calls, calls_of).await
}

/// Warms up with `warmup` calls (`calls_of(client, first id, n, latencies)`), then
/// measures `calls` more: the server's CPU and memory, the latencies.
async fn measure(
    server: ServerProcess,
    mut client: StdioClient,
    warmup: u64,
    calls: u64,
    mut calls_of: impl AsyncFnMut(&mut StdioClient, u64, u64, &mut Latencies) -> io::Result<()>,
) -> io::Result<RunFigures> {
    let mut discard = Latencies::with_capacity(warmup as usize);
    let mut latencies = Latencies::with_capacity(calls as usize);
    calls_of(&mut client, 1, warmup, &mut discard).await?;
    let cpu_before = server.cpu();
    let started = Instant::now();
    calls_of(&mut client, warmup + 1, calls, &mut latencies).await?;
    let elapsed = started.elapsed();
    let server_cpu = server.cpu().saturating_sub(cpu_before);
    let server_rss_kib = server.rss_kib();
    drop(client);
    server.stop().await;
    Ok(RunFigures {
        calls,
        elapsed,
        p50: latencies.quantile(0.5),
        p99: latencies.quantile(0.99),
        server_cpu,
        server_rss_kib,
    })
}

async fn calls_in(
    client: &mut StdioClient,
    requests: &Requests,
    mode: StdioMode,
    tool: Tool,
    first: u64,
    n: u64,
    latencies: &mut Latencies,
) -> io::Result<()> {
    match mode {
        StdioMode::Sequential => client.sequential(requests, tool, first, n, latencies).await,
        StdioMode::Pipelined(w) => {
            client
                .pipelined(requests, tool, first, n, w, latencies)
                .await
        }
    }
}
