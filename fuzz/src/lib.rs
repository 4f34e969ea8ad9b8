//! What the fuzz targets share: a server with a tool, prompt or resource behind every code
//! path a client can reach (typed arguments, tasks, sampling, elicitation, roots, branches,
//! URI templates, completion), a paused runtime, and the checks on what the server writes.

use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;
use tracksuit::branch::BranchOptions;
use tracksuit::protocol::{
    CallToolResult, GetPromptResult, JsonObject, JsonRpcMessage, LoggingLevel,
    Prompt as PromptDescriptor, PromptArgument, PromptMessage, ReadResourceResult,
    ResourceContents, ResourceTemplate as TemplateDescriptor, Tool as ToolDescriptor,
};
use tracksuit::{
    Ctx, Elicited, Elicits, PromptFn, ResourceTemplateFn, Server, ServerHandle, ServerOptions,
    ToolError, ToolFn, mcp_prompt, mcp_resource, mcp_tool,
};

/// The `initialize` a fuzzed client opens with: every client capability, so that tools can
/// make server→client requests (which fuzz input may then answer: their ids count from 0).
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"fuzz","version":"0"}}}"#;

/// The notification that completes the handshake.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The id of the ping every iteration ends with.
pub const PING_ID: &str = "fuzz-final-ping";

/// A ping with [`PING_ID`].
pub const PING: &str = r#"{"jsonrpc":"2.0","id":"fuzz-final-ping","method":"ping"}"#;

/// A single-threaded runtime whose clock is paused: sleeps and timeouts complete as soon as
/// nothing else can run, so server→client request timeouts and task ttls cost no wall time,
/// and "wait until idle" is a short timeout. One per iteration: dropping it drops every task
/// the iteration spawned.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a current-thread runtime")
}

/// Panics unless `bytes` is one well-formed JSON-RPC message: whatever the input, the server
/// must only ever write those.
pub fn assert_valid_message(bytes: &[u8]) -> JsonRpcMessage {
    if trace() {
        eprintln!("<- {}", String::from_utf8_lossy(bytes));
    }
    match JsonRpcMessage::from_slice(bytes) {
        Ok(message) => message,
        Err(e) => panic!(
            "the server wrote something that is not a JSON-RPC message ({e}): {:?}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

/// Whether `TRACKSUIT_FUZZ_TRACE` is set: the targets then print what the server sends, to
/// check what a seed or a crash input reaches (`cargo fuzz run <target> <file>`).
pub fn trace() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("TRACKSUIT_FUZZ_TRACE").is_some())
}

/// The `requestState` and first `inputRequests` key of an `input_required` result in
/// `message`, so that inputs can present a genuine sealed state (which they could never
/// forge) and reach the code behind it.
pub fn request_state_of(message: &JsonRpcMessage) -> Option<(String, String)> {
    let JsonRpcMessage::Response(r) = message else {
        return None;
    };
    let value: Value = r.decode().ok()?;
    let state = value.get("requestState")?.as_str()?.to_owned();
    let key = value
        .get("inputRequests")
        .and_then(Value::as_object)
        .and_then(|requests| requests.keys().next().cloned())
        .unwrap_or_default();
    Some((state, key))
}

/// The id of a task the server announced in `message` (a `CreateTaskResult`, a task list,
/// a status notification), so that inputs can name real tasks (ids are random UUIDs).
pub fn task_id_of(message: &JsonRpcMessage) -> Option<String> {
    let value: Value = match message {
        JsonRpcMessage::Response(r) => r.decode().ok()?,
        JsonRpcMessage::Notification(n) => n.params.clone()?,
        _ => return None,
    };
    [
        value.pointer("/task/taskId"),
        value.pointer("/tasks/0/taskId"),
        value.get("taskId"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_str)
    .map(str::to_owned)
}

/// Replaces every `$TASK` in `bytes` with `task`.
pub fn expand_task(bytes: &[u8], task: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(i) = rest.windows(5).position(|w| w == b"$TASK") {
        out.extend_from_slice(&rest[..i]);
        out.extend_from_slice(task.as_bytes());
        rest = &rest[i + 5..];
    }
    out.extend_from_slice(rest);
    out
}

/// Whether `message` is the answer to the final ping.
pub fn is_ping_answer(message: &JsonRpcMessage) -> bool {
    matches!(message, JsonRpcMessage::Response(r)
        if r.id == PING_ID.into() && r.decode::<Value>().ok() == Some(json!({})))
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Adds two integers (typed arguments, schema-validated).
#[mcp_tool]
async fn add(a: i64, b: i64) -> Result<String, String> {
    a.checked_add(b)
        .map(|n| n.to_string())
        .ok_or_else(|| "overflow".to_owned())
}

/// Reports progress and logs (uses the request's progress token and the session log level).
#[mcp_tool]
async fn chatty(ctx: &Ctx, steps: Option<u8>) -> &'static str {
    let steps = steps.unwrap_or(2).min(8);
    for i in 0..steps {
        ctx.progress(f64::from(i), Some(f64::from(steps)), Some("working"))
            .await;
        ctx.log(LoggingLevel::Info, json!({ "step": i })).await;
    }
    "done"
}

/// Counts to `n` as a task or not (`task_support = "optional"`).
#[mcp_tool(task_support = "optional")]
async fn crunch(ctx: &Ctx, n: Option<u8>) -> String {
    let mut sum = 0u32;
    for i in 0..n.unwrap_or(3).min(16) {
        tokio::time::sleep(Duration::from_millis(5)).await;
        sum += u32::from(i);
        ctx.progress(f64::from(i), None, None).await;
    }
    sum.to_string()
}

/// Runs only as a task, and asks the user on the way (`input_required`).
#[mcp_tool(task_support = "required")]
async fn approve(ctx: &Ctx) -> Result<String, ToolError> {
    match ctx.elicit_form::<Approval>("Go ahead?").await? {
        Elicited::Accept { value, .. } => Ok(format!("approved={}", value.approve)),
        Elicited::Decline => Ok("declined".into()),
        Elicited::Cancel => Ok("cancelled".into()),
    }
}

/// A yes/no form.
#[derive(Deserialize, Elicits)]
struct Approval {
    /// Go ahead?
    approve: bool,
}

/// A form with every field kind.
#[derive(Deserialize, Elicits)]
#[allow(dead_code)]
struct Contact {
    /// Name
    name: String,
    /// Age
    #[elicit(default = 30)]
    age: Option<i64>,
    /// Score
    score: Option<f64>,
    /// Colour
    colour: Option<Colour>,
    /// Tags
    tags: Option<Vec<Colour>>,
}

/// A colour.
#[derive(Deserialize, Elicits)]
#[serde(rename_all = "lowercase")]
enum Colour {
    Red,
    #[elicit(title = "Green!")]
    Green,
}

/// Asks the user for a form.
#[mcp_tool]
async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
    Ok(match ctx.elicit_form::<Contact>("Who are you?").await? {
        Elicited::Accept { value, .. } => format!("hello {}", value.name),
        Elicited::Decline => "declined".into(),
        Elicited::Cancel => "cancelled".into(),
    })
}

/// Sends the user to a URL.
#[mcp_tool]
async fn authorize(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx
        .elicit_url("Sign in", "https://example.invalid/login")
        .await?;
    ctx.notify_elicitation_complete(&out.elicitation_id).await;
    Ok(format!("{:?}", out.action))
}

/// Lists the client's roots.
#[mcp_tool]
async fn roots(ctx: &Ctx) -> Result<String, ToolError> {
    Ok(ctx.list_roots().await?.roots.len().to_string())
}

/// Raw sampling.
#[mcp_tool]
async fn sample(ctx: &Ctx, prompt: Option<String>) -> Result<String, ToolError> {
    let answer = ctx
        .sample()
        .prompt(prompt.unwrap_or_else(|| "hi".into()))
        .max_tokens(16)
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok(answer.text())
}

/// What `pick` asks the model for.
#[derive(Deserialize, schemars::JsonSchema)]
struct Pick {
    choice: String,
    confidence: Option<f64>,
}

/// Schema sampling: the answer is a tool call or JSON found in text.
#[mcp_tool]
async fn pick(ctx: &Ctx) -> Result<String, ToolError> {
    let answer = ctx
        .sample_schema::<Pick>()
        .prompt("pick one")
        .retries(1)
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
    let Pick { choice, confidence } = answer.parsed;
    Ok(format!("{choice} {confidence:?}"))
}

/// Arguments of the tool-loop function.
#[derive(Deserialize, schemars::JsonSchema)]
struct Lookup {
    key: String,
}

/// The SEP-1577 tool loop with one function.
#[mcp_tool]
async fn agent(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx
        .tool_loop()
        .prompt("look something up")
        .function("lookup", "Looks a key up", |l: Lookup| async move {
            Ok::<_, String>(format!("value of {}", l.key))
        })
        .max_rounds(3)
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok(out.parsed)
}

/// Two budgeted branches sampling concurrently.
#[mcp_tool]
async fn debate(ctx: &Ctx) -> Result<String, ToolError> {
    let side = |topic: &'static str| {
        ctx.branch_with(
            BranchOptions::new()
                .token_budget(400)
                .timeout(Duration::from_secs(30)),
            move |b| async move { b.sample().prompt(topic).max_tokens(50).await },
        )
    };
    let (pro, con) = tokio::join!(side("for"), side("against"));
    type Side = Result<
        Result<tracksuit::SampleExchange<()>, tracksuit::SampleError>,
        tracksuit::branch::BranchError,
    >;
    let text = |r: Side| match r {
        Ok(Ok(answer)) => answer.text(),
        Ok(Err(e)) => format!("error: {e}"),
        Err(e) => format!("branch error: {e}"),
    };
    Ok(format!("{} / {}", text(pro), text(con)))
}

/// A static resource.
#[mcp_resource(uri = "test://static", name = "static", mime_type = "text/plain")]
async fn static_text() -> String {
    "static".into()
}

/// A template resource.
#[mcp_resource(uri = "test://template/{id}/data", name = "template")]
async fn template_data(id: String) -> String {
    format!("data for {id}")
}

/// A prompt with required arguments and completion.
#[mcp_prompt(complete = complete_words)]
async fn greet(
    /// Who to greet
    name: String,
    /// Tone
    tone: String,
) -> String {
    format!("Greet {name} in a {tone} tone")
}

async fn complete_words(_argument: &str, value: &str) -> Vec<String> {
    ["paris", "park", "party", "hello", "world"]
        .iter()
        .filter(|w| w.starts_with(value))
        .map(|w| (*w).to_owned())
        .collect()
}

/// A template reader that echoes the matched variables.
fn template(uri_template: &str) -> impl tracksuit::ResourceTemplateHandler {
    ResourceTemplateFn::new(
        TemplateDescriptor::new(uri_template, uri_template),
        |_ctx, uri: String, vars: HashMap<String, String>| async move {
            let mut vars: Vec<_> = vars.into_iter().collect();
            vars.sort();
            Ok(ReadResourceResult::new(vec![ResourceContents::text(
                uri,
                format!("{vars:?}"),
            )]))
        },
    )
    .expect("a valid URI template")
}

/// The server every target drives (built per iteration: it is cheap, and sessions, tasks
/// and subscriptions then never leak from one input into the next).
pub fn server() -> ServerHandle {
    let options = ServerOptions::default()
        .request_timeout(Duration::from_secs(60))
        .page_size(3);
    let mut long = PromptDescriptor::new("long");
    long.arguments = Some(vec![PromptArgument::new("topic")]);
    Server::with_options(tracksuit::crate_info!(), options)
        .instructions("fuzzing")
        .tool(ToolFn::new(
            ToolDescriptor::new("echo", object(json!({"type": "object"}))),
            |_ctx, args| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) },
        ))
        .tool(ToolFn::new(
            ToolDescriptor::new("fail", object(json!({"type": "object"}))),
            |_ctx, _args| async move { Err(ToolError::new("failed on purpose")) },
        ))
        .tool(add)
        .tool(chatty)
        .tool(crunch)
        .tool(approve)
        .tool(ask)
        .tool(authorize)
        .tool(roots)
        .tool(sample)
        .tool(pick)
        .tool(agent)
        .tool(debate)
        .resource(static_text)
        .resource_template(template_data)
        .resource_template(template("file:///{+path}{?rev,mode}"))
        .resource_template(template("api://{host}{/seg}{.ext}{#frag}"))
        .resource_template(template("q://x{?a}{&b,c}"))
        .prompt(greet)
        .prompt(PromptFn::new(long, |_ctx, args| async move {
            Ok(GetPromptResult::new(vec![PromptMessage::user_text(
                format!("about {:?}", args.get("topic")),
            )]))
        }))
        .build()
        .expect("the tools, prompts and resources have distinct names")
}
