//! Argument completion (server/utilities/completion.mdx).

use super::Meta;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What is being completed: a prompt's argument or a resource template's variable.
///
/// ```
/// use tracksuit::protocol::{CompletionReference, PromptReference};
/// let r: CompletionReference = serde_json::from_value(serde_json::json!({"type": "ref/prompt", "name": "greet"})).unwrap();
/// assert_eq!(r, CompletionReference::Prompt(PromptReference::new("greet")));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CompletionReference {
    /// `ref/prompt`
    Prompt(PromptReference),
    /// `ref/resource`
    Resource(ResourceTemplateReference),
}

/// The `"ref/prompt"` type tag.
///
/// ```
/// use tracksuit::protocol::PromptRefType;
/// assert_eq!(serde_json::to_value(PromptRefType::default()).unwrap(), "ref/prompt");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PromptRefType {
    /// `"ref/prompt"`
    #[default]
    #[serde(rename = "ref/prompt")]
    Prompt,
}

/// The `"ref/resource"` type tag.
///
/// ```
/// use tracksuit::protocol::ResourceRefType;
/// assert_eq!(serde_json::to_value(ResourceRefType::default()).unwrap(), "ref/resource");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResourceRefType {
    /// `"ref/resource"`
    #[default]
    #[serde(rename = "ref/resource")]
    Resource,
}

/// A prompt, by name.
///
/// ```
/// use tracksuit::protocol::PromptReference;
/// assert_eq!(serde_json::to_value(PromptReference::new("greet")).unwrap(), serde_json::json!({"type": "ref/prompt", "name": "greet"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptReference {
    /// Always `ref/prompt`.
    #[serde(rename = "type")]
    pub kind: PromptRefType,
    /// The prompt's name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl PromptReference {
    /// A reference to the prompt `name`.
    pub fn new(name: impl Into<String>) -> Self {
        PromptReference {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// A resource template, by URI template.
///
/// ```
/// use tracksuit::protocol::ResourceTemplateReference;
/// let r = ResourceTemplateReference::new("users://{id}/profile");
/// assert_eq!(serde_json::to_value(&r).unwrap(), serde_json::json!({"type": "ref/resource", "uri": "users://{id}/profile"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// Always `ref/resource`.
    #[serde(rename = "type")]
    pub kind: ResourceRefType,
    /// The URI template.
    pub uri: String,
}

impl ResourceTemplateReference {
    /// A reference to the template `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceTemplateReference {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// The argument being completed.
///
/// ```
/// use tracksuit::protocol::CompleteRequestParams;
/// let params: CompleteRequestParams = serde_json::from_value(serde_json::json!({
///     "ref": {"type": "ref/prompt", "name": "greet"},
///     "argument": {"name": "language", "value": "py"},
/// })).unwrap();
/// assert_eq!((params.argument.name.as_str(), params.argument.value.as_str()), ("language", "py"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// Its name.
    pub name: String,
    /// What was typed so far.
    pub value: String,
}

/// Already-resolved arguments.
///
/// ```
/// use tracksuit::protocol::CompleteRequestParams;
/// let params: CompleteRequestParams = serde_json::from_value(serde_json::json!({
///     "ref": {"type": "ref/resource", "uri": "repo://{owner}/{name}"},
///     "argument": {"name": "name", "value": "track"},
///     "context": {"arguments": {"owner": "acme"}},
/// })).unwrap();
/// assert_eq!(params.context.unwrap().arguments.unwrap()["owner"], "acme");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Argument values given so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// `completion/complete` params.
///
/// ```
/// use tracksuit::protocol::{CompleteRequestParams, CompletionArgument, CompletionReference, PromptReference};
/// let params = CompleteRequestParams {
///     reference: CompletionReference::Prompt(PromptReference::new("greet")),
///     argument: CompletionArgument { name: "language".into(), value: "ru".into() },
///     context: None,
///     meta: None,
/// };
/// assert_eq!(serde_json::to_value(&params).unwrap()["ref"]["type"], "ref/prompt");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument.
    pub argument: CompletionArgument,
    /// Context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The completion values.
///
/// ```
/// use tracksuit::protocol::{CompleteResult, Completion};
/// let result = CompleteResult {
///     completion: Completion { values: vec!["rust".into(), "ruby".into()], total: Some(2), has_more: Some(false) },
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&result).unwrap()["completion"]["hasMore"], false);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// How many there are in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more exist than were sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// `completion/complete` result.
///
/// ```
/// let r: tracksuit::protocol::CompleteResult =
///     serde_json::from_value(serde_json::json!({"completion": {"values": ["a"]}})).unwrap();
/// assert_eq!(r.completion.values, ["a"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// The values.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
