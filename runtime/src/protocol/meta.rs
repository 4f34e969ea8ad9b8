//! Shared pieces: `_meta` maps, method names, protocol versions, and `OneOrMany`
//! (basic/index.mdx).

use serde::{Deserialize, Serialize};

/// A JSON object.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// The `_meta` object reserved by MCP on requests, results, notifications and most types.
pub type Meta = JsonObject;

/// The protocol revision this crate implements and offers first.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Every revision a server built with this crate accepts, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// Method names of every request and notification.
pub mod methods {
    /// `initialize`
    pub const INITIALIZE: &str = "initialize";
    /// `notifications/initialized`
    pub const INITIALIZED: &str = "notifications/initialized";
    /// `ping`
    pub const PING: &str = "ping";
    /// `tools/list`
    pub const TOOLS_LIST: &str = "tools/list";
    /// `tools/call`
    pub const TOOLS_CALL: &str = "tools/call";
    /// `resources/list`
    pub const RESOURCES_LIST: &str = "resources/list";
    /// `resources/read`
    pub const RESOURCES_READ: &str = "resources/read";
    /// `resources/templates/list`
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// `resources/subscribe`
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    /// `resources/unsubscribe`
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    /// `prompts/list`
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// `prompts/get`
    pub const PROMPTS_GET: &str = "prompts/get";
    /// `completion/complete`
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    /// `logging/setLevel`
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    /// `sampling/createMessage`
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    /// `elicitation/create`
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// `roots/list`
    pub const ROOTS_LIST: &str = "roots/list";
    /// `tasks/get`
    pub const TASKS_GET: &str = "tasks/get";
    /// `tasks/list`
    pub const TASKS_LIST: &str = "tasks/list";
    /// `tasks/cancel`
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// `tasks/result`
    pub const TASKS_RESULT: &str = "tasks/result";
    /// `notifications/cancelled`
    pub const CANCELLED: &str = "notifications/cancelled";
    /// `notifications/progress`
    pub const PROGRESS: &str = "notifications/progress";
    /// `notifications/message`
    pub const MESSAGE: &str = "notifications/message";
    /// `notifications/resources/updated`
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// `notifications/resources/list_changed`
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// `notifications/tools/list_changed`
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// `notifications/prompts/list_changed`
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// `notifications/roots/list_changed`
    pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
    /// `notifications/elicitation/complete`
    pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
    /// `notifications/tasks/status`
    pub const TASKS_STATUS: &str = "notifications/tasks/status";
}

/// A value the schema allows as a single item or an array of items (sampling content).
/// Both forms deserialize; each serializes back as it came.
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
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t).iter(),
            OneOrMany::Many(v) => v.iter(),
        }
    }

    /// The items as a vector.
    pub fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t],
            OneOrMany::Many(v) => v,
        }
    }

    /// How many items there are.
    pub fn len(&self) -> usize {
        self.iter().len()
    }

    /// Whether there are none (only possible as an empty array).
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (model).
    Assistant,
}

/// An icon for an implementation, tool, prompt or resource.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

/// Params of requests that take nothing but `_meta` (`ping`, `roots/list`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Request metadata (`progressToken`, ...).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of notifications that take nothing but `_meta` (`notifications/initialized`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// An opaque pagination cursor.
pub type Cursor = String;

/// A result with no fields but `_meta` (and whatever else the sender adds).
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Where the previous page ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
