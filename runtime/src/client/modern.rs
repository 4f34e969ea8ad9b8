//! The 2026-07-28 side of the client: `_meta` on every request, `server/discover`, and
//! multi round-trip requests (an `input_required` result is answered by the client's
//! handlers and the request retried with `inputResponses` and `requestState`).

use crate::protocol::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Mutex;

/// The modern protocol revision this client speaks.
///
/// ```
/// assert_eq!(tracksuit::client::MODERN_PROTOCOL_VERSION, "2026-07-28");
/// ```
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// `server/discover`
///
/// ```
/// assert_eq!(tracksuit::client::SERVER_DISCOVER, "server/discover");
/// ```
pub const SERVER_DISCOVER: &str = "server/discover";
/// `subscriptions/listen`
///
/// ```
/// assert_eq!(tracksuit::client::SUBSCRIPTIONS_LISTEN, "subscriptions/listen");
/// ```
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";

pub(crate) const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// Which protocol era a [`Client`](super::Client) speaks.
///
/// ```
/// use tracksuit::{Server, client::{Client, Era}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).build()?;
/// // A tracksuit server answers `server/discover`, so negotiation picks 2026-07-28.
/// let builder = Client::builder().era(Era::Negotiate);
/// let client = tracksuit::host::connect_in_memory(server, builder).await?;
/// assert_eq!(client.era(), Era::Stateless);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Era {
    /// 2025-11-25 sessions: `initialize`, then server requests on the connection.
    #[default]
    Session,
    /// 2026-07-28: stateless requests carrying `_meta`, `server/discover` first, MRTR.
    Stateless,
    /// `server/discover` first: 2026-07-28 if the server offers it, otherwise a 2025 session.
    Negotiate,
}

/// What `server/discover` answered.
///
/// ```
/// use tracksuit::{Server, client::{Client, Era}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).instructions("Search first.").build()?;
/// let builder = Client::builder().era(Era::Stateless);
/// let client = tracksuit::host::connect_in_memory(server, builder).await?;
/// let discovered = client.discover().await?;
/// assert!(discovered.supported_versions.iter().any(|v| v == "2026-07-28"));
/// assert_eq!(discovered.server().unwrap().name, env!("CARGO_PKG_NAME"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// The protocol versions the server supports.
    #[serde(default)]
    pub supported_versions: Vec<String>,
    /// What the server supports.
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    /// The server's name and version (`serverInfo`, or in `_meta`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Implementation>,
    /// Guidance for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl DiscoverResult {
    /// The server's identity, wherever the server put it.
    pub fn server(&self) -> Option<Implementation> {
        self.server_info.clone().or_else(|| {
            let info = self.meta.as_ref()?.get(SERVER_INFO_KEY)?;
            serde_json::from_value(info.clone()).ok()
        })
    }
}

/// What a modern client stamps on every request.
#[derive(Debug)]
pub(crate) struct Stamp {
    pub(crate) version: Mutex<String>,
    capabilities: Value,
    info: Value,
    pub(crate) log_level: Mutex<Option<LoggingLevel>>,
}

impl Stamp {
    pub(crate) fn new(capabilities: &ClientCapabilities, info: &Implementation) -> Self {
        Stamp {
            version: Mutex::new(MODERN_PROTOCOL_VERSION.to_owned()),
            capabilities: serde_json::to_value(capabilities).unwrap_or_default(),
            info: serde_json::to_value(info).unwrap_or_default(),
            log_level: Mutex::new(None),
        }
    }

    /// `params` (an object, or nothing) with the request `_meta` fields added.
    pub(crate) fn stamp(&self, params: &Value) -> Value {
        let mut params = match params {
            Value::Object(map) => map.clone(),
            _ => JsonObject::new(),
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(JsonObject::new()));
        if !meta.is_object() {
            *meta = Value::Object(JsonObject::new());
        }
        if let Value::Object(meta) = meta {
            let version = lock(&self.version).clone();
            meta.insert(PROTOCOL_VERSION_KEY.into(), version.into());
            meta.insert(CLIENT_CAPABILITIES_KEY.into(), self.capabilities.clone());
            meta.insert(CLIENT_INFO_KEY.into(), self.info.clone());
            if let Some(level) = *lock(&self.log_level) {
                meta.insert(
                    LOG_LEVEL_KEY.into(),
                    serde_json::to_value(level).unwrap_or_default(),
                );
            }
        }
        Value::Object(params)
    }

    /// After `-32022`: switches to a version the server listed that this client speaks.
    pub(crate) fn renegotiate(&self, error: &ErrorObject) -> bool {
        let supported = error
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array);
        let choice = supported
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|v| *v == MODERN_PROTOCOL_VERSION);
        match choice {
            Some(v) => {
                *lock(&self.version) = v.to_owned();
                true
            }
            None => false,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The retry of `original` carrying this round's answers and the server's `requestState`
/// (only if it sent one).
pub(crate) fn retry_params(original: &Value, result: &Value, responses: JsonObject) -> Value {
    let mut params = match original {
        Value::Object(map) => map.clone(),
        _ => JsonObject::new(),
    };
    params.insert("inputResponses".into(), Value::Object(responses));
    match result.get("requestState") {
        Some(state) if !state.is_null() => {
            params.insert("requestState".into(), state.clone());
        }
        _ => {
            params.remove("requestState");
        }
    }
    Value::Object(params)
}
