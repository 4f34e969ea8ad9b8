//! What the host reads from request headers: the `Host` / `Origin` allow-list, `Accept`,
//! and whether a sessionless request names a modern protocol version.

use super::errors::Rejection;
use super::{HttpOptions, SESSION_HEADER, VERSION_HEADER};
use crate::protocol::methods;
use axum::http::{HeaderMap, HeaderName, StatusCode, header};

pub(super) fn check_host(options: &HttpOptions, headers: &HeaderMap) -> Result<(), Rejection> {
    let Some(allowed) = &options.allowed_hosts else {
        return Ok(());
    };
    let ok = |host: &str| allowed.iter().any(|a| a.eq_ignore_ascii_case(host));
    // One Host, always (RFC 9112 §3.2): a second one could be read by something else in
    // front of the server, and none at all cannot be checked.
    let mut hosts = headers.get_all(header::HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else {
        return Err((
            StatusCode::BAD_REQUEST,
            "Bad Request: exactly one Host header is required",
        ));
    };
    if !ok(strip_port(host.to_str().unwrap_or_default())) {
        return Err((
            StatusCode::FORBIDDEN,
            "Forbidden: Host not allowed (a server reached under another name lists it in HttpOptions::allowed_hosts)",
        ));
    }
    let mut origins = headers.get_all(header::ORIGIN).iter();
    let (origin, None) = (origins.next(), origins.next()) else {
        return Err((
            StatusCode::BAD_REQUEST,
            "Bad Request: more than one Origin header",
        ));
    };
    if let Some(origin) = origin {
        let origin = origin.to_str().unwrap_or_default();
        let host = origin
            .split_once("://")
            .map(|(_, rest)| rest)
            .unwrap_or(origin);
        let host = host.split('/').next().unwrap_or_default();
        if !ok(strip_port(host)) {
            return Err((
                StatusCode::FORBIDDEN,
                "Forbidden: Origin not allowed (allowed origins are the hosts in HttpOptions::allowed_hosts)",
            ));
        }
    }
    Ok(())
}

pub(super) fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.rsplit_once(':').map_or(host, |(h, p)| {
        if p.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            host
        }
    })
}

/// A header's value as text (empty when absent or not text). Looked up by a typed
/// [`HeaderName`]: a name given as text is parsed again at every lookup.
pub(super) fn header_str(headers: &HeaderMap, name: HeaderName) -> &str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

pub(super) fn accepts(accept: &str, mime: &str) -> bool {
    accept.split(',').any(|part| {
        let t = part.split(';').next().unwrap_or_default().trim();
        t.eq_ignore_ascii_case(mime) || t == "*/*"
    })
}

/// Whether a request outside any session names a modern protocol version in its
/// `MCP-Protocol-Version` header: it is then a modern request even if its `_meta` lacks
/// the version (and is refused with `-32602` / `400` for that, as the spec requires),
/// not a 2025-11-25 request without a session.
pub(super) fn names_modern_version(headers: &HeaderMap, method: &str) -> bool {
    method != methods::INITIALIZE
        && !headers.contains_key(SESSION_HEADER)
        && headers
            .get(VERSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| crate::server::MODERN_PROTOCOL_VERSIONS.contains(&v))
}
