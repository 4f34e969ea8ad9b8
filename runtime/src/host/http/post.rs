//! A POST to the MCP endpoint: media types, the body, the message; a 2026 request goes to
//! `modern`, a 2025 one to its session (or, stateless, to a session of its own), and the
//! answer comes back as an SSE stream or one JSON body.

use super::body::{SSE_COALESCE, coalesce, json_body, sse_body};
use super::caller::{caller_of, scope_refusal};
use super::errors::{body_timeout, http_error, rpc_error};
use super::headers::{accepts, header_str, names_modern_version};
use super::one_request::{self, Shape};
use super::{HttpOptions, HttpSession, SESSION_HEADER, Shared, VERSION_HEADER, modern};
use crate::caller::Caller;
use crate::peer::sync::lock;
use crate::protocol::{
    ClientMetaParams, ErrorObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, RequestId,
    SUPPORTED_PROTOCOL_VERSIONS, methods,
};
use crate::server::{Scope, ServerHandle, serve};
use crate::transport::sse::{Mode, live_channel, priming};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

pub(super) async fn post(
    shared: Arc<Shared>,
    parts: Arc<axum::http::request::Parts>,
    body: Body,
) -> Response {
    let caller = caller_of(&parts);
    let headers = &parts.headers;
    let json_mode = shared.options.json_response;
    if let Some(refused) = media_type_refusal(headers, json_mode) {
        return refused;
    }
    let bytes = match read_body(&shared.options, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
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
            return modern::post(&shared.server, headers, request, client, caller).await;
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
    if let Some(refused) = version_refusal(headers, &request_id) {
        return refused;
    }
    if shared.options.stateless {
        return stateless(&shared.server, message, json_mode, caller).await;
    }
    let is_initialize =
        matches!(&message, JsonRpcMessage::Request(r) if r.method == methods::INITIALIZE);
    let (session_id, session) = match session_for(&shared, headers, is_initialize, &caller) {
        Ok(found) => found,
        Err((status, error)) => return rpc_error(status, request_id, error),
    };
    let mut response = serve_on_session(&shared, &session, message, caller).await;
    if let Some(id) = session_id
        && let Ok(v) = HeaderValue::from_str(&id)
    {
        response.headers_mut().insert(SESSION_HEADER, v);
    }
    response
}

/// The refusal of a POST whose `Accept` or `Content-Type` is not what Streamable HTTP
/// requires.
fn media_type_refusal(headers: &HeaderMap, json_mode: bool) -> Option<Response> {
    let accept = header_str(headers, header::ACCEPT);
    let accepts_json = accepts(accept, "application/json");
    let accepts_sse = accepts(accept, "text/event-stream");
    if !accepts_json || (!json_mode && !accepts_sse) {
        return Some(http_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        ));
    }
    let content_type = header_str(headers, header::CONTENT_TYPE);
    let json = content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
    (!json).then(|| {
        http_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
        )
    })
}

/// The POST's body, within the size limit and the body timeout.
async fn read_body(options: &HttpOptions, body: Body) -> Result<axum::body::Bytes, Response> {
    let mut read = std::pin::pin!(axum::body::to_bytes(body, options.max_body_size));
    // A body that came with its headers (most do) needs no timer.
    let read = match futures::poll!(read.as_mut()) {
        std::task::Poll::Ready(read) => Ok(read),
        std::task::Poll::Pending => tokio::time::timeout(options.request_body_timeout, read).await,
    };
    match read {
        Ok(Ok(bytes)) => Ok(bytes),
        Err(_) => Err(body_timeout(options.request_body_timeout)),
        Ok(Err(_)) => Err(rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            ErrorObject::invalid_request(format!(
                "message exceeds the {} byte limit",
                options.max_body_size
            )),
        )),
    }
}

/// The refusal of an `MCP-Protocol-Version` header naming a version this server does not
/// speak.
fn version_refusal(headers: &HeaderMap, request_id: &Option<RequestId>) -> Option<Response> {
    let version = headers.get(VERSION_HEADER)?;
    if version
        .to_str()
        .is_ok_and(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v))
    {
        return None;
    }
    Some(rpc_error(
        StatusCode::BAD_REQUEST,
        request_id.clone(),
        ErrorObject::invalid_request(format!(
            "unsupported MCP-Protocol-Version (supported: {})",
            SUPPORTED_PROTOCOL_VERSIONS.join(", ")
        )),
    ))
}

/// The session a 2025 POST belongs to: a new one for `initialize` (with its id, for the
/// response's header), else the one its `Mcp-Session-Id` names, if the caller owns it.
fn session_for(
    shared: &Arc<Shared>,
    headers: &HeaderMap,
    is_initialize: bool,
    caller: &Caller,
) -> Result<(Option<String>, Arc<HttpSession>), (StatusCode, ErrorObject)> {
    let refused = |(status, message)| (status, ErrorObject::invalid_request(message));
    if !is_initialize {
        return shared
            .session(headers, caller.owner().as_deref())
            .map(|s| (None, s))
            .map_err(refused);
    }
    if headers.contains_key(SESSION_HEADER) {
        let error = ErrorObject::invalid_request("initialize must not carry Mcp-Session-Id");
        return Err((StatusCode::BAD_REQUEST, error));
    }
    shared
        .create_session(caller.owner())
        .map(|(id, s)| (Some(id), s))
        .map_err(refused)
}

/// Serves a message on its 2025 session: a notification or response is accepted; a
/// request opens its own stream (SSE, or one JSON body in JSON mode) for its answer.
async fn serve_on_session(
    shared: &Shared,
    session: &Arc<HttpSession>,
    message: JsonRpcMessage,
    caller: Caller,
) -> Response {
    let json_mode = shared.options.json_response;
    let scope = Scope::Session(&session.engine);
    let JsonRpcMessage::Request(request) = &message else {
        if let Some(work) = serve(&shared.server, message, scope, caller)
            .on_engine()
            .await
        {
            work.poll_first();
        }
        return StatusCode::ACCEPTED.into_response();
    };
    let id = request.id.clone();
    let (live, rx) = live_channel();
    let mode = if json_mode { Mode::Json } else { Mode::Sse };
    let Some(stream) = lock(&session.streams).open(id.clone(), mode, live) else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            Some(id.clone()),
            ErrorObject::invalid_request(format!(
                "request id {} is already in flight",
                ErrorObject::quote(&id.to_string())
            )),
        );
    };
    // This POST's task waits for the answer anyway: the handler is polled here first.
    if let Some(work) = serve(&shared.server, message, scope, caller)
        .on_engine()
        .await
    {
        work.poll_first();
    }
    if json_mode {
        return json_body(rx).await;
    }
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
}

/// A message to a stateless endpoint: a request is served on this future, its response
/// its outlet; anything else means nothing without a session (`202`).
async fn stateless(
    server: &ServerHandle,
    message: JsonRpcMessage,
    json_mode: bool,
    caller: Caller,
) -> Response {
    let shape = Shape {
        json_only: json_mode,
        // A JSON-RPC error is an answer like any other: 200.
        status: |_| StatusCode::OK,
    };
    // A notification or a response means nothing without a session: `202`.
    one_request::respond(serve(server, message, Scope::Stateless, caller), shape).await
}
