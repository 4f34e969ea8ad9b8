//! The client side of Streamable HTTP (feature `http`), for both protocol eras.
//!
//! Each outgoing message is a `POST`; what comes back (a JSON body, or an SSE stream of
//! notifications, server requests and finally the response) is fed to the client's reader.
//!
//! - **2025-11-25**: the `Mcp-Session-Id` the server assigns on `initialize` goes on every
//!   later request with the negotiated `MCP-Protocol-Version`; after
//!   `notifications/initialized` a standalone `GET` stream carries what the server sends
//!   outside any request. A response stream that ends before its response is resumed with a
//!   `GET` carrying `Last-Event-ID`, after the stream's `retry` delay. Dropping the client
//!   ends the session with `DELETE`.
//! - **2026-07-28** (a request whose `_meta` names the protocol version): no session; every
//!   `POST` mirrors its body in `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the
//!   `Mcp-Param-*` headers of the called tool's `x-mcp-header` parameters (learned from the
//!   last `tools/list`). A request is cancelled by closing its response stream.
//!
//! ```no_run
//! use tracksuit::client::{Client, HttpTransport};
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::builder()
//!     .connect(HttpTransport::new("http://127.0.0.1:8080/mcp")?)
//!     .await?;
//! let tools = client.list_tools(None).await?;
//! # Ok(()) }
//! ```
//!
//! `https://` endpoints need feature `tls` (the connector is in `connect.rs`).

use super::connect::{self, Http, SendError, TlsSettings};
use super::headers::{self, HeaderParam};
use super::sse::Parser;
use crate::protocol::*;
use crate::transport::{MessageSink, MessageStream, Transport};
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use http::{Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
const MODERN_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The delay before reconnecting when the stream gave no `retry` hint.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The most bytes of a JSON response body read.
const MAX_BODY: usize = 64 << 20;

/// A URL, header or certificate the transport cannot use.
///
/// ```
/// use tracksuit::client::{HttpTransport, InvalidUrl};
/// let err = HttpTransport::new("ftp://mcp.example.com/mcp").unwrap_err();
/// assert_eq!(err.to_string(), "invalid MCP endpoint URL: ftp://mcp.example.com/mcp");
/// // `https://` needs feature `tls` (which `oauth` brings).
/// let https = HttpTransport::new("https://mcp.example.com/mcp");
/// assert_eq!(cfg!(feature = "tls"), https.is_ok());
/// if !cfg!(feature = "tls") {
///     assert!(matches!(https, Err(InvalidUrl::NeedsTls(_))));
/// }
/// let header = HttpTransport::new("http://localhost:8000/mcp").unwrap().header("bad header", "x");
/// assert!(matches!(header, Err(InvalidUrl::Header(_))));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidUrl {
    /// Not an absolute `http://` or `https://` URL with a host.
    #[error("invalid MCP endpoint URL: {0}")]
    Malformed(String),
    /// An `https://` URL, and tracksuit was built without feature `tls`.
    #[error("`https://` MCP endpoints need tracksuit's `tls` feature: {0}")]
    NeedsTls(String),
    /// A header name or value that HTTP does not allow.
    #[error("invalid HTTP header: {0}")]
    Header(String),
    /// A root certificate that is not a usable PEM certificate (feature `tls`).
    #[error("invalid root certificate: {0}")]
    Certificate(String),
}

/// Streamable HTTP to one MCP endpoint: `http://`, or `https://` with feature `tls`.
///
/// Over `https://` the transport speaks HTTP/1.1 over rustls (ring backend, TLS 1.2 and
/// 1.3), checks the certificate against the URL's host (a DNS name, or an IP address
/// against the certificate's IP addresses) and trusts the system's root certificates plus
/// those added with `root_certificate` (`system_roots(false)`: only those). A request that
/// cannot connect, or whose handshake is refused, fails with a [`ConnectError`](super::ConnectError)
/// in its error.
///
/// ```
/// use tracksuit::client::{Client, HttpTransport};
/// use tracksuit::host::http::{HttpOptions, StreamableHttp, serve};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let url = format!("http://{}/mcp", listener.local_addr()?);
/// tokio::spawn(serve(listener, StreamableHttp::new(server, HttpOptions::default()).router("/mcp")));
/// let transport = HttpTransport::new(&url)?.header("authorization", "Bearer demo")?;
/// let client = Client::builder().connect(transport).await?;
/// assert!(client.list_tools(None).await?.tools.is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct HttpTransport {
    pub(super) url: Uri,
    #[cfg(feature = "oauth")]
    pub(super) auth: Option<Arc<super::oauth::Session>>,
    extra: http::HeaderMap,
    max_resumptions: u32,
    idle: std::time::Duration,
    pub(super) tls: TlsSettings,
}

impl HttpTransport {
    /// A transport to `url` (e.g. `http://127.0.0.1:8080/mcp`, or with feature `tls`
    /// `https://mcp.example.com/mcp`).
    ///
    /// ```
    /// assert!(tracksuit::client::HttpTransport::new("http://localhost:1/mcp").is_ok());
    /// assert!(tracksuit::client::HttpTransport::new("not a url").is_err());
    /// ```
    pub fn new(url: &str) -> Result<Self, InvalidUrl> {
        let url: Uri = url
            .parse()
            .map_err(|_| InvalidUrl::Malformed(url.to_owned()))?;
        if url.host().is_none() {
            return Err(InvalidUrl::Malformed(url.to_string()));
        }
        match url.scheme_str() {
            Some("http") => {}
            Some("https") if cfg!(feature = "tls") => {}
            Some("https") => return Err(InvalidUrl::NeedsTls(url.to_string())),
            _ => return Err(InvalidUrl::Malformed(url.to_string())),
        }
        Ok(HttpTransport {
            url,
            #[cfg(feature = "oauth")]
            auth: None,
            extra: http::HeaderMap::new(),
            max_resumptions: 5,
            idle: std::time::Duration::from_secs(4),
            tls: TlsSettings::default(),
        })
    }

    /// Adds a header to every request (for example `Authorization`).
    ///
    /// ```
    /// let t = tracksuit::client::HttpTransport::new("http://localhost:1/mcp")
    ///     .unwrap()
    ///     .header("authorization", "Bearer abc")
    ///     .unwrap();
    /// # let _ = t;
    /// ```
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, InvalidUrl> {
        let name = HeaderName::try_from(name).map_err(|_| InvalidUrl::Header(name.to_owned()))?;
        let value =
            HeaderValue::try_from(value).map_err(|_| InvalidUrl::Header(value.to_owned()))?;
        self.extra.insert(name, value);
        Ok(self)
    }

    /// How many times in a row a dropped response stream is resumed with `Last-Event-ID`
    /// before the request fails (default 5).
    pub fn max_resumptions(mut self, n: u32) -> Self {
        self.max_resumptions = n;
        self
    }

    /// How long an idle keep-alive connection is kept for the next request (default 4 s).
    /// Keep it below the server's idle timeout (tracksuit's `header_read_timeout`, 10 s by
    /// default; Node's 5 s), so the client closes an idle connection before the server
    /// does and never sends a request on one the server is closing.
    ///
    /// ```
    /// use std::time::Duration;
    /// let t = tracksuit::client::HttpTransport::new("http://localhost:1/mcp")
    ///     .unwrap()
    ///     .idle_timeout(Duration::from_millis(500));
    /// # let _ = t;
    /// ```
    pub fn idle_timeout(mut self, idle: std::time::Duration) -> Self {
        self.idle = idle;
        self
    }
}

impl Transport for HttpTransport {
    type Stream = HttpStream;
    type Sink = HttpSink;

    fn split(self) -> (HttpStream, HttpSink) {
        let (inbox, rx) = mpsc::channel(256);
        let shared = Arc::new(Shared {
            http: connect::client(&self.tls, self.idle),
            url: self.url,
            #[cfg(feature = "oauth")]
            auth: self.auth,
            extra: self.extra,
            max_resumptions: self.max_resumptions,
            session: Mutex::new(None),
            version: Mutex::new(None),
            modern: AtomicBool::new(false),
            tools: Mutex::new(HashMap::new()),
            inflight: Mutex::new(HashMap::new()),
            inbox,
            stop: CancellationToken::new(),
        });
        (HttpStream { rx }, HttpSink { shared })
    }
}

/// What the server sent, from every response body and stream.
///
/// ```
/// use tracksuit::client::HttpTransport;
/// use tracksuit::host::http::{HttpOptions, StreamableHttp, serve};
/// use tracksuit::protocol::{JsonRpcMessage, RequestId};
/// use tracksuit::transport::{MessageSink, MessageStream, Transport};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// # let url = format!("http://{}/mcp", listener.local_addr()?);
/// # tokio::spawn(serve(listener, StreamableHttp::new(server, HttpOptions::default()).router("/mcp")));
/// let (mut stream, mut sink) = HttpTransport::new(&url)?.split();
/// let init = serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {},
///     "clientInfo": {"name": "raw", "version": "0"}});
/// sink.send(JsonRpcMessage::request(RequestId::from(1), "initialize", Some(init))).await?;
/// // The response arrives on the stream, whichever body (JSON or SSE) carried it.
/// let Some(Ok(JsonRpcMessage::Response(reply))) = stream.next().await else { panic!() };
/// let result: tracksuit::protocol::InitializeResult = reply.decode()?;
/// assert_eq!(result.server_info.name, env!("CARGO_PKG_NAME"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct HttpStream {
    rx: mpsc::Receiver<JsonRpcMessage>,
}

impl MessageStream for HttpStream {
    async fn next(&mut self) -> Option<Result<JsonRpcMessage, JsonRpcError>> {
        self.rx.recv().await.map(Ok)
    }
}

/// Sends each message as a `POST`.
///
/// ```
/// use tracksuit::client::HttpTransport;
/// use tracksuit::host::http::{HttpOptions, StreamableHttp, serve};
/// use tracksuit::protocol::{JsonRpcMessage, RequestId};
/// use tracksuit::transport::{MessageSink, MessageStream, Transport};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// # let url = format!("http://{}/mcp", listener.local_addr()?);
/// # tokio::spawn(serve(listener, StreamableHttp::new(server, HttpOptions::default()).router("/mcp")));
/// let (mut stream, mut sink) = HttpTransport::new(&url)?.split();
/// // Every message is one POST; a request sent before `initialize` is refused.
/// sink.send(JsonRpcMessage::request(RequestId::from(1), "tools/list", None)).await?;
/// let Some(Ok(JsonRpcMessage::Error(refused))) = stream.next().await else { panic!() };
/// assert_eq!(refused.id, Some(RequestId::from(1)));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct HttpSink {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    http: Http,
    url: Uri,
    #[cfg(feature = "oauth")]
    auth: Option<Arc<super::oauth::Session>>,
    extra: http::HeaderMap,
    max_resumptions: u32,
    session: Mutex<Option<HeaderValue>>,
    /// The 2025 protocol version negotiated by `initialize`.
    version: Mutex<Option<String>>,
    /// Whether the client speaks 2026-07-28 (seen on a request's `_meta`).
    modern: AtomicBool,
    /// Per tool, the parameters mirrored into `Mcp-Param-*` headers.
    tools: Mutex<HashMap<String, Vec<HeaderParam>>>,
    /// The 2026-07-28 requests in flight: cancelling one closes its response stream.
    inflight: Mutex<HashMap<RequestId, tokio::task::AbortHandle>>,
    inbox: mpsc::Sender<JsonRpcMessage>,
    stop: CancellationToken,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a request's response teaches the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Learn {
    Nothing,
    Initialize,
    ToolsList,
}

impl MessageSink for HttpSink {
    async fn send(&mut self, message: JsonRpcMessage) -> std::io::Result<()> {
        let shared = self.shared.clone();
        let request = shared.post(&message);
        match message {
            JsonRpcMessage::Request(r) => {
                let learn = match r.method.as_str() {
                    methods::INITIALIZE => Learn::Initialize,
                    methods::TOOLS_LIST => Learn::ToolsList,
                    _ => Learn::Nothing,
                };
                if learn == Learn::Initialize {
                    // Wait for the head: the session id must be known before the next POST.
                    let response = shared.send(request).await;
                    if let Ok(response) = &response
                        && let Some(id) = response.headers().get(SESSION_ID)
                    {
                        *lock(&shared.session) = Some(id.clone());
                    }
                    tokio::spawn(shared.clone().answer(response, r.id, learn));
                } else {
                    let modern = shared.modern.load(Ordering::Relaxed);
                    let id = r.id.clone();
                    // Held while spawning, so the task's own removal comes after the insert.
                    let mut inflight = lock(&self.shared.inflight);
                    let task = tokio::spawn(async move {
                        let response = shared.send(request).await;
                        shared.clone().answer(response, r.id.clone(), learn).await;
                        if modern {
                            lock(&shared.inflight).remove(&r.id);
                        }
                    });
                    if modern {
                        inflight.insert(id, task.abort_handle());
                    }
                }
            }
            JsonRpcMessage::Notification(n) => {
                if n.method == methods::CANCELLED && shared.modern.load(Ordering::Relaxed) {
                    // 2026-07-28: a request is cancelled by closing its response stream.
                    let id = n.params.as_ref().and_then(|p| p.get("requestId")).cloned();
                    let id = id.and_then(|id| serde_json::from_value::<RequestId>(id).ok());
                    if let Some(task) = id.and_then(|id| lock(&shared.inflight).remove(&id)) {
                        task.abort();
                    }
                    return Ok(());
                }
                let response = shared.send(request).await;
                let accepted = response.is_ok_and(|r| r.status().is_success());
                if accepted
                    && n.method == methods::INITIALIZED
                    && !shared.modern.load(Ordering::Relaxed)
                {
                    tokio::spawn(shared.clone().listen());
                }
            }
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {
                let _ = shared.send(request).await;
            }
        }
        Ok(())
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for HttpSink {
    fn drop(&mut self) {
        self.shared.stop.cancel();
        let session = lock(&self.shared.session).take();
        if let (Some(session), Ok(rt)) = (session, tokio::runtime::Handle::try_current()) {
            let shared = self.shared.clone();
            rt.spawn(async move {
                let mut request = shared.request(Method::DELETE, Bytes::new());
                request.headers_mut().insert(SESSION_ID, session);
                let _ = shared.send(request).await;
            });
        }
    }
}

impl Shared {
    /// Sends `request` (authorized, when the transport has an OAuth client).
    async fn send(&self, request: Request<Full<Bytes>>) -> Result<Response<Incoming>, SendError> {
        #[cfg(feature = "oauth")]
        if let Some(auth) = &self.auth {
            return auth.send(&self.http, request).await;
        }
        self.http.request(request).await.map_err(SendError::from)
    }

    /// A request to the endpoint with the headers every request carries.
    fn request(&self, method: Method, body: Bytes) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = method;
        *request.uri_mut() = self.url.clone();
        let headers = request.headers_mut();
        headers.extend(self.extra.clone());
        if let Some(session) = lock(&self.session).clone() {
            headers.insert(SESSION_ID, session);
        }
        if let Some(version) = lock(&self.version).as_deref()
            && let Ok(v) = HeaderValue::try_from(version)
        {
            headers.insert(PROTOCOL_VERSION, v);
        }
        request
    }

    /// The `POST` carrying `message`, with the SEP-2243 headers when it is modern.
    fn post(&self, message: &JsonRpcMessage) -> Request<Full<Bytes>> {
        let mut request = self.request(Method::POST, Bytes::from(message.to_vec()));
        let headers = request.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let (method, params) = match message {
            JsonRpcMessage::Request(r) => (r.method.as_str(), r.params.as_ref()),
            JsonRpcMessage::Notification(n) => (n.method.as_str(), n.params.as_ref()),
            _ => return request,
        };
        let modern = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(MODERN_VERSION_KEY))
            .and_then(Value::as_str);
        if method == methods::INITIALIZE {
            // A session starts (perhaps after a failed `server/discover`): 2025 from here.
            self.modern.store(false, Ordering::Relaxed);
        }
        if let Some(version) = modern {
            self.modern.store(true, Ordering::Relaxed);
            if let Ok(v) = HeaderValue::try_from(version) {
                headers.insert(PROTOCOL_VERSION, v);
            }
        }
        if !self.modern.load(Ordering::Relaxed) {
            return request;
        }
        let mut put = |name: String, value: &str| {
            if let (Ok(n), Ok(v)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
                headers.insert(n, v);
            }
        };
        put("mcp-method".into(), method);
        if let Some(name) = headers::name_of(method, params) {
            put("mcp-name".into(), &headers::encode_value(name));
        }
        if method == methods::TOOLS_CALL
            && let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str)
        {
            let arguments = params.and_then(|p| p.get("arguments"));
            if let (Some(list), Some(arguments)) = (lock(&self.tools).get(name), arguments) {
                for param in list {
                    if let Some(value) = headers::param_value(arguments, &param.path) {
                        put(format!("mcp-param-{}", param.name), &value);
                    }
                }
            }
        }
        request
    }

    /// Hands a message to the reader, learning from the response to `learn`'s request.
    async fn deliver(&self, message: JsonRpcMessage, learn: Learn) {
        if let JsonRpcMessage::Response(r) = &message
            && !matches!(learn, Learn::Nothing)
            && let Ok(result) = r.decode::<Value>()
        {
            match learn {
                Learn::Initialize => {
                    if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
                        *lock(&self.version) = Some(v.to_owned());
                    }
                }
                Learn::ToolsList => {
                    let mut tools = lock(&self.tools);
                    for tool in result
                        .get("tools")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if let (Some(name), Some(schema)) = (
                            tool.get("name").and_then(Value::as_str),
                            tool.get("inputSchema"),
                        ) && let Ok(params) = headers::header_params(schema)
                        {
                            tools.insert(name.to_owned(), params);
                        }
                    }
                }
                Learn::Nothing => {}
            }
        }
        let _ = self.inbox.send(message).await;
    }

    /// Fails request `id` with a transport error.
    async fn fail(&self, id: RequestId, why: String) {
        self.fail_with(id, ErrorObject::internal(why)).await
    }

    /// Fails request `id` with `error`.
    async fn fail_with(&self, id: RequestId, error: ErrorObject) {
        let _ = self
            .inbox
            .send(JsonRpcMessage::error(Some(id), error))
            .await;
    }

    /// Reads the response to request `id`: a JSON body, or an SSE stream (resumed if it
    /// ends before the response).
    async fn answer(
        self: Arc<Self>,
        response: Result<Response<Incoming>, SendError>,
        id: RequestId,
        learn: Learn,
    ) {
        let response = match response {
            Ok(r) => r,
            Err(e) => {
                return self
                    .fail_with(id, e.into_error("HTTP request failed"))
                    .await;
            }
        };
        let status = response.status();
        if status.is_success() && is_sse(&response) {
            return self.stream_answer(response, id, learn).await;
        }
        let body = match read_all(response.into_body()).await {
            Ok(b) => b,
            Err(e) => {
                return self
                    .fail(id, format!("HTTP response unreadable: {e}"))
                    .await;
            }
        };
        match JsonRpcMessage::from_slice(&body) {
            // An error the server could not tie to the request (`id: null`) is still its.
            Ok(JsonRpcMessage::Error(mut e)) if e.id.is_none() => {
                e.id = Some(id);
                self.deliver(JsonRpcMessage::Error(e), learn).await
            }
            Ok(message) => self.deliver(message, learn).await,
            Err(_) => {
                let text = String::from_utf8_lossy(&body);
                let why = format!("HTTP {status}: {}", ErrorObject::quote(text.trim()));
                self.fail(id, why).await
            }
        }
    }

    async fn stream_answer(
        self: Arc<Self>,
        response: Response<Incoming>,
        id: RequestId,
        learn: Learn,
    ) {
        let mut parser = Parser::default();
        let mut body = response.into_body();
        let mut resumptions = 0;
        loop {
            let (done, progressed) = self.pump(&mut body, &mut parser, Some((&id, learn))).await;
            if done || self.stop.is_cancelled() {
                return;
            }
            if progressed {
                resumptions = 0;
            }
            let resumable = !self.modern.load(Ordering::Relaxed) && parser.last_event_id.is_some();
            if !resumable || resumptions >= self.max_resumptions {
                return self
                    .fail(id, "the response stream ended before the response".into())
                    .await;
            }
            resumptions += 1;
            match self.reconnect(&parser).await {
                Some(Ok(next)) => body = next,
                Some(Err(why)) => return self.fail(id, why).await,
                None => return,
            }
        }
    }

    /// Waits the stream's `retry` delay, then `GET`s with `Last-Event-ID`. `None` when the
    /// client is gone.
    async fn reconnect(&self, parser: &Parser) -> Option<Result<Incoming, String>> {
        let delay = parser.retry_ms.map_or(DEFAULT_RETRY, Duration::from_millis);
        tokio::select! {
            _ = self.stop.cancelled() => return None,
            _ = tokio::time::sleep(delay) => {}
        }
        let mut request = self.request(Method::GET, Bytes::new());
        request
            .headers_mut()
            .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(last) = parser.last_event_id.as_deref()
            && let Ok(v) = HeaderValue::try_from(last)
        {
            request.headers_mut().insert(LAST_EVENT_ID, v);
        }
        Some(match self.send(request).await {
            Ok(r) if r.status() == StatusCode::OK && is_sse(&r) => Ok(r.into_body()),
            Ok(r) => Err(format!("resuming the stream failed: HTTP {}", r.status())),
            Err(e) => Err(format!("resuming the stream failed: {e}")),
        })
    }

    /// Reads events until the body ends; returns whether the response to `waiting` came and
    /// whether any event arrived.
    async fn pump(
        &self,
        body: &mut Incoming,
        parser: &mut Parser,
        waiting: Option<(&RequestId, Learn)>,
    ) -> (bool, bool) {
        let mut progressed = false;
        loop {
            let frame = tokio::select! {
                _ = self.stop.cancelled() => return (false, progressed),
                frame = body.frame() => frame,
            };
            let Some(Ok(frame)) = frame else {
                return (false, progressed);
            };
            let Ok(chunk) = frame.into_data() else {
                continue;
            };
            for event in parser.feed(&chunk) {
                progressed = true;
                if event.data.trim().is_empty() {
                    continue;
                }
                let Ok(message) = JsonRpcMessage::from_slice(event.data.as_bytes()) else {
                    continue;
                };
                let answers = match (&message, waiting) {
                    (JsonRpcMessage::Response(r), Some((id, _))) => &r.id == id,
                    (JsonRpcMessage::Error(e), Some((id, _))) => e.id.as_ref() == Some(id),
                    _ => false,
                };
                let learn = waiting.filter(|_| answers).map_or(Learn::Nothing, |w| w.1);
                self.deliver(message, learn).await;
                if answers {
                    return (true, true);
                }
            }
        }
    }

    /// The standalone `GET` stream of a 2025 session, reconnected (with `Last-Event-ID`)
    /// when it drops, until the client goes away or the server refuses it.
    async fn listen(self: Arc<Self>) {
        let mut parser = Parser::default();
        let mut failures = 0;
        while !self.stop.is_cancelled() && failures < 3 {
            let mut request = self.request(Method::GET, Bytes::new());
            request
                .headers_mut()
                .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            if let Some(last) = parser.last_event_id.as_deref()
                && let Ok(v) = HeaderValue::try_from(last)
            {
                request.headers_mut().insert(LAST_EVENT_ID, v);
            }
            let response = tokio::select! {
                _ = self.stop.cancelled() => return,
                r = self.send(request) => r,
            };
            match response {
                Ok(r) if r.status() == StatusCode::METHOD_NOT_ALLOWED => return,
                Ok(r) if r.status().is_success() && is_sse(&r) => {
                    let (_, progressed) = self.pump(&mut r.into_body(), &mut parser, None).await;
                    failures = if progressed { 0 } else { failures + 1 };
                }
                _ => failures += 1,
            }
            let delay = parser.retry_ms.map_or(DEFAULT_RETRY, Duration::from_millis);
            tokio::select! {
                _ = self.stop.cancelled() => return,
                _ = tokio::time::sleep(delay) => {}
            }
        }
    }
}

fn is_sse<B>(response: &Response<B>) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("text/event-stream"))
}

async fn read_all(mut body: Incoming) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| e.to_string())?;
        if let Ok(chunk) = frame.into_data() {
            if out.len() + chunk.len() > MAX_BODY {
                return Err("response body too large".into());
            }
            out.extend_from_slice(&chunk);
        }
    }
    Ok(out)
}
