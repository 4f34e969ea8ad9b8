//! Sampling in tool bodies: [`Ctx::sample`] (raw), [`Ctx::sample_tools`] (at least one tool
//! call, retried), [`Ctx::sample_schema`] (a parsed, validated `T` via the reserved
//! `__schema__` tool, retried with the validation error fed back) and [`Ctx::tool_loop`]
//! (the SEP-1577 loop with server-side functions as tools). Every result is a
//! [`SampleExchange`] whose `messages` extend a conversation history.
//!
//! ```
//! use serde_json::json;
//! use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct City { name: String }
//! /// Asks the model for a capital.
//! #[mcp_tool]
//! async fn capital(ctx: &Ctx) -> Result<String, ToolError> {
//!     let answer = ctx.sample_schema::<City>().prompt("Capital of France?").await?;
//!     Ok(answer.parsed.name)
//! }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::new(tracksuit::crate_info!()).tool(capital).build()?;
//! // The client's model answers through the reserved `__schema__` tool.
//! let client = Client::builder().on_sampling(|_params| async {
//!     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m", "content": [
//!         {"type": "tool_use", "id": "1", "name": "__schema__", "input": {"name": "Paris"}}
//!     ]})).unwrap())
//! });
//! let client = tracksuit::host::connect_in_memory(server, client).await?;
//! let result = client.call_tool("capital", json!({})).await?;
//! assert_eq!(result.content[0].as_text(), Some("Paris"));
//! # Ok(())
//! # }
//! ```
//!
//! ## How retries feed errors back
//!
//! A rejected answer stays in the retry's conversation, followed by the reason:
//! - when the model answered with `tool_use` blocks, every one is answered with a
//!   `tool_result` (the `__schema__` one carrying the validation error, `isError: true`), as
//!   SEP-1577 requires a `tool_use` turn to be followed by its results — the model sees its
//!   own output and exactly what was wrong with it, in the form it was trained on;
//! - when it answered in text, a user message states the problem and asks again.
//!
//! Rejected attempts are *not* part of the returned exchange's `messages`: the history a
//! tool keeps is the clean `[user, assistant tool_use, user tool_result]`. They are kept
//! in [`SampleError`] when the budget runs out.

mod budget;
mod error;
mod exchange;
mod json_text;
mod schema;
mod tool_loop;

pub use budget::TokenBudget;
pub use error::{Attempt, SampleError};
pub use exchange::{SampleExchange, ToolCall, tool_results};
pub use tool_loop::ToolLoop;

use crate::context::Ctx;
use crate::protocol::*;
use exchange::{assistant_message, tool_calls};
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::future::IntoFuture;
use std::marker::PhantomData;

/// The reserved tool `sample_schema` offers the model.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
/// use tracksuit::sampling::{SCHEMA_TOOL, SCHEMA_TOOL_DESCRIPTION};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Answer { value: u32 }
/// /// Asks for a number.
/// #[mcp_tool]
/// async fn number(ctx: &Ctx) -> Result<String, ToolError> {
///     Ok(ctx.sample_schema::<Answer>().prompt("6 * 7?").await?.parsed.value.to_string())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(number).build()?;
/// // What a client's model sees: one tool to call, with the answer's schema as its input.
/// let client = Client::builder().on_sampling(|params| async move {
///     let tools = params.tools.unwrap_or_default();
///     assert_eq!(tools[0].name, SCHEMA_TOOL);
///     assert_eq!(tools[0].description.as_deref(), Some(SCHEMA_TOOL_DESCRIPTION));
///     assert_eq!(tools[0].input_schema["required"], json!(["value"]));
///     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m", "content": [
///         {"type": "tool_use", "id": "1", "name": SCHEMA_TOOL, "input": {"value": 42}}]})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// assert_eq!(client.call_tool("number", json!({})).await?.content[0].as_text(), Some("42"));
/// # Ok(())
/// # }
/// ```
pub const SCHEMA_TOOL: &str = crate::protocol::SCHEMA_TOOL;
/// Its description.
///
/// ```
/// use tracksuit::sampling::SCHEMA_TOOL_DESCRIPTION;
/// assert!(SCHEMA_TOOL_DESCRIPTION.starts_with("Respond with structured data"));
/// ```
pub const SCHEMA_TOOL_DESCRIPTION: &str = "Respond with structured data matching this schema.";
/// Retries after the first attempt, unless changed with `.retries(n)`.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool, protocol::Tool};
/// use tracksuit::sampling::{DEFAULT_RETRIES, SampleError};
/// /// Insists on a tool call from a model that never makes one.
/// #[mcp_tool]
/// async fn pick(ctx: &Ctx) -> Result<String, ToolError> {
///     let weather = Tool::new("weather", Default::default());
///     match ctx.sample_tools().tool(weather).prompt("Weather in Oslo?").await {
///         Err(SampleError::NoToolCall { attempts }) => Ok(attempts.len().to_string()),
///         other => Err(ToolError::new(format!("{other:?}"))),
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(pick).build()?;
/// let client = Client::builder().on_sampling(|_params| async {
///     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
///         "content": {"type": "text", "text": "It is sunny."}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("pick", json!({})).await?;
/// let tries = (1 + DEFAULT_RETRIES).to_string(); // the first attempt and every retry
/// assert_eq!(result.content[0].as_text(), Some(tries.as_str()));
/// # Ok(())
/// # }
/// ```
pub const DEFAULT_RETRIES: usize = 2;
/// `maxTokens` unless changed with `.max_tokens(n)`.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool, sampling::DEFAULT_MAX_TOKENS};
/// /// Asks the model without setting `maxTokens`.
/// #[mcp_tool]
/// async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
///     Ok(ctx.sample().prompt("Hello?").await?.text())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(ask).build()?;
/// let client = Client::builder().on_sampling(|params| async move {
///     assert_eq!(params.max_tokens, DEFAULT_MAX_TOKENS);
///     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
///         "content": {"type": "text", "text": "Hi."}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// assert_eq!(client.call_tool("ask", json!({})).await?.content[0].as_text(), Some("Hi."));
/// # Ok(())
/// # }
/// ```
pub const DEFAULT_MAX_TOKENS: u64 = 1024;

/// Raw sampling mode.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool, sampling::{Raw, Sample}};
/// /// Summarises a text with the client's model.
/// #[mcp_tool]
/// async fn summary(ctx: &Ctx, text: String) -> Result<String, ToolError> {
///     // `ctx.sample()` is a raw request: its payload is `()`, the answer is in `text()`,
///     // `tool_calls()` and `response`.
///     let request: Sample<'_, Raw> = ctx.sample().prompt(format!("Summarise: {text}"));
///     let exchange = request.max_tokens(100).await?;
///     let () = exchange.parsed;
///     Ok(exchange.text())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(summary).build()?;
/// # let client = Client::builder().on_sampling(|_params| async {
/// #     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
/// #         "content": {"type": "text", "text": "Short."}})).unwrap())
/// # });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("summary", json!({"text": "A long story..."})).await?;
/// assert_eq!(result.content[0].as_text(), Some("Short."));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Raw;
/// `sample_tools` mode.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool, protocol::Tool};
/// use tracksuit::sampling::{Sample, Tools};
/// /// Lets the model pick a tool; reports its choice.
/// #[mcp_tool]
/// async fn route(ctx: &Ctx) -> Result<String, ToolError> {
///     // `ctx.sample_tools()`: the payload is the model's tool calls (at least one).
///     let request: Sample<'_, Tools> = ctx.sample_tools()
///         .tool(Tool::new("search", Default::default()))
///         .tool(Tool::new("answer", Default::default()));
///     let calls = request.prompt("When was Rust 1.0 released?").await?.parsed;
///     Ok(calls[0].name.clone())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(route).build()?;
/// let client = Client::builder().on_sampling(|_params| async {
///     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m", "content": [
///         {"type": "tool_use", "id": "1", "name": "search", "input": {}}]})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// assert_eq!(client.call_tool("route", json!({})).await?.content[0].as_text(), Some("search"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Tools;
/// `sample_schema::<T>` mode.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
/// use tracksuit::sampling::{Sample, Schema};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Verdict { approve: bool, reason: String }
/// /// Has the model review a diff.
/// #[mcp_tool]
/// async fn review(ctx: &Ctx, diff: String) -> Result<String, ToolError> {
///     // `ctx.sample_schema::<T>()`: the payload is a validated `T`.
///     let request: Sample<'_, Schema<Verdict>> = ctx.sample_schema::<Verdict>();
///     let verdict = request.prompt(format!("Review:\n{diff}")).retries(1).await?.parsed;
///     Ok(format!("{}: {}", verdict.approve, verdict.reason))
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(review).build()?;
/// # let client = Client::builder().on_sampling(|_params| async {
/// #     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m", "content": [{"type": "tool_use",
/// #         "id": "1", "name": "__schema__", "input": {"approve": true, "reason": "small"}}]})).unwrap())
/// # });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("review", json!({"diff": "+1 line"})).await?;
/// assert_eq!(result.content[0].as_text(), Some("true: small"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Schema<T>(PhantomData<fn() -> T>);

impl<'c, M> std::fmt::Debug for Sample<'c, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sample")
            .field("params", &self.params)
            .field("retries", &self.retries)
            .finish_non_exhaustive()
    }
}

/// A sampling request being built; `.await` it to send.
///
/// ```no_run
/// # async fn demo(ctx: &tracksuit::Ctx) -> Result<(), tracksuit::sampling::SampleError> {
/// let answer = ctx.sample()
///     .system("You are terse.")
///     .prompt("Name a prime number.")
///     .max_tokens(20)
///     .await?;
/// println!("{} (stop: {:?})", answer.text(), answer.stop_reason());
/// # Ok(()) }
/// ```
#[must_use = "a sampling request does nothing until awaited"]
pub struct Sample<'c, M> {
    ctx: Ctx,
    budget: Option<std::sync::Arc<TokenBudget>>,
    lifetime: PhantomData<&'c ()>,
    history: Vec<SamplingMessage>,
    turn: Vec<SamplingMessage>,
    params: CreateMessageRequestParams,
    retries: usize,
    mode: PhantomData<fn() -> M>,
}

impl<K> Ctx<K> {
    /// Raw sampling (`sampling/createMessage`): text, images, audio, or tool calls.
    pub fn sample(&self) -> Sample<'_, Raw> {
        Sample::new(self.erased())
    }

    /// Sampling that guarantees at least one tool call: `toolChoice` defaults to
    /// `required`, and an answer without a call is retried (default 2 retries) with
    /// feedback telling the model to call a tool.
    pub fn sample_tools(&self) -> Sample<'_, Tools> {
        let mut s = Sample::new(self.erased());
        s.params.tool_choice = Some(ToolChoice {
            mode: Some(ToolChoiceMode::Required),
        });
        s
    }

    /// Sampling that returns a parsed, schema-valid `T`: the model is given the reserved
    /// `__schema__` tool whose input schema is `T`'s, with `toolChoice: required`; the data is
    /// taken from that tool call or, for clients that answer in text, from JSON in the text.
    /// Invalid answers are retried with the error fed back (default 2 retries). Clients
    /// without `sampling.tools` get the schema in the prompt instead.
    pub fn sample_schema<T: DeserializeOwned + JsonSchema + 'static>(
        &self,
    ) -> Sample<'_, Schema<T>> {
        Sample::new(self.erased())
    }

    /// The SEP-1577 tool loop with server-side functions as tools.
    pub fn tool_loop(&self) -> ToolLoop<'_> {
        ToolLoop::new(self.erased())
    }
}

impl<'c, M> Sample<'c, M> {
    fn new(ctx: Ctx) -> Self {
        Sample {
            ctx,
            budget: None,
            lifetime: PhantomData,
            history: Vec::new(),
            turn: Vec::new(),
            params: CreateMessageRequestParams {
                max_tokens: DEFAULT_MAX_TOKENS,
                ..Default::default()
            },
            retries: DEFAULT_RETRIES,
            mode: PhantomData,
        }
    }

    /// Adds a user text message to this turn.
    pub fn prompt(mut self, text: impl Into<String>) -> Self {
        self.turn.push(SamplingMessage::user_text(text));
        self
    }

    /// Adds a message (any role, any content blocks) to this turn.
    pub fn message(mut self, message: SamplingMessage) -> Self {
        self.turn.push(message);
        self
    }

    /// The conversation so far (e.g. earlier exchanges' `messages`), sent before this turn.
    pub fn history(mut self, messages: impl IntoIterator<Item = SamplingMessage>) -> Self {
        self.history.extend(messages);
        self
    }

    /// The system prompt.
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.params.system_prompt = Some(text.into());
        self
    }

    /// `maxTokens` (default 1024).
    pub fn max_tokens(mut self, n: u64) -> Self {
        self.params.max_tokens = n;
        self
    }

    /// Temperature.
    pub fn temperature(mut self, t: f64) -> Self {
        self.params.temperature = Some(t);
        self
    }

    /// Adds a stop sequence.
    pub fn stop_sequence(mut self, s: impl Into<String>) -> Self {
        self.params
            .stop_sequences
            .get_or_insert_with(Vec::new)
            .push(s.into());
        self
    }

    /// Model preferences.
    pub fn model_preferences(mut self, prefs: ModelPreferences) -> Self {
        self.params.model_preferences = Some(prefs);
        self
    }

    /// Offers a tool to the model (needs the client's `sampling.tools`).
    pub fn tool(mut self, tool: Tool) -> Self {
        self.params.tools.get_or_insert_with(Vec::new).push(tool);
        self
    }

    /// Offers several tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.params.tools.get_or_insert_with(Vec::new).extend(tools);
        self
    }

    /// How the model should use the tools.
    pub fn tool_choice(mut self, mode: ToolChoiceMode) -> Self {
        self.params.tool_choice = Some(ToolChoice { mode: Some(mode) });
        self
    }

    /// Retries after the first attempt (`sample_tools`, `sample_schema`).
    pub fn retries(mut self, n: usize) -> Self {
        self.retries = n;
        self
    }

    /// Counts this request against a branch's token budget.
    pub(crate) fn with_budget(mut self, budget: Option<std::sync::Arc<TokenBudget>>) -> Self {
        self.budget = budget;
        self
    }

    /// Sends one request, checking and charging the token budget if there is one.
    async fn send(
        &self,
        request: &CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, SampleError> {
        if let Some(budget) = &self.budget {
            budget.check(request)?;
        }
        let response = self.ctx.create_message(request.clone()).await?;
        if let Some(budget) = &self.budget {
            budget.charge(request, &response);
        }
        Ok(response)
    }

    /// The request for a conversation.
    fn request(&self, conversation: &[SamplingMessage]) -> CreateMessageRequestParams {
        let mut p = self.params.clone();
        p.messages = self.history.iter().chain(conversation).cloned().collect();
        p
    }

    /// The messages of this turn as they enter history (the last history message when the
    /// caller gave no new turn).
    fn turn_messages(&self) -> Vec<SamplingMessage> {
        if self.turn.is_empty() {
            self.history.last().cloned().into_iter().collect()
        } else {
            self.turn.clone()
        }
    }
}

impl<'c> IntoFuture for Sample<'c, Raw> {
    type Output = Result<SampleExchange<()>, SampleError>;
    type IntoFuture = BoxFuture<'c, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let request = self.request(&self.turn);
            let response = self.send(&request).await?;
            let mut messages = self.turn_messages();
            messages.push(assistant_message(&response));
            Ok(SampleExchange {
                request,
                response,
                messages,
                parsed: (),
            })
        })
    }
}

impl<'c> IntoFuture for Sample<'c, Tools> {
    type Output = Result<SampleExchange<Vec<ToolCall>>, SampleError>;
    type IntoFuture = BoxFuture<'c, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let names: Vec<String> = self
                .params
                .tools
                .iter()
                .flatten()
                .map(|t| t.name.clone())
                .collect();
            if names.is_empty() {
                return Err(SampleError::Usage(
                    "sample_tools needs at least one tool (.tool(...))".into(),
                ));
            }
            let mut conversation = self.turn.clone();
            let mut attempts = Vec::new();
            for _ in 0..=self.retries {
                let request = self.request(&conversation);
                let response = self.send(&request).await?;
                let calls = tool_calls(&response);
                if !calls.is_empty() {
                    let mut messages = self.turn_messages();
                    messages.push(assistant_message(&response));
                    return Ok(SampleExchange {
                        request,
                        response,
                        messages,
                        parsed: calls,
                    });
                }
                let problem = format!(
                    "You must answer by calling one of the provided tools ({}), not with text.",
                    names.join(", ")
                );
                conversation.push(assistant_message(&response));
                conversation.push(SamplingMessage::user_text(problem.clone()));
                attempts.push(Attempt {
                    request,
                    response,
                    problem,
                });
            }
            Err(SampleError::NoToolCall { attempts })
        })
    }
}
