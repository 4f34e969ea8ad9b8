//! Tracing a request: its span (method, id, era, target) and its future run inside it, with
//! an event when it starts and how it ended.

use crate::json::member;
use crate::protocol::{ErrorObject, RequestId};
use serde_json::Value;

pub(crate) fn request_span(
    method: &str,
    id: &RequestId,
    params: Option<&Value>,
    era: &'static str,
) -> tracing::Span {
    let target = params
        .and_then(|p| member(p, "name").or_else(|| member(p, "uri")))
        .and_then(Value::as_str)
        .unwrap_or("");
    tracing::debug_span!("mcp.request", method, id = %id, era, name = target)
}

/// `fut` in `span`, with a DEBUG event when it starts and how it ended (TRACE for success,
/// DEBUG for a JSON-RPC error).
pub(crate) fn traced<F, T>(span: tracing::Span, fut: F) -> Traced<F>
where
    F: std::future::Future<Output = Result<T, ErrorObject>>,
{
    Traced {
        fut,
        span,
        started: false,
    }
}

pin_project_lite::pin_project! {
    /// What [`traced`] returns: a request's handler polled inside its span. A plain future
    /// rather than an `async` block, which would hold the handler twice (once as the
    /// block's capture, once as the awaited future) — a handler's state is kilobytes, and
    /// every byte of it is copied when the request's task is boxed.
    pub(crate) struct Traced<F> {
        #[pin]
        fut: F,
        span: tracing::Span,
        started: bool,
    }
}

impl<F, T> std::future::Future for Traced<F>
where
    F: std::future::Future<Output = Result<T, ErrorObject>>,
{
    type Output = Result<T, ErrorObject>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let this = self.project();
        let _entered = this.span.enter();
        if !*this.started {
            *this.started = true;
            tracing::debug!("request");
        }
        let out = std::task::ready!(this.fut.poll(cx));
        match &out {
            Ok(_) => tracing::trace!("answered"),
            Err(e) => {
                tracing::debug!(code = e.code, message = %e.message, "answered with an error")
            }
        }
        std::task::Poll::Ready(out)
    }
}
