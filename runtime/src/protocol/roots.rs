//! Roots (client/roots.mdx).

use super::{JsonObject, Meta};
use serde::{Deserialize, Serialize};

/// A root the client exposes (a `file://` URI).
///
/// ```
/// use tracksuit::protocol::Root;
/// let root = Root { name: Some("project".into()), ..Root::new("file:///home/me/project") };
/// assert_eq!(serde_json::to_value(&root).unwrap(), serde_json::json!({"uri": "file:///home/me/project", "name": "project"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// The URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Root {
    /// A root at `uri`.
    ///
    /// ```
    /// let root = tracksuit::protocol::Root::new("file:///work");
    /// assert_eq!(root.uri, "file:///work");
    /// ```
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// `roots/list` result.
///
/// ```
/// use tracksuit::protocol::{ListRootsResult, Root};
/// let roots: ListRootsResult = serde_json::from_value(serde_json::json!({"roots": [{"uri": "file:///a"}]})).unwrap();
/// assert_eq!(roots.roots, [Root::new("file:///a")]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}
