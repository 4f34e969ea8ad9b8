//! Resources, templates and subscriptions (server/resources.mdx).

use super::{Annotations, Icon, JsonObject, Meta, ResourceContents};
use serde::{Deserialize, Serialize};

/// A resource's descriptor, as listed in `resources/list`.
///
/// ```
/// use tracksuit::protocol::Resource;
/// let r = Resource { mime_type: Some("text/markdown".into()), ..Resource::new("file:///README.md", "readme") };
/// assert_eq!(serde_json::to_value(&r).unwrap()["mimeType"], "text/markdown");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl Resource {
    /// A resource with a URI and name.
    ///
    /// ```
    /// let r = tracksuit::protocol::Resource::new("mem://a", "a");
    /// assert_eq!((r.uri.as_str(), r.name.as_str()), ("mem://a", "a"));
    /// ```
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

/// A resource template's descriptor (RFC 6570 `uriTemplate`).
///
/// ```
/// use tracksuit::protocol::ResourceTemplate;
/// let t = ResourceTemplate::new("users://{id}/profile", "profile");
/// assert_eq!(serde_json::to_value(&t).unwrap()["uriTemplate"], "users://{id}/profile");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of every matching resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl ResourceTemplate {
    /// A template with a URI template and name.
    ///
    /// ```
    /// let t = tracksuit::protocol::ResourceTemplate::new("mem://items/{id}", "item");
    /// assert_eq!(t.uri_template, "mem://items/{id}");
    /// ```
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

/// `resources/list` result.
///
/// ```
/// use tracksuit::protocol::{ListResourcesResult, Resource};
/// let page = ListResourcesResult { resources: vec![Resource::new("mem://a", "a")], ..Default::default() };
/// assert_eq!(serde_json::to_value(&page).unwrap()["resources"][0]["uri"], "mem://a");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// The resources on this page.
    pub resources: Vec<Resource>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// `resources/templates/list` result.
///
/// ```
/// use tracksuit::protocol::{ListResourceTemplatesResult, ResourceTemplate};
/// let page = ListResourceTemplatesResult {
///     resource_templates: vec![ResourceTemplate::new("mem://{id}", "item")],
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&page).unwrap()["resourceTemplates"][0]["name"], "item");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// The templates on this page.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// Params naming one resource (`resources/read`, `subscribe`, `unsubscribe`).
///
/// ```
/// use tracksuit::protocol::ReadResourceRequestParams;
/// let params: ReadResourceRequestParams = serde_json::from_value(serde_json::json!({"uri": "mem://a"})).unwrap();
/// assert_eq!(params.uri, "mem://a");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceRequestParams {
    /// The resource's URI.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `resources/read` params.
///
/// ```
/// use tracksuit::protocol::ReadResourceRequestParams;
/// let params = ReadResourceRequestParams { uri: "file:///notes.md".into(), ..Default::default() };
/// assert_eq!(serde_json::to_value(&params).unwrap(), serde_json::json!({"uri": "file:///notes.md"}));
/// ```
pub type ReadResourceRequestParams = ResourceRequestParams;
/// `resources/subscribe` params.
///
/// ```
/// use tracksuit::protocol::SubscribeRequestParams;
/// let params = SubscribeRequestParams { uri: "file:///notes.md".into(), ..Default::default() };
/// assert_eq!(serde_json::to_value(&params).unwrap(), serde_json::json!({"uri": "file:///notes.md"}));
/// ```
pub type SubscribeRequestParams = ResourceRequestParams;
/// `resources/unsubscribe` params.
///
/// ```
/// use tracksuit::protocol::UnsubscribeRequestParams;
/// let params = UnsubscribeRequestParams { uri: "file:///notes.md".into(), ..Default::default() };
/// assert_eq!(serde_json::to_value(&params).unwrap(), serde_json::json!({"uri": "file:///notes.md"}));
/// ```
pub type UnsubscribeRequestParams = ResourceRequestParams;
/// `notifications/resources/updated` params.
///
/// ```
/// use tracksuit::protocol::ResourceUpdatedNotificationParams;
/// let params = ResourceUpdatedNotificationParams { uri: "file:///notes.md".into(), ..Default::default() };
/// assert_eq!(serde_json::to_value(&params).unwrap(), serde_json::json!({"uri": "file:///notes.md"}));
/// ```
pub type ResourceUpdatedNotificationParams = ResourceRequestParams;

/// `resources/read` result.
///
/// ```
/// use tracksuit::protocol::{ReadResourceResult, ResourceContents};
/// let result = ReadResourceResult::new(vec![
///     ResourceContents::text_with_mime("mem://page", "text/html", "<p>hi</p>"),
///     ResourceContents::blob_with_mime("mem://page", "image/png", "iVBORw0KGgo="),
/// ]);
/// assert_eq!(serde_json::to_value(&result).unwrap()["contents"][1]["mimeType"], "image/png");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// The contents (one resource may have several parts).
    pub contents: Vec<ResourceContents>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl ReadResourceResult {
    /// A result with these contents.
    ///
    /// ```
    /// use tracksuit::protocol::{ReadResourceResult, ResourceContents};
    /// let r = ReadResourceResult::new(vec![ResourceContents::text("mem://a", "alpha")]);
    /// assert_eq!(r.contents[0].uri(), "mem://a");
    /// ```
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        ReadResourceResult {
            contents,
            ..Default::default()
        }
    }
}
