//! JSON-RPC 2.0 framing as MCP uses it (basic/index.mdx): requests, notifications,
//! result and error responses. No batches: MCP 2025-06-18 removed them.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// The JSON-RPC version string every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not available.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal JSON-RPC error.
pub const INTERNAL_ERROR: i64 = -32603;
/// A resource named in `resources/read` does not exist.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// The request needs the user to complete a URL-mode elicitation first.
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// A request id: a string or an integer, chosen by the sender.
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

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("JSON-RPC error {code}: {message}")]
pub struct ErrorObject {
    /// The error code (`-32700`…`-32000` are reserved by JSON-RPC).
    pub code: i64,
    /// A short description of the error.
    pub message: String,
    /// Additional information about the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the message was not valid JSON.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// `-32600`: the message is not a valid JSON-RPC request.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(INVALID_REQUEST, format!("Invalid request: {detail}"))
    }

    /// `-32601`: unknown method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// `-32602`: the params did not fit the method.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(INVALID_PARAMS, format!("Invalid params: {detail}"))
    }

    /// `-32603`: the server failed.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(INTERNAL_ERROR, format!("Internal error: {detail}"))
    }
}

/// A request: expects a response with the same id.
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
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcNotification {
    /// The notification method.
    pub method: String,
    /// The parameters, if any.
    pub params: Option<Value>,
}

/// A successful response.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcResponse {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: Value,
}

/// An error response. `id` is absent when the request id could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcError {
    /// The id of the request this answers, if known.
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

/// Any JSON-RPC message MCP exchanges.
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
    pub fn request(id: RequestId, method: impl Into<String>, params: Option<Value>) -> Self {
        JsonRpcMessage::Request(JsonRpcRequest {
            id,
            method: method.into(),
            params,
        })
    }

    /// A notification message.
    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        JsonRpcMessage::Notification(JsonRpcNotification {
            method: method.into(),
            params,
        })
    }

    /// A result response.
    pub fn response(id: RequestId, result: Value) -> Self {
        JsonRpcMessage::Response(JsonRpcResponse { id, result })
    }

    /// An error response.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        JsonRpcMessage::Error(JsonRpcError { id, error })
    }

    /// Decodes one message from bytes, mapping failures to the JSON-RPC error a peer
    /// should receive: `-32700` for bad JSON, `-32600` for a batch or a non-message.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, ErrorObject> {
        // Classify by first non-space byte so arrays (batches) get -32600, not a serde message.
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'[') => {
                return match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                    Ok(_) => Err(ErrorObject::invalid_request(
                        "JSON-RPC batches are not supported by MCP",
                    )),
                    Err(e) => Err(ErrorObject::parse_error(e)),
                };
            }
            Some(b'{') => {}
            _ => {
                return match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                    Ok(_) => Err(ErrorObject::invalid_request("expected a JSON-RPC object")),
                    Err(e) => Err(ErrorObject::parse_error(e)),
                };
            }
        }
        let raw: RawMessage = match serde_json::from_slice(bytes) {
            Ok(raw) => raw,
            Err(e) if e.is_syntax() || e.is_eof() => return Err(ErrorObject::parse_error(e)),
            Err(e) => return Err(ErrorObject::invalid_request(e)),
        };
        raw.classify().map_err(ErrorObject::invalid_request)
    }

    /// Encodes the message as compact JSON.
    pub fn to_vec(&self) -> Vec<u8> {
        // Serialising a Value tree cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// The union of every member a JSON-RPC message may have, for classification.
#[derive(Deserialize)]
struct RawMessage {
    jsonrpc: Option<String>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    method: Option<String>,
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    error: Option<ErrorObject>,
}

/// Distinguishes a member that is present with `null` from one that is absent.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl RawMessage {
    fn classify(self) -> Result<JsonRpcMessage, String> {
        if self.jsonrpc.as_deref() != Some(JSONRPC_VERSION) {
            return Err("\"jsonrpc\" must be \"2.0\"".into());
        }
        let id = match self.id {
            None => None,
            Some(Value::Null) => None,
            Some(Value::String(s)) => Some(RequestId::String(s)),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(n) => Some(RequestId::Number(n)),
                None => return Err("\"id\" must be a string or an integer".into()),
            },
            Some(_) => return Err("\"id\" must be a string or an integer".into()),
        };
        if let Some(params) = &self.params {
            if !params.is_object() && !params.is_array() {
                return Err("\"params\" must be an object".into());
            }
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
            _ => Err("not a request, notification or response".into()),
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
                if let Some(id) = &e.id {
                    map.serialize_entry("id", id)?;
                }
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
            .map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classifies_each_kind() {
        let req = JsonRpcMessage::from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert!(matches!(req, Ok(JsonRpcMessage::Request(r)) if r.id == RequestId::Number(1)));
        let n = JsonRpcMessage::from_slice(br#"{"jsonrpc":"2.0","method":"x"}"#);
        assert!(matches!(n, Ok(JsonRpcMessage::Notification(_))));
        let r = JsonRpcMessage::from_slice(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
        assert!(matches!(r, Ok(JsonRpcMessage::Response(_))));
        let e = JsonRpcMessage::from_slice(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}"#,
        );
        assert!(matches!(
            e,
            Ok(JsonRpcMessage::Error(JsonRpcError { id: None, .. }))
        ));
    }

    #[test]
    fn bad_input_maps_to_codes() {
        let code = |b: &[u8]| JsonRpcMessage::from_slice(b).err().map(|e| e.code);
        assert_eq!(code(b"{not json"), Some(PARSE_ERROR));
        assert_eq!(code(b""), Some(PARSE_ERROR));
        assert_eq!(
            code(b"[{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}]"),
            Some(INVALID_REQUEST)
        );
        assert_eq!(code(b"42"), Some(INVALID_REQUEST));
        assert_eq!(
            code(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1}"#), Some(INVALID_REQUEST));
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1,"method":7}"#),
            Some(INVALID_REQUEST)
        );
    }

    #[test]
    fn serialises_round_trip() {
        let msg = JsonRpcMessage::request(7.into(), "tools/call", Some(json!({"name":"x"})));
        let bytes = msg.to_vec();
        assert_eq!(
            serde_json::from_slice::<Value>(&bytes).ok(),
            Some(json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}))
        );
        assert_eq!(JsonRpcMessage::from_slice(&bytes), Ok(msg));
    }
}
