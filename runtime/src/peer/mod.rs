//! The session engine: bidirectional JSON-RPC over any transport.
//!
//! A [`Peer`] is one end of one connection. It allocates request ids, keeps the table of
//! requests it sent (each resolved through a oneshot channel when the other side answers),
//! and the table of requests it is serving (each with a [`CancellationToken`] so that
//! `notifications/cancelled` drops the handler's future and suppresses the response).
//! It knows nothing of MCP methods; [`crate::server`] and [`crate::client`] sit on top.

use crate::protocol::{
    CancelledNotificationParams, ErrorObject, JsonRpcMessage, RequestId, ResultPayload, methods,
};
use futures::FutureExt;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

mod outbound;
pub(crate) mod sync;

pub use outbound::{Outbound, OutboundReceiver, OutboundSender, outbound_queue};

use sync::lock;

/// The future of [`Peer::send`]: done at once if the message was queued, else waiting for
/// room in the queue (or for the connection to close).
#[must_use = "a message waiting for room is only sent when awaited"]
pub struct Sending<'a>(Option<futures::future::BoxFuture<'a, ()>>);

impl std::fmt::Debug for Sending<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Sending").field(&self.0.is_some()).finish()
    }
}

impl Future for Sending<'_> {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        match self.0.as_mut() {
            Some(waiting) => waiting.as_mut().poll(cx),
            None => std::task::Poll::Ready(()),
        }
    }
}

/// An incoming request's work, as [`Peer::serve`] started it: the handler, then its answer
/// sent. Whoever received the request runs it: a line host spawns it (the reader goes on
/// with the next message), an HTTP host polls it once on the POST's own task first.
#[must_use = "a request is only served when its `Served` is spawned or polled"]
pub struct Served(futures::future::BoxFuture<'static, ()>);

impl Served {
    /// Runs the request on a task of its own.
    pub fn spawn(self) {
        tokio::spawn(self.0);
    }

    /// Polls the request once right here, for a caller that waits for the answer anyway:
    /// a handler that finishes without waiting is answered with no task of its own; one
    /// that waits goes on in its own task (polled again there, it registers that task's
    /// waker for whatever it waits on).
    #[cfg(feature = "http")]
    pub fn poll_first(mut self) {
        if futures::FutureExt::now_or_never(self.0.as_mut()).is_none() {
            self.spawn();
        }
    }
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Served")
    }
}

/// Whether a peer has closed (see [`Peer::closed_flag`]).
#[derive(Debug, Clone)]
pub(crate) struct ClosedFlag(Arc<AtomicBool>);

impl ClosedFlag {
    /// Whether the peer has closed.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Why a request this peer sent did not produce a result.
///
/// ```
/// use tracksuit::{RequestError, Server, client::Client};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// match client.call_tool("missing", serde_json::json!({})).await {
///     Err(RequestError::Peer(error)) => assert_eq!(error.code, -32602),
///     other => panic!("expected a JSON-RPC error, got {other:?}"),
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The other side did not declare the capability this request needs.
    #[error("the client did not declare the `{0}` capability")]
    CapabilityMissing(&'static str),
    /// No answer arrived in time; a `notifications/cancelled` was sent.
    #[error("no response within {0:?}")]
    Timeout(Duration),
    /// The other side answered with a JSON-RPC error.
    #[error("the peer answered with an error: {0}")]
    Peer(#[from] ErrorObject),
    /// The answer could not be decoded as the expected result type.
    #[error("the peer's response could not be decoded: {0}")]
    Decode(String),
    /// The connection closed before an answer arrived.
    #[error("the connection closed before a response arrived")]
    Closed,
    /// The transport cannot carry requests in this direction (e.g. stateless HTTP).
    #[error("this transport cannot carry server-to-client requests")]
    Unsupported,
    /// A 2026-07-28 request still answered `input_required` after the client's round cap
    /// (`ClientBuilder::max_input_rounds`): `last` is that last `InputRequiredResult`.
    #[error("`{method}` still required input after {rounds} rounds")]
    InputRoundsExceeded {
        /// The request's method.
        method: String,
        /// The rounds answered before giving up.
        rounds: usize,
        /// The last `input_required` result, as the server sent it.
        last: Box<Value>,
    },
    /// A client layer (`ClientBuilder::layer`) failed the request with an error of its own (tower's timeout, a rate limit's
    /// refusal): downcast it to see which.
    #[error("a client layer failed the request: {0}")]
    Layer(std::sync::Arc<dyn std::error::Error + Send + Sync>),
}

#[cfg(feature = "otel")]
impl RequestError {
    /// The request's `error.type` in OpenTelemetry terms: the JSON-RPC code of an error
    /// answer, else a short name for what went wrong.
    pub(crate) fn error_type(&self) -> String {
        match self {
            RequestError::Peer(e) => e.code.to_string(),
            RequestError::CapabilityMissing(_) => "capability_missing".into(),
            RequestError::Timeout(_) => "timeout".into(),
            RequestError::Decode(_) => "decode_error".into(),
            RequestError::Closed => "connection_closed".into(),
            RequestError::Unsupported => "unsupported".into(),
            RequestError::InputRoundsExceeded { .. } => "input_rounds_exceeded".into(),
            RequestError::Layer(_) => "layer".into(),
        }
    }
}

/// What the other side answered to a request: its result, or its error.
type Answered = Result<ResultPayload, ErrorObject>;

/// One end of a JSON-RPC connection.
pub struct Peer {
    id: u64,
    tx: OutboundSender,
    next_id: AtomicI64,
    outgoing: Mutex<HashMap<RequestId, oneshot::Sender<Answered>>>,
    incoming: Mutex<HashMap<RequestId, CancellationToken>>,
    closed: Arc<AtomicBool>,
    shutdown: CancellationToken,
    /// Set by [`Peer::finish_incoming`]: the other side sends nothing more.
    input_ended: AtomicBool,
    /// Woken when the last incoming request finishes after the input ended.
    idle: tokio::sync::Notify,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .finish()
    }
}

impl Peer {
    /// A peer writing to `tx`.
    pub fn new(tx: OutboundSender) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Peer {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            tx,
            next_id: AtomicI64::new(0),
            outgoing: Mutex::new(HashMap::new()),
            incoming: Mutex::new(HashMap::new()),
            closed: Arc::new(AtomicBool::new(false)),
            shutdown: CancellationToken::new(),
            input_ended: AtomicBool::new(false),
            idle: tokio::sync::Notify::new(),
        }
    }

    /// A peer with no transport: whatever it sends is dropped, a request it makes fails at
    /// once, and it serves nothing. For work whose messages have no client to go to (a task
    /// resumed in another process) or that sends none (a plain tool call).
    pub(crate) fn detached() -> Self {
        let (tx, _) = outbound_queue(1);
        let peer = Peer::new(tx);
        peer.close();
        peer
    }

    /// This peer's id, unique in the process (request ids are only unique within a peer).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Queues a message for the transport, waiting while the queue is full (the other side
    /// reads slowly). Once the connection is closed the message is dropped.
    ///
    /// The message is queued at once when there is room (the common case); the returned
    /// future then completes on first poll. Only the waiting path allocates, so awaiting
    /// `send` adds a pointer to the caller's future, not the message.
    pub fn send(&self, message: JsonRpcMessage, related: Option<RequestId>) -> Sending<'_> {
        self.queue(Outbound::Message { message, related })
    }

    fn queue(&self, out: Outbound) -> Sending<'_> {
        match self.tx.try_send(out) {
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => Sending(None),
            Err(mpsc::error::TrySendError::Full(out)) => {
                Sending(Some(Box::pin(self.send_when_room(out))))
            }
        }
    }

    async fn send_when_room(&self, out: Outbound) {
        tokio::select! {
            biased;
            // A closed transport drops messages; the connection is over.
            _ = self.tx.send(out) => {}
            _ = self.shutdown.cancelled() => {}
        }
    }

    /// Queues a message if the queue has room; returns whether it was queued. For messages
    /// sent from synchronous code (broadcasts, drop guards): a session whose queue is full is
    /// not reading, and these are dropped for it rather than held without bound.
    pub fn try_send(&self, message: JsonRpcMessage, related: Option<RequestId>) -> bool {
        let queued = self
            .tx
            .try_send(Outbound::Message { message, related })
            .is_ok();
        if !queued && !self.is_closed() {
            tracing::debug!(peer = self.id, "outbound queue full: message dropped");
        }
        queued
    }

    /// Asks the transport to close the stream of `request` (HTTP SSE only). Best effort: if
    /// the queue is full the stream stays open.
    pub fn close_stream(&self, request: RequestId) {
        let _ = self.tx.try_send(Outbound::CloseStream(request));
    }

    /// Sends a notification, waiting while the queue is full (see [`Peer::send`]).
    pub fn notify(
        &self,
        method: &str,
        params: Option<Value>,
        related: Option<RequestId>,
    ) -> Sending<'_> {
        self.send(JsonRpcMessage::notification(method, params), related)
    }

    /// Queues a notification if there is room (see [`Peer::try_send`]).
    pub fn try_notify(
        &self,
        method: &str,
        params: Option<Value>,
        related: Option<RequestId>,
    ) -> bool {
        self.try_send(JsonRpcMessage::notification(method, params), related)
    }

    /// Sends a request and waits (at most `timeout`) for its answer.
    ///
    /// If the returned future is dropped, or the timeout passes, the pending entry is removed
    /// and the other side is told with `notifications/cancelled`.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        related: Option<RequestId>,
        timeout: Duration,
    ) -> Result<ResultPayload, RequestError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(RequestError::Closed);
        }
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (done, answer) = oneshot::channel();
        lock(&self.outgoing).insert(id.clone(), done);
        // Checked after the insert `finish_incoming` clears: no answer can come any more.
        if self.input_ended.load(Ordering::Acquire) {
            crate::capacity::remove(&mut lock(&self.outgoing), &id);
            return Err(RequestError::Closed);
        }
        let mut guard = PendingGuard {
            peer: self,
            id: Some(id.clone()),
            related: related.clone(),
        };
        self.send(JsonRpcMessage::request(id, method, params), related)
            .await;
        let outcome = tokio::time::timeout(timeout, answer).await;
        match outcome {
            Ok(Ok(Ok(value))) => {
                guard.id = None;
                Ok(value)
            }
            Ok(Ok(Err(error))) => {
                guard.id = None;
                Err(RequestError::Peer(error))
            }
            Ok(Err(_)) => {
                guard.id = None;
                Err(RequestError::Closed)
            }
            Err(_) => Err(RequestError::Timeout(timeout)),
        }
    }

    /// Resolves a request this peer sent. Unknown ids are ignored (late or duplicate answers).
    pub fn resolve(&self, id: &RequestId, outcome: Answered) -> bool {
        let removed = crate::capacity::remove(&mut lock(&self.outgoing), id);
        match removed {
            Some(done) => {
                let _ = done.send(outcome);
                true
            }
            None => false,
        }
    }

    /// Starts serving an incoming request: the returned [`Served`] is the request's work,
    /// which the caller spawns (or polls first: [`Served::poll_first`]). When `handler`
    /// finishes its result is sent as the response; if the request is cancelled first
    /// (`cancel`, which [`Peer::close`] cancels too) the future is dropped and nothing is
    /// sent. A panic in `handler` becomes a `-32603` error response. Once the peer is
    /// closed, requests are not served (`None`); a duplicate id is refused.
    #[must_use = "a request is only served when its `Served` is spawned or polled"]
    pub fn serve<F, P>(
        self: &std::sync::Arc<Self>,
        id: RequestId,
        cancel: CancellationToken,
        handler: F,
    ) -> Option<Served>
    where
        F: Future<Output = Result<P, ErrorObject>> + Send + 'static,
        P: Into<ResultPayload> + Send,
    {
        let fresh = {
            let mut incoming = lock(&self.incoming);
            // Checked under the lock `close` drains: a request that slips in after the
            // close is never served (its token would never be cancelled).
            if self.is_closed() {
                return None;
            }
            let fresh = !incoming.contains_key(&id);
            if fresh {
                incoming.insert(id.clone(), cancel.clone());
            }
            fresh
        };
        if !fresh {
            let error = ErrorObject::invalid_request(format!(
                "request id {} is already in use",
                ErrorObject::quote(&id.to_string())
            ));
            let peer = self.clone();
            return Some(Served(Box::pin(async move {
                peer.send(JsonRpcMessage::error(Some(id.clone()), error), Some(id))
                    .await;
            })));
        }
        let peer = self.clone();
        // `handler` is a few words, its state boxed where it was made (the server's method
        // table, the client's handler): this task, boxed in one piece, is small, and so is
        // what tokio copies into a task's cell on spawn. (The waiting path of `send` is
        // boxed too.)
        let task = Box::pin(async move {
            let outcome = tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                r = AssertUnwindSafe(handler).catch_unwind() => Some(r),
            };
            peer.done_incoming(&id);
            let message = match outcome {
                None => {
                    peer.queue(Outbound::Abandoned(id)).await;
                    return;
                }
                Some(Ok(Ok(value))) => JsonRpcMessage::response(id.clone(), value),
                Some(Ok(Err(error))) => JsonRpcMessage::error(Some(id.clone()), error),
                Some(Err(panic)) => JsonRpcMessage::error(
                    Some(id.clone()),
                    ErrorObject::internal(panic_message(&panic)),
                ),
            };
            peer.send(message, Some(id)).await;
        });
        Some(Served(task))
    }

    /// Cancels an incoming request: its handler future is dropped and no response is sent.
    pub fn cancel_incoming(&self, id: &RequestId) -> bool {
        let removed = self.done_incoming(id);
        match removed {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Handles `notifications/cancelled` params.
    pub fn on_cancelled(&self, params: Option<Value>) {
        if let Some(p) =
            params.and_then(|p| serde_json::from_value::<CancelledNotificationParams>(p).ok())
            && let Some(id) = p.request_id
        {
            self.cancel_incoming(&id);
        }
    }

    /// Number of incoming requests being served.
    pub fn in_flight(&self) -> usize {
        lock(&self.incoming).len()
    }

    /// Forgets incoming request `id` (it finished or was cancelled); its token, if it was
    /// still there.
    fn done_incoming(&self, id: &RequestId) -> Option<CancellationToken> {
        let mut incoming = lock(&self.incoming);
        let removed = crate::capacity::remove(&mut incoming, id);
        if incoming.is_empty() && self.input_ended.load(Ordering::Acquire) {
            self.idle.notify_waiters();
        }
        removed
    }

    /// The other side will send nothing more (its input ended): requests to it fail at
    /// once with [`RequestError::Closed`], since nothing can answer them, and the handlers
    /// already running go on. Resolves when none is left; then [`Peer::close`].
    pub(crate) async fn finish_incoming(&self) {
        self.input_ended.store(true, Ordering::Release);
        lock(&self.outgoing).clear();
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.in_flight() == 0 || self.is_closed() {
                return;
            }
            idle.await;
        }
    }

    /// A token cancelled when the connection closes; the outbound driver writes what was
    /// queued and stops.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// The connection is gone: fail pending requests and cancel every handler.
    pub fn close(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        // Wakes a driver waiting on an empty queue; a full queue means it is busy and
        // checks the shutdown token after each message.
        let _ = self.tx.try_send(Outbound::Shutdown);
        lock(&self.outgoing).clear();
        for (_, token) in lock(&self.incoming).drain() {
            token.cancel();
        }
        self.idle.notify_waiters();
        self.shutdown.cancel();
    }

    /// A flag set when [`Peer::close`] runs, for the outbound driver to check after each
    /// message (an atomic load; the shutdown token's `is_cancelled` takes a lock).
    pub(crate) fn closed_flag(&self) -> ClosedFlag {
        ClosedFlag(self.closed.clone())
    }

    /// Whether [`Peer::close`] has run.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
}

/// Removes a pending outgoing request if its future is dropped or times out, and tells the
/// other side.
struct PendingGuard<'a> {
    peer: &'a Peer,
    id: Option<RequestId>,
    related: Option<RequestId>,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take()
            && crate::capacity::remove(&mut lock(&self.peer.outgoing), &id).is_some()
            && !self.peer.is_closed()
        {
            let params = CancelledNotificationParams {
                request_id: Some(id),
                reason: Some("request abandoned by the server".into()),
                ..Default::default()
            };
            self.peer.try_notify(
                methods::CANCELLED,
                serde_json::to_value(params).ok(),
                self.related.take(),
            );
        }
    }
}

/// What the client is told of a handler's panic: that it happened, not what it said (a
/// panic message can carry anything from the server's internals). The payload is logged.
pub(crate) fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    let payload = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str));
    tracing::error!(
        panic = payload.unwrap_or("(not text)"),
        "a handler panicked"
    );
    "the handler panicked (the server logged what it said)".to_owned()
}
