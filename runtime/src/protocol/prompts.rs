//! Prompts (server/prompts.mdx).

use super::{ContentBlock, Icon, JsonObject, Meta, Role};
use serde::{Deserialize, Serialize};

/// An argument a prompt accepts.
///
/// ```
/// use tracksuit::protocol::{Prompt, PromptArgument};
/// let mut prompt = Prompt::new("summarise");
/// prompt.arguments = Some(vec![PromptArgument { required: Some(true), ..PromptArgument::new("text") }]);
/// let json = serde_json::to_value(&prompt).unwrap();
/// assert_eq!(json["arguments"][0], serde_json::json!({"name": "text", "required": true}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// An optional argument.
    ///
    /// ```
    /// let a = tracksuit::protocol::PromptArgument::new("city");
    /// assert_eq!(a.required, None); // optional unless set
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// A prompt's descriptor, as listed in `prompts/list`.
///
/// ```
/// use tracksuit::protocol::Prompt;
/// let prompt = Prompt { description: Some("Summarise a text".into()), ..Prompt::new("summarise") };
/// assert_eq!(serde_json::to_value(&prompt).unwrap(), serde_json::json!({"name": "summarise", "description": "Summarise a text"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl Prompt {
    /// A prompt with a name.
    ///
    /// ```
    /// let p = tracksuit::protocol::Prompt::new("greet");
    /// assert_eq!(p.name, "greet");
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// One message of a rendered prompt.
///
/// ```
/// use tracksuit::protocol::{ContentBlock, PromptMessage, ResourceContents};
/// let messages = vec![
///     PromptMessage::user(ContentBlock::embedded(ResourceContents::text("mem://doc", "..."))),
///     PromptMessage::user_text("Summarise the document above."),
/// ];
/// assert_eq!(serde_json::to_value(&messages).unwrap()[1]["role"], "user");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A user message with this content.
    ///
    /// ```
    /// use tracksuit::protocol::{ContentBlock, PromptMessage, Role};
    /// let m = PromptMessage::user(ContentBlock::image("iVBORw0KGgo=", "image/png"));
    /// assert_eq!(m.role, Role::User);
    /// ```
    pub fn user(content: ContentBlock) -> Self {
        PromptMessage {
            role: Role::User,
            content,
        }
    }

    /// A user text message.
    ///
    /// ```
    /// let m = tracksuit::protocol::PromptMessage::user_text("hi");
    /// assert_eq!(serde_json::to_value(&m).unwrap(), serde_json::json!({"role": "user", "content": {"type": "text", "text": "hi"}}));
    /// ```
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::user(ContentBlock::text(text))
    }

    /// An assistant text message.
    ///
    /// ```
    /// use tracksuit::protocol::{PromptMessage, Role};
    /// let m = PromptMessage::assistant_text("Sure.");
    /// assert_eq!(m.role, Role::Assistant);
    /// assert_eq!(m.content.as_text(), Some("Sure."));
    /// ```
    pub fn assistant_text(text: impl Into<String>) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content: ContentBlock::text(text),
        }
    }
}

/// `prompts/get` params.
///
/// ```
/// use tracksuit::protocol::GetPromptRequestParams;
/// let params: GetPromptRequestParams =
///     serde_json::from_value(serde_json::json!({"name": "greet", "arguments": {"name": "Ada"}})).unwrap();
/// assert_eq!(params.arguments.unwrap()["name"], "Ada");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptRequestParams {
    /// The prompt.
    pub name: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<std::collections::BTreeMap<String, String>>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `prompts/get` result.
///
/// ```
/// use tracksuit::protocol::{GetPromptResult, PromptMessage};
/// let result = GetPromptResult {
///     description: Some("A greeting".into()),
///     ..GetPromptResult::new(vec![PromptMessage::user_text("Say hello")])
/// };
/// assert_eq!(serde_json::to_value(&result).unwrap()["description"], "A greeting");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// What the prompt is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl GetPromptResult {
    /// A result with these messages.
    ///
    /// ```
    /// use tracksuit::protocol::{GetPromptResult, PromptMessage};
    /// let r = GetPromptResult::new(vec![PromptMessage::user_text("Say hello")]);
    /// assert_eq!(r.messages.len(), 1);
    /// ```
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            messages,
            ..Default::default()
        }
    }
}

/// `prompts/list` result.
///
/// ```
/// use tracksuit::protocol::{ListPromptsResult, Prompt};
/// let page = ListPromptsResult { prompts: vec![Prompt::new("greet")], ..Default::default() };
/// assert_eq!(serde_json::to_value(&page).unwrap(), serde_json::json!({"prompts": [{"name": "greet"}]}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// The prompts on this page.
    pub prompts: Vec<Prompt>,
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
