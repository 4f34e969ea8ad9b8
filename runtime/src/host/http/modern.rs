//! Modern (MCP 2026-07-28) requests on the Streamable HTTP endpoint: no sessions; the
//! request headers mirror the body and are checked against it (SEP-2243); each request is
//! answered with one JSON body, or with an SSE stream when it sends notifications before
//! its result; a closed response stream cancels the request.

use super::errors::{modern_status, rpc_error};
use super::header_str;
use super::one_request::{self, Shape};
use crate::protocol::{ClientMeta, ErrorObject, JsonRpcMessage, JsonRpcRequest, methods};
use crate::server::{RequestMeta, Scope, ServerHandle, admit, requested_version, serve};
use axum::http::{HeaderMap, HeaderName, StatusCode};
use axum::response::Response;
use base64::Engine as _;
use serde_json::Value;
use std::borrow::Cow;

/// `MCP-Protocol-Version`
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`
const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`
const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");
/// The prefix of the headers mirroring `x-mcp-header` tool parameters.
const PARAM_HEADER_PREFIX: &str = "mcp-param-";

/// Serves one modern request. Not an `async fn`, for the reason [`one_request::respond`]
/// is not: the future of a plain call's answer is held once.
pub(super) fn post(
    server: &ServerHandle,
    headers: &HeaderMap,
    request: JsonRpcRequest,
    client: ClientMeta<'_>,
    caller: crate::caller::Caller,
) -> impl Future<Output = Response> + Send + use<> {
    use futures::future::{Either, ready};
    let id = Some(request.id.clone());
    let meta = match check(server, headers, &request, client, &caller) {
        Ok(meta) => meta,
        Err(error) => {
            return Either::Left(ready(rpc_error(modern_status(&error), id, error)));
        }
    };
    // A call that cannot ask or notify anything is answered by one JSON body, with no
    // answer queue of its own between the tool and the response. Any other request runs
    // on this future too, its answer queue read beside it: the response is one JSON body
    // if the answer comes first, else an SSE stream.
    let shape = Shape {
        json_only: false,
        status: status_of_message,
    };
    let served = serve(
        server,
        JsonRpcMessage::Request(request),
        Scope::Post(meta),
        caller,
    );
    Either::Right(one_request::respond(served, shape))
}

/// The status of a response carrying `answer`.
fn status_of_message(answer: &JsonRpcMessage) -> StatusCode {
    match answer {
        JsonRpcMessage::Error(e) => modern_status(&e.error),
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
    let body_version = requested_version(params, &client);
    match (headers.get(VERSION_HEADER), body_version) {
        (None, _) => {
            return Err(ErrorObject::header_mismatch(
                "the MCP-Protocol-Version header is required",
            ));
        }
        (Some(h), Some(v)) if h.to_str().ok() != Some(v) => {
            return Err(ErrorObject::header_mismatch(format!(
                "MCP-Protocol-Version header {} does not match the body's {}",
                ErrorObject::quote(h.to_str().unwrap_or("(not text)")),
                ErrorObject::quote(v)
            )));
        }
        _ => {}
    }
    match headers.get(METHOD_HEADER).map(|h| h.to_str()) {
        None => {
            return Err(ErrorObject::header_mismatch(
                "the Mcp-Method header is required",
            ));
        }
        Some(Ok(m)) if m == request.method => {}
        Some(m) => {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Method header {} does not match the body's {}",
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
                return Err(ErrorObject::header_mismatch(
                    "the Mcp-Name header is required",
                ));
            }
            (Some(h), Some(body)) => {
                let decoded = decode_header(h.as_bytes()).ok_or_else(|| {
                    ErrorObject::header_mismatch("the Mcp-Name header is not a valid value")
                })?;
                if decoded != body {
                    return Err(ErrorObject::header_mismatch(format!(
                        "Mcp-Name header {} does not match the body's {}",
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
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Param-{header_name} does not match the argument `{}`",
                path.join(".")
            )));
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

/// Whether a GET or DELETE names a modern protocol version (those methods do not exist
/// there: 405).
pub(super) fn names_modern_version(headers: &HeaderMap) -> bool {
    let v = header_str(headers, VERSION_HEADER);
    crate::server::MODERN_PROTOCOL_VERSIONS.contains(&v)
}
