//! The suite's basic fixtures: content of every kind, logging, progress, errors,
//! sampling, elicitation forms, and the tools the interop tests cancel.

use base64::Engine as _;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tracksuit::protocol::*;
use tracksuit::{Ctx, ElicitForm, Elicited, Elicits, ToolError, ToolFn, mcp_tool};

/// A tiny WAV file (44-byte header + 2 silent samples), base64.
pub(super) fn silent_wav() -> String {
    let mut wav = Vec::new();
    let data_len: u32 = 4;
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&16000u32.to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&16u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    wav.extend_from_slice(&[0, 0, 0, 0]);
    base64::engine::general_purpose::STANDARD.encode(wav)
}

/// A 1×1 red PNG.
pub(super) const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

pub(super) fn schema(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Asks for the form `T` and reports the outcome the way the suite expects.
pub(super) async fn elicit_and_report<T: ElicitForm>(
    ctx: &Ctx,
    message: &str,
    prefix: &str,
) -> Result<String, ToolError> {
    let (action, content) = match ctx.elicit_form::<T>(message).await? {
        Elicited::Accept { exchange, .. } => ("accept", exchange.content),
        Elicited::Decline => ("decline", JsonObject::new()),
        Elicited::Cancel => ("cancel", JsonObject::new()),
    };
    Ok(format!(
        "{prefix}action={action}, content={}",
        Value::Object(content)
    ))
}

/// The `test_elicitation` form.
#[derive(serde::Deserialize, Elicits)]
#[allow(dead_code)]
pub(super) struct Contact {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// A user status (SEP-1034 enum default).
#[derive(serde::Deserialize, Elicits)]
#[serde(rename_all = "lowercase")]
pub(super) enum Status {
    Active,
    Inactive,
    Pending,
}

/// SEP-1034: a default on every primitive type.
#[derive(serde::Deserialize, Elicits)]
#[allow(dead_code)]
pub(super) struct Defaults {
    /// User name
    #[elicit(default = "John Doe")]
    name: Option<String>,
    /// User age
    #[elicit(default = 30)]
    age: Option<i64>,
    /// User score
    #[elicit(default = 95.5)]
    score: Option<f64>,
    /// User status
    #[elicit(default = "active")]
    status: Option<Status>,
    /// Verification status
    #[elicit(default = true)]
    verified: Option<bool>,
}

/// SEP-1330 untitled options.
#[derive(serde::Deserialize, Elicits)]
#[serde(rename_all = "lowercase")]
pub(super) enum Plain {
    Option1,
    Option2,
    Option3,
}

/// SEP-1330 titled single-select options.
#[derive(serde::Deserialize, Elicits)]
#[serde(rename_all = "lowercase")]
pub(super) enum Titled {
    #[elicit(title = "First Option")]
    Value1,
    #[elicit(title = "Second Option")]
    Value2,
    #[elicit(title = "Third Option")]
    Value3,
}

/// SEP-1330 legacy `enumNames` options.
#[derive(serde::Deserialize, Elicits)]
#[serde(rename_all = "lowercase")]
#[elicit(legacy_titles)]
pub(super) enum Legacy {
    #[elicit(title = "Option One")]
    Opt1,
    #[elicit(title = "Option Two")]
    Opt2,
    #[elicit(title = "Option Three")]
    Opt3,
}

/// SEP-1330 titled multi-select options.
#[derive(serde::Deserialize, Elicits)]
#[serde(rename_all = "lowercase")]
pub(super) enum Choice {
    #[elicit(title = "First Choice")]
    Value1,
    #[elicit(title = "Second Choice")]
    Value2,
    #[elicit(title = "Third Choice")]
    Value3,
}

/// SEP-1330: every enum shape.
#[derive(serde::Deserialize, Elicits)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub(super) struct Enums {
    /// Choose one option
    untitled_single: Option<Plain>,
    /// Choose one titled option
    titled_single: Option<Titled>,
    /// Choose one (legacy)
    legacy_enum: Option<Legacy>,
    /// Choose several options
    untitled_multi: Option<Vec<Plain>>,
    /// Choose several titled options
    titled_multi: Option<Vec<Choice>>,
}

/// Returns a simple text response.
#[mcp_tool]
pub(super) async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[mcp_tool]
pub(super) async fn test_image_content() -> ContentBlock {
    ContentBlock::image(RED_PIXEL_PNG, "image/png")
}

/// Returns audio.
#[mcp_tool]
pub(super) async fn test_audio_content() -> ContentBlock {
    ContentBlock::audio(silent_wav(), "audio/wav")
}

/// Returns an embedded resource.
#[mcp_tool]
pub(super) async fn test_embedded_resource() -> ContentBlock {
    ContentBlock::embedded(ResourceContents::text_with_mime(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and a resource.
#[mcp_tool]
pub(super) async fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(RED_PIXEL_PNG, "image/png"),
        ContentBlock::embedded(ResourceContents::text_with_mime(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )),
    ]
}

/// Logs while it runs.
#[mcp_tool]
pub(super) async fn test_tool_with_logging(ctx: &Ctx) -> &'static str {
    ctx.log(LoggingLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool execution completed")
        .await;
    "Tool with logging executed successfully"
}

/// Reports progress.
#[mcp_tool]
pub(super) async fn test_tool_with_progress(ctx: &Ctx) -> &'static str {
    ctx.progress(0.0, Some(100.0), None).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(50.0, Some(100.0), None).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(100.0, Some(100.0), None).await;
    "Tool with progress executed successfully"
}

/// Always fails.
#[mcp_tool]
pub(super) async fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

/// Asks the client's model.
#[mcp_tool]
pub(super) async fn test_sampling(
    ctx: &Ctx,
    /// The prompt to send to the LLM
    prompt: String,
) -> Result<String, ToolError> {
    let params = CreateMessageRequestParams {
        messages: vec![SamplingMessage::user_text(prompt)],
        max_tokens: 100,
        ..Default::default()
    };
    let result = ctx.create_message(params).await?;
    let reply: String = result
        .content
        .iter()
        .filter_map(SamplingMessageContentBlock::as_text)
        .collect();
    Ok(format!("LLM response: {reply}"))
}

/// Asks the user.
#[mcp_tool]
pub(super) async fn test_elicitation(
    ctx: &Ctx,
    /// The message to show the user
    message: String,
) -> Result<String, ToolError> {
    elicit_and_report::<Contact>(ctx, &message, "User response: ").await
}

/// Elicitation with defaults for every primitive type (SEP-1034).
#[mcp_tool]
pub(super) async fn test_elicitation_sep1034_defaults(ctx: &Ctx) -> Result<String, ToolError> {
    elicit_and_report::<Defaults>(
        ctx,
        "Please review and update the form fields with defaults",
        "Elicitation completed: ",
    )
    .await
}

/// Elicitation with every enum shape (SEP-1330).
#[mcp_tool]
pub(super) async fn test_elicitation_sep1330_enums(ctx: &Ctx) -> Result<String, ToolError> {
    elicit_and_report::<Enums>(
        ctx,
        "Please select options from the enum fields",
        "Elicitation completed: ",
    )
    .await
}

/// Closes its SSE stream mid-call to test resumption.
#[mcp_tool]
pub(super) async fn test_reconnection(ctx: &Ctx) -> &'static str {
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully"
}

/// Opens a URL for the user (URL-mode elicitation), then reports it complete (interop tests).
#[mcp_tool]
pub(super) async fn authorize(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx
        .elicit_url(
            "Authorize tracksuit to read your calendar",
            "https://example.com/oauth/start",
        )
        .await?;
    if out.action == ElicitAction::Accept {
        ctx.notify_elicitation_complete(&out.elicitation_id).await;
    }
    Ok(format!("action={:?} id={}", out.action, out.elicitation_id))
}

/// Fails with URLElicitationRequiredError (-32042) until the user has signed in (interop tests).
#[mcp_tool]
pub(super) async fn needs_authorization() -> Result<String, ToolError> {
    Err(tracksuit::elicitation::url_elicitation_required(vec![(
        "Sign in first",
        "https://example.com/login",
    )]))
}

/// Calls whose future was dropped by cancellation, in this process.
pub(super) static CANCELLED: AtomicU64 = AtomicU64::new(0);

/// Counts a call whose future was dropped before it finished.
pub(super) struct CountOnDrop;

impl Drop for CountOnDrop {
    fn drop(&mut self) {
        CANCELLED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Blocks until cancelled (interop tests).
#[mcp_tool]
pub(super) async fn wait_for_cancel() -> &'static str {
    let guard = CountOnDrop;
    tokio::time::sleep(Duration::from_secs(60)).await;
    std::mem::forget(guard);
    "not cancelled"
}

/// How many calls were cancelled so far (interop tests).
#[mcp_tool]
pub(super) async fn cancelled_count() -> String {
    CANCELLED.load(Ordering::SeqCst).to_string()
}

/// Kept by hand: its input schema is the suite's exact JSON Schema 2020-12 document
/// (`$defs` with `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`), which no derive produces.
pub(super) fn json_schema_2020_12_tool() -> impl tracksuit::ToolHandler {
    let mut t = Tool::new(
        "json_schema_2020_12_tool",
        schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": { "street": { "type": "string" }, "city": { "type": "string" } },
                },
            },
            "properties": {
                "name": { "type": "string" },
                "address": { "$ref": "#/$defs/address" },
                "contactMethod": { "type": "string", "enum": ["phone", "email"] },
                "phone": { "type": "string" },
                "email": { "type": "string" },
            },
            "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
            "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
            "then": { "required": ["phone"] },
            "else": { "required": ["email"] },
            "additionalProperties": false,
        })),
    );
    t.description = Some("Tool with JSON Schema 2020-12 features".into());
    ToolFn::new(t, |_, args| async move {
        Ok(CallToolResult::text(format!(
            "Received: {}",
            Value::Object(args)
        )))
    })
}
