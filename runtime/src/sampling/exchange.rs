//! [`SampleExchange`]: one sampling interaction as MCP messages, ready to extend a history.

use crate::protocol::{
    ContentBlock, CreateMessageRequestParams, CreateMessageResult, JsonObject, OneOrMany, Role,
    SamplingMessage, SamplingMessageContentBlock, StopReason, ToolResultContent,
};
use serde::de::DeserializeOwned;

/// One tool call the model made.
///
/// ```
/// use tracksuit::sampling::{ToolCall, tool_results};
/// let call = ToolCall { id: "t1".into(), name: "weather".into(), input: Default::default() };
/// // Answer every call of a `tool_use` turn, failures included.
/// let reply = tool_results(vec![call.error("unknown city")]);
/// let json = serde_json::to_value(&reply).unwrap();
/// assert_eq!(json["content"]["toolUseId"], "t1");
/// assert_eq!(json["content"]["isError"], true);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The `tool_use` id (answer it with a `tool_result` carrying the same id).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub input: JsonObject,
}

impl ToolCall {
    /// The arguments as a typed value.
    ///
    /// ```
    /// # use tracksuit::sampling::ToolCall;
    /// #[derive(serde::Deserialize)]
    /// struct Args { city: String }
    /// let call = ToolCall { id: "1".into(), name: "w".into(), input: serde_json::json!({"city":"Oslo"}).as_object().unwrap().clone() };
    /// assert_eq!(call.input_as::<Args>().unwrap().city, "Oslo");
    /// ```
    pub fn input_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_value(serde_json::Value::Object(self.input.clone()))
    }

    /// The `tool_result` answering this call with `text`.
    pub fn result(&self, text: impl Into<String>) -> SamplingMessageContentBlock {
        self.result_block(text.into(), None)
    }

    /// The `tool_result` reporting that this call failed (`isError: true`).
    pub fn error(&self, text: impl Into<String>) -> SamplingMessageContentBlock {
        self.result_block(text.into(), Some(true))
    }

    fn result_block(&self, text: String, is_error: Option<bool>) -> SamplingMessageContentBlock {
        SamplingMessageContentBlock::ToolResult(ToolResultContent {
            tool_use_id: self.id.clone(),
            content: vec![ContentBlock::text(text)],
            is_error,
            ..Default::default()
        })
    }
}

/// The user message answering a `tool_use` turn: SEP-1577 requires it to hold the
/// `tool_result` of every call, and nothing else.
///
/// ```
/// # use tracksuit::sampling::{ToolCall, tool_results};
/// let call = ToolCall { id: "t1".into(), name: "w".into(), input: Default::default() };
/// let msg = tool_results(vec![call.result("3°C")]);
/// assert_eq!(serde_json::to_value(&msg).unwrap()["content"]["toolUseId"], "t1");
/// ```
pub fn tool_results(results: Vec<SamplingMessageContentBlock>) -> SamplingMessage {
    user_message(results)
}

/// A sampling interaction: what was sent, what came back, the messages it adds to a
/// conversation, and the typed payload (`()` for raw sampling, the tool calls for
/// `sample_tools`, `T` for `sample_schema::<T>`).
///
/// `messages` is `[user, assistant]` for raw sampling and
/// `[user, assistant tool_use(__schema__), user tool_result]` for structured output, so
/// `history.extend(exchange.messages)` and passing `history` to the next `sample` keeps the
/// conversation well-formed.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool, protocol::SamplingMessage};
/// /// Asks twice, the second time with the first exchange as history.
/// #[mcp_tool]
/// async fn chat(ctx: &Ctx) -> Result<String, ToolError> {
///     let mut history: Vec<SamplingMessage> = Vec::new();
///     let first = ctx.sample().prompt("Pick a number.").await?;
///     history.extend(first.messages.clone()); // [user, assistant]
///     let second = ctx.sample().history(history.clone()).prompt("Double it.").await?;
///     Ok(format!("{} {} {}", first.model(), history.len(), second.request.messages.len()))
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(chat).build()?;
/// let client = Client::builder().on_sampling(|_params| async {
///     Ok(serde_json::from_value(json!({"role": "assistant", "model": "m",
///         "content": {"type": "text", "text": "21"}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("chat", json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("m 2 3")); // the second request carried 3 messages
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SampleExchange<T> {
    /// The request that produced the accepted response.
    pub request: CreateMessageRequestParams,
    /// The accepted response.
    pub response: CreateMessageResult,
    /// The messages this exchange adds to a conversation.
    pub messages: Vec<SamplingMessage>,
    /// The typed payload.
    pub parsed: T,
}

impl<T> SampleExchange<T> {
    /// The response's text blocks, concatenated.
    pub fn text(&self) -> String {
        response_text(&self.response)
    }

    /// Every tool call in the response (several when the model calls tools in parallel).
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        tool_calls(&self.response)
    }

    /// Why the model stopped, if the client said.
    pub fn stop_reason(&self) -> Option<&StopReason> {
        self.response.stop_reason.as_ref()
    }

    /// The model that answered.
    pub fn model(&self) -> &str {
        &self.response.model
    }
}

pub(crate) fn response_text(r: &CreateMessageResult) -> String {
    r.content
        .iter()
        .filter_map(SamplingMessageContentBlock::as_text)
        .collect()
}

pub(crate) fn tool_calls(r: &CreateMessageResult) -> Vec<ToolCall> {
    r.content
        .iter()
        .filter_map(|c| match c {
            SamplingMessageContentBlock::ToolUse(t) => Some(ToolCall {
                id: t.id.clone(),
                name: t.name.clone(),
                input: t.input.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// The response as an assistant message.
pub(crate) fn assistant_message(r: &CreateMessageResult) -> SamplingMessage {
    SamplingMessage {
        role: Role::Assistant,
        content: r.content.clone(),
        meta: None,
    }
}

/// A user message of several blocks (one block stays a single object on the wire).
pub(crate) fn user_message(mut blocks: Vec<SamplingMessageContentBlock>) -> SamplingMessage {
    let content = if blocks.len() == 1 {
        OneOrMany::One(blocks.remove(0))
    } else {
        OneOrMany::Many(blocks)
    };
    SamplingMessage {
        role: Role::User,
        content,
        meta: None,
    }
}
