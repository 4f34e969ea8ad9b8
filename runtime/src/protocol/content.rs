//! Content blocks (server/tools.mdx, server/prompts.mdx, client/sampling.mdx): text, image,
//! audio, resource links, embedded resources, and SEP-1577 tool use / tool result.

use super::{Annotations, Icon, JsonObject, Meta};
use serde::{Deserialize, Serialize};

/// Text.
///
/// ```
/// use tracksuit::protocol::TextContent;
/// let t = TextContent::new("hello");
/// assert_eq!(serde_json::to_value(&t).unwrap(), serde_json::json!({"text": "hello"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TextContent {
    /// Text content.
    ///
    /// ```
    /// let t = tracksuit::protocol::TextContent::new("hi");
    /// assert_eq!(t.text, "hi");
    /// assert!(t.annotations.is_none());
    /// ```
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            ..Default::default()
        }
    }
}

/// An image, base64-encoded.
///
/// ```
/// use tracksuit::protocol::{ContentBlock, ImageContent};
/// let block = ContentBlock::image("iVBORw0KGgo=", "image/png");
/// let ContentBlock::Image(ImageContent { mime_type, .. }) = block else { unreachable!() };
/// assert_eq!(mime_type, "image/png");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64 data.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Audio, base64-encoded.
///
/// ```
/// use tracksuit::protocol::ContentBlock;
/// let block = ContentBlock::audio("UklGRg==", "audio/wav");
/// assert_eq!(serde_json::to_value(&block).unwrap()["mimeType"], "audio/wav");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64 data.
    pub data: String,
    /// MIME type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A link to a resource the client may read.
///
/// ```
/// use tracksuit::protocol::ResourceLink;
/// let link = ResourceLink {
///     uri: "file:///notes.md".into(),
///     name: "notes".into(),
///     mime_type: Some("text/markdown".into()),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&link).unwrap()["mimeType"], "text/markdown");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
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
}

/// Text contents of a resource.
///
/// ```
/// use tracksuit::protocol::{ResourceContents, TextResourceContents};
/// let ResourceContents::Text(TextResourceContents { text, .. }) =
///     ResourceContents::text("mem://a", "alpha")
/// else {
///     unreachable!()
/// };
/// assert_eq!(text, "alpha");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Binary contents of a resource, base64-encoded.
///
/// ```
/// use tracksuit::protocol::{BlobResourceContents, ResourceContents};
/// let ResourceContents::Blob(BlobResourceContents { blob, .. }) =
///     ResourceContents::blob("mem://b", "AAEC")
/// else {
///     unreachable!()
/// };
/// assert_eq!(blob, "AAEC");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64 data.
    pub blob: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The contents of a resource: text or blob.
///
/// ```
/// use tracksuit::protocol::ResourceContents;
/// // Untagged on the wire: `text` or `blob` tells them apart.
/// let parsed: ResourceContents =
///     serde_json::from_value(serde_json::json!({"uri": "mem://x", "blob": "AA=="})).unwrap();
/// assert!(matches!(parsed, ResourceContents::Blob(_)));
/// assert_eq!(parsed.uri(), "mem://x");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text.
    Text(TextResourceContents),
    /// Binary.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// Text contents with no MIME type.
    ///
    /// ```
    /// let c = tracksuit::protocol::ResourceContents::text("mem://greeting", "hello");
    /// assert_eq!(serde_json::to_value(&c).unwrap(), serde_json::json!({"uri": "mem://greeting", "text": "hello"}));
    /// ```
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents::Text(TextResourceContents {
            uri: uri.into(),
            text: text.into(),
            ..Default::default()
        })
    }

    /// Text contents with a MIME type.
    ///
    /// ```
    /// let c = tracksuit::protocol::ResourceContents::text_with_mime("mem://a", "text/markdown", "# A");
    /// assert_eq!(serde_json::to_value(&c).unwrap()["mimeType"], "text/markdown");
    /// ```
    pub fn text_with_mime(
        uri: impl Into<String>,
        mime: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ResourceContents::Text(TextResourceContents {
            uri: uri.into(),
            mime_type: Some(mime.into()),
            text: text.into(),
            meta: None,
        })
    }

    /// Binary contents (already base64-encoded) with no MIME type.
    ///
    /// ```
    /// let c = tracksuit::protocol::ResourceContents::blob("mem://bytes", "AAEC");
    /// assert_eq!(serde_json::to_value(&c).unwrap()["blob"], "AAEC");
    /// ```
    pub fn blob(uri: impl Into<String>, base64: impl Into<String>) -> Self {
        ResourceContents::Blob(BlobResourceContents {
            uri: uri.into(),
            blob: base64.into(),
            ..Default::default()
        })
    }

    /// Binary contents (already base64-encoded) with a MIME type.
    ///
    /// ```
    /// let c = tracksuit::protocol::ResourceContents::blob_with_mime("mem://logo", "image/png", "iVBORw0KGgo=");
    /// assert_eq!(serde_json::to_value(&c).unwrap()["mimeType"], "image/png");
    /// ```
    pub fn blob_with_mime(
        uri: impl Into<String>,
        mime: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        ResourceContents::Blob(BlobResourceContents {
            uri: uri.into(),
            mime_type: Some(mime.into()),
            blob: base64.into(),
            meta: None,
        })
    }

    /// The URI.
    ///
    /// ```
    /// let c = tracksuit::protocol::ResourceContents::blob("mem://bytes", "AA==");
    /// assert_eq!(c.uri(), "mem://bytes");
    /// ```
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(t) => &t.uri,
            ResourceContents::Blob(b) => &b.uri,
        }
    }
}

/// A resource embedded in a message or result.
///
/// ```
/// use tracksuit::protocol::{ContentBlock, ResourceContents};
/// let block = ContentBlock::embedded(ResourceContents::text("mem://a", "alpha"));
/// let json = serde_json::to_value(&block).unwrap();
/// assert_eq!(json["type"], "resource");
/// assert_eq!(json["resource"]["text"], "alpha");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Content of tool results and prompt messages.
///
/// ```
/// use tracksuit::protocol::ContentBlock;
/// let blocks = vec![
///     ContentBlock::text("see the attached file"),
///     ContentBlock::resource_link("file:///report.pdf", "report"),
/// ];
/// let json = serde_json::to_value(&blocks).unwrap();
/// assert_eq!(json[1]["type"], "resource_link");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// `text`
    Text(TextContent),
    /// `image`
    Image(ImageContent),
    /// `audio`
    Audio(AudioContent),
    /// `resource_link`
    ResourceLink(ResourceLink),
    /// `resource`
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

/// The same JSON as `serde_json::to_value(&block)`; a plain text block's string is moved
/// in, not copied.
///
/// ```
/// use tracksuit::protocol::ContentBlock;
/// let block = ContentBlock::text("hi");
/// assert_eq!(serde_json::Value::from(block), serde_json::json!({"type": "text", "text": "hi"}));
/// ```
impl From<ContentBlock> for serde_json::Value {
    fn from(block: ContentBlock) -> Self {
        use serde_json::Value;
        match block {
            ContentBlock::Text(TextContent {
                text,
                annotations: None,
                meta: None,
            }) => {
                let mut map = JsonObject::with_capacity(2);
                map.insert("type".into(), Value::String("text".into()));
                map.insert("text".into(), Value::String(text));
                Value::Object(map)
            }
            // Serialising plain data with string keys cannot fail.
            other => serde_json::to_value(&other).unwrap_or(Value::Null),
        }
    }
}

impl ContentBlock {
    /// A text block.
    ///
    /// ```
    /// let b = tracksuit::protocol::ContentBlock::text("hi");
    /// assert_eq!(serde_json::to_value(&b).unwrap(), serde_json::json!({"type":"text","text":"hi"}));
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 data.
    ///
    /// ```
    /// let b = tracksuit::protocol::ContentBlock::image("iVBORw0KGgo=", "image/png");
    /// assert_eq!(serde_json::to_value(&b).unwrap()["type"], "image");
    /// ```
    pub fn image(base64: impl Into<String>, mime: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent {
            data: base64.into(),
            mime_type: mime.into(),
            ..Default::default()
        })
    }

    /// An audio block from base64 data.
    ///
    /// ```
    /// let b = tracksuit::protocol::ContentBlock::audio("UklGRg==", "audio/wav");
    /// assert_eq!(serde_json::to_value(&b).unwrap()["type"], "audio");
    /// ```
    pub fn audio(base64: impl Into<String>, mime: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent {
            data: base64.into(),
            mime_type: mime.into(),
            ..Default::default()
        })
    }

    /// A resource link.
    ///
    /// ```
    /// let b = tracksuit::protocol::ContentBlock::resource_link("file:///a.txt", "a");
    /// assert_eq!(serde_json::to_value(&b).unwrap()["uri"], "file:///a.txt");
    /// ```
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink(ResourceLink {
            uri: uri.into(),
            name: name.into(),
            ..Default::default()
        })
    }

    /// An embedded resource.
    ///
    /// ```
    /// use tracksuit::protocol::{ContentBlock, ResourceContents};
    /// let b = ContentBlock::embedded(ResourceContents::text("mem://a", "alpha"));
    /// assert_eq!(serde_json::to_value(&b).unwrap()["type"], "resource");
    /// ```
    pub fn embedded(resource: ResourceContents) -> Self {
        ContentBlock::Resource(EmbeddedResource {
            resource,
            annotations: None,
            meta: None,
        })
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// The model asks to call a tool (SEP-1577).
///
/// ```
/// use tracksuit::protocol::{SamplingMessageContentBlock, ToolUseContent};
/// let json = serde_json::json!({"type": "tool_use", "id": "c1", "name": "add", "input": {"a": 1}});
/// let block: SamplingMessageContentBlock = serde_json::from_value(json).unwrap();
/// let SamplingMessageContentBlock::ToolUse(ToolUseContent { name, input, .. }) = block else {
///     unreachable!()
/// };
/// assert_eq!((name.as_str(), &input["a"]), ("add", &serde_json::json!(1)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Id matched by the `tool_result`.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub input: JsonObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The outcome of a tool call, sent back to the model (SEP-1577).
///
/// ```
/// use tracksuit::protocol::{ContentBlock, SamplingMessageContentBlock, ToolResultContent};
/// let answer = SamplingMessageContentBlock::ToolResult(ToolResultContent {
///     tool_use_id: "c1".into(),
///     content: vec![ContentBlock::text("3")],
///     ..Default::default()
/// });
/// let json = serde_json::to_value(&answer).unwrap();
/// assert_eq!(json["type"], "tool_result");
/// assert_eq!(json["toolUseId"], "c1");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `tool_use` id this answers.
    pub tool_use_id: String,
    /// The result content.
    pub content: Vec<ContentBlock>,
    /// Structured result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<JsonObject>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Content of sampling messages.
///
/// ```
/// use tracksuit::protocol::SamplingMessageContentBlock;
/// let b = SamplingMessageContentBlock::text("hello");
/// assert_eq!(serde_json::to_value(&b).unwrap(), serde_json::json!({"type": "text", "text": "hello"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingMessageContentBlock {
    /// `text`
    Text(TextContent),
    /// `image`
    Image(ImageContent),
    /// `audio`
    Audio(AudioContent),
    /// `tool_use`
    ToolUse(ToolUseContent),
    /// `tool_result`
    ToolResult(ToolResultContent),
}

impl SamplingMessageContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingMessageContentBlock::Text(TextContent::new(text))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingMessageContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}
