//! Modern (MCP 2026-07-28) requests on the Streamable HTTP endpoint: no sessions; the
//! request headers mirror the body and are checked against it (SEP-2243); each request is
//! answered with one JSON body, or with an SSE stream when it sends notifications before
//! its result; a closed response stream cancels the request.

use super::{header_str, rpc_error};
use crate::peer::{Outbound, OutboundReceiver, Peer, outbound_queue};
use crate::protocol::{
    ClientMeta, ErrorObject, HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, JsonRpcMessage,
    JsonRpcRequest, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION, methods,
};
use crate::server::{RequestMeta, ServerHandle, admit, requested_version};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::Value;
use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// `MCP-Protocol-Version`
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`
const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`
const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");
/// How long a modern SSE stream may stay silent before it gets a keep-alive comment.
const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(15);
/// The prefix of the headers mirroring `x-mcp-header` tool parameters.
const PARAM_HEADER_PREFIX: &str = "mcp-param-";

/// Serves one modern request.
pub(super) async fn post(
    server: &ServerHandle,
    headers: &HeaderMap,
    request: JsonRpcRequest,
    client: ClientMeta<'_>,
    max_queue: usize,
    caller: crate::caller::Caller,
) -> Response {
    let id = Some(request.id.clone());
    let meta = match check(server, headers, &request, client, &caller) {
        Ok(meta) => meta,
        Err(error) => return rpc_error(status_of(&error), id, error),
    };
    // A call that cannot ask or notify anything is answered by one JSON body: it runs
    // right here, with no answer queue of its own between the tool and the response.
    if server.is_plain_tool_call(&request, &meta.capabilities) {
        let answer = server.serve_modern(request, meta, caller, None).await;
        return json_message(status_of_message(&answer), &answer);
    }
    // Any other request runs on this future too, its answer queue read beside it: the
    // response is one JSON body if the answer comes first, else an SSE stream.
    let (tx, queue) = outbound_queue(max_queue);
    let outlet = Arc::new(Peer::new(tx));
    let work = Box::pin(server.serve_modern(request, meta, caller, Some(outlet.clone())));
    answer(work, Outgoing(queue), CloseOnDrop(outlet)).await
}

/// The status of a response carrying `answer`.
fn status_of_message(answer: &JsonRpcMessage) -> StatusCode {
    match answer {
        JsonRpcMessage::Error(e) => status_of(&e.error),
        _ => StatusCode::OK,
    }
}

/// Checks what the transport must check before anything runs: the mirrored headers, the
/// protocol version, the `_meta` fields, and that the method exists.
fn check(
    server: &ServerHandle,
    headers: &HeaderMap,
    request: &JsonRpcRequest,
    client: ClientMeta<'_>,
    caller: &crate::caller::Caller,
) -> Result<RequestMeta, ErrorObject> {
    let params = request.params.as_ref();
    let mismatch = |message: String| ErrorObject::new(HEADER_MISMATCH, message);
    let body_version = requested_version(params, &client);
    match (headers.get(VERSION_HEADER), body_version) {
        (None, _) => {
            return Err(mismatch(
                "Header mismatch: the MCP-Protocol-Version header is required".into(),
            ));
        }
        (Some(h), Some(v)) if h.to_str().ok() != Some(v) => {
            return Err(mismatch(format!(
                "Header mismatch: MCP-Protocol-Version header {} does not match the body's {}",
                ErrorObject::quote(h.to_str().unwrap_or("(not text)")),
                ErrorObject::quote(v)
            )));
        }
        _ => {}
    }
    match headers.get(METHOD_HEADER).map(|h| h.to_str()) {
        None => {
            return Err(mismatch(
                "Header mismatch: the Mcp-Method header is required".into(),
            ));
        }
        Some(Ok(m)) if m == request.method => {}
        Some(m) => {
            return Err(mismatch(format!(
                "Header mismatch: Mcp-Method header {} does not match the body's {}",
                ErrorObject::quote(m.unwrap_or("(not text)")),
                ErrorObject::quote(&request.method)
            )));
        }
    }
    let named = match request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        // The tasks extension routes by task (SEP-2663): `Mcp-Name` carries the task id.
        crate::task::TASKS_GET | crate::task::TASKS_UPDATE | crate::task::TASKS_CANCEL => {
            Some("taskId")
        }
        _ => None,
    };
    if let Some(field) = named {
        let body = params.and_then(|p| p.get(field)).and_then(Value::as_str);
        match (headers.get(NAME_HEADER), body) {
            (None, _) => {
                return Err(mismatch(
                    "Header mismatch: the Mcp-Name header is required".into(),
                ));
            }
            (Some(h), Some(body)) => {
                let decoded = decode_header(h.as_bytes()).ok_or_else(|| {
                    mismatch("Header mismatch: the Mcp-Name header is not a valid value".into())
                })?;
                if decoded != body {
                    return Err(mismatch(format!(
                        "Header mismatch: Mcp-Name header {} does not match the body's {}",
                        ErrorObject::quote(&decoded),
                        ErrorObject::quote(body)
                    )));
                }
            }
            (Some(_), None) => {}
        }
    }
    let meta = admit(server, &request.method, params, client)?;
    if request.method == methods::TOOLS_CALL {
        check_param_headers(server, headers, params, (&meta, caller))?;
    }
    Ok(meta)
}

/// Checks the `Mcp-Param-{Name}` headers of a tool's `x-mcp-header` parameters against the
/// call's arguments: a present argument needs its header with the same value.
/// A hidden tool's are not checked: the dispatch answers it as an unknown one, and a
/// mismatch here would tell the caller it exists.
fn check_param_headers(
    server: &ServerHandle,
    headers: &HeaderMap,
    params: Option<&Value>,
    (meta, caller): (&RequestMeta, &crate::caller::Caller),
) -> Result<(), ErrorObject> {
    let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
        return Ok(());
    };
    let info = meta.client_info.as_deref();
    if server.hides_tool(name, caller, info, &meta.capabilities) {
        return Ok(());
    }
    let mirrored = server.mirrored_parameters(name);
    let arguments = params.and_then(|p| p.get("arguments"));
    for (path, header_name) in mirrored {
        let value = path
            .iter()
            .try_fold(arguments, |at, key| Some(at?.get(key.as_str())))
            .flatten();
        let expected = match value {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Bool(b)) => Some(b.to_string()),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(_) => None,
        };
        let header = headers.get(format!("{PARAM_HEADER_PREFIX}{header_name}").as_str());
        let matches = match (&expected, header) {
            (None, None) => true,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(expected), Some(h)) => decode_header(h.as_bytes()).is_some_and(|got| {
                got == *expected || numeric_eq(&got, value.and_then(Value::as_f64))
            }),
        };
        if !matches {
            return Err(ErrorObject::new(
                HEADER_MISMATCH,
                format!(
                    "Header mismatch: Mcp-Param-{header_name} does not match the argument `{}`",
                    path.join(".")
                ),
            ));
        }
    }
    Ok(())
}

/// Integer parameters compare numerically (`42.0` equals `42`).
fn numeric_eq(header: &str, body: Option<f64>) -> bool {
    match (header.trim().parse::<f64>(), body) {
        (Ok(h), Some(b)) => h == b,
        _ => false,
    }
}

/// A header value as text: plain visible ASCII (borrowed), or the `=?base64?…?=` sentinel
/// decoded as UTF-8. `None` when neither.
pub(crate) fn decode_header(raw: &[u8]) -> Option<Cow<'_, str>> {
    let text = std::str::from_utf8(raw).ok()?;
    if let Some(inner) = text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(inner)
            .ok()?;
        return String::from_utf8(bytes).ok().map(Cow::Owned);
    }
    text.bytes()
        .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
        .then_some(Cow::Borrowed(text))
}

/// The HTTP status of a modern error response: the statuses the revision names for its
/// errors (400 for a bad request, its headers or `_meta`, a missing capability or an
/// unsupported version; 404 for an unknown method), else 200 with the JSON-RPC error (a
/// failed handler is not a failed transport, and clients read error bodies on 200/400).
fn status_of(error: &ErrorObject) -> StatusCode {
    match error.code {
        METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        HEADER_MISMATCH
        | UNSUPPORTED_PROTOCOL_VERSION
        | MISSING_REQUIRED_CLIENT_CAPABILITY
        | INVALID_PARAMS
        | INVALID_REQUEST
        | PARSE_ERROR => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// A modern request's outbound queue, drained by its own response: the response is the
/// request's outlet (one request, one stream, nothing to route), so no driver task sits
/// between them.
struct Outgoing(OutboundReceiver);

impl Outgoing {
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

/// A modern request's handler, run by its response: its answer, as the message to send.
type Work = Pin<Box<dyn Future<Output = JsonRpcMessage> + Send>>;

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

/// The response: one JSON body when the answer comes first, else an SSE stream of what
/// the handler queues and then its answer. The handler is polled here, then by the stream.
async fn answer(mut work: Work, mut messages: Outgoing, guard: CloseOnDrop) -> Response {
    let first = std::future::poll_fn(|cx| {
        let answer = match work.as_mut().poll(cx) {
            Poll::Ready(answer) => Some(answer),
            Poll::Pending => None,
        };
        // What the handler queued (even while finishing) goes out before its answer.
        match messages.poll_next(cx) {
            Poll::Ready(Some(message)) => Poll::Ready(First::Message(message, answer)),
            Poll::Ready(None) => Poll::Ready(answer.map_or(First::Ended, First::Answer)),
            Poll::Pending => answer.map_or(Poll::Pending, |a| Poll::Ready(First::Answer(a))),
        }
    })
    .await;
    let (first, answer) = match first {
        First::Answer(answer) => {
            drop(guard);
            return json_message(status_of_message(&answer), &answer);
        }
        First::Ended => {
            return super::http_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the request ended without a response",
            );
        }
        First::Message(first, answer) => (first, answer),
    };
    let stream = Streamed {
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

/// The SSE body of a request whose handler queued a message before its answer: the
/// messages as events, then the answer. It drives the handler (dropping it cancels the
/// request). A quiet stream (a long call, a `subscriptions/listen`) gets an SSE comment
/// now and then, so intermediaries and client timeouts keep it open.
struct Streamed {
    first: Option<JsonRpcMessage>,
    /// The handler, until it answers.
    work: Option<Work>,
    /// Its answer, sent once everything it queued before is out.
    answer: Option<JsonRpcMessage>,
    messages: Outgoing,
    keep_alive: Pin<Box<tokio::time::Sleep>>,
    /// `None` once the answer is sent (the engine closed): the stream has ended.
    guard: Option<CloseOnDrop>,
}

impl Streamed {
    fn emit(&mut self, message: &JsonRpcMessage) -> Poll<Option<Result<Bytes, Infallible>>> {
        let deadline = tokio::time::Instant::now() + KEEP_ALIVE;
        self.keep_alive.as_mut().reset(deadline);
        Poll::Ready(Some(Ok(event(message))))
    }
}

impl futures::Stream for Streamed {
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

/// One SSE event without an id (the modern revision has no resumption).
fn event(message: &JsonRpcMessage) -> Bytes {
    let mut out = Vec::with_capacity(message.encoded_len_hint(232) + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    let _ = serde_json::to_writer(&mut out, message);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// Whether a GET or DELETE names a modern protocol version (those methods do not exist
/// there: 405).
pub(super) fn names_modern_version(headers: &HeaderMap) -> bool {
    let v = header_str(headers, VERSION_HEADER);
    crate::server::MODERN_PROTOCOL_VERSIONS.contains(&v)
}
