//! The SEP-1577 tool loop: sample with server-side functions offered as tools, run the
//! model's calls, send the `tool_result`s back, until the model answers (bounded rounds).

use super::exchange::{assistant_message, response_text, tool_calls, user_message};
use super::{DEFAULT_MAX_TOKENS, SampleError, SampleExchange};
use crate::authoring::schema_for;
use crate::context::Ctx;
use crate::protocol::*;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::future::{Future, IntoFuture};
use std::sync::Arc;

type Handler = Arc<dyn Fn(JsonObject) -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// A tool loop being built; `.await` it to run. The result's `parsed` is the model's final
/// text and `messages` the whole conversation of this turn (prompt, every tool round, and
/// the final answer).
///
/// ```no_run
/// # async fn demo(ctx: &tracksuit::Ctx) -> Result<(), tracksuit::sampling::SampleError> {
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct City { name: String }
/// let out = ctx.tool_loop()
///     .prompt("What should I wear in Oslo today?")
///     .function("get_weather", "Current weather for a city", |c: City| async move {
///         Ok::<_, String>(format!("{}: 3°C, rain", c.name))
///     })
///     .max_rounds(4)
///     .await?;
/// println!("{}", out.parsed);
/// # Ok(()) }
/// ```
#[must_use = "a tool loop does nothing until awaited"]
pub struct ToolLoop<'c> {
    ctx: Ctx,
    lifetime: std::marker::PhantomData<&'c ()>,
    history: Vec<SamplingMessage>,
    turn: Vec<SamplingMessage>,
    params: CreateMessageRequestParams,
    functions: Vec<(Tool, Handler)>,
    max_rounds: usize,
}

impl<'c> ToolLoop<'c> {
    pub(crate) fn new(ctx: Ctx) -> Self {
        ToolLoop {
            ctx,
            lifetime: std::marker::PhantomData,
            history: Vec::new(),
            turn: Vec::new(),
            params: CreateMessageRequestParams {
                max_tokens: DEFAULT_MAX_TOKENS,
                ..Default::default()
            },
            functions: Vec::new(),
            max_rounds: 8,
        }
    }

    /// Adds a user text message to this turn.
    pub fn prompt(mut self, text: impl Into<String>) -> Self {
        self.turn.push(SamplingMessage::user_text(text));
        self
    }

    /// The conversation so far.
    pub fn history(mut self, messages: impl IntoIterator<Item = SamplingMessage>) -> Self {
        self.history.extend(messages);
        self
    }

    /// The system prompt.
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.params.system_prompt = Some(text.into());
        self
    }

    /// `maxTokens` per round.
    pub fn max_tokens(mut self, n: u64) -> Self {
        self.params.max_tokens = n;
        self
    }

    /// The most sampling rounds before giving up (default 8).
    pub fn max_rounds(mut self, n: usize) -> Self {
        self.max_rounds = n.max(1);
        self
    }

    /// Offers a server-side function as a tool; its input schema is `A`'s. An `Err` from the
    /// function is sent back as an `isError` tool result, and so are arguments that do not
    /// decode, so the model can correct itself.
    pub fn function<A, F, Fut, E>(mut self, name: &str, description: &str, f: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, E>> + Send + 'static,
        E: std::fmt::Display,
    {
        let mut tool = Tool::new(name, schema_for::<A>());
        tool.input_schema.remove("title");
        tool.description = Some(description.to_owned());
        let f = Arc::new(f);
        let handler: Handler = Arc::new(move |input| {
            let f = f.clone();
            Box::pin(async move {
                let args: A = serde_json::from_value(serde_json::Value::Object(input))
                    .map_err(|e| format!("invalid arguments: {e}"))?;
                f(args).await.map_err(|e| e.to_string())
            })
        });
        self.functions.push((tool, handler));
        self
    }
}

impl<'c> IntoFuture for ToolLoop<'c> {
    type Output = Result<SampleExchange<String>, SampleError>;
    type IntoFuture = BoxFuture<'c, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let mut params = self.params.clone();
            params.tools = Some(self.functions.iter().map(|(t, _)| t.clone()).collect());
            params.tool_choice = Some(ToolChoice {
                mode: Some(ToolChoiceMode::Auto),
            });
            let mut turn = self.turn.clone();
            for round in 0..self.max_rounds {
                let mut request = params.clone();
                if round + 1 == self.max_rounds {
                    // Last round: ask for the answer.
                    request.tool_choice = Some(ToolChoice {
                        mode: Some(ToolChoiceMode::None),
                    });
                }
                request.messages = self.history.iter().chain(&turn).cloned().collect();
                let response = self.ctx.create_message(request.clone()).await?;
                let calls = tool_calls(&response);
                turn.push(assistant_message(&response));
                if calls.is_empty() {
                    let text = response_text(&response);
                    return Ok(SampleExchange {
                        request,
                        response,
                        messages: turn,
                        parsed: text,
                    });
                }
                let mut results = Vec::with_capacity(calls.len());
                for call in calls {
                    let outcome = match self.functions.iter().find(|(t, _)| t.name == call.name) {
                        Some((_, handler)) => handler(call.input.clone()).await,
                        None => Err(format!("unknown tool `{}`", call.name)),
                    };
                    let (text, is_error) = match outcome {
                        Ok(text) => (text, None),
                        Err(e) => (e, Some(true)),
                    };
                    results.push(SamplingMessageContentBlock::ToolResult(ToolResultContent {
                        tool_use_id: call.id,
                        content: vec![ContentBlock::text(text)],
                        is_error,
                        ..Default::default()
                    }));
                }
                turn.push(user_message(results));
            }
            Err(SampleError::TooManyRounds {
                rounds: self.max_rounds,
            })
        })
    }
}
