//! What a modern (MCP 2026-07-28) request says about itself in `_meta`: its protocol
//! version (checked against the revisions served), its client's capabilities and info.

use super::{METHODS, SERVER_DISCOVER};
use crate::json::member;
use crate::protocol::{
    ClientCapabilities, ClientMeta, ErrorObject, Implementation, JsonObject, LoggingLevel,
};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// The modern protocol revisions this crate serves, newest first.
pub const MODERN_PROTOCOL_VERSIONS: &[&str] = &["2026-07-28"];

/// `_meta` keys of the modern revision.
pub(crate) mod keys {
    pub(crate) use crate::protocol::{CLIENT_CAPABILITIES, CLIENT_INFO, PROTOCOL_VERSION};
    pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
}

/// Whether `method` exists in the modern revision (anything else is `-32601`; on HTTP 404).
pub(crate) fn is_modern_method(method: &str) -> bool {
    METHODS.contains(&method)
}

/// Whether a request speaks the modern revision: its `_meta` names a protocol version, or
/// it is `server/discover`. Everything else goes to the session engine.
pub(crate) fn is_modern(method: &str, params: Option<&Value>) -> bool {
    method == SERVER_DISCOVER
        || params
            .and_then(|p| member(p, "_meta"))
            .and_then(|m| member(m, keys::PROTOCOL_VERSION))
            .is_some()
}

/// The protocol version a modern request names, if it names one as a string.
#[cfg(feature = "http")]
pub(crate) fn requested_version<'a>(
    params: Option<&'a Value>,
    client: &ClientMeta<'a>,
) -> Option<&'a str> {
    match client.version {
        Some(raw) => serde_json::from_str(raw.get()).ok(),
        None => member(member(params?, "_meta")?, keys::PROTOCOL_VERSION)?.as_str(),
    }
}

/// What a modern request says about its client, from its `_meta`.
#[derive(Debug, Clone)]
pub(crate) struct RequestMeta {
    /// One of [`MODERN_PROTOCOL_VERSIONS`].
    pub(crate) version: &'static str,
    pub(crate) capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    pub(crate) log_level: Option<LoggingLevel>,
}

/// Reads and checks a modern request's `_meta`: an unsupported version is `-32022` (with
/// the supported and requested versions), a missing or malformed field `-32602`.
/// `client` holds the client-describing members when the request was read with them kept
/// raw beside `params` (a member found there is not looked for in `params`).
pub(crate) fn read_meta(
    params: Option<&Value>,
    client: ClientMeta<'_>,
    known: &crate::server::known_client::KnownClient,
) -> Result<RequestMeta, ErrorObject> {
    let meta = params
        .and_then(|p| member(p, "_meta"))
        .and_then(Value::as_object)
        .ok_or_else(|| ErrorObject::invalid_params("params._meta is required"))?;
    let not_text = || {
        ErrorObject::invalid_params(format!(
            "_meta[\"{}\"] must be a string",
            keys::PROTOCOL_VERSION
        ))
    };
    let unescaped;
    let version = match (client.version, meta.get(keys::PROTOCOL_VERSION)) {
        // Borrowed from the request's text, unless it is written with escapes.
        (Some(raw), _) => match serde_json::from_str::<&str>(raw.get()) {
            Ok(v) => v,
            Err(_) => {
                unescaped = serde_json::from_str::<String>(raw.get()).map_err(|_| not_text())?;
                unescaped.as_str()
            }
        },
        (None, Some(Value::String(v))) => v.as_str(),
        (None, Some(_)) => {
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] must be a string",
                keys::PROTOCOL_VERSION
            )));
        }
        (None, None) => {
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] is required",
                keys::PROTOCOL_VERSION
            )));
        }
    };
    let Some(version) = MODERN_PROTOCOL_VERSIONS
        .iter()
        .find(|v| **v == version)
        .copied()
    else {
        return Err(unsupported_version(version));
    };
    let (capabilities, client_info) = match known.get(client) {
        Some(typed) => typed,
        None => {
            let typed = client_description(meta, client)?;
            known.remember(client, &typed);
            typed
        }
    };
    let log_level = match meta.get(keys::LOG_LEVEL) {
        Some(l) => Some(LoggingLevel::deserialize(l).map_err(|e| {
            ErrorObject::invalid_params(format!("_meta[\"{}\"] is not valid: {e}", keys::LOG_LEVEL))
        })?),
        None => None,
    };
    Ok(RequestMeta {
        version,
        capabilities,
        client_info,
        log_level,
    })
}

/// The client's capabilities and info from a modern request's `_meta` (or from `client`,
/// where they were kept raw): `-32602` when the capabilities are missing or either is
/// malformed.
pub(super) fn client_description(
    meta: &JsonObject,
    client: ClientMeta<'_>,
) -> Result<ClientDescription, ErrorObject> {
    let invalid = |key: &str, e: serde_json::Error| {
        ErrorObject::invalid_params(format!("_meta[\"{key}\"] is not valid: {e}"))
    };
    let capabilities = match (client.capabilities, meta.get(keys::CLIENT_CAPABILITIES)) {
        // Typed straight from the request's text, or from the borrowed tree: no copy of the
        // `_meta` objects either way.
        (Some(raw), _) => serde_json::from_str::<ClientCapabilities>(raw.get())
            .map_err(|e| invalid(keys::CLIENT_CAPABILITIES, e))?,
        (None, Some(c)) => {
            ClientCapabilities::deserialize(c).map_err(|e| invalid(keys::CLIENT_CAPABILITIES, e))?
        }
        (None, None) => {
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] is required",
                keys::CLIENT_CAPABILITIES
            )));
        }
    };
    let client_info = match (client.info, meta.get(keys::CLIENT_INFO)) {
        (Some(raw), _) => Some(
            serde_json::from_str::<Implementation>(raw.get())
                .map_err(|e| invalid(keys::CLIENT_INFO, e))?,
        ),
        (None, Some(i)) => {
            Some(Implementation::deserialize(i).map_err(|e| invalid(keys::CLIENT_INFO, e))?)
        }
        (None, None) => None,
    };
    Ok((Arc::new(capabilities), client_info.map(Arc::new)))
}

/// A client's capabilities and info, shared by every request that carries the same.
pub(crate) type ClientDescription = (Arc<ClientCapabilities>, Option<Arc<Implementation>>);

/// Admits a modern request: its `_meta` (see [`read_meta`]) and its method (`-32601` for
/// one the modern revision does not have, `initialize` and `ping` included).
pub(crate) fn admit(
    server: &crate::server::ServerHandle,
    method: &str,
    params: Option<&Value>,
    client: ClientMeta<'_>,
) -> Result<RequestMeta, ErrorObject> {
    let meta = read_meta(params, client, &server.inner.known_client)?;
    if !is_modern_method(method) {
        return Err(ErrorObject::method_not_found(method));
    }
    Ok(meta)
}

/// `-32022` for a request naming `requested`.
pub(crate) fn unsupported_version(requested: &str) -> ErrorObject {
    ErrorObject::unsupported_version(requested, MODERN_PROTOCOL_VERSIONS)
}
