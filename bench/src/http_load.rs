//! Load over Streamable HTTP: one keep-alive HTTP/1.1 connection per MCP session (or per
//! sessionless MCP 2026-07-28 client), JSON or SSE responses read alike.

use crate::payload::{
    Call, MODERN_PROTOCOL_VERSION, ModernHead, NextRound, PROTOCOL_VERSION, Requests, ResponseHead,
    THREE_ROUNDS, THREE_ROUNDS_ROUNDS, Tool, three_rounds_step, verify,
};
use crate::process::{ServerProcess, ServerSpec};
use crate::stats::{Latencies, RunFigures};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

fn broken(what: impl Into<String>) -> io::Error {
    io::Error::other(what.into())
}

/// One MCP session on its own connection.
pub struct HttpSession {
    sender: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    session_id: Option<HeaderValue>,
    port: u16,
    conn: tokio::task::JoinHandle<()>,
}

/// A response as read off the wire.
pub struct HttpReply {
    /// Status.
    pub status: StatusCode,
    /// True for `text/event-stream`.
    pub sse: bool,
    /// The whole body.
    pub body: Bytes,
}

impl HttpReply {
    /// The JSON-RPC response in the body (the SSE `data:` line that carries an id).
    pub fn json(&self) -> Option<serde_json::Value> {
        if !self.sse {
            return serde_json::from_slice(&self.body).ok();
        }
        data_lines(&self.body)
            .filter_map(|d| serde_json::from_slice::<serde_json::Value>(d).ok())
            .find(|v| v.get("id").is_some())
    }

    /// The response's head.
    pub fn head(&self) -> Option<ResponseHead> {
        if !self.sse {
            return ResponseHead::parse(&self.body);
        }
        data_lines(&self.body)
            .filter_map(ResponseHead::parse)
            .find(|h| h.id.is_some())
    }

    /// The head of a modern response.
    pub fn modern_head(&self) -> Option<ModernHead> {
        if !self.sse {
            return ModernHead::parse(&self.body);
        }
        data_lines(&self.body)
            .filter_map(ModernHead::parse)
            .find(|h| h.id.is_some())
    }
}

fn data_lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    body.split(|b| *b == b'\n')
        .filter_map(|l| l.strip_prefix(b"data:"))
        .map(|d| d.strip_prefix(b" ").unwrap_or(d))
}

type Connection = (SendRequest<Full<Bytes>>, tokio::task::JoinHandle<()>);

async fn connect(port: u16) -> io::Result<Connection> {
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    stream.set_nodelay(true)?;
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(io::Error::other)?;
    let conn = tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok((sender, conn))
}

impl HttpSession {
    /// Connects and initializes a session.
    pub async fn open(port: u16) -> io::Result<HttpSession> {
        let (sender, conn) = connect(port).await?;
        let host = HeaderValue::from_str(&format!("127.0.0.1:{port}")).map_err(io::Error::other)?;
        let mut session = HttpSession {
            sender,
            host,
            session_id: None,
            port,
            conn,
        };
        let (reply, id) = session
            .request_with_headers(Method::POST, Requests::initialize(0))
            .await?;
        if reply.status != StatusCode::OK {
            return Err(broken(format!("initialize: HTTP {}", reply.status)));
        }
        session.session_id = id;
        let reply = session.post(Requests::initialized().to_owned()).await?;
        if !reply.status.is_success() {
            return Err(broken(format!("initialized: HTTP {}", reply.status)));
        }
        Ok(session)
    }

    /// Replaces the connection (same session), e.g. after a deliberate disconnect.
    pub async fn reconnect(&mut self) -> io::Result<()> {
        self.disconnect();
        (self.sender, self.conn) = connect(self.port).await?;
        Ok(())
    }

    /// Closes the TCP connection now, whatever is in flight on it.
    pub fn disconnect(&mut self) {
        self.conn.abort();
    }

    /// A second connection on the same session (for requests concurrent with a call).
    pub async fn fork(&self) -> io::Result<HttpSession> {
        let (sender, conn) = connect(self.port).await?;
        Ok(HttpSession {
            sender,
            host: self.host.clone(),
            session_id: self.session_id.clone(),
            port: self.port,
            conn,
        })
    }

    async fn request_with_headers(
        &mut self,
        method: Method,
        body: String,
    ) -> io::Result<(HttpReply, Option<HeaderValue>)> {
        let mut builder = Request::builder()
            .method(method)
            .uri("/mcp")
            .header(HOST, self.host.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .header("mcp-protocol-version", PROTOCOL_VERSION);
        if let Some(id) = &self.session_id {
            builder = builder.header("mcp-session-id", id.clone());
        }
        let request = builder
            .body(Full::new(Bytes::from(body)))
            .map_err(io::Error::other)?;
        self.sender.ready().await.map_err(io::Error::other)?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(io::Error::other)?;
        let status = response.status();
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let session_id = response.headers().get("mcp-session-id").cloned();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(io::Error::other)?
            .to_bytes();
        Ok((HttpReply { status, sse, body }, session_id))
    }

    /// POSTs one JSON-RPC message.
    pub async fn post(&mut self, body: String) -> io::Result<HttpReply> {
        Ok(self.request_with_headers(Method::POST, body).await?.0)
    }

    /// Ends the session.
    pub async fn delete(&mut self) -> io::Result<StatusCode> {
        Ok(self
            .request_with_headers(Method::DELETE, String::new())
            .await?
            .0
            .status)
    }

    /// One checked call.
    pub async fn call(&mut self, body: String) -> io::Result<()> {
        let reply = self.post(body).await?;
        match reply.head() {
            Some(head) if head.ok() => Ok(()),
            _ => Err(broken(format!(
                "call failed: HTTP {} {}",
                reply.status,
                String::from_utf8_lossy(&reply.body)
            ))),
        }
    }

    /// One call checked in full.
    pub async fn verify(&mut self, requests: &Requests, tool: Tool) -> io::Result<()> {
        let id = 1_000_000_000;
        let reply = self.post(requests.call(tool, id)).await?;
        let value = reply.json().ok_or_else(|| broken("no JSON-RPC response"))?;
        verify(tool, id, &value).map_err(broken)
    }
}

/// Opens `n` sessions, at most `parallel` handshakes at a time.
pub async fn open_sessions(port: u16, n: usize, parallel: usize) -> Vec<io::Result<HttpSession>> {
    let permits = Arc::new(Semaphore::new(parallel));
    let mut set = JoinSet::new();
    for i in 0..n {
        let permits = permits.clone();
        set.spawn(async move {
            let _permit = permits.acquire_owned().await;
            (i, HttpSession::open(port).await)
        });
    }
    let mut out: Vec<Option<io::Result<HttpSession>>> = (0..n).map(|_| None).collect();
    while let Some(joined) = set.join_next().await {
        if let Ok((i, s)) = joined {
            out[i] = Some(s);
        }
    }
    out.into_iter()
        .map(|s| s.unwrap_or_else(|| Err(broken("task failed"))))
        .collect()
}

/// `sessions` concurrent sessions, each making `calls_per_session` sequential calls.
pub async fn run(
    spec: &ServerSpec,
    sessions: usize,
    tool: Tool,
    warmup_per_session: u64,
    calls_per_session: u64,
) -> io::Result<RunFigures> {
    let server = spec.spawn_http().await?;
    let result = run_on(
        &server,
        spec.port,
        sessions,
        tool,
        warmup_per_session,
        calls_per_session,
    )
    .await;
    server.stop().await;
    result
}

async fn run_on(
    server: &ServerProcess,
    port: u16,
    sessions: usize,
    tool: Tool,
    warmup_per_session: u64,
    calls_per_session: u64,
) -> io::Result<RunFigures> {
    let requests = Arc::new(Requests::default());
    let mut open = Vec::with_capacity(sessions);
    for s in open_sessions(port, sessions, 16).await {
        open.push(s?);
    }
    open[0].verify(&requests, tool).await?;
    let round = |open: Vec<HttpSession>, first: u64, n: u64| {
        let requests = requests.clone();
        async move {
            let mut set = JoinSet::new();
            for mut session in open {
                let requests = requests.clone();
                set.spawn(async move {
                    let mut lat = Latencies::with_capacity(n as usize);
                    for id in first..first + n {
                        let body = requests.call(tool, id);
                        let started = Instant::now();
                        session.call(body).await?;
                        lat.record(started.elapsed());
                    }
                    Ok::<_, io::Error>((session, lat))
                });
            }
            let mut sessions = Vec::new();
            let mut all = Latencies::default();
            while let Some(joined) = set.join_next().await {
                let (session, lat) = joined.map_err(io::Error::other)??;
                sessions.push(session);
                all.extend(lat);
            }
            Ok::<_, io::Error>((sessions, all))
        }
    };
    let (open, _) = round(open, 1, warmup_per_session).await?;
    let cpu_before = server.cpu();
    let started = Instant::now();
    let (open, mut latencies) = round(open, warmup_per_session + 1, calls_per_session).await?;
    let elapsed = started.elapsed();
    let server_cpu = server.cpu().saturating_sub(cpu_before);
    let server_rss_kib = server.rss_kib();
    drop(open);
    Ok(RunFigures {
        calls: latencies.len() as u64,
        elapsed,
        p50: latencies.quantile(0.5),
        p99: latencies.quantile(0.99),
        server_cpu,
        server_rss_kib,
    })
}

/// Memory held by idle sessions.
#[derive(Debug, Clone, Default)]
pub struct IdleFigures {
    /// Sessions opened.
    pub sessions: usize,
    /// RSS after warm-up, before the sessions.
    pub rss_before_kib: u64,
    /// RSS with the sessions open (connections closed).
    pub rss_after_kib: u64,
}

impl IdleFigures {
    /// KiB per idle session.
    pub fn per_session_kib(&self) -> f64 {
        self.rss_after_kib.saturating_sub(self.rss_before_kib) as f64 / self.sessions.max(1) as f64
    }
}

/// Opens `n` sessions, closes their connections, and reports the memory they hold.
pub async fn idle_sessions(spec: &ServerSpec, n: usize) -> io::Result<IdleFigures> {
    let server = spec.spawn_http().await?;
    let requests = Requests::default();
    // Warm up: a few sessions' worth of calls so lazy allocations are made.
    for mut s in open_sessions(spec.port, 8, 8).await.into_iter().flatten() {
        for id in 1..=50 {
            s.call(requests.call(Tool::Echo, id)).await?;
        }
        s.delete().await?;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_before_kib = server.rss_kib();
    let mut opened = 0;
    for s in open_sessions(spec.port, n, 32).await {
        s?;
        opened += 1;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_after_kib = server.rss_kib();
    server.stop().await;
    Ok(IdleFigures {
        sessions: opened,
        rss_before_kib,
        rss_after_kib,
    })
}

/// Many sessions held open at once.
#[derive(Debug, Clone, Default)]
pub struct HoldFigures {
    /// Sessions asked for.
    pub wanted: usize,
    /// Sessions opened (connection kept).
    pub opened: usize,
    /// Sessions that then answered a call while all were open.
    pub answered: usize,
    /// Server RSS with all of them open.
    pub rss_kib: u64,
    /// Time to open them all.
    pub open_time: Duration,
    /// Time for one call on every session.
    pub call_time: Duration,
}

/// Opens `n` sessions and keeps every connection open, then calls `add` on each.
pub async fn hold_sessions(spec: &ServerSpec, n: usize) -> io::Result<HoldFigures> {
    let server = spec.spawn_http().await?;
    let started = Instant::now();
    let open: Vec<HttpSession> = open_sessions(spec.port, n, 64)
        .await
        .into_iter()
        .flatten()
        .collect();
    let open_time = started.elapsed();
    let opened = open.len();
    let rss_kib = server.rss_kib();
    let started = Instant::now();
    let requests = Arc::new(Requests::default());
    let permits = Arc::new(Semaphore::new(64));
    let mut set = JoinSet::new();
    for (i, mut session) in open.into_iter().enumerate() {
        let permits = permits.clone();
        let requests = requests.clone();
        set.spawn(async move {
            let _p = permits.acquire_owned().await;
            let ok = session
                .call(requests.call(Tool::Add, i as u64 + 1))
                .await
                .is_ok();
            (session, ok)
        });
    }
    let mut answered = 0;
    let mut keep = Vec::with_capacity(opened);
    while let Some(Ok((session, ok))) = set.join_next().await {
        answered += ok as usize;
        keep.push(session);
    }
    let call_time = started.elapsed();
    drop(keep);
    server.stop().await;
    Ok(HoldFigures {
        wanted: n,
        opened,
        answered,
        rss_kib,
        open_time,
        call_time,
    })
}

/// A sessionless MCP 2026-07-28 client on its own keep-alive connection: no
/// `initialize`; every POST carries `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`,
/// and its body the `_meta` of the revision.
pub struct ModernClient {
    sender: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    conn: tokio::task::JoinHandle<()>,
}

impl ModernClient {
    /// Connects.
    pub async fn open(port: u16) -> io::Result<ModernClient> {
        let (sender, conn) = connect(port).await?;
        let host = HeaderValue::from_str(&format!("127.0.0.1:{port}")).map_err(io::Error::other)?;
        Ok(ModernClient { sender, host, conn })
    }

    /// POSTs one `tools/call` of `name`.
    pub async fn post_call(&mut self, name: &'static str, body: String) -> io::Result<HttpReply> {
        let request = Request::builder()
            .method(Method::POST)
            .uri("/mcp")
            .header(HOST, self.host.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .header("mcp-protocol-version", MODERN_PROTOCOL_VERSION)
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .body(Full::new(Bytes::from(body)))
            .map_err(io::Error::other)?;
        self.sender.ready().await.map_err(io::Error::other)?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(io::Error::other)?;
        let status = response.status();
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(io::Error::other)?
            .to_bytes();
        Ok(HttpReply { status, sse, body })
    }

    /// One checked call of `echo` or `add`.
    pub async fn call(&mut self, requests: &Requests, tool: Tool, id: u64) -> io::Result<()> {
        let reply = self
            .post_call(tool.name(), requests.modern_call(tool, id))
            .await?;
        match reply.modern_head() {
            Some(head) if head.ok() && reply.status == StatusCode::OK => Ok(()),
            _ => Err(broken(format!(
                "modern call failed: HTTP {} {}",
                reply.status,
                String::from_utf8_lossy(&reply.body)
            ))),
        }
    }

    /// One call of `echo` or `add` checked in full.
    pub async fn verify(&mut self, requests: &Requests, tool: Tool) -> io::Result<()> {
        let id = 1_000_000_000;
        let reply = self
            .post_call(tool.name(), requests.modern_call(tool, id))
            .await?;
        let value = reply.json().ok_or_else(|| broken("no JSON-RPC response"))?;
        if value["result"]["resultType"] != "complete" {
            return Err(broken(format!("no resultType \"complete\": {value}")));
        }
        verify(tool, id, &value).map_err(broken)
    }

    /// One whole `three_rounds` call: the first POST, then a retry per `input_required`
    /// round answering every elicitation with `{"answer": "a<n>"}` (n counting the
    /// answers given in this call) and echoing `requestState`. Ids from `first_id` on, one
    /// per POST. Checks that it took exactly three rounds and that the result names the
    /// three answers; returns the number of POSTs (4).
    pub async fn three_rounds(&mut self, first_id: u64) -> io::Result<u32> {
        let mut retry: Option<(String, Option<String>)> = None;
        let mut answered = 0u32;
        for post in 0..=THREE_ROUNDS_ROUNDS {
            let body = Requests::three_rounds(
                first_id + u64::from(post),
                retry.as_ref().map(|(r, s)| (r.as_str(), s.as_deref())),
            );
            let reply = self.post_call(THREE_ROUNDS, body).await?;
            let value = reply.json().filter(|_| reply.status == StatusCode::OK);
            match value.and_then(|v| three_rounds_step(&v, post, &mut answered)) {
                Some(NextRound::Retry(responses, state)) => retry = Some((responses, state)),
                Some(NextRound::Done) => return Ok(post + 1),
                _ => {
                    return Err(broken(format!(
                        "three_rounds, POST {}: HTTP {} {}",
                        post + 1,
                        reply.status,
                        String::from_utf8_lossy(&reply.body)
                    )));
                }
            }
        }
        Err(broken("three_rounds: no result after the last round"))
    }
}

impl Drop for ModernClient {
    fn drop(&mut self) {
        self.conn.abort();
    }
}

/// `clients` sessionless MCP 2026-07-28 clients, each on its own keep-alive connection,
/// each making `calls_per_client` sequential calls of `call` (no `initialize`; a
/// `three_rounds` call is its four POSTs, counted once).
pub async fn run_modern(
    spec: &ServerSpec,
    clients: usize,
    call: Call,
    warmup_per_client: u64,
    calls_per_client: u64,
) -> io::Result<RunFigures> {
    let server = spec.spawn_http().await?;
    let result = run_modern_on(
        &server,
        spec.port,
        clients,
        call,
        warmup_per_client,
        calls_per_client,
    )
    .await;
    server.stop().await;
    result
}

async fn run_modern_on(
    server: &ServerProcess,
    port: u16,
    clients: usize,
    call: Call,
    warmup_per_client: u64,
    calls_per_client: u64,
) -> io::Result<RunFigures> {
    let requests = Arc::new(Requests::default());
    let mut open = Vec::with_capacity(clients);
    for _ in 0..clients {
        open.push(ModernClient::open(port).await?);
    }
    match call {
        Call::Tool(tool) => open[0].verify(&requests, tool).await?,
        Call::ThreeRounds => {
            open[0].three_rounds(1_000_000_000).await?;
        }
    }
    // Ids: a call takes up to four (one per POST).
    let round = |open: Vec<ModernClient>, first: u64, n: u64| {
        let requests = requests.clone();
        async move {
            let mut set = JoinSet::new();
            for mut client in open {
                let requests = requests.clone();
                set.spawn(async move {
                    let mut lat = Latencies::with_capacity(n as usize);
                    for i in first..first + n {
                        let started = Instant::now();
                        match call {
                            Call::Tool(tool) => client.call(&requests, tool, i).await?,
                            Call::ThreeRounds => {
                                client.three_rounds(i * 4).await?;
                            }
                        }
                        lat.record(started.elapsed());
                    }
                    Ok::<_, io::Error>((client, lat))
                });
            }
            let mut clients = Vec::new();
            let mut all = Latencies::default();
            while let Some(joined) = set.join_next().await {
                let (client, lat) = joined.map_err(io::Error::other)??;
                clients.push(client);
                all.extend(lat);
            }
            Ok::<_, io::Error>((clients, all))
        }
    };
    let (open, _) = round(open, 1, warmup_per_client).await?;
    let cpu_before = server.cpu();
    let started = Instant::now();
    let (open, mut latencies) = round(open, warmup_per_client + 1, calls_per_client).await?;
    let elapsed = started.elapsed();
    let server_cpu = server.cpu().saturating_sub(cpu_before);
    let server_rss_kib = server.rss_kib();
    drop(open);
    Ok(RunFigures {
        calls: latencies.len() as u64,
        elapsed,
        p50: latencies.quantile(0.5),
        p99: latencies.quantile(0.99),
        server_cpu,
        server_rss_kib,
    })
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.conn.abort();
    }
}
