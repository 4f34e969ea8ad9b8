//! `ctx.sample_schema::<T>()`: a sampling request whose answer must be a `T`, offered to the
//! model as the `__schema__` tool (or as JSON text when the client cannot sample with
//! tools), checked against `T`'s schema, and asked again with the problem while retries
//! last.

use super::exchange::{self, ToolCall, assistant_message, tool_calls, user_message};
use super::{
    Attempt, SCHEMA_TOOL, SCHEMA_TOOL_DESCRIPTION, Sample, SampleError, SampleExchange, Schema,
    json_text,
};
use crate::authoring::{SchemaValidator, schema_for, wrap};
use crate::context::SchemaProfile;
use crate::protocol::*;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::future::IntoFuture;

/// The `__schema__` tool's input schema: `T`'s, wrapped in a `value` property unless it is
/// an object at the top. Returns the schema answers are checked against (as derived, which
/// accepts an explicit `null` for an `Option`), the one the client is given (portable, in
/// its schema profile), and whether the data is the `value` property's.
fn schema_tool_input<T: JsonSchema>(profile: SchemaProfile) -> (JsonObject, JsonObject, bool) {
    let raw = wrap(schema_for::<T>(), SCHEMA_WRAPPER);
    let (published, _) = profile.derived(schema_for::<T>(), SCHEMA_WRAPPER);
    (raw.schema, published, raw.wrapper.is_some())
}

/// The property a non-object answer is wrapped in.
const SCHEMA_WRAPPER: &str = "value";

impl<'c, T: DeserializeOwned + JsonSchema + Send + 'static> IntoFuture for Sample<'c, Schema<T>> {
    type Output = Result<SampleExchange<T>, SampleError>;
    type IntoFuture = BoxFuture<'c, Self::Output>;

    fn into_future(mut self) -> Self::IntoFuture {
        Box::pin(async move {
            let (input_schema, published, wrapped) =
                schema_tool_input::<T>(self.ctx.schema_profile());
            let use_tools = self
                .ctx
                .client_capabilities()
                .sampling
                .is_some_and(|s| s.tools.is_some());
            self.offer_schema(published, use_tools);
            let validator = SchemaValidator::of_type::<T>();
            let mut conversation = self.turn.clone();
            let mut attempts = Vec::new();
            for attempt in 0..=self.retries {
                let request = self.request(&conversation);
                let response = self.send(&request).await?;
                let calls = tool_calls(&response);
                let schema_call = calls.iter().find(|c| c.name == SCHEMA_TOOL);
                let candidate = match schema_call {
                    Some(call) => Ok(Value::Object(call.input.clone())),
                    None => json_text::extract(&exchange::response_text(&response))
                        .map_err(|e| fix_to_ask(e, use_tools)),
                };
                let checked = candidate.and_then(|value| {
                    let data = checked_data(validator, &input_schema, &value, wrapped)?;
                    let parsed: T = serde_json::from_value(data)
                        .map_err(|e| format!("the data could not be read: {e}"))?;
                    Ok((value, parsed))
                });
                match checked {
                    Ok((value, parsed)) => {
                        let id = schema_call
                            .map(|c| c.id.clone())
                            .unwrap_or_else(|| format!("schema-{attempt}"));
                        let messages = self.accepted(id, value);
                        return Ok(SampleExchange {
                            request,
                            response,
                            messages,
                            parsed,
                        });
                    }
                    Err(problem) => {
                        conversation.push(assistant_message(&response));
                        conversation.push(retry_message(&calls, &problem));
                        attempts.push(Attempt {
                            request,
                            response,
                            problem,
                        });
                    }
                }
            }
            Err(SampleError::Schema { attempts })
        })
    }
}

impl<T> Sample<'_, Schema<T>> {
    /// Offers the schema: as the `__schema__` tool the model must call when the client can
    /// sample with tools, else as an instruction in the system prompt.
    fn offer_schema(&mut self, published: JsonObject, use_tools: bool) {
        if use_tools {
            let mut tool = Tool::new(SCHEMA_TOOL, published);
            tool.description = Some(SCHEMA_TOOL_DESCRIPTION.into());
            self.params.tools = Some(vec![tool]);
            self.params.tool_choice = Some(ToolChoice {
                mode: Some(ToolChoiceMode::Required),
            });
            return;
        }
        let instruction = format!(
            "Respond only with JSON matching this JSON Schema, with no other text:\n{}",
            Value::Object(published)
        );
        self.params.system_prompt = Some(match self.params.system_prompt.take() {
            Some(s) => format!("{s}\n\n{instruction}"),
            None => instruction,
        });
    }

    /// The turn's messages with the accepted answer: the `__schema__` call and its result.
    fn accepted(&self, id: String, value: Value) -> Vec<SamplingMessage> {
        let mut messages = self.turn_messages();
        messages.push(SamplingMessage {
            role: Role::Assistant,
            content: OneOrMany::Many(vec![SamplingMessageContentBlock::ToolUse(ToolUseContent {
                id: id.clone(),
                name: SCHEMA_TOOL.into(),
                input: value.as_object().cloned().unwrap_or_default(),
                meta: None,
            })]),
            meta: None,
        });
        messages.push(user_message(vec![SamplingMessageContentBlock::ToolResult(
            ToolResultContent {
                tool_use_id: id,
                content: vec![ContentBlock::text("Accepted.")],
                ..Default::default()
            },
        )]));
        messages
    }
}

/// The fix to ask for when the answer had no `__schema__` call: the one the request
/// offered (the tool when the client can sample with tools, else plain JSON text).
fn fix_to_ask(problem: impl std::fmt::Display, use_tools: bool) -> String {
    if use_tools {
        format!("{problem}. Call the `{SCHEMA_TOOL}` tool with the data as its input.")
    } else {
        format!("{problem}. Answer with the JSON only, matching the schema.")
    }
}

/// The answer's data once it matches the schema: the `value` property's when `wrapped`.
fn checked_data(
    validator: &SchemaValidator,
    schema: &JsonObject,
    value: &Value,
    wrapped: bool,
) -> Result<Value, String> {
    validator
        .validate(schema, value)
        .map_err(|e| format!("the data does not match the schema: {e}"))?;
    Ok(if wrapped {
        value.get(SCHEMA_WRAPPER).cloned().unwrap_or(Value::Null)
    } else {
        value.clone()
    })
}

/// The user's reply to an answer that could not be used: the problem as text, or as the
/// result of each tool the model called.
fn retry_message(calls: &[ToolCall], problem: &str) -> SamplingMessage {
    if calls.is_empty() {
        return SamplingMessage::user_text(format!("Your answer could not be used: {problem}"));
    }
    let results = calls
        .iter()
        .map(|c| {
            let text = if c.name == SCHEMA_TOOL {
                format!("{problem}. Call `{SCHEMA_TOOL}` again with corrected data.")
            } else {
                format!(
                    "Unknown tool `{}`; only `{SCHEMA_TOOL}` is available.",
                    c.name
                )
            };
            SamplingMessageContentBlock::ToolResult(ToolResultContent {
                tool_use_id: c.id.clone(),
                content: vec![ContentBlock::text(text)],
                is_error: Some(true),
                ..Default::default()
            })
        })
        .collect();
    user_message(results)
}
