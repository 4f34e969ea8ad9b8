//! Streamable HTTP (MCP 2025-11-25 `basic/transports`) as an axum [`Router`] you can mount
//! in your own app and wrap in your own layers.
//!
//! - `POST` carries one JSON-RPC message; a request is answered with an SSE stream (a priming
//!   event with `retry:`, then related notifications and server→client requests, then the
//!   response) or, with [`HttpOptions::json_response`], a JSON body; notifications and
//!   responses get `202 Accepted`.
//! - `GET` opens the standalone stream, or resumes any stream with `Last-Event-ID`.
//! - `DELETE` ends the session.
//! - `Mcp-Session-Id` is assigned at `initialize` (random, 128 bits); unknown → 404,
//!   missing → 400. `MCP-Protocol-Version` must name a supported version (else 400).
//! - `Host` and `Origin` are checked against an allow-list (loopback names by default) → 403.
//!
//! ```no_run
//! # async fn run(server: tracksuit::ServerHandle) -> std::io::Result<()> {
//! use tracksuit::host::http::{HttpOptions, StreamableHttp};
//! let app = StreamableHttp::new(server, HttpOptions::default()).router("/mcp");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
//! axum::serve(listener, app).await
//! # }
//! ```

#[cfg(feature = "auth")]
pub mod auth;
mod challenge;
mod connections;
mod memory;
mod modern;
mod quota;

use crate::caller::{Caller, Principal};
use crate::capacity::ReleaseSpare;
use crate::on_demand::OnDemand;
use crate::peer::sync::lock;
use crate::peer::{Outbound, outbound_queue};
use crate::protocol::{
    ClientMetaParams, ErrorObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, RequestId,
    SUPPORTED_PROTOCOL_VERSIONS, methods,
};
use crate::server::{Server, ServerHandle, ServerSession};
use crate::transport::sse::{
    Delivery, LiveReceiver, Mode, STANDALONE, Streams, live_channel, parse_event_id, priming,
};
use crate::transport::{Gone, Outlet, drive};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use memory::BurstWatch;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// An HTTP status and message for a refused request.
type Rejection = (StatusCode, &'static str);

const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// Streamable HTTP settings.
///
/// ```
/// use tracksuit::host::http::HttpOptions;
/// let options = HttpOptions::default()
///     .allowed_hosts(Some(vec!["mcp.example.com".into()]))
///     .json_response(true);
/// assert!(options.json_response);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Answer requests with one JSON body instead of an SSE stream.
    pub json_response: bool,
    /// No sessions: every POST is served on its own, without `initialize` state, and
    /// server→client requests are unavailable.
    pub stateless: bool,
    /// Accepted `Host` / `Origin` host names; `None` disables the check (only do that
    /// behind something else that validates them). Default: `localhost`, `127.0.0.1`, `[::1]`.
    pub allowed_hosts: Option<Vec<String>>,
    /// Sessions untouched this long (and with no open stream) are dropped.
    pub session_idle_timeout: Duration,
    /// The most 2025-11-25 sessions open at once (default 20 000, about 110 MiB): over it,
    /// idle sessions are swept first, then `initialize` gets `503`.
    pub max_sessions: usize,
    /// The most sessions one principal may hold open at once (default 64; with
    /// authentication only): over it, its `initialize` gets `429` until it ends one
    /// (`DELETE`) or one expires.
    pub max_sessions_per_principal: usize,
    /// The `retry:` delay clients wait before reconnecting a closed stream.
    pub sse_retry: Duration,
    /// Largest accepted POST body, in bytes (larger → 413).
    pub max_body_size: usize,
    /// How long a POST body may take to arrive, from its request head (default 30 s;
    /// later → `408 Request Timeout`, and the connection is closed).
    pub request_body_timeout: Duration,
    /// How long a connection may take to send a complete request head, counted from when
    /// it opens or its previous response ended (default 10 s): a slow head (slowloris) or
    /// an idle keep-alive connection is closed after this long. Applies where
    /// [`serve_with`] (or `serve_http`) accepts the connections.
    pub header_read_timeout: Duration,
    /// The most connections [`serve_with`] keeps open (default: no cap but the process's
    /// file descriptors). A new connection over the cap closes the idle connection that
    /// waited longest (one that never sent a request first); with none idle, the new one
    /// is closed. Running out of file descriptors does the same, so a flood of half-open
    /// connections cannot lock new clients out.
    pub max_connections: Option<usize>,
    /// Events kept on the standalone stream for `Last-Event-ID` replay.
    pub replay_buffer: usize,
    /// Once a burst of sessions (64 or more open at once) has closed down to a quarter and
    /// the count has stopped falling for a second, ask the allocator to hand the freed
    /// memory back to the operating system (glibc `malloc_trim`; nothing under other
    /// allocators). Default: on.
    pub release_memory_after_bursts: bool,
    /// Protects the endpoint as an OAuth resource server (feature `auth`): bearer tokens
    /// are required and checked, and the protected resource metadata is served.
    #[cfg(feature = "auth")]
    pub auth: Option<auth::ResourceServer>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            json_response: false,
            stateless: false,
            allowed_hosts: Some(vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()]),
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 20_000,
            max_sessions_per_principal: 64,
            sse_retry: Duration::from_millis(1000),
            max_body_size: 4 * 1024 * 1024,
            request_body_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            max_connections: None,
            replay_buffer: 256,
            release_memory_after_bursts: true,
            #[cfg(feature = "auth")]
            auth: None,
        }
    }
}

impl HttpOptions {
    /// Answer with JSON bodies rather than SSE.
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().json_response(true);
    /// assert!(o.json_response);
    /// ```
    pub fn json_response(mut self, on: bool) -> Self {
        self.json_response = on;
        self
    }

    /// Stateless mode (no sessions).
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().stateless(true);
    /// assert!(o.stateless);
    /// ```
    pub fn stateless(mut self, on: bool) -> Self {
        self.stateless = on;
        self
    }

    /// Replaces the allowed host names (`None` turns the check off).
    ///
    /// ```
    /// // Reached as https://mcp.example.com behind a proxy (else: 403 Host not allowed).
    /// let o = tracksuit::host::http::HttpOptions::default()
    ///     .allowed_hosts(Some(vec!["mcp.example.com".into(), "localhost".into()]));
    /// assert_eq!(o.allowed_hosts.unwrap().len(), 2);
    /// ```
    pub fn allowed_hosts(mut self, hosts: Option<Vec<String>>) -> Self {
        self.allowed_hosts = hosts;
        self
    }

    /// Sets the idle-session expiry.
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = tracksuit::host::http::HttpOptions::default().session_idle_timeout(Duration::from_secs(300));
    /// assert_eq!(o.session_idle_timeout.as_secs(), 300);
    /// ```
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Sets the largest accepted body.
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().max_body_size(1 << 20);
    /// assert_eq!(o.max_body_size, 1 << 20);
    /// ```
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body_size = bytes;
        self
    }

    /// Caps the sessions open at once, server-wide and per principal (each at least 1).
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().max_sessions(5_000, 16);
    /// assert_eq!((o.max_sessions, o.max_sessions_per_principal), (5_000, 16));
    /// ```
    pub fn max_sessions(mut self, total: usize, per_principal: usize) -> Self {
        self.max_sessions = total.max(1);
        self.max_sessions_per_principal = per_principal.max(1);
        self
    }

    /// Sets how long a POST body may take to arrive (at least 1 ms).
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = tracksuit::host::http::HttpOptions::default().request_body_timeout(Duration::from_secs(5));
    /// assert_eq!(o.request_body_timeout, Duration::from_secs(5));
    /// ```
    pub fn request_body_timeout(mut self, timeout: Duration) -> Self {
        self.request_body_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Sets how long a connection may take to send a request head, and stay idle between
    /// requests (at least 1 ms).
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = tracksuit::host::http::HttpOptions::default().header_read_timeout(Duration::from_secs(3));
    /// assert_eq!(o.header_read_timeout, Duration::from_secs(3));
    /// ```
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Caps the connections [`serve_with`] keeps open (`None`: no cap but the file
    /// descriptors; `Some(0)` is taken as 1).
    ///
    /// ```
    /// let o = tracksuit::host::http::HttpOptions::default().max_connections(Some(900));
    /// assert_eq!(o.max_connections, Some(900));
    /// ```
    pub fn max_connections(mut self, max: Option<usize>) -> Self {
        self.max_connections = max.map(|m| m.max(1));
        self
    }

    /// Whether to give memory back after a burst of sessions (default on; see the field of
    /// the same name).
    ///
    /// ```
    /// use tracksuit::host::http::HttpOptions;
    /// let options = HttpOptions::default().release_memory_after_bursts(false);
    /// assert!(!options.release_memory_after_bursts);
    /// ```
    pub fn release_memory_after_bursts(mut self, on: bool) -> Self {
        self.release_memory_after_bursts = on;
        self
    }

    /// Requires a valid bearer token on every request to the endpoint and serves the
    /// protected resource metadata beside it (see [`auth`]).
    ///
    /// ```
    /// use tracksuit::host::http::HttpOptions;
    /// use tracksuit::host::http::auth::{JwtValidator, ResourceServer};
    /// let resource = "http://127.0.0.1:8000/mcp";
    /// let issuer = "http://127.0.0.1:9000";
    /// let validator = JwtValidator::new(issuer, resource, "http://127.0.0.1:9000/jwks");
    /// let options = HttpOptions::default()
    ///     .auth(ResourceServer::new(resource, validator).authorization_server(issuer));
    /// assert!(options.auth.is_some());
    /// ```
    #[cfg(feature = "auth")]
    pub fn auth(mut self, resource: auth::ResourceServer) -> Self {
        self.auth = Some(resource);
        self
    }
}

struct HttpSession {
    engine: Arc<ServerSession>,
    /// Who opened it (the principal's `binding_key`; `None` without authentication): a
    /// request from anyone else does not find it.
    owner: Option<String>,
    /// Its place in its owner's quota, for as long as it exists.
    _slot: quota::Slot,
    streams: Mutex<Streams>,
    last_active: Mutex<Instant>,
}

impl HttpSession {
    fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }
}

struct Shared {
    server: ServerHandle,
    options: HttpOptions,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    /// Drops idle sessions in the background while there are sessions.
    sweeper: OnDemand,
    /// Wakes the sweeper when the endpoint is dropped, so it does not sleep on.
    dropped: Arc<Notify>,
    /// Tells when a burst of sessions has subsided.
    bursts: BurstWatch,
    /// Open sessions per principal.
    quota: Arc<quota::SessionQuota>,
}

/// The Streamable HTTP endpoint of a running server.
///
/// ```
/// use tracksuit::host::http::{HttpOptions, StreamableHttp};
/// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
/// let http = StreamableHttp::new(server, HttpOptions::default());
/// let _router: axum::Router = http.router("/mcp");
/// assert_eq!(http.session_count(), 0);
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
#[derive(Clone)]
pub struct StreamableHttp {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for StreamableHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamableHttp")
            .field("options", &self.shared.options)
            .finish_non_exhaustive()
    }
}

impl StreamableHttp {
    /// An endpoint serving `server`.
    ///
    /// ```
    /// use tracksuit::{Server, client::{Client, HttpTransport}, mcp_tool};
    /// use tracksuit::host::http::{HttpOptions, StreamableHttp};
    /// /// Says pong.
    /// #[mcp_tool]
    /// async fn ping() -> String { "pong".into() }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).tool(ping).build()?;
    /// let endpoint = StreamableHttp::new(server, HttpOptions::default());
    /// let app = endpoint.router("/mcp");
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let url = format!("http://{}/mcp", listener.local_addr()?);
    /// tokio::spawn(async move { axum::serve(listener, app).await });
    /// let client = Client::builder().connect(HttpTransport::new(&url)?).await?;
    /// let result = client.call_tool("ping", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("pong"));
    /// assert_eq!(endpoint.session_count(), 1);
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(server: ServerHandle, options: HttpOptions) -> Self {
        let quota = quota::SessionQuota::new(options.max_sessions_per_principal);
        StreamableHttp {
            shared: Arc::new(Shared {
                server,
                options,
                sessions: Mutex::new(HashMap::new()),
                sweeper: OnDemand::default(),
                dropped: Arc::default(),
                bursts: BurstWatch::default(),
                quota,
            }),
        }
    }

    /// A router serving the endpoint at `path` (e.g. `"/mcp"`); with `HttpOptions::auth`
    /// (feature `auth`), behind the bearer-token layer and beside the protected resource
    /// metadata.
    ///
    /// ```
    /// use tracksuit::host::http::{HttpOptions, StreamableHttp};
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// // Mount it beside the application's own routes.
    /// let app = axum::Router::new()
    ///     .route("/health", axum::routing::get(|| async { "ok" }))
    ///     .merge(StreamableHttp::new(server, HttpOptions::default()).router("/mcp"));
    /// # let _ = app;
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn router(&self, path: &str) -> Router {
        let router = Router::new().route(path, any(handle));
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.shared.options.auth {
            return router
                .route_layer(auth.layer())
                .with_state(self.shared.clone())
                .merge(auth.metadata_router());
        }
        router.with_state(self.shared.clone())
    }

    /// Number of open sessions.
    ///
    /// ```
    /// use tracksuit::host::http::{HttpOptions, StreamableHttp};
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// let endpoint = StreamableHttp::new(server, HttpOptions::default());
    /// assert_eq!(endpoint.session_count(), 0);
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn session_count(&self) -> usize {
        lock(&self.shared.sessions).len()
    }

    /// Drops sessions idle longer than the configured timeout; returns how many.
    ///
    /// ```
    /// use tracksuit::host::http::{HttpOptions, StreamableHttp};
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    /// let endpoint = StreamableHttp::new(server, HttpOptions::default());
    /// assert_eq!(endpoint.expire_idle_sessions(), 0); // nothing to drop
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
    pub fn expire_idle_sessions(&self) -> usize {
        self.shared.sweep()
    }
}

impl Shared {
    /// Drops the sessions idle past the timeout; returns how many.
    fn sweep(self: &Arc<Self>) -> usize {
        let idle = self.options.session_idle_timeout;
        let mut expired = Vec::new();
        {
            let mut sessions = lock(&self.sessions);
            sessions.retain(|_, s| {
                let keep = lock(&s.last_active).elapsed() < idle || lock(&s.streams).has_live();
                if !keep {
                    expired.push(s.clone());
                }
                keep
            });
            sessions.release_spare();
        }
        for s in &expired {
            s.engine.close();
        }
        if !expired.is_empty() {
            self.sessions_closed();
        }
        expired.len()
    }

    /// After sessions closed: once a burst has subsided and the count has stopped falling,
    /// gives the memory it used back to the operating system.
    fn sessions_closed(self: &Arc<Self>) {
        // (`expire_idle_sessions` may be called outside a runtime: nothing to schedule on.)
        if !self.options.release_memory_after_bursts
            || tokio::runtime::Handle::try_current().is_err()
        {
            return;
        }
        let open = lock(&self.sessions).len();
        if !self.bursts.closed(open) {
            return;
        }
        let shared = Arc::downgrade(self);
        tokio::spawn(async move {
            let count = || shared.upgrade().map(|s| lock(&s.sessions).len());
            memory::release_as_burst_subsides(open, count).await;
            if let Some(shared) = shared.upgrade() {
                let open = lock(&shared.sessions).len();
                shared.bursts.released(open);
            }
        });
    }

    /// The session a request names, if `owner` (the caller's binding key) opened it.
    fn session(
        &self,
        headers: &HeaderMap,
        owner: Option<&str>,
    ) -> Result<Arc<HttpSession>, Rejection> {
        let Some(id) = headers.get(SESSION_HEADER) else {
            return Err((
                StatusCode::BAD_REQUEST,
                "Bad Request: Mcp-Session-Id header is required",
            ));
        };
        let id = id.to_str().unwrap_or_default();
        match lock(&self.sessions).get(id) {
            // Another principal's session is not found, as if it did not exist.
            Some(s) if s.owner.as_deref() == owner => {
                s.touch();
                Ok(s.clone())
            }
            _ => Err((StatusCode::NOT_FOUND, "Session not found")),
        }
    }

    /// Opens a session for `owner`, within the server-wide and per-principal caps.
    fn create_session(
        self: &Arc<Self>,
        owner: Option<String>,
    ) -> Result<(String, Arc<HttpSession>), Rejection> {
        if lock(&self.sessions).len() >= self.options.max_sessions
            && (self.sweep() == 0 || lock(&self.sessions).len() >= self.options.max_sessions)
        {
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: the server holds as many sessions as it may (HttpOptions::max_sessions)",
            ));
        }
        let Some(slot) = self.quota.admit(owner.as_deref()) else {
            return Err((
                StatusCode::TOO_MANY_REQUESTS,
                "Too Many Requests: this principal holds as many open sessions as it may (HttpOptions::max_sessions_per_principal); end one with DELETE",
            ));
        };
        let id = format!("{:032x}", rand::random::<u128>());
        let (tx, rx) = outbound_queue(self.server.options().outbound_queue);
        let engine = ServerSession::new(self.server.clone(), tx);
        if owner.is_none() {
            engine.bind_tasks_to_session(&id);
        }
        // Each POST is its own task waiting for its answer: a handler that finishes without
        // waiting is answered there, with no task of its own (POSTs of one session arrive
        // on their own connections, so none holds up another).
        engine.peer().poll_handlers_first_inline();
        let shutdown = engine.peer().shutdown_token().clone();
        let session = Arc::new(HttpSession {
            engine,
            owner,
            _slot: slot,
            streams: Mutex::new(Streams::new(self.options.replay_buffer)),
            last_active: Mutex::new(Instant::now()),
        });
        let outlet = SessionOutlet {
            session: Arc::downgrade(&session),
            shutdown: shutdown.clone(),
        };
        tokio::spawn(drive(rx, session.engine.peer().closed_flag(), outlet));
        let open = {
            let mut sessions = lock(&self.sessions);
            sessions.insert(id.clone(), session.clone());
            sessions.len()
        };
        self.bursts.opened(open);
        self.sweeper.start(|| {
            tokio::spawn(sweep_idle_sessions(
                Arc::downgrade(self),
                self.dropped.clone(),
            ));
        });
        Ok((id, session))
    }
}

/// The [`Outlet`] of a stateful session: routes its messages into the session's streams,
/// then hands each to its live connection outside the lock (waiting while the client does
/// not read it, until the session closes).
struct SessionOutlet {
    session: Weak<HttpSession>,
    shutdown: CancellationToken,
}

impl Outlet for SessionOutlet {
    async fn deliver(&mut self, out: Outbound) -> Result<(), Gone> {
        let delivery = {
            let session = self.session.upgrade().ok_or(Gone)?;
            let mut streams = lock(&session.streams);
            route(&mut streams, out)
        };
        hand_over(delivery, &self.shutdown).await;
        Ok(())
    }

    fn finish(&mut self) {
        if let Some(session) = self.session.upgrade() {
            lock(&session.streams).close_all();
        }
    }
}

/// The [`Outlet`] of a stateless request: its own streams, nobody else's.
struct StatelessOutlet {
    streams: Streams,
    shutdown: CancellationToken,
}

impl Outlet for StatelessOutlet {
    async fn deliver(&mut self, out: Outbound) -> Result<(), Gone> {
        let delivery = route(&mut self.streams, out);
        hand_over(delivery, &self.shutdown).await;
        Ok(())
    }
}

/// Applies one outbound item to a session's streams; returns what to send, if anything.
fn route(streams: &mut Streams, out: Outbound) -> Option<Delivery> {
    match out {
        Outbound::Message { message, related } => streams.route(&message, related.as_ref()),
        Outbound::CloseStream(request) => {
            streams.disconnect(&request);
            None
        }
        Outbound::Abandoned(request) => {
            streams.abandon(&request);
            None
        }
        Outbound::Shutdown => None,
    }
}

/// Finishes a delivery the streams could not make at once: waits while the client has not
/// read the events before it (the connection's channel is full) unless the session ends
/// meanwhile. If the connection is gone the event stays in the stream's replay buffer.
async fn hand_over(delivery: Option<Delivery>, shutdown: &CancellationToken) {
    if let Some((live, bytes)) = delivery {
        tokio::select! {
            biased;
            _ = live.send(bytes) => {}
            _ = shutdown.cancelled() => {}
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.dropped.notify_one();
    }
}

/// Sweeps idle sessions every quarter of the idle timeout (0.1 s to 60 s) while the endpoint
/// exists and has sessions.
async fn sweep_idle_sessions(shared: Weak<Shared>, dropped: Arc<Notify>) {
    loop {
        let Some(period) = shared.upgrade().map(|s| {
            (s.options.session_idle_timeout / 4)
                .clamp(Duration::from_millis(100), Duration::from_secs(60))
        }) else {
            return;
        };
        tokio::select! {
            _ = tokio::time::sleep(period) => {}
            _ = dropped.notified() => return,
        }
        let Some(shared) = shared.upgrade() else {
            return;
        };
        shared.sweep();
        if shared
            .sweeper
            .should_end(|| lock(&shared.sessions).is_empty())
        {
            return;
        }
    }
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err((status, message)) = check_host(&shared.options, &parts.headers) {
        return http_error(status, message);
    }
    if modern::names_modern_version(&parts.headers) && parts.method != Method::POST {
        let mut r = http_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed: MCP 2026-07-28 has no GET stream and no sessions",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    // A POST's version header is checked once its body is read, so the error carries the
    // request's id (and a modern request's the versions this server supports).
    if parts.method != Method::POST
        && let Some(v) = parts.headers.get(VERSION_HEADER)
    {
        let ok = v.to_str().is_ok_and(|v| {
            SUPPORTED_PROTOCOL_VERSIONS.contains(&v)
                || crate::server::MODERN_PROTOCOL_VERSIONS.contains(&v)
        });
        if !ok {
            return http_error(
                StatusCode::BAD_REQUEST,
                &format!(
                    "Bad Request: unsupported MCP-Protocol-Version (supported: {})",
                    SUPPORTED_PROTOCOL_VERSIONS.join(", ")
                ),
            );
        }
    }
    match parts.method {
        Method::POST => post(shared, Arc::new(parts), body).await,
        Method::GET => {
            let owner = owner_of(&parts);
            get(shared, parts.headers, owner.as_deref())
        }
        Method::DELETE => {
            let owner = owner_of(&parts);
            delete(shared, parts.headers, owner.as_deref())
        }
        _ => {
            let mut r = http_error(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            r
        }
    }
}

/// Who made the request: the principal an authentication layer (or the application's own
/// middleware) put into its extensions, and its head.
fn caller_of(parts: &Arc<axum::http::request::Parts>) -> Caller {
    Caller {
        principal: principal_of(parts),
        http: Some(parts.clone()),
    }
}

/// The principal an authentication layer (or the application's middleware) put into the
/// request's extensions.
fn principal_of(parts: &axum::http::request::Parts) -> Option<Arc<Principal>> {
    parts
        .extensions
        .get::<Arc<Principal>>()
        .cloned()
        .or_else(|| parts.extensions.get::<Principal>().cloned().map(Arc::new))
}

/// What a session is bound to: the caller's [`Principal::binding_key`], if any.
fn owner_of(parts: &axum::http::request::Parts) -> Option<String> {
    principal_of(parts).as_deref().map(Principal::binding_key)
}

/// The refusal of a call of a tool, prompt or resource whose scopes the caller lacks, made
/// before anything runs: `403` with an `insufficient_scope` challenge (MCP authorization,
/// "Scope Challenge Handling") and a JSON-RPC error carrying the request's id.
fn scope_refusal(
    shared: &Shared,
    parts: &axum::http::request::Parts,
    caller: &Caller,
    request: &crate::protocol::JsonRpcRequest,
) -> Option<Response> {
    let required = shared
        .server
        .required_scopes(&request.method, request.params.as_ref());
    let missing = caller.missing_scopes(&required);
    if missing.is_empty() {
        return None;
    }
    let description = format!("this request needs the scope(s) {}", missing.join(" "));
    let resource = parts.extensions.get::<challenge::ResourceChallenge>();
    let endpoint = resource
        .map(|r| r.endpoint_scopes.as_slice())
        .unwrap_or_default();
    let header = challenge::bearer_challenge(
        Some("insufficient_scope"),
        Some(&challenge::operation_scope(
            endpoint.iter().chain(&required),
        )),
        resource.map(|r| r.metadata_url.as_str()),
        Some(&description),
    );
    let error = ErrorObject::invalid_request(format!("Forbidden: {description}"))
        .with_data(serde_json::json!({ "requiredScopes": required, "missingScopes": missing }));
    let mut response = rpc_error(StatusCode::FORBIDDEN, Some(request.id.clone()), error);
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, header);
    Some(response)
}

async fn post(shared: Arc<Shared>, parts: Arc<axum::http::request::Parts>, body: Body) -> Response {
    let caller = caller_of(&parts);
    let headers = &parts.headers;
    let json_mode = shared.options.json_response;
    let accept = header_str(headers, header::ACCEPT);
    let accepts_json = accepts(accept, "application/json");
    let accepts_sse = accepts(accept, "text/event-stream");
    if !accepts_json || (!json_mode && !accepts_sse) {
        return http_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        );
    }
    let content_type = header_str(headers, header::CONTENT_TYPE);
    if !content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
    {
        return http_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    let mut read = std::pin::pin!(axum::body::to_bytes(body, shared.options.max_body_size));
    // A body that came with its headers (most do) needs no timer.
    let read = match futures::poll!(read.as_mut()) {
        std::task::Poll::Ready(read) => Ok(read),
        std::task::Poll::Pending => {
            tokio::time::timeout(shared.options.request_body_timeout, read).await
        }
    };
    let bytes = match read {
        Ok(Ok(b)) => b,
        Err(_) => return body_timeout(shared.options.request_body_timeout),
        Ok(Err(_)) => {
            return rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                ErrorObject::invalid_request(format!(
                    "message exceeds the {} byte limit",
                    shared.options.max_body_size
                )),
            );
        }
    };
    // Modern requests' client capabilities and info stay raw text until they are checked.
    let (message, client) = match JsonRpcMessage::from_slice_with::<ClientMetaParams>(&bytes) {
        Ok(read) => read,
        Err(rejection) => {
            return rpc_error(StatusCode::BAD_REQUEST, rejection.id, rejection.error);
        }
    };
    // From here on the message is read: errors about it carry the request's id.
    if let JsonRpcMessage::Request(request) = &message
        && let Some(refused) = scope_refusal(&shared, &parts, &caller, request)
    {
        return refused;
    }
    let message = match message {
        JsonRpcMessage::Request(request)
            if client.version.is_some()
                || crate::server::is_modern(&request.method, request.params.as_ref())
                || names_modern_version(headers, &request.method) =>
        {
            let queue = shared.server.options().outbound_queue;
            return modern::post(&shared.server, headers, request, client, queue, caller).await;
        }
        mut other => {
            if let JsonRpcMessage::Request(JsonRpcRequest { params, .. })
            | JsonRpcMessage::Notification(JsonRpcNotification { params, .. }) = &mut other
            {
                client.restore(params.as_mut());
            }
            other
        }
    };
    let request_id = match &message {
        JsonRpcMessage::Request(r) => Some(r.id.clone()),
        _ => None,
    };
    if let Some(v) = headers.get(VERSION_HEADER)
        && !v
            .to_str()
            .is_ok_and(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v))
    {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            request_id,
            ErrorObject::invalid_request(format!(
                "unsupported MCP-Protocol-Version (supported: {})",
                SUPPORTED_PROTOCOL_VERSIONS.join(", ")
            )),
        );
    }
    let is_initialize =
        matches!(&message, JsonRpcMessage::Request(r) if r.method == methods::INITIALIZE);

    if shared.options.stateless {
        let (tx, rx) = outbound_queue(shared.server.options().outbound_queue);
        let engine = ServerSession::new_stateless(shared.server.clone(), tx);
        return dispatch_stateless(engine, rx, message, json_mode, caller).await;
    }

    let (session_id, session) = if is_initialize {
        if headers.contains_key(SESSION_HEADER) {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                request_id,
                ErrorObject::invalid_request("initialize must not carry Mcp-Session-Id"),
            );
        }
        match shared.create_session(caller.owner()) {
            Ok((id, s)) => (Some(id), s),
            Err((status, message)) => {
                let error = ErrorObject::new(crate::protocol::INVALID_REQUEST, message);
                return rpc_error(status, request_id, error);
            }
        }
    } else {
        match shared.session(headers, caller.owner().as_deref()) {
            Ok(s) => (None, s),
            Err((status, message)) => {
                return rpc_error(
                    status,
                    request_id,
                    ErrorObject::new(crate::protocol::INVALID_REQUEST, message),
                );
            }
        }
    };

    let JsonRpcMessage::Request(request) = &message else {
        session.engine.handle_from(message, caller).await;
        return StatusCode::ACCEPTED.into_response();
    };
    let id = request.id.clone();
    let (live, rx) = live_channel();
    let mode = if json_mode { Mode::Json } else { Mode::Sse };
    let stream = lock(&session.streams).open(id.clone(), mode, live);
    let Some(stream) = stream else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            Some(id.clone()),
            ErrorObject::invalid_request(format!(
                "request id {} is already in flight",
                ErrorObject::quote(&id.to_string())
            )),
        );
    };
    session.engine.handle_from(message, caller).await;
    let mut response = if json_mode {
        json_body(rx).await
    } else {
        let primer = session
            .engine
            .protocol_version()
            .is_none_or(|v| v >= "2025-11-25");
        let first = primer.then(|| priming(stream, shared.options.sse_retry.as_millis()));
        let mut rx = rx;
        // A fast call's result is usually ready within a moment: waiting that long lets the
        // headers, the priming event, the result and the end of the stream leave in one
        // write instead of three (a third of the CPU per call went to those writes). A
        // slow call gets its headers and priming event after the grace period.
        let first = match tokio::time::timeout(SSE_COALESCE, rx.recv()).await {
            Ok(Some(event)) => Some(coalesce(first, event, &mut rx)),
            _ => first,
        };
        sse_body(first, rx)
    };
    if let Some(id) = session_id
        && let Ok(v) = HeaderValue::from_str(&id)
    {
        response.headers_mut().insert(SESSION_HEADER, v);
    }
    response
}

async fn dispatch_stateless(
    engine: Arc<ServerSession>,
    queue: crate::peer::OutboundReceiver,
    message: JsonRpcMessage,
    json_mode: bool,
    caller: Caller,
) -> Response {
    let JsonRpcMessage::Request(request) = &message else {
        engine.handle_from(message, caller).await;
        return StatusCode::ACCEPTED.into_response();
    };
    let id = request.id.clone();
    let (live, out) = live_channel();
    let mut streams = Streams::new(1);
    let mode = if json_mode { Mode::Json } else { Mode::Sse };
    streams.open(id, mode, live);
    let shutdown = engine.peer().shutdown_token().clone();
    let closed = engine.peer().closed_flag();
    tokio::spawn(drive(queue, closed, StatelessOutlet { streams, shutdown }));
    // One request, and this task waits for its answer: poll the handler here first.
    engine.peer().poll_handlers_first_inline();
    engine.handle_from(message, caller).await;
    if json_mode {
        json_body(out).await
    } else {
        sse_body(None, out)
    }
}

fn get(shared: Arc<Shared>, headers: HeaderMap, owner: Option<&str>) -> Response {
    if !accepts(header_str(&headers, header::ACCEPT), "text/event-stream") {
        return http_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    if shared.options.stateless {
        return http_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed: stateless server has no standalone stream",
        );
    }
    let session = match shared.session(&headers, owner) {
        Ok(s) => s,
        Err((status, message)) => return http_error(status, message),
    };
    let resume = headers
        .get(LAST_EVENT_ID)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_event_id);
    let (live, rx) = live_channel();
    let mut streams = lock(&session.streams);
    let resumed = resume.and_then(|(stream, seq)| streams.attach(stream, Some(seq), live.clone()));
    let replay = match resumed {
        Some(replay) => replay,
        None => streams.attach(STANDALONE, None, live).unwrap_or_default(),
    };
    drop(streams);
    let replay = (!replay.is_empty()).then(|| replay.concat().into());
    sse_body(replay, rx)
}

fn delete(shared: Arc<Shared>, headers: HeaderMap, owner: Option<&str>) -> Response {
    if shared.options.stateless {
        return http_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed: stateless server has no sessions",
        );
    }
    let Some(id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return http_error(
            StatusCode::BAD_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
        );
    };
    // Not in the `match` itself: the lock guard would live to its end, and closing takes it.
    let removed = {
        let mut sessions = lock(&shared.sessions);
        match sessions.get(id) {
            Some(s) if s.owner.as_deref() == owner => crate::capacity::remove(&mut sessions, id),
            _ => None,
        }
    };
    match removed {
        Some(session) => {
            session.engine.close();
            shared.sessions_closed();
            StatusCode::OK.into_response()
        }
        None => http_error(StatusCode::NOT_FOUND, "Session not found"),
    }
}

/// How long a POST waits for its first event before sending the SSE headers alone.
const SSE_COALESCE: Duration = Duration::from_millis(2);

/// `head` (if any), `event` and every event already queued behind it, as one chunk.
fn coalesce(head: Option<Bytes>, event: Bytes, rx: &mut LiveReceiver) -> Bytes {
    let mut more = Vec::new();
    while let Ok(next) = rx.try_recv() {
        more.push(next);
    }
    if head.is_none() && more.is_empty() {
        return event;
    }
    let len = head.as_ref().map_or(0, Bytes::len)
        + event.len()
        + more.iter().map(Bytes::len).sum::<usize>();
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(head.as_deref().unwrap_or_default());
    out.extend_from_slice(&event);
    for next in &more {
        out.extend_from_slice(next);
    }
    Bytes::from(out)
}

/// An SSE response: `first`, then each batch of queued events as one chunk, until the
/// sending side is dropped.
fn sse_body(first: Option<Bytes>, rx: LiveReceiver) -> Response {
    let head = futures::stream::iter(first.map(Ok::<_, Infallible>));
    let tail = futures::stream::unfold(rx, |mut rx| async move {
        let event = rx.recv().await?;
        let batch = coalesce(None, event, &mut rx);
        Some((Ok::<_, Infallible>(batch), rx))
    });
    let body = Body::from_stream(futures::StreamExt::chain(head, tail));
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(body)
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

async fn json_body(mut rx: LiveReceiver) -> Response {
    match rx.recv().await {
        Some(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        None => http_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the session closed before the response",
        ),
    }
}

fn check_host(options: &HttpOptions, headers: &HeaderMap) -> Result<(), Rejection> {
    let Some(allowed) = &options.allowed_hosts else {
        return Ok(());
    };
    let ok = |host: &str| allowed.iter().any(|a| a.eq_ignore_ascii_case(host));
    // One Host, always (RFC 9112 §3.2): a second one could be read by something else in
    // front of the server, and none at all cannot be checked.
    let mut hosts = headers.get_all(header::HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else {
        return Err((
            StatusCode::BAD_REQUEST,
            "Bad Request: exactly one Host header is required",
        ));
    };
    if !ok(strip_port(host.to_str().unwrap_or_default())) {
        return Err((
            StatusCode::FORBIDDEN,
            "Forbidden: Host not allowed (a server reached under another name lists it in HttpOptions::allowed_hosts)",
        ));
    }
    let mut origins = headers.get_all(header::ORIGIN).iter();
    let (origin, None) = (origins.next(), origins.next()) else {
        return Err((
            StatusCode::BAD_REQUEST,
            "Bad Request: more than one Origin header",
        ));
    };
    if let Some(origin) = origin {
        let origin = origin.to_str().unwrap_or_default();
        let host = origin
            .split_once("://")
            .map(|(_, rest)| rest)
            .unwrap_or(origin);
        let host = host.split('/').next().unwrap_or_default();
        if !ok(strip_port(host)) {
            return Err((
                StatusCode::FORBIDDEN,
                "Forbidden: Origin not allowed (allowed origins are the hosts in HttpOptions::allowed_hosts)",
            ));
        }
    }
    Ok(())
}

fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.rsplit_once(':').map_or(host, |(h, p)| {
        if p.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            host
        }
    })
}

/// A header's value as text (empty when absent or not text). Looked up by a typed
/// [`HeaderName`]: a name given as text is parsed again at every lookup.
fn header_str(headers: &HeaderMap, name: HeaderName) -> &str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

fn accepts(accept: &str, mime: &str) -> bool {
    accept.split(',').any(|part| {
        let t = part.split(';').next().unwrap_or_default().trim();
        t.eq_ignore_ascii_case(mime) || t == "*/*"
    })
}

/// A refusal before the body is read: a JSON-RPC error with `"id": null`.
fn http_error(status: StatusCode, message: &str) -> Response {
    rpc_error(
        status,
        None,
        ErrorObject::new(crate::protocol::INVALID_REQUEST, message),
    )
}

/// `status` with a JSON-RPC error body: `id` is the request's when it could be read, else
/// `None` (written as `"id": null`).
fn rpc_error(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response {
    let body = JsonRpcMessage::error(id, error).to_vec();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

impl Server {
    /// Builds the server and serves Streamable HTTP at `http://{addr}/mcp` with default
    /// [`HttpOptions`], with `TCP_NODELAY` on every accepted connection. A duplicate name
    /// fails with [`std::io::ErrorKind::InvalidInput`].
    ///
    /// ```no_run
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     tracksuit::Server::new(tracksuit::crate_info!()).serve_http("127.0.0.1:8000").await
    /// }
    /// ```
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<()> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`Server::serve_http`] with options.
    ///
    /// ```no_run
    /// use tracksuit::host::http::HttpOptions;
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let options = HttpOptions::default().json_response(true);
    ///     tracksuit::Server::new(tracksuit::crate_info!()).serve_http_with("127.0.0.1:8000", options).await
    /// }
    /// ```
    pub async fn serve_http_with(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        options: HttpOptions,
    ) -> std::io::Result<()> {
        self.build()?.serve_http_with(addr, options).await
    }
}

impl ServerHandle {
    /// Serves Streamable HTTP at `http://{addr}/mcp` with default [`HttpOptions`].
    ///
    /// ```no_run
    /// #[tokio::main]
    /// async fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    ///     server.serve_http("127.0.0.1:8000").await?;
    ///     Ok(())
    /// }
    /// ```
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<()> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`ServerHandle::serve_http`] with options.
    ///
    /// ```no_run
    /// use tracksuit::host::http::HttpOptions;
    /// #[tokio::main]
    /// async fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    ///     let options = HttpOptions::default().stateless(true);
    ///     server.serve_http_with("0.0.0.0:8000", options.allowed_hosts(None)).await?;
    ///     Ok(())
    /// }
    /// ```
    pub async fn serve_http_with(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        options: HttpOptions,
    ) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let app = StreamableHttp::new(self, options.clone()).router("/mcp");
        serve_with(listener, app, &options).await
    }
}

/// Serves `app` (e.g. a [`StreamableHttp::router`] merged with your own routes) on
/// `listener` with the default connection limits of [`HttpOptions`]: see [`serve_with`].
///
/// ```no_run
/// use tracksuit::host::http::{HttpOptions, StreamableHttp, serve};
/// # async fn run(server: tracksuit::ServerHandle) -> std::io::Result<()> {
/// let app = StreamableHttp::new(server, HttpOptions::default())
///     .router("/mcp")
///     .route("/health", axum::routing::get(|| async { "ok" }));
/// serve(tokio::net::TcpListener::bind("127.0.0.1:8000").await?, app).await
/// # }
/// ```
pub async fn serve(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    serve_with(listener, app, &HttpOptions::default()).await
}

/// Serves `app` on `listener` with the connection limits of `options`
/// ([`header_read_timeout`](HttpOptions::header_read_timeout),
/// [`max_connections`](HttpOptions::max_connections)), `TCP_NODELAY` on every connection.
///
/// Plain `axum::serve` has neither: a connection that sends its head one byte at a time
/// stays open for as long as it likes, and once the process is out of file descriptors no
/// one else gets in. Without `TCP_NODELAY`, a response written in two parts (SSE headers
/// first, the result once a slow call finishes) can wait ~40 ms for the client's delayed ACK.
///
/// ```no_run
/// use std::time::Duration;
/// use tracksuit::host::http::{HttpOptions, StreamableHttp, serve_with};
/// # async fn run(server: tracksuit::ServerHandle) -> std::io::Result<()> {
/// let options = HttpOptions::default()
///     .header_read_timeout(Duration::from_secs(5))
///     .max_connections(Some(900)); // below `ulimit -n`
/// let app = StreamableHttp::new(server, options.clone()).router("/mcp");
/// serve_with(tokio::net::TcpListener::bind("127.0.0.1:8000").await?, app, &options).await
/// # }
/// ```
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    app: Router,
    options: &HttpOptions,
) -> std::io::Result<()> {
    let limits = connections::Limits {
        header_read_timeout: options.header_read_timeout,
        max_connections: options.max_connections,
    };
    connections::serve(listener, app, limits).await
}

/// Whether a request outside any session names a modern protocol version in its
/// `MCP-Protocol-Version` header: it is then a modern request even if its `_meta` lacks
/// the version (and is refused with `-32602` / `400` for that, as the spec requires),
/// not a 2025-11-25 request without a session.
fn names_modern_version(headers: &HeaderMap, method: &str) -> bool {
    method != methods::INITIALIZE
        && !headers.contains_key(SESSION_HEADER)
        && headers
            .get(VERSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| crate::server::MODERN_PROTOCOL_VERSIONS.contains(&v))
}

/// `408 Request Timeout` for a body that did not arrive in time; the connection closes.
fn body_timeout(after: Duration) -> Response {
    let mut response = http_error(
        StatusCode::REQUEST_TIMEOUT,
        &format!("Request Timeout: the body did not arrive within {after:?}"),
    );
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_checks() {
        let opts = HttpOptions::default();
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("localhost:8001"));
        assert!(check_host(&opts, &h).is_ok());
        h.insert(header::HOST, HeaderValue::from_static("[::1]:8001"));
        assert!(check_host(&opts, &h).is_ok());
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example"),
        );
        assert!(check_host(&opts, &h).is_err());
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:3000"),
        );
        assert!(check_host(&opts, &h).is_ok());
        h.insert(header::HOST, HeaderValue::from_static("evil.example"));
        assert!(check_host(&opts, &h).is_err());
        // One Host, one Origin at most.
        h.insert(header::HOST, HeaderValue::from_static("localhost"));
        h.append(header::HOST, HeaderValue::from_static("localhost"));
        assert_eq!(
            check_host(&opts, &h).map_err(|e| e.0),
            Err(StatusCode::BAD_REQUEST)
        );
        h.remove(header::HOST);
        assert_eq!(
            check_host(&opts, &h).map_err(|e| e.0),
            Err(StatusCode::BAD_REQUEST)
        );
        h.insert(header::HOST, HeaderValue::from_static("localhost"));
        h.append(header::ORIGIN, HeaderValue::from_static("http://localhost"));
        assert_eq!(
            check_host(&opts, &h).map_err(|e| e.0),
            Err(StatusCode::BAD_REQUEST)
        );
        h.remove(header::ORIGIN);
        assert!(check_host(&opts, &h).is_ok());
        // Without an allow-list nothing is checked.
        assert!(
            check_host(
                &HttpOptions::default().allowed_hosts(None),
                &HeaderMap::new()
            )
            .is_ok()
        );
    }

    #[test]
    fn accept_parsing() {
        assert!(accepts(
            "application/json, text/event-stream",
            "text/event-stream"
        ));
        assert!(accepts("application/json;q=0.9", "application/json"));
        assert!(!accepts("text/html", "application/json"));
    }
}
