//! A request served on its POST's own future, whose response is its only outlet: a 2026
//! request, or a 2025 one on a stateless endpoint. The handler is polled beside the
//! request's outbound queue; the response is one JSON body if the answer comes first, else
//! an SSE stream of what the handler queues and then its answer. No task is spawned and
//! no driver sits between handler and response; dropping the response (the client closed
//! the stream) drops the handler.

use crate::peer::{Outbound, OutboundReceiver, Peer};
use crate::protocol::JsonRpcMessage;
use crate::server::{PostWork, Served, Streamed};
use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// How long an SSE stream may stay silent before it gets a keep-alive comment.
const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(15);

/// A request's outbound queue, drained by its own response: the response is the request's
/// outlet (one request, one stream, nothing to route), so no driver task sits between them.
struct Outgoing(OutboundReceiver);

impl Outgoing {
    /// Takes nothing more: what is sent from now on is dropped at once.
    fn close(&mut self) {
        self.0.close();
    }

    /// The next message for the client; `None` once the engine shut down.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<JsonRpcMessage>> {
        loop {
            match std::task::ready!(self.0.poll_recv(cx)) {
                Some(Outbound::Message { message, .. }) => return Poll::Ready(Some(message)),
                None | Some(Outbound::Abandoned(_) | Outbound::Shutdown) => {
                    return Poll::Ready(None);
                }
                Some(Outbound::CloseStream(_)) => {}
            }
        }
    }
}

/// Closes the request's engine when the response is dropped: the client closed the
/// stream, or the answer is complete. Work the request left running (a task of the tasks
/// extension) then sends nothing more to the response.
struct CloseOnDrop(Arc<Peer>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// What a request's handler produced first.
enum First {
    /// Its answer, with nothing queued before it.
    Answer(JsonRpcMessage),
    /// A message it queued, and its answer if it has one already.
    Message(JsonRpcMessage, Option<JsonRpcMessage>),
    /// The engine shut down (the server is closing) before it answered.
    Ended,
}

/// How a response is written.
#[derive(Clone, Copy)]
pub(super) struct Shape {
    /// One JSON body whatever the handler queues first (what it queues is dropped): an
    /// endpoint in JSON response mode.
    pub(super) json_only: bool,
    /// The HTTP status of a response carrying an answer.
    pub(super) status: fn(&JsonRpcMessage) -> StatusCode,
}

/// The response to a POST served on its own future, from what the server made of its
/// message ([`crate::server::serve`] for a `Scope::Post` or `Scope::Stateless`): the
/// answer alone is one JSON body; a request that may send before its answer is
/// [`streamed`]; a notification or a response is accepted (`202`).
///
/// The answer alone runs in the POST's own future, with no queue between the handler and
/// the response. This is not an `async fn`: one awaiting the answer would hold its future
/// (a plain call's is a few kilobytes) two or three times over (the value served, the
/// answer taken out of it, the future awaited), in a future every POST allocates and
/// moves; built from parts, it holds it once.
pub(super) fn respond<'a>(
    served: Served<'a, impl Future<Output = JsonRpcMessage> + Send + 'static>,
    shape: Shape,
) -> impl Future<Output = Response> + Send + 'a {
    use futures::future::{Either, FutureExt as _};
    match served.answer_alone() {
        Ok(answer) => Either::Left(answer.map(move |answer| answered(&answer, shape))),
        Err(rest) => Either::Right(respond_rest(rest, shape)),
    }
}

/// The response carrying a POST's `answer`.
pub(super) fn answered(answer: &JsonRpcMessage, shape: Shape) -> Response {
    json_message((shape.status)(answer), answer)
}

/// What a POST's message came to when it is not its answer alone.
pub(super) async fn respond_rest(
    served: Served<'_, std::convert::Infallible>,
    shape: Shape,
) -> Response {
    match served {
        Served::Answer(never) => match never {},
        Served::Streamed(work) => streamed(work, shape).await,
        // What a session's message comes to (its answer goes out on the session's engine).
        served @ (Served::Done | Served::Sending(_) | Served::Work(_)) => {
            if let Some(work) = served.on_engine().await {
                work.spawn();
            }
            StatusCode::ACCEPTED.into_response()
        }
    }
}

/// Serves one request on the caller's future, its [`Streamed`] work and queue: the
/// response is one JSON body when the answer comes first, else an SSE stream of what the
/// handler queues and then its answer. The handler is polled here, then by the stream;
/// the request's engine is closed when the response is over.
async fn streamed(streamed: Streamed, shape: Shape) -> Response {
    let Streamed {
        work,
        outlet,
        queue,
    } = streamed;
    // Boxed (by the server): the stream takes it along if the answer does not come first.
    let mut work = work;
    let guard = CloseOnDrop(outlet);
    let mut messages = Outgoing(queue);
    let first = std::future::poll_fn(|cx| {
        let answer = match work.as_mut().poll(cx) {
            Poll::Ready(answer) => Some(answer),
            Poll::Pending => None,
        };
        // What the handler queued (even while finishing) goes out before its answer.
        loop {
            match messages.poll_next(cx) {
                // In JSON mode the answer is all the client gets.
                Poll::Ready(Some(_)) if shape.json_only => continue,
                polled => break first_of(polled, answer),
            }
        }
    })
    .await;
    let (first, answer) = match first {
        First::Answer(answer) => {
            // Nothing is read any more: closing the engine then queues nothing (and wakes
            // nobody).
            messages.close();
            drop(guard);
            return json_message((shape.status)(&answer), &answer);
        }
        First::Ended => {
            return super::http_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the request ended without a response",
            );
        }
        First::Message(first, answer) => (first, answer),
    };
    let stream = SseBody {
        first: Some(first),
        work: answer.is_none().then_some(work),
        answer,
        messages,
        keep_alive: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
        guard: Some(guard),
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .header("x-accel-buffering", "no")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// What comes first, from the queue's state and the handler's answer if it has one.
fn first_of(polled: Poll<Option<JsonRpcMessage>>, answer: Option<JsonRpcMessage>) -> Poll<First> {
    match polled {
        Poll::Ready(Some(message)) => Poll::Ready(First::Message(message, answer)),
        Poll::Ready(None) => Poll::Ready(answer.map_or(First::Ended, First::Answer)),
        Poll::Pending => answer.map_or(Poll::Pending, |a| Poll::Ready(First::Answer(a))),
    }
}

/// The SSE body of a request whose handler queued a message before its answer: the
/// messages as events, then the answer. It drives the handler (dropping it cancels the
/// request). A quiet stream (a long call, a `subscriptions/listen`) gets an SSE comment
/// now and then, so intermediaries and client timeouts keep it open.
struct SseBody {
    first: Option<JsonRpcMessage>,
    /// The handler, until it answers.
    work: Option<PostWork>,
    /// Its answer, sent once everything it queued before is out.
    answer: Option<JsonRpcMessage>,
    messages: Outgoing,
    keep_alive: Pin<Box<tokio::time::Sleep>>,
    /// `None` once the answer is sent (the engine closed): the stream has ended.
    guard: Option<CloseOnDrop>,
}

impl SseBody {
    fn emit(&mut self, message: &JsonRpcMessage) -> Poll<Option<Result<Bytes, Infallible>>> {
        let deadline = tokio::time::Instant::now() + KEEP_ALIVE;
        self.keep_alive.as_mut().reset(deadline);
        Poll::Ready(Some(Ok(event(message))))
    }
}

impl futures::Stream for SseBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.guard.is_none() {
            return Poll::Ready(None);
        }
        if let Some(first) = this.first.take() {
            return this.emit(&first);
        }
        if let Some(work) = this.work.as_mut()
            && let Poll::Ready(answer) = work.as_mut().poll(cx)
        {
            this.work = None;
            this.answer = Some(answer);
        }
        match this.messages.poll_next(cx) {
            Poll::Ready(Some(message)) => return this.emit(&message),
            Poll::Ready(None) if this.answer.is_none() => {
                // The engine shut down: the stream ends without an answer.
                this.work = None;
                this.guard = None;
                return Poll::Ready(None);
            }
            Poll::Ready(None) | Poll::Pending => {}
        }
        if let Some(answer) = this.answer.take() {
            let sent = this.emit(&answer);
            this.messages.close();
            this.guard = None;
            return sent;
        }
        if this.keep_alive.as_mut().poll(cx).is_ready() {
            let deadline = tokio::time::Instant::now() + KEEP_ALIVE;
            this.keep_alive.as_mut().reset(deadline);
            return Poll::Ready(Some(Ok(Bytes::from_static(b":\n\n"))));
        }
        Poll::Pending
    }
}

/// A response of one JSON body: `message`, with `status`.
fn json_message(status: StatusCode, message: &JsonRpcMessage) -> Response {
    let mut response = (
        [(header::CONTENT_TYPE, "application/json")],
        Bytes::from(message.to_vec()),
    )
        .into_response();
    *response.status_mut() = status;
    response
}

/// One SSE event without an id (a request served this way cannot be resumed).
fn event(message: &JsonRpcMessage) -> Bytes {
    let mut out = Vec::with_capacity(message.encoded_len_hint(232) + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    let _ = serde_json::to_writer(&mut out, message);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}
