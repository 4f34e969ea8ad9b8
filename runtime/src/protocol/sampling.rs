//! Sampling, including SEP-1577 tool use (client/sampling.mdx).

use super::{JsonObject, Meta, OneOrMany, Role, SamplingMessageContentBlock, TaskMetadata, Tool};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A message in a sampling conversation. `content` may be one block or an array.
///
/// ```
/// use tracksuit::protocol::{OneOrMany, Role, SamplingMessage, SamplingMessageContentBlock};
/// let m = SamplingMessage {
///     role: Role::User,
///     content: OneOrMany::Many(vec![
///         SamplingMessageContentBlock::text("Compare these:"),
///         SamplingMessageContentBlock::text("a and b"),
///     ]),
///     meta: None,
/// };
/// assert_eq!(serde_json::to_value(&m).unwrap()["content"][1]["text"], "a and b");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: OneOrMany<SamplingMessageContentBlock>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A user text message.
    ///
    /// ```
    /// let m = tracksuit::protocol::SamplingMessage::user_text("hi");
    /// assert_eq!(serde_json::to_value(&m).unwrap()["content"]["text"], "hi");
    /// ```
    pub fn user_text(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: Role::User,
            content: OneOrMany::One(SamplingMessageContentBlock::text(text)),
            meta: None,
        }
    }

    /// An assistant text message.
    ///
    /// ```
    /// use tracksuit::protocol::{Role, SamplingMessage};
    /// let m = SamplingMessage::assistant_text("Paris");
    /// assert_eq!(m.role, Role::Assistant);
    /// ```
    pub fn assistant_text(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: Role::Assistant,
            content: OneOrMany::One(SamplingMessageContentBlock::text(text)),
            meta: None,
        }
    }
}

/// A hint for model selection.
///
/// ```
/// use tracksuit::protocol::{ModelHint, ModelPreferences};
/// let prefs = ModelPreferences {
///     hints: Some(vec![ModelHint { name: Some("claude".into()) }]),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&prefs).unwrap()["hints"][0]["name"], "claude");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A (sub)string of a model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The server's preferences for model selection.
///
/// ```
/// use tracksuit::protocol::ModelPreferences;
/// let prefs = ModelPreferences { speed_priority: Some(0.9), ..Default::default() };
/// assert_eq!(serde_json::to_value(&prefs).unwrap()["speedPriority"], 0.9);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// 0–1: how much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// 0–1: how much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// 0–1: how much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// Which MCP context to include (soft-deprecated except `none`).
///
/// ```
/// use tracksuit::protocol::IncludeContext;
/// assert_eq!(serde_json::to_value(IncludeContext::ThisServer).unwrap(), "thisServer");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// None.
    None,
    /// This server's.
    ThisServer,
    /// All servers'.
    AllServers,
}

/// How the model should use the offered tools.
///
/// ```
/// use tracksuit::protocol::{ToolChoice, ToolChoiceMode};
/// let choice = ToolChoice { mode: Some(ToolChoiceMode::Required) };
/// assert_eq!(serde_json::to_value(&choice).unwrap()["mode"], "required");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// The model must call a tool.
    Required,
    /// The model must not call a tool.
    None,
}

/// `toolChoice` (SEP-1577).
///
/// ```
/// use tracksuit::protocol::ToolChoice;
/// // The default leaves the choice to the model (`auto`).
/// assert_eq!(serde_json::to_value(ToolChoice::default()).unwrap(), serde_json::json!({}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode (default auto).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

/// `sampling/createMessage` params.
///
/// ```
/// use tracksuit::protocol::{CreateMessageRequestParams, SamplingMessage};
/// let params = CreateMessageRequestParams {
///     messages: vec![SamplingMessage::user_text("What is the capital of France?")],
///     system_prompt: Some("Answer in one word.".into()),
///     max_tokens: 16,
///     ..Default::default()
/// };
/// let json = serde_json::to_value(&params).unwrap();
/// assert_eq!(json["maxTokens"], 16);
/// assert_eq!(json["systemPrompt"], "Answer in one word.");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Maximum tokens to generate.
    pub max_tokens: u64,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may call (needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How to use them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Why the model stopped. The schema keeps this an open string: the five well-known
/// reasons get variants, anything else (including the SEP-1577 catch-all `"other"`)
/// is kept verbatim in [`StopReason::Other`].
///
/// ```
/// use tracksuit::protocol::StopReason;
/// assert_eq!(StopReason::from("toolUse"), StopReason::ToolUse);
/// assert_eq!(StopReason::from("other"), StopReason::Other("other".into()));
/// let parsed: StopReason = serde_json::from_value(serde_json::json!("maxTokens")).unwrap();
/// assert_eq!(parsed, StopReason::MaxTokens);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// `endTurn`: natural end of turn.
    EndTurn,
    /// `stopSequence`: a stop sequence was produced.
    StopSequence,
    /// `maxTokens`: `maxTokens` was reached.
    MaxTokens,
    /// `toolUse`: the model wants its tool calls answered.
    ToolUse,
    /// `refusal`: the model refused.
    Refusal,
    /// Any other reason, as sent (`"other"`, provider-specific strings).
    Other(String),
}

impl StopReason {
    /// The wire string.
    ///
    /// ```
    /// use tracksuit::protocol::StopReason;
    /// assert_eq!(StopReason::EndTurn.as_str(), "endTurn");
    /// assert_eq!(StopReason::Other("length".into()).as_str(), "length");
    /// ```
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "endTurn",
            StopReason::StopSequence => "stopSequence",
            StopReason::MaxTokens => "maxTokens",
            StopReason::ToolUse => "toolUse",
            StopReason::Refusal => "refusal",
            StopReason::Other(s) => s,
        }
    }
}

impl From<&str> for StopReason {
    fn from(s: &str) -> Self {
        match s {
            "endTurn" => StopReason::EndTurn,
            "stopSequence" => StopReason::StopSequence,
            "maxTokens" => StopReason::MaxTokens,
            "toolUse" => StopReason::ToolUse,
            "refusal" => StopReason::Refusal,
            other => StopReason::Other(other.to_owned()),
        }
    }
}

impl From<String> for StopReason {
    fn from(s: String) -> Self {
        match StopReason::from(s.as_str()) {
            StopReason::Other(_) => StopReason::Other(s),
            known => known,
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(StopReason::from(String::deserialize(d)?))
    }
}

/// `sampling/createMessage` result. `content` may be one block or an array (parallel
/// tool use).
///
/// ```
/// use tracksuit::protocol::{CreateMessageResult, StopReason};
/// let json = serde_json::json!({
///     "role": "assistant",
///     "content": {"type": "text", "text": "Paris"},
///     "model": "some-model",
///     "stopReason": "endTurn",
/// });
/// let result: CreateMessageResult = serde_json::from_value(json).unwrap();
/// assert_eq!(result.content.iter().next().and_then(|b| b.as_text()), Some("Paris"));
/// assert_eq!(result.stop_reason, Some(StopReason::EndTurn));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Always the assistant.
    pub role: Role,
    /// What the model produced.
    pub content: OneOrMany<SamplingMessageContentBlock>,
    /// The model that produced it.
    pub model: String,
    /// Why it stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields (e.g. usage), kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// The tool `sample_schema` offers the model (public as `sampling::SCHEMA_TOOL`).
pub(crate) const SCHEMA_TOOL: &str = "__schema__";

/// Replies a test's scripted client can give (or a provider bridge can build).
impl CreateMessageResult {
    /// The model answered `text` (stop reason `endTurn`).
    ///
    /// ```
    /// use tracksuit::protocol::CreateMessageResult;
    /// let reply = CreateMessageResult::text("Paris", "test-model");
    /// assert_eq!(reply.content.iter().next().and_then(|c| c.as_text()), Some("Paris"));
    /// ```
    pub fn text(text: impl Into<String>, model: impl Into<String>) -> Self {
        Self::of(
            SamplingMessageContentBlock::text(text),
            model,
            StopReason::EndTurn,
        )
    }

    /// The model calls tool `name` with `input` (stop reason `toolUse`); `id` names the call
    /// for its `tool_result`.
    ///
    /// ```
    /// use tracksuit::protocol::{CreateMessageResult, SamplingMessageContentBlock, StopReason};
    /// let reply = CreateMessageResult::tool_use("call-1", "weather", serde_json::json!({"city": "Oslo"}), "m");
    /// assert_eq!(reply.stop_reason, Some(StopReason::ToolUse));
    /// assert!(matches!(reply.content.iter().next(), Some(SamplingMessageContentBlock::ToolUse(u)) if u.name == "weather"));
    /// ```
    pub fn tool_use(
        id: impl Into<String>,
        name: impl Into<String>,
        input: serde_json::Value,
        model: impl Into<String>,
    ) -> Self {
        let input = match input {
            serde_json::Value::Object(map) => map,
            other => JsonObject::from_iter([("value".to_owned(), other)]),
        };
        let call = crate::protocol::ToolUseContent {
            id: id.into(),
            name: name.into(),
            input,
            meta: None,
        };
        Self::of(
            SamplingMessageContentBlock::ToolUse(call),
            model,
            StopReason::ToolUse,
        )
    }

    /// The answer to [`Ctx::sample_schema`](crate::Ctx::sample_schema): the model calls the
    /// `__schema__` tool with `value` (an object matching the requested type).
    ///
    /// ```
    /// use tracksuit::protocol::CreateMessageResult;
    /// let reply = CreateMessageResult::schema_answer(serde_json::json!({"city": "Oslo", "days": 3}), "m");
    /// # let _ = reply;
    /// ```
    pub fn schema_answer(value: serde_json::Value, model: impl Into<String>) -> Self {
        Self::tool_use("schema-1", SCHEMA_TOOL, value, model)
    }

    fn of(
        content: SamplingMessageContentBlock,
        model: impl Into<String>,
        stop: StopReason,
    ) -> Self {
        CreateMessageResult {
            role: Role::Assistant,
            content: OneOrMany::One(content),
            model: model.into(),
            stop_reason: Some(stop),
            meta: None,
            extra: JsonObject::new(),
        }
    }
}
