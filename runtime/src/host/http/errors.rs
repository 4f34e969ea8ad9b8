//! Every error response the HTTP host sends itself, and the HTTP status a JSON-RPC error
//! gets: a refusal before the body is read (`http_error`), one that names the request
//! (`rpc_error`), a body that came too slowly (`body_timeout`), and a 2026 error's status
//! (`modern_status`). The JSON-RPC errors themselves are built by `protocol::error`; the
//! bearer layer's OAuth refusals (RFC 6750) are `auth`'s.

use crate::protocol::{
    ErrorObject, HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, JsonRpcMessage,
    METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR, RequestId,
    UNSUPPORTED_PROTOCOL_VERSION,
};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::time::Duration;

/// A refusal: the status and what the JSON-RPC error says.
pub(super) type Rejection = (StatusCode, &'static str);

/// A refusal before the body is read: an invalid-request error with `"id": null`.
pub(super) fn http_error(status: StatusCode, message: &str) -> Response {
    rpc_error(status, None, ErrorObject::invalid_request(message))
}

/// `status` with a JSON-RPC error body: `id` is the request's when it could be read, else
/// `None` (written as `"id": null`).
pub(super) fn rpc_error(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response {
    let body = JsonRpcMessage::error(id, error).to_vec();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `408 Request Timeout` for a body that did not arrive in time; the connection closes.
pub(super) fn body_timeout(after: Duration) -> Response {
    let mut response = http_error(
        StatusCode::REQUEST_TIMEOUT,
        &format!("Request Timeout: the body did not arrive within {after:?}"),
    );
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The HTTP status of a modern error response: the statuses the revision names for its
/// errors (400 for a bad request, its headers or `_meta`, a missing capability or an
/// unsupported version; 404 for an unknown method), else 200 with the JSON-RPC error (a
/// failed handler is not a failed transport, and clients read error bodies on 200/400).
pub(super) fn modern_status(error: &ErrorObject) -> StatusCode {
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
