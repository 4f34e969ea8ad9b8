//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`): OpenAI itself and the
//! many servers that speak its dialect (llama.cpp, vLLM, Ollama, LM Studio...).
//!
//! | MCP | Chat Completions |
//! |---|---|
//! | `systemPrompt` | a `system` message first |
//! | `text` / `image` / `audio` (user) | a string, or `text` / `image_url` (data URL) / `input_audio` parts |
//! | assistant `tool_use` | `tool_calls` (`function.arguments` is JSON text) |
//! | `tool_result` | one `tool` message per result (`tool_call_id`) |
//! | `tools`, `toolChoice` auto / required / none | `tools` (`function`), `tool_choice` |
//! | the sole `__schema__` tool (`sample_schema`) | `response_format: json_schema`, answered as `tool_use` |
//! | `stopReason` | from `finish_reason`: `stop` endTurn, `length` maxTokens, `tool_calls` toolUse, `content_filter` refusal |
//! | `usage` (result) | from `prompt_tokens` / `completion_tokens` |
//!
//! With [`ToolMode::JsonChoice`] tools go as structured output instead (see the crate docs).

use crate::convert::{self, choice_mode, schema_only};
use crate::{ProviderError, Sampler, choice, http};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tracksuit::protocol::{
    CreateMessageRequestParams, CreateMessageResult, JsonObject, Role, SamplingMessage,
    SamplingMessageContentBlock, StopReason, Tool, ToolChoiceMode, ToolUseContent,
};

/// The default base URL.
///
/// ```
/// use tracksuit_providers::{OpenAi, defaults::OPENAI_BASE_URL};
/// assert_eq!(OPENAI_BASE_URL, "https://api.openai.com/v1");
/// let sampler = OpenAi::builder().model("gpt-4o-mini").build().unwrap();
/// assert_eq!(sampler.url(), "https://api.openai.com/v1/chat/completions");
/// ```
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// How tools reach the model.
///
/// ```
/// use tracksuit::protocol::{CreateMessageRequestParams, SamplingMessage, Tool};
/// use tracksuit_providers::{OpenAi, ToolMode};
/// let params = CreateMessageRequestParams {
///     messages: vec![SamplingMessage::user_text("Weather in Oslo?")],
///     tools: Some(vec![Tool::new("weather", Default::default())]),
///     max_tokens: 100,
///     ..Default::default()
/// };
/// let native = OpenAi::builder().model("m").build().unwrap();
/// assert_eq!(native.request_body(&params).unwrap()["tools"][0]["function"]["name"], "weather");
/// // For a model without tool calls: one JSON Schema to answer with instead.
/// let choice = OpenAi::builder().model("m").tool_mode(ToolMode::JsonChoice).build().unwrap();
/// let body = choice.request_body(&params).unwrap();
/// assert!(body.get("tools").is_none() && body["response_format"]["type"] == "json_schema");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolMode {
    /// `tools` / `tool_calls`: for models whose chat template has tool calls.
    #[default]
    Native,
    /// A JSON-schema choice sent as `response_format` (`anyOf` of `{tool, arguments}`),
    /// mapped back to `tool_use`: for models without native tool calls.
    JsonChoice,
}

/// Configures an [`OpenAi`] sampler.
///
/// ```
/// use std::time::Duration;
/// use tracksuit::protocol::{CreateMessageRequestParams, SamplingMessage};
/// use tracksuit_providers::OpenAi;
/// let sampler = OpenAi::builder()
///     .base_url("http://127.0.0.1:8080/v1") // a local llama.cpp or vLLM server
///     .model("local")
///     .timeout(Duration::from_secs(60))
///     .max_completion_tokens(true) // newer OpenAI models want this name
///     .max_tokens_limit(512)
///     .build()
///     .unwrap();
/// let params = CreateMessageRequestParams {
///     messages: vec![SamplingMessage::user_text("hi")],
///     max_tokens: 4096,
///     ..Default::default()
/// };
/// assert_eq!(sampler.request_body(&params).unwrap()["max_completion_tokens"], 512);
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    model: Option<String>,
    tool_mode: ToolMode,
    timeout: Duration,
    parallel_tool_calls: Option<bool>,
    max_completion_tokens: bool,
    max_tokens_limit: Option<u64>,
}

impl Default for OpenAiBuilder {
    fn default() -> Self {
        OpenAiBuilder {
            base_url: None,
            api_key: None,
            model: None,
            tool_mode: ToolMode::Native,
            timeout: Duration::from_secs(300),
            parallel_tool_calls: None,
            max_completion_tokens: false,
            max_tokens_limit: None,
        }
    }
}

impl OpenAiBuilder {
    /// The base URL, up to and including `/v1` (default [`DEFAULT_BASE_URL`]).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API key, sent as `Authorization: Bearer` (none: no header, fine for local servers).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model name (required).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// How tools reach the model (default [`ToolMode::Native`]).
    pub fn tool_mode(mut self, mode: ToolMode) -> Self {
        self.tool_mode = mode;
        self
    }

    /// How long one model call may take (default 300 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sends `parallel_tool_calls` (default: not sent, the provider's default, parallel).
    pub fn parallel_tool_calls(mut self, allowed: bool) -> Self {
        self.parallel_tool_calls = Some(allowed);
        self
    }

    /// Sends `maxTokens` as `max_completion_tokens` (OpenAI's reasoning models) instead of
    /// `max_tokens` (understood by every compatible server).
    pub fn max_completion_tokens(mut self, yes: bool) -> Self {
        self.max_completion_tokens = yes;
        self
    }

    /// Never asks for more than `n` tokens, whatever `maxTokens` the server sent (cost
    /// control; keeps a small local model's answers short).
    pub fn max_tokens_limit(mut self, n: u64) -> Self {
        self.max_tokens_limit = Some(n);
        self
    }

    /// Fills what is still unset from `OPENAI_BASE_URL`, `OPENAI_API_KEY` and
    /// `OPENAI_MODEL`.
    pub fn from_env(mut self) -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        self.base_url = self.base_url.or_else(|| var("OPENAI_BASE_URL"));
        self.api_key = self.api_key.or_else(|| var("OPENAI_API_KEY"));
        self.model = self.model.or_else(|| var("OPENAI_MODEL"));
        self
    }

    /// The sampler; fails without a model.
    ///
    /// ```
    /// let s = tracksuit_providers::OpenAi::builder()
    ///     .base_url("http://127.0.0.1:8080/v1")
    ///     .model("local")
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(s.url(), "http://127.0.0.1:8080/v1/chat/completions");
    /// assert!(tracksuit_providers::OpenAi::builder().build().is_err());
    /// ```
    pub fn build(self) -> Result<OpenAi, ProviderError> {
        let model = self.model.ok_or_else(|| {
            ProviderError::Config("no model: call .model(..) or set OPENAI_MODEL".into())
        })?;
        let base = self.base_url.unwrap_or_else(|| DEFAULT_BASE_URL.into());
        Ok(OpenAi {
            inner: Arc::new(Config {
                url: format!("{}/chat/completions", base.trim_end_matches('/')),
                api_key: self.api_key,
                model,
                tool_mode: self.tool_mode,
                timeout: self.timeout,
                parallel_tool_calls: self.parallel_tool_calls,
                max_completion_tokens: self.max_completion_tokens,
                max_tokens_limit: self.max_tokens_limit,
            }),
        })
    }
}

#[derive(Debug)]
struct Config {
    url: String,
    api_key: Option<String>,
    model: String,
    tool_mode: ToolMode,
    timeout: Duration,
    parallel_tool_calls: Option<bool>,
    max_completion_tokens: bool,
    max_tokens_limit: Option<u64>,
}

/// Answers sampling with an OpenAI-compatible Chat Completions endpoint. Cheap to clone.
///
/// ```no_run
/// use tracksuit::client::Client;
/// use tracksuit_providers::{OpenAi, ToolMode, handler};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let model = OpenAi::builder()
///     .base_url("http://127.0.0.1:8080/v1") // a llama.cpp server
///     .model("local")
///     .tool_mode(ToolMode::JsonChoice)
///     .build()?;
/// let client = Client::builder().on_sampling(handler(model));
/// # let _ = client; Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct OpenAi {
    inner: Arc<Config>,
}

/// How the request was shaped, which decides how the answer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Plain chat or native tools.
    Plain,
    /// `__schema__` as `response_format`.
    Schema,
    /// Tools as a JSON-schema choice.
    Choice,
}

impl OpenAi {
    /// A builder with nothing set.
    pub fn builder() -> OpenAiBuilder {
        OpenAiBuilder::default()
    }

    /// A sampler configured from `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `OPENAI_MODEL`.
    pub fn from_env() -> Result<OpenAi, ProviderError> {
        OpenAiBuilder::default().from_env().build()
    }

    /// The endpoint called.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    fn shape(&self, params: &CreateMessageRequestParams) -> Shape {
        let tools = params.tools.as_deref().unwrap_or_default();
        if schema_only(params).is_some() {
            Shape::Schema
        } else if self.inner.tool_mode == ToolMode::JsonChoice
            && !tools.is_empty()
            && choice_mode(params) != ToolChoiceMode::None
        {
            Shape::Choice
        } else {
            Shape::Plain
        }
    }

    /// The Chat Completions request body for `params`.
    ///
    /// ```
    /// use tracksuit::protocol::*;
    /// let s = tracksuit_providers::OpenAi::builder().model("m").build().unwrap();
    /// let body = s
    ///     .request_body(&CreateMessageRequestParams {
    ///         messages: vec![SamplingMessage::user_text("hi")],
    ///         max_tokens: 10,
    ///         ..Default::default()
    ///     })
    ///     .unwrap();
    /// assert_eq!(body["messages"][0], serde_json::json!({"role": "user", "content": "hi"}));
    /// ```
    pub fn request_body(
        &self,
        params: &CreateMessageRequestParams,
    ) -> Result<Value, ProviderError> {
        let shape = self.shape(params);
        let tools = params.tools.as_deref().unwrap_or_default();
        let mode = choice_mode(params);
        let mut system = params.system_prompt.clone();
        if shape == Shape::Choice {
            let add = choice::instruction(tools, mode == ToolChoiceMode::Auto);
            system = Some(match system {
                Some(s) => format!("{s}\n\n{add}"),
                None => add,
            });
        }
        let mut messages = Vec::new();
        if let Some(s) = system {
            messages.push(json!({ "role": "system", "content": s }));
        }
        let native_calls = self.inner.tool_mode == ToolMode::Native;
        let mut names: HashMap<String, String> = HashMap::new();
        for m in &params.messages {
            push_message(&mut messages, m, native_calls, &mut names)?;
        }
        let mut body = json!({ "model": self.inner.model, "messages": messages });
        let obj = body
            .as_object_mut()
            .ok_or_else(|| ProviderError::Decode("body".into()))?;
        let max = if self.inner.max_completion_tokens {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        let limit = self.inner.max_tokens_limit.unwrap_or(u64::MAX);
        obj.insert(max.into(), json!(params.max_tokens.min(limit)));
        if let Some(t) = params.temperature {
            obj.insert("temperature".into(), json!(t));
        }
        if let Some(stop) = params.stop_sequences.as_ref().filter(|s| !s.is_empty()) {
            obj.insert("stop".into(), json!(stop));
        }
        match shape {
            Shape::Schema => {
                if let Some(tool) = schema_only(params) {
                    obj.insert(
                        "response_format".into(),
                        response_format(
                            tool.input_schema.clone().into(),
                            tool.description.as_deref(),
                        ),
                    );
                }
            }
            Shape::Choice => {
                let schema = choice::schema(tools, mode == ToolChoiceMode::Auto);
                obj.insert(
                    "response_format".into(),
                    response_format(schema, Some("A tool call")),
                );
            }
            Shape::Plain if !tools.is_empty() && native_calls => {
                let list: Vec<Value> = tools.iter().map(function).collect();
                obj.insert("tools".into(), Value::Array(list));
                let choice = match mode {
                    ToolChoiceMode::Auto => "auto",
                    ToolChoiceMode::Required => "required",
                    ToolChoiceMode::None => "none",
                };
                obj.insert("tool_choice".into(), json!(choice));
                if let Some(p) = self.inner.parallel_tool_calls {
                    obj.insert("parallel_tool_calls".into(), json!(p));
                }
            }
            Shape::Plain => {}
        }
        Ok(body)
    }

    /// Reads a Chat Completions answer to `params` back as an MCP result.
    ///
    /// ```
    /// use tracksuit::protocol::*;
    /// let s = tracksuit_providers::OpenAi::builder().model("m").build().unwrap();
    /// let answer = serde_json::json!({
    ///     "id": "chatcmpl-1", "object": "chat.completion", "model": "m",
    ///     "choices": [{"index": 0, "finish_reason": "stop",
    ///                  "message": {"role": "assistant", "content": "Hello!"}}],
    ///     "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}
    /// });
    /// let r = s.parse_response(&CreateMessageRequestParams::default(), answer).unwrap();
    /// assert_eq!(r.stop_reason, Some(StopReason::EndTurn));
    /// assert_eq!(r.extra["usage"]["outputTokens"], 3);
    /// ```
    pub fn parse_response(
        &self,
        params: &CreateMessageRequestParams,
        body: Value,
    ) -> Result<CreateMessageResult, ProviderError> {
        let shape = self.shape(params);
        let choice0 = body
            .pointer("/choices/0")
            .ok_or_else(|| ProviderError::Decode("no choices[0]".into()))?;
        let message = choice0
            .get("message")
            .ok_or_else(|| ProviderError::Decode("no choices[0].message".into()))?;
        let id = body.get("id").and_then(Value::as_str).unwrap_or("call");
        let text = message_text(message);
        let mut content = Vec::new();
        let mut stop = choice0
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(finish_reason);
        if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
            content.push(SamplingMessageContentBlock::text(refusal));
            stop = Some(StopReason::Refusal);
        }
        match (shape, text) {
            (Shape::Schema, Some(text)) => match serde_json::from_str::<Value>(text.trim()) {
                Ok(Value::Object(input)) => {
                    content.push(tool_use(
                        format!("{id}-schema"),
                        tracksuit::sampling::SCHEMA_TOOL,
                        input,
                    ));
                    stop = Some(StopReason::ToolUse);
                }
                _ => content.push(SamplingMessageContentBlock::text(text)),
            },
            (Shape::Choice, Some(text)) => {
                let tools = params.tools.as_deref().unwrap_or_default();
                match choice::parse(&text, tools, format!("{id}-0")) {
                    Some(block @ SamplingMessageContentBlock::ToolUse(_)) => {
                        content.push(block);
                        stop = Some(StopReason::ToolUse);
                    }
                    Some(block) => content.push(block),
                    None => content.push(SamplingMessageContentBlock::text(text)),
                }
            }
            (_, Some(text)) if !text.is_empty() => {
                content.push(SamplingMessageContentBlock::text(text))
            }
            _ => {}
        }
        for call in message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let call_id = call.get("id").and_then(Value::as_str).unwrap_or_default();
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .ok_or_else(|| ProviderError::Decode("a tool call without function.name".into()))?;
            let arguments = call
                .pointer("/function/arguments")
                .and_then(Value::as_str)
                .unwrap_or("{}");
            let input = match serde_json::from_str::<Value>(if arguments.trim().is_empty() {
                "{}"
            } else {
                arguments
            }) {
                Ok(Value::Object(o)) => o,
                _ => {
                    return Err(ProviderError::Decode(format!(
                        "tool call {name}: arguments are not a JSON object: {arguments}"
                    )));
                }
            };
            content.push(tool_use(call_id.to_owned(), name, input));
            stop = Some(StopReason::ToolUse);
        }
        let usage = body.get("usage").and_then(|u| {
            convert::usage(
                u.get("prompt_tokens").and_then(Value::as_u64),
                u.get("completion_tokens").and_then(Value::as_u64),
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
        let mut headers = Vec::new();
        if let Some(key) = &self.inner.api_key {
            headers.push(("authorization", format!("Bearer {key}")));
        }
        let answer = http::post_json(&self.inner.url, &headers, &body, self.inner.timeout).await?;
        self.parse_response(&params, answer)
    }
}

impl Sampler for OpenAi {
    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ProviderError>> {
        let me = self.clone();
        Box::pin(async move { me.create_message(params).await })
    }
}

fn response_format(schema: Value, description: Option<&str>) -> Value {
    let mut spec = json!({ "name": "response", "schema": schema });
    if let (Some(d), Some(obj)) = (description, spec.as_object_mut()) {
        obj.insert("description".into(), json!(d));
    }
    json!({ "type": "json_schema", "json_schema": spec })
}

fn function(tool: &Tool) -> Value {
    let mut f =
        json!({ "name": tool.name, "parameters": Value::Object(tool.input_schema.clone()) });
    if let (Some(d), Some(obj)) = (&tool.description, f.as_object_mut()) {
        obj.insert("description".into(), json!(d));
    }
    json!({ "type": "function", "function": f })
}

fn tool_use(id: String, name: &str, input: JsonObject) -> SamplingMessageContentBlock {
    SamplingMessageContentBlock::ToolUse(ToolUseContent {
        id,
        name: name.to_owned(),
        input,
        meta: None,
    })
}

fn finish_reason(reason: &str) -> StopReason {
    match reason {
        "stop" => StopReason::EndTurn,
        "length" => StopReason::MaxTokens,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "content_filter" => StopReason::Refusal,
        other => StopReason::Other(other.to_owned()),
    }
}

/// `message.content`: a string, or (some compatible servers) an array of text parts.
fn message_text(message: &Value) -> Option<String> {
    match message.get("content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
        ),
        _ => None,
    }
}

fn audio_format(mime: &str) -> Result<&'static str, ProviderError> {
    match mime {
        "audio/wav" | "audio/x-wav" | "audio/wave" => Ok("wav"),
        "audio/mpeg" | "audio/mp3" => Ok("mp3"),
        other => Err(ProviderError::Unsupported(format!(
            "audio as {other} (Chat Completions takes wav or mp3)"
        ))),
    }
}

/// Appends one MCP message: a user message's `tool_result` blocks become `tool` messages
/// (before its other content); an assistant's `tool_use` blocks become `tool_calls`. Without
/// native calls (`native` false) both are rendered as text the model can read.
fn push_message(
    out: &mut Vec<Value>,
    message: &SamplingMessage,
    native: bool,
    names: &mut HashMap<String, String>,
) -> Result<(), ProviderError> {
    let mut parts: Vec<Value> = Vec::new();
    let mut calls: Vec<Value> = Vec::new();
    for block in message.content.iter() {
        match (message.role, block) {
            (_, SamplingMessageContentBlock::Text(t)) => {
                parts.push(json!({ "type": "text", "text": t.text }))
            }
            (Role::User, SamplingMessageContentBlock::Image(i)) => parts.push(json!({
                "type": "image_url",
                "image_url": { "url": convert::data_url(&i.mime_type, &i.data) },
            })),
            (Role::User, SamplingMessageContentBlock::Audio(a)) => parts.push(json!({
                "type": "input_audio",
                "input_audio": { "data": a.data, "format": audio_format(&a.mime_type)? },
            })),
            (Role::Assistant, SamplingMessageContentBlock::ToolUse(u)) => {
                names.insert(u.id.clone(), u.name.clone());
                if native {
                    calls.push(json!({
                        "id": u.id,
                        "type": "function",
                        "function": {
                            "name": u.name,
                            "arguments": Value::Object(u.input.clone()).to_string(),
                        },
                    }));
                } else {
                    parts.push(json!({ "type": "text", "text": choice::render_call(u) }));
                }
            }
            (Role::User, SamplingMessageContentBlock::ToolResult(r)) => {
                let text = convert::tool_result_text(&r.content, r.structured_content.as_ref());
                let text = if r.is_error == Some(true) {
                    format!("Error: {text}")
                } else {
                    text
                };
                if native {
                    out.push(
                        json!({ "role": "tool", "tool_call_id": r.tool_use_id, "content": text }),
                    );
                } else {
                    let name = names
                        .get(&r.tool_use_id)
                        .map(String::as_str)
                        .unwrap_or("the tool");
                    parts.push(
                        json!({ "type": "text", "text": format!("Result of {name}: {text}") }),
                    );
                }
            }
            (role, other) => {
                return Err(ProviderError::Unsupported(format!(
                    "{} content in a {role:?} message",
                    block_kind(other)
                )));
            }
        }
    }
    if parts.is_empty() && calls.is_empty() {
        return Ok(());
    }
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let all_text = parts.iter().all(|p| p["type"] == "text");
    let content = if parts.is_empty() {
        Value::Null
    } else if all_text || message.role == Role::Assistant {
        Value::String(
            parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        )
    } else {
        Value::Array(parts)
    };
    let mut m = json!({ "role": role, "content": content });
    if !calls.is_empty()
        && let Some(obj) = m.as_object_mut()
    {
        obj.insert("tool_calls".into(), Value::Array(calls));
    }
    out.push(m);
    Ok(())
}

pub(crate) fn block_kind(block: &SamplingMessageContentBlock) -> &'static str {
    match block {
        SamplingMessageContentBlock::Text(_) => "text",
        SamplingMessageContentBlock::Image(_) => "image",
        SamplingMessageContentBlock::Audio(_) => "audio",
        SamplingMessageContentBlock::ToolUse(_) => "tool_use",
        SamplingMessageContentBlock::ToolResult(_) => "tool_result",
    }
}
