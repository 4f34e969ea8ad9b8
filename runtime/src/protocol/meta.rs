//! Shared pieces: `_meta` maps, method names, protocol versions, and `OneOrMany`
//! (basic/index.mdx).

use serde::{Deserialize, Serialize};

/// A JSON object.
///
/// ```
/// use tracksuit::protocol::JsonObject;
/// let mut args = JsonObject::new();
/// args.insert("city".into(), "Paris".into());
/// assert_eq!(serde_json::Value::Object(args), serde_json::json!({"city": "Paris"}));
/// ```
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// The `_meta` object reserved by MCP on requests, results, notifications and most types.
///
/// ```
/// use tracksuit::protocol::{CallToolResult, Meta};
/// let mut meta = Meta::new();
/// meta.insert("example.com/trace".into(), "abc".into());
/// let result = CallToolResult { meta: Some(meta), ..CallToolResult::text("ok") };
/// assert_eq!(serde_json::to_value(&result).unwrap()["_meta"]["example.com/trace"], "abc");
/// ```
pub type Meta = JsonObject;

/// The protocol revision this crate implements and offers first.
///
/// ```
/// use tracksuit::protocol::{LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS};
/// assert_eq!(SUPPORTED_PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
/// ```
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Every revision a server built with this crate accepts, newest first.
///
/// ```
/// assert!(tracksuit::protocol::SUPPORTED_PROTOCOL_VERSIONS.contains(&"2025-06-18"));
/// ```
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// Method names of every request and notification.
///
/// ```
/// use tracksuit::protocol::{JsonRpcMessage, methods};
/// let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
/// let JsonRpcMessage::Request(request) = JsonRpcMessage::from_slice(line).unwrap() else { panic!() };
/// assert_eq!(request.method, methods::TOOLS_LIST);
/// ```
pub mod methods {
    /// `initialize`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::INITIALIZE, "initialize");
    /// ```
    pub const INITIALIZE: &str = "initialize";
    /// `notifications/initialized`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::INITIALIZED, "notifications/initialized");
    /// ```
    pub const INITIALIZED: &str = "notifications/initialized";
    /// `ping`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::PING, "ping");
    /// ```
    pub const PING: &str = "ping";
    /// `tools/list`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::TOOLS_LIST, "tools/list");
    /// ```
    pub const TOOLS_LIST: &str = "tools/list";
    /// `tools/call`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::TOOLS_CALL, "tools/call");
    /// ```
    pub const TOOLS_CALL: &str = "tools/call";
    /// `resources/list`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::RESOURCES_LIST, "resources/list");
    /// ```
    pub const RESOURCES_LIST: &str = "resources/list";
    /// `resources/read`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::RESOURCES_READ, "resources/read");
    /// ```
    pub const RESOURCES_READ: &str = "resources/read";
    /// `resources/templates/list`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::RESOURCES_TEMPLATES_LIST, "resources/templates/list");
    /// ```
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// `resources/subscribe`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::RESOURCES_SUBSCRIBE, "resources/subscribe");
    /// ```
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    /// `resources/unsubscribe`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::RESOURCES_UNSUBSCRIBE, "resources/unsubscribe");
    /// ```
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    /// `prompts/list`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::PROMPTS_LIST, "prompts/list");
    /// ```
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// `prompts/get`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::PROMPTS_GET, "prompts/get");
    /// ```
    pub const PROMPTS_GET: &str = "prompts/get";
    /// `completion/complete`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::COMPLETION_COMPLETE, "completion/complete");
    /// ```
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    /// `logging/setLevel`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::LOGGING_SET_LEVEL, "logging/setLevel");
    /// ```
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    /// `sampling/createMessage`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::SAMPLING_CREATE_MESSAGE, "sampling/createMessage");
    /// ```
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    /// `elicitation/create`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::ELICITATION_CREATE, "elicitation/create");
    /// ```
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// `roots/list`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::ROOTS_LIST, "roots/list");
    /// ```
    pub const ROOTS_LIST: &str = "roots/list";
    /// `tasks/get`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::TASKS_GET, "tasks/get");
    /// ```
    pub const TASKS_GET: &str = "tasks/get";
    /// `tasks/list`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::TASKS_LIST, "tasks/list");
    /// ```
    pub const TASKS_LIST: &str = "tasks/list";
    /// `tasks/cancel`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::TASKS_CANCEL, "tasks/cancel");
    /// ```
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// `tasks/result`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::TASKS_RESULT, "tasks/result");
    /// ```
    pub const TASKS_RESULT: &str = "tasks/result";
    /// `notifications/cancelled`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::CANCELLED, "notifications/cancelled");
    /// ```
    pub const CANCELLED: &str = "notifications/cancelled";
    /// `notifications/progress`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::PROGRESS, "notifications/progress");
    /// ```
    pub const PROGRESS: &str = "notifications/progress";
    /// `notifications/message`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::MESSAGE, "notifications/message");
    /// ```
    pub const MESSAGE: &str = "notifications/message";
    /// `notifications/resources/updated`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::RESOURCES_UPDATED, "notifications/resources/updated");
    /// ```
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// `notifications/resources/list_changed`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::RESOURCES_LIST_CHANGED, "notifications/resources/list_changed");
    /// ```
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// `notifications/tools/list_changed`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::TOOLS_LIST_CHANGED, "notifications/tools/list_changed");
    /// ```
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// `notifications/prompts/list_changed`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::PROMPTS_LIST_CHANGED, "notifications/prompts/list_changed");
    /// ```
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// `notifications/roots/list_changed`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::ROOTS_LIST_CHANGED, "notifications/roots/list_changed");
    /// ```
    pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
    /// `notifications/elicitation/complete`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::ELICITATION_COMPLETE, "notifications/elicitation/complete");
    /// ```
    pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
    /// `notifications/tasks/status`
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::methods::TASKS_STATUS, "notifications/tasks/status");
    /// ```
    pub const TASKS_STATUS: &str = "notifications/tasks/status";
}

/// A value the schema allows as a single item or an array of items (sampling content).
/// Both forms deserialize; each serializes back as it came.
///
/// ```
/// use tracksuit::protocol::OneOrMany;
/// let one: OneOrMany<u8> = serde_json::from_value(serde_json::json!(7)).unwrap();
/// let many: OneOrMany<u8> = serde_json::from_value(serde_json::json!([7, 8])).unwrap();
/// assert_eq!(one, OneOrMany::One(7));
/// assert_eq!(many.into_vec(), [7, 8]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// A single item.
    One(T),
    /// An array of items.
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    /// The items, in order.
    ///
    /// ```
    /// use tracksuit::protocol::OneOrMany;
    /// let sum: u32 = OneOrMany::Many(vec![1, 2, 3]).iter().sum();
    /// assert_eq!(sum, 6);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t).iter(),
            OneOrMany::Many(v) => v.iter(),
        }
    }

    /// The items as a vector.
    ///
    /// ```
    /// assert_eq!(tracksuit::protocol::OneOrMany::One("a").into_vec(), ["a"]);
    /// ```
    pub fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t],
            OneOrMany::Many(v) => v,
        }
    }

    /// How many items there are.
    ///
    /// ```
    /// use tracksuit::protocol::OneOrMany;
    /// assert_eq!(OneOrMany::One(1).len(), 1);
    /// assert_eq!(OneOrMany::Many(vec![1, 2]).len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.iter().len()
    }

    /// Whether there are none (only possible as an empty array).
    ///
    /// ```
    /// use tracksuit::protocol::OneOrMany;
    /// assert!(OneOrMany::<u8>::Many(vec![]).is_empty());
    /// assert!(!OneOrMany::One(1).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> From<T> for OneOrMany<T> {
    fn from(t: T) -> Self {
        OneOrMany::One(t)
    }
}

impl<T> From<Vec<T>> for OneOrMany<T> {
    fn from(v: Vec<T>) -> Self {
        OneOrMany::Many(v)
    }
}

impl<T> Default for OneOrMany<T> {
    fn default() -> Self {
        OneOrMany::Many(Vec::new())
    }
}

impl<'a, T> IntoIterator for &'a OneOrMany<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// `Annotations` on content and resources: audience, priority, last modified.
///
/// ```
/// use tracksuit::protocol::{Annotations, ContentBlock, Role, TextContent};
/// let block = ContentBlock::Text(TextContent {
///     annotations: Some(Annotations { audience: Some(vec![Role::User]), priority: Some(0.9), ..Default::default() }),
///     ..TextContent::new("for the user's eyes")
/// });
/// assert_eq!(serde_json::to_value(&block).unwrap()["annotations"]["audience"][0], "user");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The sender or recipient of a message.
///
/// ```
/// use tracksuit::protocol::Role;
/// assert_eq!(serde_json::to_value(Role::Assistant).unwrap(), "assistant");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (model).
    Assistant,
}

/// An icon for an implementation, tool, prompt or resource.
///
/// ```
/// use tracksuit::protocol::{Icon, IconTheme, Implementation};
/// let info = Implementation {
///     icons: Some(vec![Icon {
///         src: "https://example.com/icon.png".into(),
///         mime_type: Some("image/png".into()),
///         sizes: Some(vec!["48x48".into()]),
///         theme: Some(IconTheme::Dark),
///     }]),
///     ..Implementation::new("weather", "1.0.0")
/// };
/// assert_eq!(serde_json::to_value(&info).unwrap()["icons"][0]["theme"], "dark");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// A URI (https or data:) of the image.
    pub src: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme it is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// The theme an icon is designed for.
///
/// ```
/// assert_eq!(serde_json::to_value(tracksuit::protocol::IconTheme::Light).unwrap(), "light");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

/// Params of requests that take nothing but `_meta` (`ping`, `roots/list`, ...).
///
/// ```
/// let p = tracksuit::protocol::RequestParams::default();
/// assert_eq!(serde_json::to_value(&p).unwrap(), serde_json::json!({}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Request metadata (`progressToken`, ...).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of notifications that take nothing but `_meta` (`notifications/initialized`, ...).
///
/// ```
/// let p: tracksuit::protocol::NotificationParams = serde_json::from_value(serde_json::json!({})).unwrap();
/// assert!(p.meta.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// An opaque pagination cursor.
///
/// ```
/// use tracksuit::protocol::{Cursor, PaginatedRequestParams};
/// let next: Cursor = "page-2".into();
/// let params = PaginatedRequestParams { cursor: Some(next), ..Default::default() };
/// assert_eq!(serde_json::to_value(&params).unwrap()["cursor"], "page-2");
/// ```
pub type Cursor = String;

/// A result with no fields but `_meta` (and whatever else the sender adds).
///
/// ```
/// let r: tracksuit::protocol::EmptyResult = serde_json::from_value(serde_json::json!({})).unwrap();
/// assert_eq!(r, Default::default());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// Params of `*/list` requests.
///
/// ```
/// use tracksuit::protocol::PaginatedRequestParams;
/// let first_page = PaginatedRequestParams::default();
/// assert_eq!(serde_json::to_value(&first_page).unwrap(), serde_json::json!({}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Where the previous page ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// What a request is about, read from its params: the tool's or prompt's `name`
/// (`tools/call`, `prompts/get`), the resource's `uri` (`resources/read`,
/// `resources/subscribe`, `resources/unsubscribe`), the task's `taskId` (task methods);
/// `None` for other methods. What server and client middleware call a request's target.
pub(crate) fn request_target<'a>(method: &str, params: &'a serde_json::Value) -> Option<&'a str> {
    let key = match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => "name",
        methods::RESOURCES_READ | methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
            "uri"
        }
        m if m.starts_with("tasks/") => "taskId",
        _ => return None,
    };
    crate::json::member(params, key)?.as_str()
}
