//! MCP 2026-07-28 fixtures. The same tool code serves a 2025 session (pushed requests)
//! and a 2026 client (MRTR rounds): none of these knows which era it runs in.

use super::basics::schema;
use serde_json::{Value, json};
use tracksuit::protocol::*;
use tracksuit::{Ctx, Elicits, ToolError, ToolFn, mcp_prompt, mcp_tool};

// --- MCP 2026-07-28 fixtures ------------------------------------------------------------
// The same tool code serves a 2025 session (pushed requests) and a 2026 client (MRTR
// rounds): none of these knows which era it runs in.

/// A name.
#[derive(serde::Deserialize, Elicits)]
pub(super) struct Name {
    /// Your name
    pub(super) name: String,
}

/// A favourite colour.
#[derive(serde::Deserialize, Elicits)]
pub(super) struct Color {
    /// Your favorite color
    color: String,
}

/// A confirmation.
#[derive(serde::Deserialize, Elicits)]
pub(super) struct Confirm {
    /// Whether to go ahead
    pub(super) ok: bool,
}

/// Context for a prompt.
#[derive(serde::Deserialize, Elicits)]
pub(super) struct PromptContext {
    /// The context the prompt should use
    context: String,
}

/// What the MRTR fixtures ask the user by key.
#[derive(Elicits)]
pub(super) enum AskKeys {
    /// What is your name?
    #[elicit(response = Name)]
    UserName {},
}

/// The text of a sampling answer.
pub(super) fn reply_text(result: &CreateMessageResult) -> String {
    result
        .content
        .iter()
        .filter_map(SamplingMessageContentBlock::as_text)
        .collect()
}

/// Asks the client's model `prompt`.
pub(super) async fn ask_model(
    ctx: &Ctx,
    prompt: &str,
    max_tokens: u64,
) -> Result<String, ToolError> {
    let params = CreateMessageRequestParams {
        messages: vec![SamplingMessage::user_text(prompt)],
        max_tokens,
        ..Default::default()
    };
    Ok(reply_text(&ctx.create_message(params).await?))
}

/// Needs sampling: a client that did not declare it gets -32021.
#[mcp_tool]
pub(super) async fn test_missing_capability(ctx: &Ctx) -> Result<String, ToolError> {
    ask_model(ctx, "Say hello", 10).await?;
    Ok("Success".into())
}

/// Asks the user for their name (as an input request, never a request on the stream).
#[mcp_tool]
pub(super) async fn test_streaming_elicitation(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.progress(0.0, Some(1.0), Some("asking")).await;
    let name = ctx.elicit_form::<Name>("What is your name?").await?;
    Ok(match name.accepted() {
        Some(n) => format!("Streaming complete for {}", n.name),
        None => "Streaming complete".into(),
    })
}

/// Logs (only reaching clients that asked for a log level).
#[mcp_tool]
pub(super) async fn test_logging_tool(ctx: &Ctx) -> &'static str {
    ctx.log(LoggingLevel::Info, "test_logging_tool ran").await;
    "Logging evaluated"
}

/// Tells subscribers the tool list changed (without changing it).
#[mcp_tool]
pub(super) async fn test_trigger_tool_change(ctx: &Ctx) -> &'static str {
    ctx.server().notify_tools_list_changed();
    "Mutation triggered"
}

/// Tells subscribers the prompt list changed (without changing it).
#[mcp_tool]
pub(super) async fn test_trigger_prompt_change(ctx: &Ctx) -> &'static str {
    ctx.server().notify_prompts_list_changed();
    "Mutation triggered"
}

/// MRTR: asks the user's name under the key `user_name`.
#[mcp_tool(elicits = AskKeys)]
pub(super) async fn test_input_required_result_elicitation(
    ctx: &Ctx<AskKeys>,
) -> Result<String, ToolError> {
    Ok(match ctx.elicit(AskKeys::user_name()).await?.accepted() {
        Some(n) => format!("Hello, {}!", n.name),
        None => "No name given".into(),
    })
}

/// MRTR: asks the client's model.
#[mcp_tool]
pub(super) async fn test_input_required_result_sampling(ctx: &Ctx) -> Result<String, ToolError> {
    let text = ask_model(ctx, "What is the capital of France?", 100).await?;
    Ok(format!("Sampling result: {text}"))
}

/// MRTR: lists the client's roots.
#[mcp_tool]
pub(super) async fn test_input_required_result_list_roots(ctx: &Ctx) -> Result<String, ToolError> {
    let roots = ctx.list_roots().await?;
    Ok(format!("Found {} root(s)", roots.roots.len()))
}

/// MRTR: asks for a confirmation; the answer comes back with the sealed state.
#[mcp_tool]
pub(super) async fn test_input_required_result_request_state(
    ctx: &Ctx,
) -> Result<String, ToolError> {
    let ok = ctx
        .elicit_form::<Confirm>("Please confirm")
        .await?
        .accepted()
        .is_some_and(|c| c.ok);
    Ok(if ok {
        "state-ok: confirmed"
    } else {
        "state-ok: not confirmed"
    }
    .into())
}

/// MRTR: asks three things at once (one round).
#[mcp_tool(elicits = AskKeys)]
pub(super) async fn test_input_required_result_multiple_inputs(
    ctx: &Ctx<AskKeys>,
) -> Result<String, ToolError> {
    let plain = ctx.erased();
    let (name, greeting, roots) = tokio::join!(
        ctx.elicit(AskKeys::user_name()),
        ask_model(&plain, "Generate a greeting", 50),
        plain.list_roots(),
    );
    let name = name?.accepted().map(|n| n.name).unwrap_or_default();
    Ok(format!(
        "{} {name} ({} root(s))",
        greeting?,
        roots?.roots.len()
    ))
}

/// MRTR: two questions, one after the other (two rounds).
#[mcp_tool]
pub(super) async fn test_input_required_result_multi_round(ctx: &Ctx) -> Result<String, ToolError> {
    let name = ctx
        .elicit_form::<Name>("Step 1: What is your name?")
        .await?;
    let color = ctx
        .elicit_form::<Color>("Step 2: What is your favorite color?")
        .await?;
    let name = name.accepted().map(|n| n.name).unwrap_or_default();
    let color = color.accepted().map(|c| c.color).unwrap_or_default();
    Ok(format!("Multi-round complete for {name} who likes {color}"))
}

/// MRTR: a confirmation whose sealed state must not be tampered with.
#[mcp_tool]
pub(super) async fn test_input_required_result_tampered_state(
    ctx: &Ctx,
) -> Result<String, ToolError> {
    let ok = ctx
        .elicit_form::<Confirm>("Please confirm")
        .await?
        .accepted()
        .is_some_and(|c| c.ok);
    Ok(format!("confirmed={ok}"))
}

/// MRTR: asks only what the client declared it can answer.
#[mcp_tool]
pub(super) async fn test_input_required_result_capabilities(
    ctx: &Ctx,
) -> Result<String, ToolError> {
    let caps = ctx.client_capabilities();
    let mut parts = Vec::new();
    if caps.elicitation.is_some()
        && let Some(n) = ctx
            .elicit_form::<Name>("What is your name?")
            .await?
            .accepted()
    {
        parts.push(format!("name={}", n.name));
    }
    if caps.sampling.is_some() {
        parts.push(format!("model={}", ask_model(ctx, "Say hello", 20).await?));
    }
    if parts.is_empty() {
        return Ok("No supported capabilities declared".into());
    }
    Ok(parts.join(", "))
}

/// MRTR: a prompt that asks the user for context first.
#[mcp_prompt]
pub(super) async fn test_input_required_result_prompt(
    ctx: &Ctx,
) -> Result<String, tracksuit::elicitation::ElicitError> {
    let context = ctx
        .elicit_form::<PromptContext>("What context should the prompt use?")
        .await?
        .accepted()
        .map(|c| c.context)
        .unwrap_or_default();
    Ok(format!("Prompt with context: {context}"))
}

/// A tool whose `region` parameter is mirrored into the `Mcp-Param-Region` header
/// (SEP-2243 `x-mcp-header`).
pub(super) fn test_custom_header() -> impl tracksuit::ToolHandler {
    let mut t = Tool::new(
        "test_custom_header",
        schema(json!({
            "type": "object",
            "properties": {
                "region": {
                    "type": "string",
                    "description": "The region to run in",
                    "x-mcp-header": "Region",
                },
            },
            "required": ["region"],
        })),
    );
    t.description = Some("Echoes its region, which travels in a header too".into());
    ToolFn::new(t, |_, args| async move {
        let region = args
            .get("region")
            .and_then(Value::as_str)
            .unwrap_or_default();
        Ok(CallToolResult::text(format!("region={region}")))
    })
}
