//! Every JSON-RPC error the crate sends: the codes, [`ErrorObject`], and one constructor
//! per kind of error, so a code is named in one place and each kind of error reads the
//! same wherever it is raised (server, client, hosts, layers).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::fmt;

/// Invalid JSON was received.
///
/// ```
/// assert_eq!(tracksuit::protocol::PARSE_ERROR, -32700);
/// ```
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
///
/// ```
/// assert_eq!(tracksuit::protocol::INVALID_REQUEST, -32600);
/// ```
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not available.
///
/// ```
/// assert_eq!(tracksuit::protocol::METHOD_NOT_FOUND, -32601);
/// ```
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters.
///
/// ```
/// assert_eq!(tracksuit::protocol::INVALID_PARAMS, -32602);
/// ```
pub const INVALID_PARAMS: i64 = -32602;
/// Internal JSON-RPC error.
///
/// ```
/// assert_eq!(tracksuit::protocol::INTERNAL_ERROR, -32603);
/// ```
pub const INTERNAL_ERROR: i64 = -32603;
/// A resource named in `resources/read` does not exist.
///
/// ```
/// assert_eq!(tracksuit::protocol::RESOURCE_NOT_FOUND, -32002);
/// ```
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// The request needs the user to complete a URL-mode elicitation first.
///
/// ```
/// assert_eq!(tracksuit::protocol::URL_ELICITATION_REQUIRED, -32042);
/// ```
pub const URL_ELICITATION_REQUIRED: i64 = -32042;
/// `HeaderMismatch` (2026-07-28): an HTTP header disagrees with the body, or a required one
/// is missing or malformed.
///
/// ```
/// assert_eq!(tracksuit::protocol::HEADER_MISMATCH, -32020);
/// ```
pub const HEADER_MISMATCH: i64 = -32020;
/// `MissingRequiredClientCapability` (2026-07-28): the request needs a capability the
/// client did not declare (`data.requiredCapabilities`).
///
/// ```
/// assert_eq!(tracksuit::protocol::MISSING_REQUIRED_CLIENT_CAPABILITY, -32021);
/// ```
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// `UnsupportedProtocolVersion` (2026-07-28): `data.supported` and `data.requested`.
///
/// ```
/// assert_eq!(tracksuit::protocol::UNSUPPORTED_PROTOCOL_VERSION, -32022);
/// ```
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// A request that took longer than the server allows (`-32001`, as the TypeScript SDK
/// names it): what a timeout layer's failure becomes.
pub const REQUEST_TIMEOUT: i64 = -32001;

/// The server refused the request for load (`-32000`): what a load-shedding layer's
/// failure becomes; the client may try again later.
pub const SERVER_OVERLOADED: i64 = -32000;

/// The `error` member of a JSON-RPC error response.
///
/// ```
/// use tracksuit::protocol::{ErrorObject, RESOURCE_NOT_FOUND};
/// let e = ErrorObject::new(RESOURCE_NOT_FOUND, "Resource not found")
///     .with_data(serde_json::json!({"uri": "mem://gone"}));
/// assert_eq!(
///     serde_json::to_value(&e).unwrap(),
///     serde_json::json!({"code": -32002, "message": "Resource not found", "data": {"uri": "mem://gone"}})
/// );
/// ```
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
    /// The most characters of peer input an error message quotes (see [`ErrorObject::quote`]).
    pub const QUOTE_LIMIT: usize = 128;

    /// The most characters of the free-form detail [`parse_error`](Self::parse_error),
    /// [`invalid_request`](Self::invalid_request) and [`invalid_params`](Self::invalid_params)
    /// keep: room for their own words beside a quote, and a bound on details that quote peer
    /// input themselves (serde errors name the offending value).
    const DETAIL_LIMIT: usize = 2 * Self::QUOTE_LIMIT;

    /// `input` (a method or tool name, a URI, a cursor…) as an error message may quote it:
    /// at most [`QUOTE_LIMIT`](Self::QUOTE_LIMIT) characters, then `…` if it was longer.
    ///
    /// ```
    /// use tracksuit::protocol::ErrorObject;
    /// assert_eq!(ErrorObject::quote("short"), "short");
    /// let long = "é".repeat(500);
    /// let quoted = ErrorObject::quote(&long);
    /// assert_eq!(quoted.chars().count(), ErrorObject::QUOTE_LIMIT + 1);
    /// assert!(quoted.ends_with('…'));
    /// ```
    pub fn quote(input: &str) -> Cow<'_, str> {
        clip(input, Self::QUOTE_LIMIT)
    }

    /// An error with a code and message and no data.
    ///
    /// ```
    /// let e = tracksuit::protocol::ErrorObject::new(-32000, "busy");
    /// assert_eq!((e.code, e.message.as_str(), e.data), (-32000, "busy", None));
    /// ```
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    ///
    /// ```
    /// let e = tracksuit::protocol::ErrorObject::invalid_params("bad").with_data(serde_json::json!({"field": "city"}));
    /// assert_eq!(e.data.unwrap()["field"], "city");
    /// ```
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the message was not valid JSON.
    ///
    /// A detail longer than 256 characters is cut (it may quote the input).
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, PARSE_ERROR};
    /// let e = ErrorObject::parse_error("unexpected end of input");
    /// assert_eq!(e.code, PARSE_ERROR);
    /// assert!(e.message.contains("unexpected end of input"));
    /// ```
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(
            PARSE_ERROR,
            format!("Parse error: {}", Self::detail(detail)),
        )
    }

    /// `-32600`: the message is not a valid JSON-RPC request.
    ///
    /// A detail longer than 256 characters is cut (it may quote the input).
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, INVALID_REQUEST};
    /// let e = ErrorObject::invalid_request("missing `method`");
    /// assert_eq!(e.code, INVALID_REQUEST);
    /// assert!(e.message.contains("missing `method`"));
    /// ```
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(
            INVALID_REQUEST,
            format!("Invalid request: {}", Self::detail(detail)),
        )
    }

    /// `-32601`: unknown method (its name quoted with [`ErrorObject::quote`]).
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, METHOD_NOT_FOUND};
    /// let e = ErrorObject::method_not_found("tools/frobnicate");
    /// assert_eq!(e.code, METHOD_NOT_FOUND);
    /// assert!(e.message.contains("tools/frobnicate"));
    /// ```
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {}", Self::quote(method)),
        )
    }

    /// `-32602`: the params did not fit the method.
    ///
    /// A detail longer than 256 characters is cut (it may quote the input).
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, INVALID_PARAMS};
    /// let e = ErrorObject::invalid_params("`uri` must be a string");
    /// assert_eq!(e.code, INVALID_PARAMS);
    /// assert!(e.message.contains("`uri` must be a string"));
    /// ```
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(
            INVALID_PARAMS,
            format!("Invalid params: {}", Self::detail(detail)),
        )
    }

    /// `-32603`: the server failed.
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, INTERNAL_ERROR};
    /// let e = ErrorObject::internal("database unavailable");
    /// assert_eq!(e.code, INTERNAL_ERROR);
    /// assert!(e.message.contains("database unavailable"));
    /// ```
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(INTERNAL_ERROR, format!("Internal error: {detail}"))
    }

    /// `-32601` for a method that exists but is not available for this request, `detail`
    /// saying why (a tool that cannot, or must, run as a task; a proxied question with no
    /// caller to ask).
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, METHOD_NOT_FOUND};
    /// let e = ErrorObject::unavailable("tool `slow` must run as a task");
    /// assert_eq!((e.code, e.message.as_str()), (METHOD_NOT_FOUND, "tool `slow` must run as a task"));
    /// ```
    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self::new(METHOD_NOT_FOUND, detail)
    }

    /// `-32002`: no resource has `uri` (quoted with [`ErrorObject::quote`]); `data.uri`
    /// holds it whole.
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, RESOURCE_NOT_FOUND};
    /// let e = ErrorObject::resource_not_found("mem://gone");
    /// assert_eq!((e.code, e.message.as_str()), (RESOURCE_NOT_FOUND, "Resource not found: mem://gone"));
    /// assert_eq!(e.data.unwrap()["uri"], "mem://gone");
    /// ```
    pub fn resource_not_found(uri: &str) -> Self {
        Self::new(
            RESOURCE_NOT_FOUND,
            format!("Resource not found: {}", Self::quote(uri)),
        )
        .with_data(json!({ "uri": uri }))
    }

    /// `-32020` (2026-07-28): an HTTP header disagrees with the body, or a required one is
    /// missing; `detail` names it.
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, HEADER_MISMATCH};
    /// let e = ErrorObject::header_mismatch("the Mcp-Method header is required");
    /// assert_eq!(e.code, HEADER_MISMATCH);
    /// assert_eq!(e.message, "Header mismatch: the Mcp-Method header is required");
    /// ```
    pub fn header_mismatch(detail: impl fmt::Display) -> Self {
        Self::new(HEADER_MISMATCH, format!("Header mismatch: {detail}"))
    }

    /// `-32021` (2026-07-28): the request needs client capabilities the client did not
    /// declare, `required` in the shape of `ClientCapabilities` (`data.requiredCapabilities`).
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, MISSING_REQUIRED_CLIENT_CAPABILITY};
    /// let required = serde_json::json!({ "sampling": {} });
    /// let e = ErrorObject::missing_capability("this request needs `sampling`", required);
    /// assert_eq!(e.code, MISSING_REQUIRED_CLIENT_CAPABILITY);
    /// assert_eq!(e.data.unwrap()["requiredCapabilities"]["sampling"], serde_json::json!({}));
    /// ```
    pub fn missing_capability(message: impl Into<String>, required: Value) -> Self {
        Self::new(MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(json!({ "requiredCapabilities": required }))
    }

    /// `-32022` (2026-07-28): the request named protocol version `requested` (quoted with
    /// [`ErrorObject::quote`]); `data` holds it and the versions that are `supported`.
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, UNSUPPORTED_PROTOCOL_VERSION};
    /// let e = ErrorObject::unsupported_version("1999-01-01", &["2026-07-28"]);
    /// assert_eq!(e.code, UNSUPPORTED_PROTOCOL_VERSION);
    /// let data = e.data.unwrap();
    /// assert_eq!((data["requested"].as_str(), data["supported"][0].as_str()), (Some("1999-01-01"), Some("2026-07-28")));
    /// ```
    pub fn unsupported_version(requested: &str, supported: &[&str]) -> Self {
        Self::new(
            UNSUPPORTED_PROTOCOL_VERSION,
            format!(
                "unsupported protocol version {} (supported: {})",
                Self::quote(requested),
                supported.join(", ")
            ),
        )
        .with_data(json!({ "supported": supported, "requested": requested }))
    }

    /// `-32042`: the request needs the user to complete the URL-mode elicitations `data`
    /// describes (`{"elicitations": [..]}`) first.
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, URL_ELICITATION_REQUIRED};
    /// let e = ErrorObject::url_elicitation_required(serde_json::json!({ "elicitations": [] }));
    /// assert_eq!(e.code, URL_ELICITATION_REQUIRED);
    /// ```
    pub fn url_elicitation_required(data: Value) -> Self {
        Self::new(
            URL_ELICITATION_REQUIRED,
            "This request requires the user to complete an elicitation first",
        )
        .with_data(data)
    }

    /// `-32602` for a task id that names no task the caller may see (unknown, expired, or
    /// another principal's: the same answer, so ids cannot be probed).
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, INVALID_PARAMS};
    /// let e = ErrorObject::task_not_found("t-1");
    /// assert_eq!(e.code, INVALID_PARAMS);
    /// assert!(e.message.contains("Task not found"));
    /// ```
    pub fn task_not_found(id: &str) -> Self {
        Self::invalid_params(format!(
            "Failed to retrieve task {}: Task not found",
            Self::quote(id)
        ))
    }

    /// `-32001`: the request took longer than the server allows (a timeout layer's failure).
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, REQUEST_TIMEOUT};
    /// assert_eq!(ErrorObject::request_timeout().code, REQUEST_TIMEOUT);
    /// ```
    pub fn request_timeout() -> Self {
        Self::new(REQUEST_TIMEOUT, "request timed out")
    }

    /// `-32000`: the server refused the request for load (a load-shedding layer's failure);
    /// the client may try again later.
    ///
    /// ```
    /// use tracksuit::protocol::{ErrorObject, SERVER_OVERLOADED};
    /// assert_eq!(ErrorObject::overloaded().code, SERVER_OVERLOADED);
    /// ```
    pub fn overloaded() -> Self {
        Self::new(SERVER_OVERLOADED, "server overloaded; try again later")
    }

    fn detail(detail: impl fmt::Display) -> String {
        let detail = detail.to_string();
        match clip(&detail, Self::DETAIL_LIMIT) {
            Cow::Borrowed(_) => detail,
            Cow::Owned(clipped) => clipped,
        }
    }
}

/// `text` cut to at most `max` characters (on a character boundary), with `…` if it was cut.
fn clip(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
    }
}
