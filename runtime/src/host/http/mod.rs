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
mod body;
mod caller;
mod challenge;
mod connections;
mod errors;
mod headers;
mod memory;
mod modern;
mod one_request;
mod options;
mod outlets;
mod post;
mod quota;
mod serve;

pub use options::HttpOptions;
pub use serve::{serve, serve_with};

use crate::capacity::ReleaseSpare;
use crate::on_demand::OnDemand;
use crate::peer::outbound_queue;
use crate::peer::sync::lock;
use crate::protocol::SUPPORTED_PROTOCOL_VERSIONS;
use crate::server::{ServerHandle, ServerSession};
use crate::transport::drive;
use crate::transport::sse::{STANDALONE, Streams, live_channel, parse_event_id};
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use body::sse_body;
use caller::owner_of;
use errors::{Rejection, http_error, rpc_error};
use headers::{accepts, check_host, header_str};
use memory::BurstWatch;
use outlets::SessionOutlet;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

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
        Method::POST => post::post(shared, Arc::new(parts), body).await,
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

    /// Every POST's future is allocated (axum boxes it) and moved: it must hold a plain
    /// call's answer once. It once took 9.4 KB in a release build, for an answer of under
    /// 3: the 2026 host, the stateless host and the session host each awaited a value with
    /// room for it inside an `async fn`, which kept that room for every copy.
    #[test]
    fn a_post_future_holds_a_plain_answer_once() {
        use crate::protocol::{JsonRpcMessage, JsonRpcRequest, RequestId};
        let server = crate::server::Server::new(crate::crate_info!())
            .build()
            .unwrap();
        let endpoint = StreamableHttp::new(server, HttpOptions::default());
        let shared = endpoint.shared.clone();
        let request = JsonRpcRequest {
            id: RequestId::Number(1),
            method: "tools/call".into(),
            params: None,
        };
        let meta = crate::server::RequestMeta {
            version: crate::server::MODERN_PROTOCOL_VERSIONS[0],
            capabilities: Default::default(),
            client_info: None,
            log_level: None,
        };
        let served = crate::server::serve(
            &shared.server,
            JsonRpcMessage::Request(request),
            crate::server::Scope::Post(meta),
            crate::caller::Caller::default(),
        );
        let parts = Arc::new(Request::new(axum::body::Body::empty()).into_parts().0);
        let post = post::post(shared.clone(), parts, axum::body::Body::empty());
        let (post, answer) = (std::mem::size_of_val(&post), std::mem::size_of_val(&served));
        // Room for the answer twice would be at least twice its size; the rest of the
        // POST's state (the request's parts, the shared state, the body) is a few hundred
        // bytes whatever the answer's size.
        assert!(
            post < 2 * answer,
            "a POST's future takes {post} bytes, the room for a plain call's answer {answer}"
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
