//! JSON-RPC 2.0 framing as MCP uses it (basic/index.mdx): requests, notifications,
//! result and error responses. No batches: MCP 2025-06-18 removed them.

use super::client_meta::SplitParams;
use super::{ErrorObject, ResultPayload};
use serde::de::{Error as _, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// The JSON-RPC version string every message carries.
///
/// ```
/// use tracksuit::protocol::{JSONRPC_VERSION, JsonRpcMessage};
/// let bytes = JsonRpcMessage::notification("notifications/initialized", None).to_vec();
/// let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
/// assert_eq!(json["jsonrpc"], JSONRPC_VERSION);
/// ```
pub const JSONRPC_VERSION: &str = "2.0";

/// A request id: a string or an integer, chosen by the sender.
///
/// ```
/// use tracksuit::protocol::RequestId;
/// let n: RequestId = serde_json::from_value(serde_json::json!(7)).unwrap();
/// let s: RequestId = serde_json::from_value(serde_json::json!("a-1")).unwrap();
/// assert_eq!(n, RequestId::from(7));
/// assert_eq!(s.to_string(), "a-1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => f.write_str(s),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// A request: expects a response with the same id.
///
/// ```
/// use tracksuit::protocol::{JsonRpcMessage, RequestId};
/// let bytes = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
/// let JsonRpcMessage::Request(request) = JsonRpcMessage::from_slice(bytes).unwrap() else { unreachable!() };
/// assert_eq!((request.id, request.method.as_str()), (RequestId::Number(1), "tools/list"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcRequest {
    /// The request id.
    pub id: RequestId,
    /// The method to invoke.
    pub method: String,
    /// The parameters, if any.
    pub params: Option<Value>,
}

/// A notification: no id, no response.
///
/// ```
/// use tracksuit::protocol::JsonRpcMessage;
/// let bytes = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
/// let JsonRpcMessage::Notification(n) = JsonRpcMessage::from_slice(bytes).unwrap() else { unreachable!() };
/// assert_eq!(n.method, "notifications/initialized");
/// assert!(n.params.is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcNotification {
    /// The notification method.
    pub method: String,
    /// The parameters, if any.
    pub params: Option<Value>,
}

/// A successful response.
///
/// Its result is a [`ResultPayload`]: the JSON text a transport received (decoded by a
/// reader straight into the type it expects), or what a server's handler made, written
/// once when the message is encoded.
///
/// ```
/// use tracksuit::protocol::JsonRpcMessage;
/// let bytes = br#"{"jsonrpc":"2.0","id":"a","result":{"tools":[]}}"#;
/// let JsonRpcMessage::Response(r) = JsonRpcMessage::from_slice(bytes).unwrap() else { unreachable!() };
/// let page: tracksuit::protocol::ListToolsResult = r.decode().unwrap();
/// assert!(page.tools.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcResponse {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: ResultPayload,
}

impl JsonRpcResponse {
    /// A response carrying `result`, serialised.
    ///
    /// ```
    /// use tracksuit::protocol::{JsonRpcResponse, RequestId};
    /// let r = JsonRpcResponse::new(RequestId::from(1), &serde_json::json!({"ok": true})).unwrap();
    /// assert_eq!(serde_json::to_string(&r.result).unwrap(), r#"{"ok":true}"#);
    /// ```
    pub fn new(id: RequestId, result: &impl Serialize) -> Result<Self, serde_json::Error> {
        Ok(JsonRpcResponse {
            id,
            result: ResultPayload::new(result)?,
        })
    }

    /// The result decoded as `T`.
    ///
    /// ```
    /// use tracksuit::protocol::{JsonRpcResponse, RequestId};
    /// let r = JsonRpcResponse::new(RequestId::from(1), &serde_json::json!({"n": 3})).unwrap();
    /// let v: serde_json::Value = r.decode().unwrap();
    /// assert_eq!(v["n"], 3);
    /// ```
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        self.result.decode()
    }
}

/// An error response.
///
/// Also what [`JsonRpcMessage::from_slice`] returns for input it rejects: the error response
/// to send back.
///
/// ```
/// use tracksuit::protocol::{JsonRpcMessage, METHOD_NOT_FOUND};
/// let bytes = br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}"#;
/// let JsonRpcMessage::Error(e) = JsonRpcMessage::from_slice(bytes).unwrap() else { unreachable!() };
/// assert_eq!(e.error.code, METHOD_NOT_FOUND);
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{error}")]
pub struct JsonRpcError {
    /// The id of the request this answers; `None` when it could not be read, written as
    /// `"id": null` (JSON-RPC 2.0 §5). Received error responses may also omit it.
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

/// Any JSON-RPC message MCP exchanges.
///
/// ```
/// use tracksuit::protocol::{JsonRpcMessage, RequestId};
/// let sent = JsonRpcMessage::request(RequestId::from(1), "ping", None);
/// let received = JsonRpcMessage::from_slice(&sent.to_vec()).unwrap();
/// assert_eq!(received, sent);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum JsonRpcMessage {
    /// A request.
    Request(JsonRpcRequest),
    /// A notification.
    Notification(JsonRpcNotification),
    /// A result response.
    Response(JsonRpcResponse),
    /// An error response.
    Error(JsonRpcError),
}

impl JsonRpcMessage {
    /// A request message.
    ///
    /// ```
    /// use tracksuit::protocol::{JsonRpcMessage, RequestId};
    /// let m = JsonRpcMessage::request(RequestId::from(1), "tools/call", Some(serde_json::json!({"name": "ping"})));
    /// let json: serde_json::Value = serde_json::from_slice(&m.to_vec()).unwrap();
    /// assert_eq!(json["params"]["name"], "ping");
    /// ```
    pub fn request(id: RequestId, method: impl Into<String>, params: Option<Value>) -> Self {
        JsonRpcMessage::Request(JsonRpcRequest {
            id,
            method: method.into(),
            params,
        })
    }

    /// A notification message.
    ///
    /// ```
    /// use tracksuit::protocol::JsonRpcMessage;
    /// let m = JsonRpcMessage::notification("notifications/tools/list_changed", None);
    /// let json: serde_json::Value = serde_json::from_slice(&m.to_vec()).unwrap();
    /// assert!(json.get("id").is_none());
    /// ```
    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        JsonRpcMessage::Notification(JsonRpcNotification {
            method: method.into(),
            params,
        })
    }

    /// A result response: `result` is a tree, JSON text, or a [`ResultPayload`].
    ///
    /// ```
    /// use tracksuit::protocol::{JsonRpcMessage, RequestId};
    /// let m = JsonRpcMessage::response(RequestId::from(3), serde_json::json!({}));
    /// let json: serde_json::Value = serde_json::from_slice(&m.to_vec()).unwrap();
    /// assert_eq!(json["id"], 3);
    /// ```
    pub fn response(id: RequestId, result: impl Into<ResultPayload>) -> Self {
        JsonRpcMessage::Response(JsonRpcResponse {
            id,
            result: result.into(),
        })
    }

    /// An error response.
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, JsonRpcMessage};
    /// // No id: the request could not be read.
    /// let m = JsonRpcMessage::error(None, ErrorObject::parse_error("not JSON"));
    /// let json: serde_json::Value = serde_json::from_slice(&m.to_vec()).unwrap();
    /// assert_eq!((json["id"].clone(), json["error"]["code"].clone()), (serde_json::Value::Null, serde_json::json!(-32700)));
    /// ```
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        JsonRpcMessage::Error(JsonRpcError { id, error })
    }

    /// Decodes one message from bytes. Input that is not a message comes back as the error
    /// response a peer should receive: `-32700` for bad JSON, `-32600` for a batch or a
    /// non-message. That response carries the input's `id` when it can be read (a string or
    /// an integer, in an object that is not a response), else `"id": null`.
    // The error is the response to send as it stands (the same value a decoded error
    // response becomes), and rejections are the cold path: boxing it would cost every caller
    // an unboxing for nothing.
    #[allow(clippy::result_large_err)]
    pub fn from_slice(bytes: &[u8]) -> Result<Self, JsonRpcError> {
        Self::from_slice_with::<Value>(bytes).map(|(message, ())| message)
    }

    /// [`JsonRpcMessage::from_slice`], reading `params` as `P` does (the tree, and what `P`
    /// keeps beside it).
    #[allow(clippy::result_large_err)] // as `from_slice`
    pub(crate) fn from_slice_with<'de, P: SplitParams<'de>>(
        bytes: &'de [u8],
    ) -> Result<(Self, P::Beside), JsonRpcError> {
        let unread = |error| JsonRpcError { id: None, error };
        // Classify by first non-space byte so arrays (batches) get -32600, not a serde message.
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'[') => {
                return Err(unread(match serde_json::from_slice::<IgnoredAny>(bytes) {
                    Ok(_) => {
                        ErrorObject::invalid_request("JSON-RPC batches are not supported by MCP")
                    }
                    Err(e) => ErrorObject::parse_error(e),
                }));
            }
            Some(b'{') => {}
            _ => {
                return Err(unread(match serde_json::from_slice::<IgnoredAny>(bytes) {
                    Ok(_) => ErrorObject::invalid_request("expected a JSON-RPC object"),
                    Err(e) => ErrorObject::parse_error(e),
                }));
            }
        }
        match serde_json::from_slice::<RawMessage<P>>(bytes) {
            Ok(raw) => {
                let (params, beside) = match raw.params {
                    Some(p) => {
                        let (tree, beside) = p.into_parts();
                        (Some(tree), beside)
                    }
                    None => (None, P::Beside::default()),
                };
                let raw = RawMessage {
                    jsonrpc: raw.jsonrpc,
                    id: raw.id,
                    method: raw.method,
                    params,
                    result: raw.result,
                    error: raw.error,
                };
                match raw.classify() {
                    Ok(message) => Ok((message, beside)),
                    Err(invalid) => Err(JsonRpcError {
                        id: invalid.id,
                        error: ErrorObject::invalid_request(invalid.reason),
                    }),
                }
            }
            Err(e) if e.is_syntax() || e.is_eof() => Err(unread(ErrorObject::parse_error(e))),
            // Valid JSON, but a member has the wrong type (`"method": 7`): look for the id alone.
            Err(e) => Err(JsonRpcError {
                id: serde_json::from_slice::<IdProbe>(bytes)
                    .ok()
                    .and_then(IdProbe::reply_id),
                error: ErrorObject::invalid_request(e),
            }),
        }
    }

    /// A buffer size that holds this message encoded: a response's result text plus room for
    /// the envelope; `otherwise` for other messages.
    pub(crate) fn encoded_len_hint(&self, otherwise: usize) -> usize {
        match self {
            JsonRpcMessage::Response(r) => r.result.encoded_len_hint() + 96,
            _ => otherwise,
        }
    }

    /// Encodes the message as compact JSON.
    ///
    /// ```
    /// use tracksuit::protocol::JsonRpcMessage;
    /// let bytes = JsonRpcMessage::notification("notifications/initialized", None).to_vec();
    /// assert!(bytes.starts_with(b"{"));
    /// assert!(!bytes.contains(&b'\n')); // one line, ready for stdio framing
    /// ```
    pub fn to_vec(&self) -> Vec<u8> {
        // Sized for the message: growing a buffer is a reallocation and a copy per doubling.
        let mut out = Vec::with_capacity(self.encoded_len_hint(1024));
        // Serialising a tree or JSON text cannot fail.
        match serde_json::to_writer(&mut out, self) {
            Ok(()) => out,
            Err(_) => Vec::new(),
        }
    }
}

/// The union of every member a JSON-RPC message may have, for classification.
#[derive(Deserialize)]
struct RawMessage<P = Value> {
    jsonrpc: Option<String>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    method: Option<String>,
    params: Option<P>,
    #[serde(default, deserialize_with = "present")]
    result: Option<ResultPayload>,
    error: Option<ErrorObject>,
}

/// The members of a malformed message that decide which id the error about it carries.
#[derive(Deserialize)]
struct IdProbe {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    result: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    error: Option<IgnoredAny>,
}

impl IdProbe {
    fn reply_id(self) -> Option<RequestId> {
        let id = match self.id? {
            Value::String(s) => RequestId::String(s),
            Value::Number(n) => RequestId::Number(n.as_i64()?),
            _ => return None,
        };
        reply_id(
            Some(id),
            self.method.is_some(),
            self.result.is_some() || self.error.is_some(),
        )
    }
}

/// Which id an error about a malformed message carries: its own readable id, unless the
/// message looks like a response (a `result` or `error` member and no `method`): that id
/// names one of our own requests, which answering it would seem to fail.
fn reply_id(id: Option<RequestId>, has_method: bool, has_outcome: bool) -> Option<RequestId> {
    if has_outcome && !has_method { None } else { id }
}

/// Distinguishes a member that is present (even with `null`) from one that is absent.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Why a JSON object is not a message, and the id the error about it carries.
struct Invalid {
    id: Option<RequestId>,
    reason: &'static str,
}

impl RawMessage {
    fn classify(mut self) -> Result<JsonRpcMessage, Invalid> {
        let id = match self.id.take() {
            None => None,
            Some(Value::String(s)) => Some(RequestId::String(s)),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(n) => Some(RequestId::Number(n)),
                None => return Err(self.invalid(None, "\"id\" must be a string or an integer")),
            },
            // A received error response may carry `"id": null` (its sender could not read
            // our id); a request may not (MCP: "the ID MUST NOT be null"), and a
            // notification has no `id` member at all.
            Some(Value::Null) if self.method.is_none() => None,
            Some(Value::Null) => {
                return Err(self.invalid(
                    None,
                    "\"id\" must be a string or an integer, not null (a notification has no \"id\")",
                ));
            }
            Some(_) => return Err(self.invalid(None, "\"id\" must be a string or an integer")),
        };
        if self.jsonrpc.as_deref() != Some(JSONRPC_VERSION) {
            return Err(self.invalid(id, "\"jsonrpc\" must be \"2.0\""));
        }
        if let Some(params) = &self.params
            && !params.is_object()
            && !params.is_array()
        {
            return Err(self.invalid(id, "\"params\" must be an object"));
        }
        match (self.method, id, self.result, self.error) {
            (Some(method), Some(id), None, None) => Ok(JsonRpcMessage::Request(JsonRpcRequest {
                id,
                method,
                params: self.params,
            })),
            (Some(method), None, None, None) => {
                Ok(JsonRpcMessage::Notification(JsonRpcNotification {
                    method,
                    params: self.params,
                }))
            }
            (None, Some(id), Some(result), None) => {
                Ok(JsonRpcMessage::Response(JsonRpcResponse { id, result }))
            }
            (None, id, None, Some(error)) => Ok(JsonRpcMessage::Error(JsonRpcError { id, error })),
            (method, id, result, error) => Err(Invalid {
                id: reply_id(id, method.is_some(), result.is_some() || error.is_some()),
                reason: "not a request, notification or response",
            }),
        }
    }

    /// The error for this object, carrying `id` unless it looks like a response.
    fn invalid(&self, id: Option<RequestId>, reason: &'static str) -> Invalid {
        Invalid {
            id: reply_id(
                id,
                self.method.is_some(),
                self.result.is_some() || self.error.is_some(),
            ),
            reason,
        }
    }
}

impl Serialize for JsonRpcMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        match self {
            JsonRpcMessage::Request(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("method", &r.method)?;
                if let Some(p) = &r.params {
                    map.serialize_entry("params", p)?;
                }
            }
            JsonRpcMessage::Notification(n) => {
                map.serialize_entry("method", &n.method)?;
                if let Some(p) = &n.params {
                    map.serialize_entry("params", p)?;
                }
            }
            JsonRpcMessage::Response(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("result", &r.result)?;
            }
            JsonRpcMessage::Error(e) => {
                // Always present: `null` when the request id could not be read (JSON-RPC 2.0
                // §5: "If there was an error in detecting the id …, it MUST be Null").
                map.serialize_entry("id", &e.id)?;
                map.serialize_entry("error", &e.error)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for JsonRpcMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RawMessage::deserialize(d)?
            .classify()
            .map_err(|invalid| D::Error::custom(invalid.reason))
    }
}

#[cfg(test)]
mod tests;
