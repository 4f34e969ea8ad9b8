//! The Anthropic Messages API (`POST {base}/v1/messages`), the conversion SEP-1577's worked
//! example describes.
//!
//! | MCP | Messages API |
//! |---|---|
//! | `systemPrompt` | `system` |
//! | `text` / `image` | `text` / `image` (`source.type: base64`) blocks |
//! | `tool_use` / `tool_result` | `tool_use` / `tool_result` blocks, same ids |
//! | `tools` | `tools` (`name`, `description`, `input_schema`) |
//! | `toolChoice` auto / required / none | `tool_choice` `auto` / `any` / `none` |
//! | the sole `__schema__` tool (`sample_schema`) | a forced tool: `tool_choice: {type: tool, name: __schema__}` |
//! | `stopReason` | `end_turn` endTurn, `max_tokens` maxTokens, `stop_sequence` stopSequence, `tool_use` toolUse, `refusal` refusal |
//! | `usage` (result) | from `input_tokens` / `output_tokens` |

use crate::convert::{self, choice_mode, schema_only};
use crate::openai::block_kind;
use crate::{ProviderError, Sampler, http};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tracksuit::protocol::{
    ContentBlock, CreateMessageRequestParams, CreateMessageResult, ResourceContents, Role,
    SamplingMessage, SamplingMessageContentBlock, StopReason, ToolChoiceMode, ToolUseContent,
};

/// The default base URL (without `/v1`, as the Anthropic SDKs take it).
///
/// ```
/// use tracksuit_providers::{Anthropic, defaults::ANTHROPIC_BASE_URL};
/// assert_eq!(ANTHROPIC_BASE_URL, "https://api.anthropic.com");
/// let sampler = Anthropic::builder().model("claude-x").build().unwrap();
/// assert!(sampler.url().starts_with(ANTHROPIC_BASE_URL));
/// ```
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The `anthropic-version` header sent by default.
///
/// ```
/// use tracksuit_providers::{Anthropic, defaults::API_VERSION};
/// assert_eq!(API_VERSION, "2023-06-01");
/// // Pin another version for a newer API feature:
/// let sampler = Anthropic::builder().model("claude-x").version("2024-01-01").build();
/// assert!(sampler.is_ok());
/// ```
pub const API_VERSION: &str = "2023-06-01";

/// Configures an [`Anthropic`] sampler.
///
/// ```
/// use tracksuit::protocol::{CreateMessageRequestParams, SamplingMessage, Tool};
/// use tracksuit_providers::Anthropic;
/// let sampler = Anthropic::builder()
///     .model("claude-x")
///     .api_key("sk-ant-...")
///     .parallel_tool_use(false)
///     .build()
///     .unwrap();
/// let params = CreateMessageRequestParams {
///     messages: vec![SamplingMessage::user_text("Weather in Oslo and Rome?")],
///     tools: Some(vec![Tool::new("weather", Default::default())]),
///     max_tokens: 200,
///     ..Default::default()
/// };
/// let body = sampler.request_body(&params).unwrap();
/// assert_eq!(body["tool_choice"], serde_json::json!({"type": "auto", "disable_parallel_tool_use": true}));
/// ```
#[derive(Debug, Clone)]
pub struct AnthropicBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    model: Option<String>,
    version: String,
    timeout: Duration,
    parallel_tool_use: bool,
}

impl Default for AnthropicBuilder {
    fn default() -> Self {
        AnthropicBuilder {
            base_url: None,
            api_key: None,
            model: None,
            version: API_VERSION.into(),
            timeout: Duration::from_secs(300),
            parallel_tool_use: true,
        }
    }
}

impl AnthropicBuilder {
    /// The base URL, without `/v1` (default [`DEFAULT_BASE_URL`]).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API key, sent as `x-api-key`.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model name (required).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The `anthropic-version` header (default [`API_VERSION`]).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// How long one model call may take (default 300 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether the model may call several tools in one turn (default true; false sends
    /// `disable_parallel_tool_use`).
    pub fn parallel_tool_use(mut self, allowed: bool) -> Self {
        self.parallel_tool_use = allowed;
        self
    }

    /// Fills what is still unset from `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY` and
    /// `ANTHROPIC_MODEL`.
    pub fn from_env(mut self) -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        self.base_url = self.base_url.or_else(|| var("ANTHROPIC_BASE_URL"));
        self.api_key = self.api_key.or_else(|| var("ANTHROPIC_API_KEY"));
        self.model = self.model.or_else(|| var("ANTHROPIC_MODEL"));
        self
    }

    /// The sampler; fails without a model.
    ///
    /// ```
    /// let s = tracksuit_providers::Anthropic::builder().model("claude-x").build().unwrap();
    /// assert_eq!(s.url(), "https://api.anthropic.com/v1/messages");
    /// ```
    pub fn build(self) -> Result<Anthropic, ProviderError> {
        let model = self.model.ok_or_else(|| {
            ProviderError::Config("no model: call .model(..) or set ANTHROPIC_MODEL".into())
        })?;
        let base = self.base_url.unwrap_or_else(|| DEFAULT_BASE_URL.into());
        Ok(Anthropic {
            inner: Arc::new(Config {
                url: format!("{}/v1/messages", base.trim_end_matches('/')),
                api_key: self.api_key,
                model,
                version: self.version,
                timeout: self.timeout,
                parallel_tool_use: self.parallel_tool_use,
            }),
        })
    }
}

#[derive(Debug)]
struct Config {
    url: String,
    api_key: Option<String>,
    model: String,
    version: String,
    timeout: Duration,
    parallel_tool_use: bool,
}

/// Answers sampling with the Anthropic Messages API. Cheap to clone.
///
/// ```no_run
/// use tracksuit::client::Client;
/// use tracksuit_providers::{Anthropic, handler};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = Client::builder().on_sampling(handler(Anthropic::from_env()?));
/// # let _ = client; Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Anthropic {
    inner: Arc<Config>,
}

impl Anthropic {
    /// A builder with nothing set.
    pub fn builder() -> AnthropicBuilder {
        AnthropicBuilder::default()
    }

    /// A sampler configured from `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY` and
    /// `ANTHROPIC_MODEL`.
    pub fn from_env() -> Result<Anthropic, ProviderError> {
        AnthropicBuilder::default().from_env().build()
    }

    /// The endpoint called.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The Messages API request body for `params`.
    ///
    /// ```
    /// use tracksuit::protocol::*;
    /// let s = tracksuit_providers::Anthropic::builder().model("m").build().unwrap();
    /// let body = s
    ///     .request_body(&CreateMessageRequestParams {
    ///         messages: vec![SamplingMessage::user_text("hi")],
    ///         max_tokens: 10,
    ///         ..Default::default()
    ///     })
    ///     .unwrap();
    /// assert_eq!(body["messages"][0]["content"][0], serde_json::json!({"type": "text", "text": "hi"}));
    /// ```
    pub fn request_body(
        &self,
        params: &CreateMessageRequestParams,
    ) -> Result<Value, ProviderError> {
        let messages = params
            .messages
            .iter()
            .map(message)
            .collect::<Result<Vec<_>, _>>()?;
        let mut body = json!({
            "model": self.inner.model,
            "max_tokens": params.max_tokens,
            "messages": messages,
        });
        let obj = body
            .as_object_mut()
            .ok_or_else(|| ProviderError::Decode("body".into()))?;
        if let Some(s) = &params.system_prompt {
            obj.insert("system".into(), json!(s));
        }
        if let Some(t) = params.temperature {
            obj.insert("temperature".into(), json!(t));
        }
        if let Some(stop) = params.stop_sequences.as_ref().filter(|s| !s.is_empty()) {
            obj.insert("stop_sequences".into(), json!(stop));
        }
        if let Some(user) = params
            .metadata
            .as_ref()
            .and_then(|m| m.get("user_id"))
            .and_then(Value::as_str)
        {
            obj.insert("metadata".into(), json!({ "user_id": user }));
        }
        let tools = params.tools.as_deref().unwrap_or_default();
        if !tools.is_empty() {
            let list: Vec<Value> = tools
                .iter()
                .map(|t| {
                    let mut v = json!({ "name": t.name, "input_schema": Value::Object(t.input_schema.clone()) });
                    if let (Some(d), Some(o)) = (&t.description, v.as_object_mut()) {
                        o.insert("description".into(), json!(d));
                    }
                    v
                })
                .collect();
            obj.insert("tools".into(), Value::Array(list));
            let mut choice = match (schema_only(params), choice_mode(params)) {
                (Some(tool), _) => json!({ "type": "tool", "name": tool.name }),
                (None, ToolChoiceMode::Auto) => json!({ "type": "auto" }),
                (None, ToolChoiceMode::Required) => json!({ "type": "any" }),
                (None, ToolChoiceMode::None) => json!({ "type": "none" }),
            };
            let forced = schema_only(params).is_some();
            if (forced || !self.inner.parallel_tool_use)
                && choice["type"] != "none"
                && let Some(o) = choice.as_object_mut()
            {
                o.insert("disable_parallel_tool_use".into(), json!(true));
            }
            obj.insert("tool_choice".into(), choice);
        }
        Ok(body)
    }

    /// Reads a Messages API answer back as an MCP result.
    ///
    /// ```
    /// let s = tracksuit_providers::Anthropic::builder().model("m").build().unwrap();
    /// let answer = serde_json::json!({
    ///     "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
    ///     "content": [{"type": "text", "text": "Hi!"}],
    ///     "stop_reason": "end_turn", "stop_sequence": null,
    ///     "usage": {"input_tokens": 10, "output_tokens": 2}
    /// });
    /// let r = s.parse_response(answer).unwrap();
    /// assert_eq!(r.content.iter().next().and_then(|c| c.as_text()), Some("Hi!"));
    /// ```
    pub fn parse_response(&self, body: Value) -> Result<CreateMessageResult, ProviderError> {
        let blocks = body
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| ProviderError::Decode("no content array".into()))?;
        let mut content = Vec::new();
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => content.push(SamplingMessageContentBlock::text(
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                )),
                Some("tool_use") => {
                    let field = |k: &str| {
                        block
                            .get(k)
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                            .ok_or_else(|| ProviderError::Decode(format!("tool_use without {k}")))
                    };
                    let input = match block.get("input") {
                        Some(Value::Object(o)) => o.clone(),
                        _ => {
                            return Err(ProviderError::Decode(
                                "tool_use input is not an object".into(),
                            ));
                        }
                    };
                    content.push(SamplingMessageContentBlock::ToolUse(ToolUseContent {
                        id: field("id")?,
                        name: field("name")?,
                        input,
                        meta: None,
                    }));
                }
                // Thinking and server-tool blocks have no MCP counterpart.
                _ => {}
            }
        }
        let stop = body
            .get("stop_reason")
            .and_then(Value::as_str)
            .map(|r| match r {
                "end_turn" => StopReason::EndTurn,
                "max_tokens" => StopReason::MaxTokens,
                "stop_sequence" => StopReason::StopSequence,
                "tool_use" => StopReason::ToolUse,
                "refusal" => StopReason::Refusal,
                other => StopReason::Other(other.to_owned()),
            });
        let usage = body.get("usage").and_then(|u| {
            convert::usage(
                u.get("input_tokens").and_then(Value::as_u64),
                u.get("output_tokens").and_then(Value::as_u64),
            )
        });
        let model = body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(&self.inner.model)
            .to_owned();
        Ok(convert::result(content, model, stop, usage))
    }

    /// Calls the model.
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ProviderError> {
        let body = self.request_body(&params)?;
        let mut headers = vec![("anthropic-version", self.inner.version.clone())];
        if let Some(key) = &self.inner.api_key {
            headers.push(("x-api-key", key.clone()));
        }
        let answer = http::post_json(&self.inner.url, &headers, &body, self.inner.timeout).await?;
        self.parse_response(answer)
    }
}

impl Sampler for Anthropic {
    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ProviderError>> {
        let me = self.clone();
        Box::pin(async move { me.create_message(params).await })
    }
}

fn image(mime: &str, data: &str) -> Value {
    json!({ "type": "image", "source": { "type": "base64", "media_type": mime, "data": data } })
}

fn message(m: &SamplingMessage) -> Result<Value, ProviderError> {
    let mut content = Vec::new();
    for block in m.content.iter() {
        content.push(match (m.role, block) {
            (_, SamplingMessageContentBlock::Text(t)) => json!({ "type": "text", "text": t.text }),
            (Role::User, SamplingMessageContentBlock::Image(i)) => image(&i.mime_type, &i.data),
            (Role::Assistant, SamplingMessageContentBlock::ToolUse(u)) => json!({
                "type": "tool_use", "id": u.id, "name": u.name, "input": Value::Object(u.input.clone()),
            }),
            (Role::User, SamplingMessageContentBlock::ToolResult(r)) => {
                let mut inner = Vec::new();
                for c in &r.content {
                    inner.push(match c {
                        ContentBlock::Image(i) => image(&i.mime_type, &i.data),
                        ContentBlock::Resource(e) if matches!(e.resource, ResourceContents::Blob(_)) => {
                            return Err(ProviderError::Unsupported("a binary resource in a tool result".into()));
                        }
                        ContentBlock::Audio(_) => {
                            return Err(ProviderError::Unsupported("audio in a tool result".into()));
                        }
                        other => json!({
                            "type": "text",
                            "text": convert::tool_result_text(std::slice::from_ref(other), None),
                        }),
                    });
                }
                if inner.is_empty()
                    && let Some(s) = &r.structured_content
                {
                    inner.push(json!({ "type": "text", "text": Value::Object(s.clone()).to_string() }));
                }
                let mut v = json!({ "type": "tool_result", "tool_use_id": r.tool_use_id, "content": inner });
                if let (Some(e), Some(o)) = (r.is_error, v.as_object_mut()) {
                    o.insert("is_error".into(), json!(e));
                }
                v
            }
            (role, other) => {
                return Err(ProviderError::Unsupported(format!(
                    "{} content in a {role:?} message",
                    block_kind(other)
                )));
            }
        });
    }
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    Ok(json!({ "role": role, "content": content }))
}
