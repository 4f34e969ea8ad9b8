//! The server the official MCP conformance suite runs against
//! (`npx @modelcontextprotocol/conformance server --url http://127.0.0.1:8001/mcp`).
//!
//! Every tool, resource, template and prompt the suite's server scenarios name, written with
//! the authoring macros, plus two tools the interop tests use to check cancellation
//! (`wait_for_cancel`, `cancelled_count`).
//!
//! ```text
//! cargo run -p tracksuit-examples --bin conformance -- --port 8001   # Streamable HTTP
//! cargo run -p tracksuit-examples --bin conformance -- --stdio       # stdio
//! ```

use base64::Engine as _;
use clap::Parser;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tracksuit::host::http::HttpOptions;
use tracksuit::protocol::*;
use tracksuit::{
    Ctx, ElicitForm, Elicited, Elicits, PhaseCtx, Server, ToolError, ToolFn, mcp_prompt,
    mcp_resource, mcp_tool,
};

#[derive(Parser)]
#[command(about = "tracksuit's conformance-suite server")]
struct Args {
    /// Port for Streamable HTTP on 127.0.0.1.
    #[arg(long, default_value_t = 8001)]
    port: u16,
    /// Serve over stdio instead of HTTP.
    #[arg(long)]
    stdio: bool,
    /// Answer POSTs with JSON bodies instead of SSE streams.
    #[arg(long)]
    json_response: bool,
}

/// A 1×1 red PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A tiny WAV file (44-byte header + 2 silent samples), base64.
fn silent_wav() -> String {
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

fn schema(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Asks for the form `T` and reports the outcome the way the suite expects.
async fn elicit_and_report<T: ElicitForm>(
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
struct Contact {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// A user status (SEP-1034 enum default).
#[derive(serde::Deserialize, Elicits)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// SEP-1034: a default on every primitive type.
#[derive(serde::Deserialize, Elicits)]
#[allow(dead_code)]
struct Defaults {
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
enum Plain {
    Option1,
    Option2,
    Option3,
}

/// SEP-1330 titled single-select options.
#[derive(serde::Deserialize, Elicits)]
#[serde(rename_all = "lowercase")]
enum Titled {
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
enum Legacy {
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
enum Choice {
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
struct Enums {
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
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[mcp_tool]
async fn test_image_content() -> ContentBlock {
    ContentBlock::image(RED_PIXEL_PNG, "image/png")
}

/// Returns audio.
#[mcp_tool]
async fn test_audio_content() -> ContentBlock {
    ContentBlock::audio(silent_wav(), "audio/wav")
}

/// Returns an embedded resource.
#[mcp_tool]
async fn test_embedded_resource() -> ContentBlock {
    ContentBlock::embedded(ResourceContents::text_with_mime(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and a resource.
#[mcp_tool]
async fn test_multiple_content_types() -> Vec<ContentBlock> {
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
async fn test_tool_with_logging(ctx: &Ctx) -> &'static str {
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
async fn test_tool_with_progress(ctx: &Ctx) -> &'static str {
    ctx.progress(0.0, Some(100.0), None).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(50.0, Some(100.0), None).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(100.0, Some(100.0), None).await;
    "Tool with progress executed successfully"
}

/// Always fails.
#[mcp_tool]
async fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

/// Asks the client's model.
#[mcp_tool]
async fn test_sampling(
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
async fn test_elicitation(
    ctx: &Ctx,
    /// The message to show the user
    message: String,
) -> Result<String, ToolError> {
    elicit_and_report::<Contact>(ctx, &message, "User response: ").await
}

/// Elicitation with defaults for every primitive type (SEP-1034).
#[mcp_tool]
async fn test_elicitation_sep1034_defaults(ctx: &Ctx) -> Result<String, ToolError> {
    elicit_and_report::<Defaults>(
        ctx,
        "Please review and update the form fields with defaults",
        "Elicitation completed: ",
    )
    .await
}

/// Elicitation with every enum shape (SEP-1330).
#[mcp_tool]
async fn test_elicitation_sep1330_enums(ctx: &Ctx) -> Result<String, ToolError> {
    elicit_and_report::<Enums>(
        ctx,
        "Please select options from the enum fields",
        "Elicitation completed: ",
    )
    .await
}

/// Closes its SSE stream mid-call to test resumption.
#[mcp_tool]
async fn test_reconnection(ctx: &Ctx) -> &'static str {
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully"
}

/// Opens a URL for the user (URL-mode elicitation), then reports it complete (interop tests).
#[mcp_tool]
async fn authorize(ctx: &Ctx) -> Result<String, ToolError> {
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
async fn needs_authorization() -> Result<String, ToolError> {
    Err(tracksuit::elicitation::url_elicitation_required(vec![(
        "Sign in first",
        "https://example.com/login",
    )]))
}

/// Calls whose future was dropped by cancellation, in this process.
static CANCELLED: AtomicU64 = AtomicU64::new(0);

/// Counts a call whose future was dropped before it finished.
struct CountOnDrop;

impl Drop for CountOnDrop {
    fn drop(&mut self) {
        CANCELLED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Blocks until cancelled (interop tests).
#[mcp_tool]
async fn wait_for_cancel() -> &'static str {
    let guard = CountOnDrop;
    tokio::time::sleep(Duration::from_secs(60)).await;
    std::mem::forget(guard);
    "not cancelled"
}

/// How many calls were cancelled so far (interop tests).
#[mcp_tool]
async fn cancelled_count() -> String {
    CANCELLED.load(Ordering::SeqCst).to_string()
}

/// Kept by hand: its input schema is the suite's exact JSON Schema 2020-12 document
/// (`$defs` with `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`), which no derive produces.
fn json_schema_2020_12_tool() -> impl tracksuit::ToolHandler {
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

/// A static text resource
#[mcp_resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
async fn static_text() -> String {
    "This is the content of the static text resource.".into()
}

/// A static binary resource (PNG)
#[mcp_resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
async fn static_binary() -> ResourceContents {
    ResourceContents::blob_with_mime("test://static-binary", "image/png", RED_PIXEL_PNG)
}

/// A resource clients can subscribe to
#[mcp_resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
async fn watched_resource() -> String {
    "Watched resource content".into()
}

/// A resource template with an id variable
#[mcp_resource(
    uri = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json"
)]
async fn template_data(id: String) -> String {
    json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string()
}

/// A simple prompt without arguments
#[mcp_prompt]
async fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

/// A prompt with required arguments
#[mcp_prompt(complete = complete_words)]
async fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Completion for `test_prompt_with_arguments`: words starting with what was typed.
async fn complete_words(_argument: &str, value: &str) -> Vec<String> {
    ["paris", "park", "party", "hello", "world"]
        .iter()
        .filter(|w| w.starts_with(value))
        .map(|w| (*w).to_owned())
        .collect()
}

/// A prompt with an embedded resource
#[mcp_prompt]
async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[allow(non_snake_case)]
    resourceUri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(ContentBlock::embedded(ResourceContents::text_with_mime(
            resourceUri,
            "text/plain",
            "Embedded resource content for testing.",
        ))),
        PromptMessage::user_text("Please process the embedded resource above."),
    ]
}

/// A prompt with an image
#[mcp_prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(ContentBlock::image(RED_PIXEL_PNG, "image/png")),
        PromptMessage::user_text("Please analyze the image above."),
    ]
}

// --- MCP 2026-07-28 fixtures ------------------------------------------------------------
// The same tool code serves a 2025 session (pushed requests) and a 2026 client (MRTR
// rounds): none of these knows which era it runs in.

/// A name.
#[derive(serde::Deserialize, Elicits)]
struct Name {
    /// Your name
    name: String,
}

/// A favourite colour.
#[derive(serde::Deserialize, Elicits)]
struct Color {
    /// Your favorite color
    color: String,
}

/// A confirmation.
#[derive(serde::Deserialize, Elicits)]
struct Confirm {
    /// Whether to go ahead
    ok: bool,
}

/// Context for a prompt.
#[derive(serde::Deserialize, Elicits)]
struct PromptContext {
    /// The context the prompt should use
    context: String,
}

/// What the MRTR fixtures ask the user by key.
#[derive(Elicits)]
enum AskKeys {
    /// What is your name?
    #[elicit(response = Name)]
    UserName {},
}

/// The text of a sampling answer.
fn reply_text(result: &CreateMessageResult) -> String {
    result
        .content
        .iter()
        .filter_map(SamplingMessageContentBlock::as_text)
        .collect()
}

/// Asks the client's model `prompt`.
async fn ask_model(ctx: &Ctx, prompt: &str, max_tokens: u64) -> Result<String, ToolError> {
    let params = CreateMessageRequestParams {
        messages: vec![SamplingMessage::user_text(prompt)],
        max_tokens,
        ..Default::default()
    };
    Ok(reply_text(&ctx.create_message(params).await?))
}

/// Needs sampling: a client that did not declare it gets -32021.
#[mcp_tool]
async fn test_missing_capability(ctx: &Ctx) -> Result<String, ToolError> {
    ask_model(ctx, "Say hello", 10).await?;
    Ok("Success".into())
}

/// Asks the user for their name (as an input request, never a request on the stream).
#[mcp_tool]
async fn test_streaming_elicitation(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.progress(0.0, Some(1.0), Some("asking")).await;
    let name = ctx.elicit_form::<Name>("What is your name?").await?;
    Ok(match name.accepted() {
        Some(n) => format!("Streaming complete for {}", n.name),
        None => "Streaming complete".into(),
    })
}

/// Logs (only reaching clients that asked for a log level).
#[mcp_tool]
async fn test_logging_tool(ctx: &Ctx) -> &'static str {
    ctx.log(LoggingLevel::Info, "test_logging_tool ran").await;
    "Logging evaluated"
}

/// Tells subscribers the tool list changed (without changing it).
#[mcp_tool]
async fn test_trigger_tool_change(ctx: &Ctx) -> &'static str {
    ctx.server().notify_tools_list_changed();
    "Mutation triggered"
}

/// Tells subscribers the prompt list changed (without changing it).
#[mcp_tool]
async fn test_trigger_prompt_change(ctx: &Ctx) -> &'static str {
    ctx.server().notify_prompts_list_changed();
    "Mutation triggered"
}

/// MRTR: asks the user's name under the key `user_name`.
#[mcp_tool(elicits = AskKeys)]
async fn test_input_required_result_elicitation(ctx: &Ctx<AskKeys>) -> Result<String, ToolError> {
    Ok(match ctx.elicit(AskKeys::user_name()).await?.accepted() {
        Some(n) => format!("Hello, {}!", n.name),
        None => "No name given".into(),
    })
}

/// MRTR: asks the client's model.
#[mcp_tool]
async fn test_input_required_result_sampling(ctx: &Ctx) -> Result<String, ToolError> {
    let text = ask_model(ctx, "What is the capital of France?", 100).await?;
    Ok(format!("Sampling result: {text}"))
}

/// MRTR: lists the client's roots.
#[mcp_tool]
async fn test_input_required_result_list_roots(ctx: &Ctx) -> Result<String, ToolError> {
    let roots = ctx.list_roots().await?;
    Ok(format!("Found {} root(s)", roots.roots.len()))
}

/// MRTR: asks for a confirmation; the answer comes back with the sealed state.
#[mcp_tool]
async fn test_input_required_result_request_state(ctx: &Ctx) -> Result<String, ToolError> {
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
async fn test_input_required_result_multiple_inputs(
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
async fn test_input_required_result_multi_round(ctx: &Ctx) -> Result<String, ToolError> {
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
async fn test_input_required_result_tampered_state(ctx: &Ctx) -> Result<String, ToolError> {
    let ok = ctx
        .elicit_form::<Confirm>("Please confirm")
        .await?
        .accepted()
        .is_some_and(|c| c.ok);
    Ok(format!("confirmed={ok}"))
}

/// MRTR: asks only what the client declared it can answer.
#[mcp_tool]
async fn test_input_required_result_capabilities(ctx: &Ctx) -> Result<String, ToolError> {
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
async fn test_input_required_result_prompt(
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
fn test_custom_header() -> impl tracksuit::ToolHandler {
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

// --- Interop fixtures: one handoff tool that takes every kind of round ------------------

/// How often `trip_planner`'s phases ran in this process (`phase_counts`).
static BEFORE_RUNS: AtomicU64 = AtomicU64::new(0);
static AFTER_RUNS: AtomicU64 = AtomicU64::new(0);

/// What `trip_planner` asks the user by key.
#[derive(Elicits)]
enum TripKeys {
    /// Where would you like to go?
    #[elicit(response = Destination)]
    PickDestination {
        /// Days available for the trip.
        days: u8,
    },
}

/// A destination.
#[derive(serde::Deserialize, Elicits)]
struct Destination {
    /// A city
    city: String,
}

/// A trip plan, as the client's model must write it.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Plan {
    /// The city.
    city: String,
    /// Sights to see, one per day at most.
    sights: Vec<String>,
}

/// `trip_planner`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TripRequest {
    /// Days available for the trip.
    days: u8,
}

/// The trip being planned (`before`'s state, sealed between rounds).
#[derive(serde::Serialize, serde::Deserialize)]
struct Trip {
    days: u8,
}

/// What the interactive phase found.
#[derive(serde::Serialize, serde::Deserialize)]
struct Chosen {
    city: String,
    sights: Vec<String>,
    booked: bool,
}

/// Plans a trip: asks the user where to go (keyed elicitation), has the client's model
/// write a typed plan (`sample_schema`, retried on invalid output), then asks the user to
/// confirm. `before` and `after` run once per call, in either protocol era.
struct TripPlanner;

/// Plan a trip with the user and the client's model.
#[mcp_tool(elicits = TripKeys, name = "trip_planner")]
impl TripPlanner {
    async fn before(request: TripRequest, _ctx: &PhaseCtx) -> Result<Trip, ToolError> {
        BEFORE_RUNS.fetch_add(1, Ordering::SeqCst);
        Ok(Trip { days: request.days })
    }

    async fn client(trip: &Trip, ctx: &Ctx<TripKeys>) -> Result<Chosen, ToolError> {
        let Some(destination) = ctx
            .elicit(TripKeys::pick_destination(trip.days))
            .await?
            .accepted()
        else {
            return Err("the user did not pick a destination".into());
        };
        let plan = ctx
            .sample_schema::<Plan>()
            .prompt(format!(
                "Plan {} days in {}: list at most {} sights.",
                trip.days, destination.city, trip.days
            ))
            .max_tokens(200)
            .retries(2)
            .await?;
        let booked = ctx
            .elicit_form::<Confirm>(format!("Book {} days in {}?", trip.days, plan.parsed.city))
            .await?
            .accepted()
            .is_some_and(|c| c.ok);
        Ok(Chosen {
            city: plan.parsed.city,
            sights: plan.parsed.sights,
            booked,
        })
    }

    async fn after(trip: Trip, out: Chosen, _ctx: &PhaseCtx) -> String {
        AFTER_RUNS.fetch_add(1, Ordering::SeqCst);
        format!(
            "{} days in {}: {}; booked={}",
            trip.days,
            out.city,
            out.sights.join(", "),
            out.booked
        )
    }
}

/// How often `trip_planner`'s `before` and `after` phases ran in this process.
#[mcp_tool]
async fn phase_counts() -> String {
    json!({
        "before": BEFORE_RUNS.load(Ordering::SeqCst),
        "after": AFTER_RUNS.load(Ordering::SeqCst),
    })
    .to_string()
}

/// Tasks extension (SEP-2663): a plain tool that never runs as a task.
#[mcp_tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Tasks extension: sleeps `seconds` (cancellable: a cancelled task stops sleeping), then
/// reports its `label`.
#[mcp_tool(task_support = "optional")]
async fn slow_compute(ctx: &Ctx, seconds: f64, label: Option<String>) -> String {
    let wait = Duration::from_secs_f64(seconds.clamp(0.0, 3600.0));
    tokio::select! {
        _ = tokio::time::sleep(wait) => {}
        _ = ctx.cancelled() => {}
    }
    format!(
        "computed {} after {seconds}s",
        label.unwrap_or_else(|| "result".into())
    )
}

/// Tasks extension: must run as a task; fails as a tool (an `isError` result).
#[mcp_tool(task_support = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Err(ToolError::new("the job failed"))
}

/// Tasks extension: fails with a JSON-RPC error (the task ends `failed`).
#[mcp_tool(task_support = "optional")]
async fn protocol_error_job() -> Result<String, ToolError> {
    Err(ToolError::protocol(ErrorObject::internal(
        "protocol_error_job always fails",
    )))
}

/// Whether to delete.
#[derive(serde::Deserialize, Elicits)]
struct DeleteConfirm {
    /// Delete the file?
    confirm: bool,
}

/// Tasks extension: asks for a confirmation (the task's `inputRequests`), then answers.
#[mcp_tool(task_support = "optional")]
async fn confirm_delete(ctx: &Ctx, filename: String) -> Result<String, ToolError> {
    let confirmed = ctx
        .elicit_form::<DeleteConfirm>(&format!("Delete {filename}?"))
        .await?
        .accepted()
        .is_some_and(|c| c.confirm);
    Ok(if confirmed {
        format!("deleted {filename}")
    } else {
        format!("kept {filename}")
    })
}

/// A name and a confirmation.
#[derive(serde::Deserialize, Elicits)]
struct NameConfirm {
    /// A name
    name: String,
    /// Go ahead?
    confirm: bool,
}

/// Tasks extension: asks two things at once (two `inputRequests`, answerable one by one).
#[mcp_tool(task_support = "optional")]
async fn multi_input(ctx: &Ctx) -> Result<String, ToolError> {
    let (first, second) = tokio::join!(
        ctx.elicit_form::<NameConfirm>("First input"),
        ctx.elicit_form::<NameConfirm>("Second input"),
    );
    let name = |e: Elicited<NameConfirm>| match e.accepted() {
        Some(n) if n.confirm => n.name,
        Some(n) => format!("{} (unconfirmed)", n.name),
        None => "nobody".into(),
    };
    Ok(format!("got {} and {}", name(first?), name(second?)))
}

/// Tasks extension: asks the user's name in multi round-trip rounds, then becomes a task
/// (`Ctx::become_task`) whose result greets them.
fn test_tool_with_task() -> impl tracksuit::ToolHandler {
    let mut t = Tool::new("test_tool_with_task", schema(json!({"type": "object"})));
    t.description = Some("Asks your name, then greets you from a task".into());
    t.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Required),
    });
    ToolFn::new(t, |ctx: Ctx, _| async move {
        let name = ctx
            .with_keys::<AskKeys>()
            .elicit(AskKeys::user_name())
            .await?
            .accepted()
            .map(|n| n.name)
            .unwrap_or_else(|| "stranger".into());
        ctx.become_task().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(CallToolResult::text(format!(
            "Hello, {name}! (from a task)"
        )))
    })
    .input_before_task_then()
}

/// The conformance server, assembled: with the skills in `examples/skills/` (SEP-2640).
fn build() -> std::io::Result<Server> {
    let skills =
        tracksuit::skills::Skills::from_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))
            .map_err(std::io::Error::other)?;
    Ok(Server::new(Implementation::new(
        "tracksuit-conformance",
        env!("CARGO_PKG_VERSION"),
    ))
    .instructions("tracksuit's conformance-suite server.")
    .tool(test_simple_text)
    .tool(test_image_content)
    .tool(test_audio_content)
    .tool(test_embedded_resource)
    .tool(test_multiple_content_types)
    .tool(test_tool_with_logging)
    .tool(test_tool_with_progress)
    .tool(test_error_handling)
    .tool(test_sampling)
    .tool(test_elicitation)
    .tool(test_elicitation_sep1034_defaults)
    .tool(test_elicitation_sep1330_enums)
    .tool(json_schema_2020_12_tool())
    .tool(test_reconnection)
    .tool(authorize)
    .tool(needs_authorization)
    .tool(wait_for_cancel)
    .tool(cancelled_count)
    .tool(test_missing_capability)
    .tool(test_streaming_elicitation)
    .tool(test_logging_tool)
    .tool(test_trigger_tool_change)
    .tool(test_trigger_prompt_change)
    .tool(test_input_required_result_elicitation)
    .tool(test_input_required_result_sampling)
    .tool(test_input_required_result_list_roots)
    .tool(test_input_required_result_request_state)
    .tool(test_input_required_result_multiple_inputs)
    .tool(test_input_required_result_multi_round)
    .tool(test_input_required_result_tampered_state)
    .tool(test_input_required_result_capabilities)
    .tool(test_custom_header())
    .tool(TripPlanner)
    .tool(phase_counts)
    .tool(greet)
    .tool(slow_compute)
    .tool(failing_job)
    .tool(protocol_error_job)
    .tool(confirm_delete)
    .tool(multi_input)
    .tool(test_tool_with_task())
    .resource(static_text)
    .resource(static_binary)
    .resource(watched_resource)
    .resource_template(template_data)
    .prompt(test_simple_prompt)
    .prompt(test_prompt_with_arguments)
    .prompt(test_prompt_with_embedded_resource)
    .prompt(test_prompt_with_image)
    .prompt(test_input_required_result_prompt)
    .skills(skills))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let server = build()?;
    if args.stdio {
        return server.serve_stdio().await;
    }
    let addr = ("127.0.0.1", args.port);
    eprintln!(
        "tracksuit conformance server on http://127.0.0.1:{}/mcp",
        args.port
    );
    server
        .serve_http_with(
            addr,
            HttpOptions::default().json_response(args.json_response),
        )
        .await
}
