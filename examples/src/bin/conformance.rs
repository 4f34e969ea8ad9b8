//! The server the official MCP conformance suite runs against
//! (`npx @modelcontextprotocol/conformance server --url http://127.0.0.1:8001/mcp`).
//!
//! Every tool, resource, template and prompt the suite's server scenarios name, plus two
//! tools the interop tests use to check cancellation (`wait_for_cancel`, `cancelled_count`).
//!
//! ```text
//! cargo run -p tracksuit-examples --bin conformance -- --port 8001   # Streamable HTTP
//! cargo run -p tracksuit-examples --bin conformance -- --stdio       # stdio
//! ```

use base64::Engine as _;
use clap::Parser;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tracksuit::protocol::*;
use tracksuit::transport::http::HttpOptions;
use tracksuit::{Ctx, PromptFn, ResourceFn, ResourceTemplateFn, Server, ToolError, ToolFn};

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

fn no_args() -> JsonObject {
    schema(json!({ "type": "object", "properties": {} }))
}

fn tool(name: &str, description: &str, input: JsonObject) -> Tool {
    let mut t = Tool::new(name, input);
    t.description = Some(description.to_owned());
    t
}

fn text(s: impl Into<String>) -> Result<CallToolResult, ToolError> {
    Ok(CallToolResult::text(s))
}

fn string_arg(args: &JsonObject, name: &str) -> Result<String, ToolError> {
    args.get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ToolError::new(format!("missing required string argument `{name}`")))
}

/// Sends a form elicitation and reports the outcome the way the suite expects.
async fn elicit_and_report(
    ctx: &Ctx,
    message: &str,
    requested: Value,
    prefix: &str,
) -> Result<CallToolResult, ToolError> {
    let params: ElicitRequestParams = serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": requested,
    }))?;
    let result = ctx.create_elicitation(params).await?;
    let action = serde_json::to_value(result.action)?;
    let action = action.as_str().unwrap_or_default().to_owned();
    let content = serde_json::to_string(&result.content.unwrap_or_default())?;
    text(format!("{prefix}action={action}, content={content}"))
}

fn tools(server: Server, cancelled: Arc<AtomicU64>) -> Server {
    let wav = silent_wav();
    let counter = cancelled.clone();
    server
        .tool(ToolFn::new(tool("test_simple_text", "Returns a simple text response", no_args()), |_, _| async {
            text("This is a simple text response for testing.")
        }))
        .tool(ToolFn::new(tool("test_image_content", "Returns an image", no_args()), |_, _| async {
            Ok(CallToolResult::new(vec![ContentBlock::image(RED_PIXEL_PNG, "image/png")]))
        }))
        .tool(ToolFn::new(tool("test_audio_content", "Returns audio", no_args()), move |_, _| {
            let wav = wav.clone();
            async move { Ok(CallToolResult::new(vec![ContentBlock::audio(wav, "audio/wav")])) }
        }))
        .tool(ToolFn::new(tool("test_embedded_resource", "Returns an embedded resource", no_args()), |_, _| async {
            Ok(CallToolResult::new(vec![ContentBlock::embedded(ResourceContents::text_with_mime(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            ))]))
        }))
        .tool(ToolFn::new(
            tool("test_multiple_content_types", "Returns text, an image and a resource", no_args()),
            |_, _| async {
                Ok(CallToolResult::new(vec![
                    ContentBlock::text("Multiple content types test:"),
                    ContentBlock::image(RED_PIXEL_PNG, "image/png"),
                    ContentBlock::embedded(ResourceContents::text_with_mime(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    )),
                ]))
            },
        ))
        .tool(ToolFn::new(tool("test_tool_with_logging", "Logs while it runs", no_args()), |ctx, _| async move {
            ctx.log(LoggingLevel::Info, "Tool execution started").await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.log(LoggingLevel::Info, "Tool processing data").await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.log(LoggingLevel::Info, "Tool execution completed").await;
            text("Tool with logging executed successfully")
        }))
        .tool(ToolFn::new(tool("test_tool_with_progress", "Reports progress", no_args()), |ctx, _| async move {
            ctx.progress(0.0, Some(100.0), None).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.progress(50.0, Some(100.0), None).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.progress(100.0, Some(100.0), None).await;
            text("Tool with progress executed successfully")
        }))
        .tool(ToolFn::new(tool("test_error_handling", "Always fails", no_args()), |_, _| async {
            Err(ToolError::new("This tool intentionally returns an error for testing"))
        }))
        .tool(ToolFn::new(
            tool(
                "test_sampling",
                "Asks the client's model",
                schema(json!({
                    "type": "object",
                    "properties": { "prompt": { "type": "string", "description": "The prompt to send to the LLM" } },
                    "required": ["prompt"],
                })),
            ),
            |ctx, args| async move {
                let prompt = string_arg(&args, "prompt")?;
                let params = CreateMessageRequestParams {
                    messages: vec![SamplingMessage::user_text(prompt)],
                    max_tokens: 100,
                    ..Default::default()
                };
                let result = ctx.create_message(params).await?;
                let reply: Vec<String> = result
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        SamplingMessageContentBlock::Text(t) => Some(t.text.clone()),
                        _ => None,
                    })
                    .collect();
                text(format!("LLM response: {}", reply.join("")))
            },
        ))
        .tool(ToolFn::new(
            tool(
                "test_elicitation",
                "Asks the user",
                schema(json!({
                    "type": "object",
                    "properties": { "message": { "type": "string", "description": "The message to show the user" } },
                    "required": ["message"],
                })),
            ),
            |ctx, args| async move {
                let message = string_arg(&args, "message")?;
                let requested = json!({
                    "type": "object",
                    "properties": {
                        "username": { "type": "string", "description": "User's response" },
                        "email": { "type": "string", "description": "User's email address" },
                    },
                    "required": ["username", "email"],
                });
                elicit_and_report(&ctx, &message, requested, "User response: ").await
            },
        ))
        .tool(ToolFn::new(
            tool("test_elicitation_sep1034_defaults", "Elicitation with defaults", no_args()),
            |ctx, _| async move {
                let requested = json!({
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "description": "User name", "default": "John Doe" },
                        "age": { "type": "integer", "description": "User age", "default": 30 },
                        "score": { "type": "number", "description": "User score", "default": 95.5 },
                        "status": {
                            "type": "string",
                            "description": "User status",
                            "enum": ["active", "inactive", "pending"],
                            "default": "active",
                        },
                        "verified": { "type": "boolean", "description": "Verification status", "default": true },
                    },
                    "required": [],
                });
                elicit_and_report(&ctx, "Please review and update the form fields with defaults", requested, "Elicitation completed: ")
                    .await
            },
        ))
        .tool(ToolFn::new(
            tool("test_elicitation_sep1330_enums", "Elicitation with every enum shape", no_args()),
            |ctx, _| async move {
                let requested = json!({
                    "type": "object",
                    "properties": {
                        "untitledSingle": {
                            "type": "string",
                            "description": "Choose one option",
                            "enum": ["option1", "option2", "option3"],
                        },
                        "titledSingle": {
                            "type": "string",
                            "description": "Choose one titled option",
                            "oneOf": [
                                { "const": "value1", "title": "First Option" },
                                { "const": "value2", "title": "Second Option" },
                                { "const": "value3", "title": "Third Option" },
                            ],
                        },
                        "legacyEnum": {
                            "type": "string",
                            "description": "Choose one (legacy)",
                            "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"],
                        },
                        "untitledMulti": {
                            "type": "array",
                            "description": "Choose several options",
                            "items": { "type": "string", "enum": ["option1", "option2", "option3"] },
                        },
                        "titledMulti": {
                            "type": "array",
                            "description": "Choose several titled options",
                            "items": {
                                "anyOf": [
                                    { "const": "value1", "title": "First Choice" },
                                    { "const": "value2", "title": "Second Choice" },
                                    { "const": "value3", "title": "Third Choice" },
                                ],
                            },
                        },
                    },
                    "required": [],
                });
                elicit_and_report(&ctx, "Please select options from the enum fields", requested, "Elicitation completed: ").await
            },
        ))
        .tool(ToolFn::new(
            tool(
                "json_schema_2020_12_tool",
                "Tool with JSON Schema 2020-12 features",
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
            ),
            |_, args| async move { text(format!("Received: {}", Value::Object(args))) },
        ))
        .tool(ToolFn::new(
            tool("test_reconnection", "Closes its SSE stream mid-call to test resumption", no_args()),
            |ctx, _| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.close_sse_stream();
                tokio::time::sleep(Duration::from_millis(100)).await;
                text("Reconnection test completed successfully")
            },
        ))
        .tool(ToolFn::new(
            tool("wait_for_cancel", "Blocks until cancelled (interop tests)", no_args()),
            move |_, _| {
                let counter = counter.clone();
                async move {
                    let guard = CountOnDrop(counter);
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    std::mem::forget(guard);
                    text("not cancelled")
                }
            },
        ))
        .tool(ToolFn::new(
            tool("cancelled_count", "How many calls were cancelled so far (interop tests)", no_args()),
            move |_, _| {
                let n = cancelled.load(Ordering::SeqCst);
                async move { text(n.to_string()) }
            },
        ))
}

/// Counts a call whose future was dropped before it finished.
struct CountOnDrop(Arc<AtomicU64>);

impl Drop for CountOnDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn resources(server: Server) -> Server {
    let template = ResourceTemplateFn::new(
        {
            let mut t = ResourceTemplate::new("test://template/{id}/data", "template-data");
            t.description = Some("A resource template with an id variable".into());
            t.mime_type = Some("application/json".into());
            t
        },
        |_, uri, vars: HashMap<String, String>| async move {
            let id = vars.get("id").cloned().unwrap_or_default();
            let body =
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            Ok(ReadResourceResult::new(vec![
                ResourceContents::text_with_mime(uri, "application/json", body.to_string()),
            ]))
        },
    );
    let server = match template {
        Ok(t) => server.resource_template(t),
        Err(e) => {
            eprintln!("bad template: {e}");
            server
        }
    };
    let fixed = |uri: &'static str, name: &str, description: &str, mime: &str| {
        let mut r = Resource::new(uri, name);
        r.description = Some(description.to_owned());
        r.mime_type = Some(mime.to_owned());
        r
    };
    server
        .resource(ResourceFn::new(
            fixed(
                "test://static-text",
                "static-text",
                "A static text resource",
                "text/plain",
            ),
            |_| async {
                Ok(ReadResourceResult::new(vec![
                    ResourceContents::text_with_mime(
                        "test://static-text",
                        "text/plain",
                        "This is the content of the static text resource.",
                    ),
                ]))
            },
        ))
        .resource(ResourceFn::new(
            fixed(
                "test://static-binary",
                "static-binary",
                "A static binary resource (PNG)",
                "image/png",
            ),
            |_| async {
                Ok(ReadResourceResult::new(vec![
                    ResourceContents::blob_with_mime(
                        "test://static-binary",
                        "image/png",
                        RED_PIXEL_PNG,
                    ),
                ]))
            },
        ))
        .resource(ResourceFn::new(
            fixed(
                "test://watched-resource",
                "watched-resource",
                "A resource clients can subscribe to",
                "text/plain",
            ),
            |_| async {
                Ok(ReadResourceResult::new(vec![
                    ResourceContents::text_with_mime(
                        "test://watched-resource",
                        "text/plain",
                        "Watched resource content",
                    ),
                ]))
            },
        ))
}

fn prompt(name: &str, description: &str, arguments: &[(&str, &str)]) -> Prompt {
    let mut p = Prompt::new(name);
    p.description = Some(description.to_owned());
    if !arguments.is_empty() {
        p.arguments = Some(
            arguments
                .iter()
                .map(|(n, d)| {
                    let mut a = PromptArgument::new(*n);
                    a.description = Some((*d).to_owned());
                    a.required = Some(true);
                    a
                })
                .collect(),
        );
    }
    p
}

fn prompts(server: Server) -> Server {
    server
        .prompt(PromptFn::new(
            prompt(
                "test_simple_prompt",
                "A simple prompt without arguments",
                &[],
            ),
            |_, _| async {
                Ok(GetPromptResult::new(vec![PromptMessage::user_text(
                    "This is a simple prompt for testing.",
                )]))
            },
        ))
        .prompt(ArgsPrompt)
        .prompt(PromptFn::new(
            prompt(
                "test_prompt_with_embedded_resource",
                "A prompt with an embedded resource",
                &[("resourceUri", "URI of the resource to embed")],
            ),
            |_, args| async move {
                let uri = args.get("resourceUri").cloned().unwrap_or_default();
                Ok(GetPromptResult::new(vec![
                    PromptMessage::user(ContentBlock::embedded(ResourceContents::text_with_mime(
                        uri,
                        "text/plain",
                        "Embedded resource content for testing.",
                    ))),
                    PromptMessage::user_text("Please process the embedded resource above."),
                ]))
            },
        ))
        .prompt(PromptFn::new(
            prompt("test_prompt_with_image", "A prompt with an image", &[]),
            |_, _| async {
                Ok(GetPromptResult::new(vec![
                    PromptMessage::user(ContentBlock::image(RED_PIXEL_PNG, "image/png")),
                    PromptMessage::user_text("Please analyze the image above."),
                ]))
            },
        ))
}

/// `test_prompt_with_arguments`, by hand so it can offer completions for its arguments.
struct ArgsPrompt;

impl tracksuit::Prompt for ArgsPrompt {
    fn descriptor(&self) -> Prompt {
        prompt(
            "test_prompt_with_arguments",
            "A prompt with required arguments",
            &[
                ("arg1", "First test argument"),
                ("arg2", "Second test argument"),
            ],
        )
    }

    fn get<'a>(
        &'a self,
        _ctx: Ctx,
        args: HashMap<String, String>,
    ) -> futures_box::BoxFuture<'a, Result<GetPromptResult, ErrorObject>> {
        Box::pin(async move {
            let arg1 = args.get("arg1").cloned().unwrap_or_default();
            let arg2 = args.get("arg2").cloned().unwrap_or_default();
            Ok(GetPromptResult::new(vec![PromptMessage::user_text(
                format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
            )]))
        })
    }

    fn complete<'a>(
        &'a self,
        _argument: &'a str,
        value: &'a str,
        _context: &'a HashMap<String, String>,
    ) -> futures_box::BoxFuture<'a, Vec<String>> {
        let words = ["paris", "park", "party", "hello", "world"];
        let values = words
            .iter()
            .filter(|w| w.starts_with(value))
            .map(|w| (*w).to_owned())
            .collect();
        Box::pin(async move { values })
    }
}

mod futures_box {
    pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
}

/// The conformance server, assembled.
fn build() -> Server {
    let server = Server::new(Implementation::new(
        "tracksuit-conformance",
        env!("CARGO_PKG_VERSION"),
    ))
    .instructions("tracksuit's conformance-suite server.");
    let cancelled = Arc::new(AtomicU64::new(0));
    prompts(resources(tools(server, cancelled)))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let server = build();
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
