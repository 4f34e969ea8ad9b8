//! `dev --port`: the stable endpoint as Streamable HTTP on loopback, in front of the same
//! per-message relay as stdio mode. The server still runs over stdio.
//!
//! - A 2025 session (`initialize` without `Mcp-Session-Id`) gets a relay and a server child
//!   of its own; `DELETE` ends both. Its `GET` stream carries what the server sends outside
//!   a request's answer (list changes after a restart, the server's requests, logs).
//! - 2026-07-28 requests (no session) share one relay and one child.
//! - Every request's id is replaced by one of ours on the way in (ids of different
//!   clients would collide on one child) and restored on the way out. Its answer comes back
//!   on the POST's SSE stream, with the progress notifications carrying its
//!   `progressToken` and, for `subscriptions/listen`, every notification naming it as
//!   `subscriptionId`. Closing that stream cancels the request (`notifications/cancelled`).
//! - Loopback only; a browser `Origin` other than localhost is refused (DNS rebinding).
//!   The SEP-2243 request headers (`Mcp-Method`, `Mcp-Name`, ...) are not checked here:
//!   the server, on stdio, never sees them.

use super::relay::{Launch, Relay, SUBSCRIPTION_ID};
use crate::Error;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch};
use tracksuit::protocol::*;
use tracksuit::transport::{MessageSink, MessageStream};

const SESSION_HEADER: &str = "mcp-session-id";

type Outlet = mpsc::UnboundedSender<JsonRpcMessage>;

/// A request waiting for its answer.
struct Pending {
    original: RequestId,
    stream: Outlet,
    token: Option<String>,
}

/// Where the relay's messages go.
#[derive(Default)]
struct Routes {
    pending: HashMap<RequestId, Pending>,
    /// progressToken (as JSON text) → our id of the request that gave it.
    tokens: HashMap<String, RequestId>,
    get_stream: Option<Outlet>,
}

type SharedRoutes = Arc<Mutex<Routes>>;

fn lock(routes: &SharedRoutes) -> std::sync::MutexGuard<'_, Routes> {
    routes
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One relay (one server child) and the routes of what it sends.
struct Front {
    input: mpsc::UnboundedSender<JsonRpcMessage>,
    routes: SharedRoutes,
}

/// The relay's client side: messages in from HTTP requests.
struct Inbox(mpsc::UnboundedReceiver<JsonRpcMessage>);

impl MessageStream for Inbox {
    async fn next(&mut self) -> Option<Result<JsonRpcMessage, JsonRpcError>> {
        self.0.recv().await.map(Ok)
    }
}

/// The relay's client side: messages out to the HTTP streams.
struct Router(SharedRoutes);

impl MessageSink for Router {
    async fn send(&mut self, message: JsonRpcMessage) -> std::io::Result<()> {
        route(&self.0, message);
        Ok(())
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn progress_token(params: Option<&Value>) -> Option<String> {
    let token = params?.get("_meta")?.get("progressToken")?;
    serde_json::to_string(token).ok()
}

/// Delivers one message from the relay to the stream it belongs on.
fn route(routes: &SharedRoutes, message: JsonRpcMessage) {
    let mut routes = lock(routes);
    let answered = match &message {
        JsonRpcMessage::Response(r) => Some(r.id.clone()),
        JsonRpcMessage::Error(e) => e.id.clone(),
        _ => None,
    };
    if let Some(id) = answered {
        let Some(pending) = routes.pending.remove(&id) else {
            return; // its client went away
        };
        if let Some(token) = &pending.token {
            routes.tokens.remove(token);
        }
        let restored = match message {
            JsonRpcMessage::Response(mut r) => {
                r.id = pending.original;
                JsonRpcMessage::Response(r)
            }
            JsonRpcMessage::Error(mut e) => {
                e.id = Some(pending.original);
                JsonRpcMessage::Error(e)
            }
            other => other,
        };
        let _ = pending.stream.send(restored);
        return;
    }
    let mut message = message;
    let target = match &mut message {
        JsonRpcMessage::Notification(note) => notification_target(&routes, note),
        _ => None,
    };
    let outlet = target
        .or_else(|| routes.get_stream.clone())
        .or_else(|| routes.pending.values().next().map(|p| p.stream.clone()));
    if let Some(outlet) = outlet {
        let _ = outlet.send(message);
    }
}

/// The stream of the request a notification belongs to (a subscription's, a progress
/// token's), its ids restored to the client's.
fn notification_target(routes: &Routes, note: &mut JsonRpcNotification) -> Option<Outlet> {
    let params = note.params.as_mut()?;
    if let Some(sub) = params.get("_meta").and_then(|m| m.get(SUBSCRIPTION_ID)) {
        let ours: RequestId = serde_json::from_value(sub.clone()).ok()?;
        let pending = routes.pending.get(&ours)?;
        params["_meta"][SUBSCRIPTION_ID] = json!(pending.original);
        return Some(pending.stream.clone());
    }
    if note.method == methods::PROGRESS {
        let token = serde_json::to_string(params.get("progressToken")?).ok()?;
        let ours = routes.tokens.get(&token)?;
        return routes.pending.get(ours).map(|p| p.stream.clone());
    }
    None
}

struct App {
    launch: Launch,
    builds: watch::Receiver<PathBuf>,
    sessions: Mutex<HashMap<String, Arc<Front>>>,
    stateless: Arc<Front>,
    next_id: AtomicU64,
    /// Makes session ids unguessable enough for a loopback dev tool.
    salt: u64,
}

impl App {
    /// A relay, with its server child, fed by the returned front.
    fn start_front(
        launch: &Launch,
        builds: &watch::Receiver<PathBuf>,
        label: String,
    ) -> Arc<Front> {
        let (input, inbox) = mpsc::unbounded_channel();
        let routes = SharedRoutes::default();
        let relay = Relay::new(Router(routes.clone()), launch.clone());
        let builds = builds.clone();
        let failed = routes.clone();
        tokio::spawn(async move {
            if let Err(e) = relay.run(Inbox(inbox), builds).await {
                eprintln!("[tracksuit dev] {label}: {e}");
                // Nobody will answer what was sent to it.
                let pending: Vec<Pending> = lock(&failed).pending.drain().map(|(_, p)| p).collect();
                for p in pending {
                    let error = ErrorObject::new(-32603, format!("cargo tracksuit dev: {e}"));
                    let _ = p
                        .stream
                        .send(JsonRpcMessage::error(Some(p.original), error));
                }
            }
        });
        Arc::new(Front { input, routes })
    }

    fn session_id(&self) -> String {
        use std::hash::{BuildHasher, Hasher};
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(n ^ self.salt);
        format!("dev-{n}-{:016x}", hasher.finish())
    }
}

/// Serves `http://127.0.0.1:{port}/mcp` until the process is stopped.
pub async fn serve(
    port: u16,
    launch: Launch,
    builds: watch::Receiver<PathBuf>,
) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let address = listener.local_addr()?;
    let stateless = App::start_front(&launch, &builds, "2026-07-28 requests".into());
    let app = Arc::new(App {
        launch,
        builds,
        sessions: Mutex::new(HashMap::new()),
        stateless,
        next_id: AtomicU64::new(1),
        salt: std::process::id().into(),
    });
    let router = axum::Router::new()
        .route("/mcp", axum::routing::post(post).get(get).delete(delete))
        .with_state(app);
    eprintln!("[tracksuit dev] serving http://{address}/mcp");
    axum::serve(listener, router).await?;
    Ok(())
}

fn refuse(status: StatusCode, message: &str) -> Response {
    let body = JsonRpcMessage::error(None, ErrorObject::new(-32600, message));
    (
        status,
        [("content-type", "application/json")],
        body.to_vec(),
    )
        .into_response()
}

/// A browser page from another origin must not reach a loopback server.
fn foreign_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get("origin").and_then(|o| o.to_str().ok()) else {
        return false;
    };
    let host = origin.split("://").nth(1).unwrap_or_default();
    let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
    !matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

/// The session the request names: `Err` for an unknown one (answered `404`).
fn session_of(app: &App, headers: &HeaderMap) -> Result<Option<Arc<Front>>, UnknownSession> {
    let Some(id) = headers.get(SESSION_HEADER) else {
        return Ok(None);
    };
    let id = id.to_str().unwrap_or_default();
    let sessions = app.sessions.lock().unwrap_or_else(|p| p.into_inner());
    match sessions.get(id) {
        Some(front) => Ok(Some(front.clone())),
        None => Err(UnknownSession),
    }
}

struct UnknownSession;

impl IntoResponse for UnknownSession {
    fn into_response(self) -> Response {
        refuse(StatusCode::NOT_FOUND, "unknown session")
    }
}

async fn post(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    if foreign_origin(&headers) {
        return refuse(StatusCode::FORBIDDEN, "Origin not allowed");
    }
    let message = match JsonRpcMessage::from_slice(&body) {
        Ok(message) => message,
        Err(error) => {
            let body = JsonRpcMessage::Error(error).to_vec();
            return (
                StatusCode::BAD_REQUEST,
                [("content-type", "application/json")],
                body,
            )
                .into_response();
        }
    };
    let session = match session_of(&app, &headers) {
        Ok(session) => session,
        Err(unknown) => return unknown.into_response(),
    };
    let JsonRpcMessage::Request(request) = message else {
        // Notifications and the client's answers: to the relay, nothing to wait for.
        let front = session.unwrap_or_else(|| app.stateless.clone());
        let _ = front.input.send(message);
        return StatusCode::ACCEPTED.into_response();
    };
    if request.method == methods::INITIALIZE && session.is_none() {
        let id = app.session_id();
        let front = App::start_front(&app.launch, &app.builds, format!("session {id}"));
        app.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), front.clone());
        let mut response = forward(&app, &front, request);
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
        return response;
    }
    let front = session.unwrap_or_else(|| app.stateless.clone());
    forward(&app, &front, request)
}

/// Sends a request to the relay under an id of ours; its answer and the notifications
/// that belong to it come back on the SSE stream returned.
fn forward(app: &App, front: &Arc<Front>, mut request: JsonRpcRequest) -> Response {
    let ours = RequestId::String(format!("h{}", app.next_id.fetch_add(1, Ordering::Relaxed)));
    let (stream, rx) = mpsc::unbounded_channel();
    let token = progress_token(request.params.as_ref());
    {
        let mut routes = lock(&front.routes);
        if let Some(token) = &token {
            routes.tokens.insert(token.clone(), ours.clone());
        }
        let original = std::mem::replace(&mut request.id, ours.clone());
        routes.pending.insert(
            ours.clone(),
            Pending {
                original,
                stream,
                token,
            },
        );
    }
    let _ = front.input.send(JsonRpcMessage::Request(request));
    let guard = CancelOnDrop {
        id: ours,
        front: front.clone(),
    };
    sse(rx, Some(guard))
}

/// Closing a POST's stream before its answer cancels the request (how an HTTP client ends
/// a `subscriptions/listen`).
struct CancelOnDrop {
    id: RequestId,
    front: Arc<Front>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let pending = lock(&self.front.routes).pending.remove(&self.id);
        if let Some(pending) = pending {
            if let Some(token) = &pending.token {
                lock(&self.front.routes).tokens.remove(token);
            }
            let params = json!({ "requestId": self.id, "reason": "the HTTP stream was closed" });
            let note = JsonRpcMessage::notification(methods::CANCELLED, Some(params));
            let _ = self.front.input.send(note);
        }
    }
}

fn sse(rx: mpsc::UnboundedReceiver<JsonRpcMessage>, guard: Option<CancelOnDrop>) -> Response {
    let events = futures::stream::unfold((rx, guard), |(mut rx, guard)| async move {
        let message = rx.recv().await?;
        let data = String::from_utf8_lossy(&message.to_vec()).into_owned();
        let event = Event::default().event("message").data(data);
        Some((Ok::<_, Infallible>(event), (rx, guard)))
    });
    Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn get(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if foreign_origin(&headers) {
        return refuse(StatusCode::FORBIDDEN, "Origin not allowed");
    }
    match session_of(&app, &headers) {
        Ok(Some(front)) => {
            let (outlet, rx) = mpsc::unbounded_channel();
            lock(&front.routes).get_stream = Some(outlet);
            sse(rx, None)
        }
        Ok(None) => StatusCode::METHOD_NOT_ALLOWED.into_response(),
        Err(unknown) => unknown.into_response(),
    }
}

async fn delete(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let Some(id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    };
    // Dropping the front ends its relay's input: the relay stops and its server is killed.
    match app
        .sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(id)
    {
        Some(_) => StatusCode::OK.into_response(),
        None => refuse(StatusCode::NOT_FOUND, "unknown session"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(
        routes: &SharedRoutes,
        ours: &str,
        original: i64,
        token: Option<&str>,
    ) -> mpsc::UnboundedReceiver<JsonRpcMessage> {
        let (stream, rx) = mpsc::unbounded_channel();
        let ours = RequestId::String(ours.into());
        let mut r = lock(routes);
        let token = token.map(|t| serde_json::to_string(t).unwrap_or_default());
        if let Some(t) = &token {
            r.tokens.insert(t.clone(), ours.clone());
        }
        r.pending.insert(
            ours,
            Pending {
                original: RequestId::Number(original),
                stream,
                token,
            },
        );
        rx
    }

    fn value(message: &JsonRpcMessage) -> Value {
        serde_json::from_slice(&message.to_vec()).unwrap_or_default()
    }

    #[test]
    fn answers_progress_and_subscriptions_go_to_their_request_with_the_clients_ids() {
        let routes = SharedRoutes::default();
        let mut call = pending(&routes, "h1", 7, Some("tok"));
        let mut listen = pending(&routes, "h2", 7, None); // another client's id 7
        let (get, mut get_rx) = mpsc::unbounded_channel();
        lock(&routes).get_stream = Some(get);

        let progress = json!({"progressToken": "tok", "progress": 1});
        route(
            &routes,
            JsonRpcMessage::notification(methods::PROGRESS, Some(progress)),
        );
        let changed = json!({"_meta": {SUBSCRIPTION_ID: "h2"}});
        route(
            &routes,
            JsonRpcMessage::notification("notifications/tools/list_changed", Some(changed)),
        );
        route(
            &routes,
            JsonRpcMessage::notification("notifications/message", Some(json!({}))),
        );
        route(
            &routes,
            JsonRpcMessage::response(RequestId::String("h1".into()), json!({"ok": true})),
        );
        route(
            &routes,
            JsonRpcMessage::response(RequestId::String("h9".into()), json!({})),
        );

        assert_eq!(
            call.try_recv().map(|m| value(&m)["method"].clone()).ok(),
            Some(json!("notifications/progress"))
        );
        let answer = call.try_recv().map(|m| value(&m)).unwrap_or_default();
        assert_eq!(
            (answer["id"].clone(), answer["result"]["ok"].clone()),
            (json!(7), json!(true))
        );
        let note = listen.try_recv().map(|m| value(&m)).unwrap_or_default();
        assert_eq!(note["params"]["_meta"][SUBSCRIPTION_ID], json!(7));
        assert_eq!(
            get_rx.try_recv().map(|m| value(&m)["method"].clone()).ok(),
            Some(json!("notifications/message"))
        );
        assert!(
            get_rx.try_recv().is_err(),
            "an answer nobody waits for goes nowhere"
        );
        assert!(lock(&routes).tokens.is_empty() && lock(&routes).pending.len() == 1);
    }

    #[test]
    fn only_loopback_origins_pass() {
        let with = |origin: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(
                "origin",
                HeaderValue::from_str(origin).unwrap_or(HeaderValue::from_static("x")),
            );
            foreign_origin(&headers)
        };
        assert!(!foreign_origin(&HeaderMap::new()));
        for ok in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "http://[::1]:80",
        ] {
            assert!(!with(ok), "{ok}");
        }
        for bad in [
            "https://evil.example",
            "http://localhost.evil.example",
            "null",
        ] {
            assert!(with(bad), "{bad}");
        }
    }
}
