//! Response bodies: SSE streams (events coalesced into chunks) and a single JSON body.

use super::errors::http_error;
use crate::transport::sse::LiveReceiver;
use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::time::Duration;

/// How long a POST waits for its first event before sending the SSE headers alone.
pub(super) const SSE_COALESCE: Duration = Duration::from_millis(2);

/// `head` (if any), `event` and every event already queued behind it, as one chunk.
pub(super) fn coalesce(head: Option<Bytes>, event: Bytes, rx: &mut LiveReceiver) -> Bytes {
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
pub(super) fn sse_body(first: Option<Bytes>, rx: LiveReceiver) -> Response {
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

pub(super) async fn json_body(mut rx: LiveReceiver) -> Response {
    match rx.recv().await {
        Some(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        None => http_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the session closed before the response",
        ),
    }
}
