//! Drives the `sampling` example server (spawned over stdio) through the bridge against a
//! real OpenAI-compatible model: `sample_schema::<Itinerary>` must come back as a valid
//! itinerary through native structured output, and `sample_tools` must get a `tool_use`
//! (through the JSON-schema choice when the model has no native tool calls); then the same
//! server's raw `ask` is answered through the Anthropic sampler (llama.cpp also serves the
//! Messages API). Exits non-zero on any failure. tests/interop/model/run.sh runs it against SmolLM2-135M on llama.cpp.
//!
//! ```text
//! cargo run -p tracksuit-providers --example real_model -- \
//!     --base-url http://127.0.0.1:8080/v1 --server target/debug/sampling
//! ```

use clap::Parser;
use serde_json::{Value, json};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracksuit::client::Client;
use tracksuit::protocol::{CreateMessageRequestParams, CreateMessageResult};
use tracksuit::transport::io::LineTransport;
use tracksuit_providers::{Anthropic, OpenAi, Sampler, ToolMode, handler};

#[derive(Parser)]
struct Args {
    /// The model server's OpenAI-compatible base URL.
    #[arg(long)]
    base_url: String,
    /// The model name.
    #[arg(long, default_value = "local")]
    model: String,
    /// The `sampling` example binary (served over stdio).
    #[arg(long)]
    server: String,
    /// The model has native tool calls (default: the JSON-schema choice).
    #[arg(long)]
    native_tools: bool,
    /// The most tokens one answer may take.
    #[arg(long, default_value_t = 256)]
    max_tokens: u64,
}

/// Every sampling exchange the model answered.
type Log = Arc<Mutex<Vec<(CreateMessageRequestParams, CreateMessageResult)>>>;

/// A bridge, recording what it was asked and what the model said.
struct Recording<S>(S, Log);

impl<S: Sampler> Sampler for Recording<S> {
    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> futures::future::BoxFuture<
        'static,
        Result<CreateMessageResult, tracksuit_providers::ProviderError>,
    > {
        let (call, log) = (self.0.sample(params.clone()), self.1.clone());
        Box::pin(async move {
            let result = call.await?;
            eprintln!(
                "  model: {}",
                serde_json::to_string(&result.content).unwrap_or_default()
            );
            log.lock()
                .map_err(|_| tracksuit_providers::ProviderError::Decode("log poisoned".into()))?
                .push((params, result.clone()));
            Ok(result)
        })
    }
}

/// Spawns the server over stdio and connects a client answering sampling with `sampler`.
async fn connect<S: Sampler>(
    server: &str,
    sampler: S,
) -> Result<(Client, tokio::process::Child), Box<dyn std::error::Error>> {
    let mut child = tokio::process::Command::new(server)
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err("no stdio pipes".into());
    };
    let client = Client::builder()
        .timeout(Duration::from_secs(900))
        .on_sampling(handler(sampler))
        .connect(LineTransport::new(stdout, stdin))
        .await?;
    Ok((client, child))
}

fn check(ok: bool, what: &str, detail: &str, failures: &mut usize) {
    if ok {
        println!("ok   {what}");
    } else {
        *failures += 1;
        println!("FAIL {what}: {detail}");
    }
}

fn tool_text(result: &tracksuit::protocol::CallToolResult) -> Value {
    let text = result
        .content
        .iter()
        .find_map(|c| c.as_text())
        .unwrap_or_default();
    serde_json::from_str(text).unwrap_or(Value::String(text.to_owned()))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let model = OpenAi::builder()
        .base_url(&args.base_url)
        .model(&args.model)
        .tool_mode(if args.native_tools {
            ToolMode::Native
        } else {
            ToolMode::JsonChoice
        })
        .max_tokens_limit(args.max_tokens)
        .timeout(Duration::from_secs(600))
        .build()?;
    let log: Log = Arc::default();
    let (client, mut child) = connect(&args.server, Recording(model, log.clone())).await?;
    let mut failures = 0;

    println!("sample_schema::<Itinerary> (itinerary, city Oslo)");
    let result = client
        .call_tool("itinerary", json!({ "city": "Oslo" }))
        .await?;
    let out = tool_text(&result);
    let itinerary = &out["itinerary"];
    check(
        itinerary["city"].is_string()
            && itinerary["days"]
                .as_array()
                .is_some_and(|d| !d.is_empty() && d.iter().all(|day| day["indoors"].is_boolean())),
        "the model's itinerary is a valid Itinerary",
        &out.to_string(),
        &mut failures,
    );
    let structured = log.lock().map_err(|_| "poisoned")?.iter().any(|(p, r)| {
        p.tools.iter().flatten().any(|t| t.name == "__schema__")
            && r.content.iter().any(|c| {
                matches!(c, tracksuit::protocol::SamplingMessageContentBlock::ToolUse(u) if u.name == "__schema__")
            })
    });
    check(
        structured,
        "it came back as a __schema__ tool_use (native structured output)",
        "no __schema__ tool_use in the model's answers",
        &mut failures,
    );

    println!("sample_tools (must_research, city Oslo)");
    let result = client
        .call_tool("must_research", json!({ "city": "Oslo", "retries": 2 }))
        .await?;
    let out = tool_text(&result);
    let calls: Vec<&str> = out["calls"]
        .as_array()
        .map(|c| c.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    check(
        !calls.is_empty()
            && calls
                .iter()
                .all(|c| *c == "get_weather" || *c == "get_events"),
        "the model called a research tool (tool_use)",
        &out.to_string(),
        &mut failures,
    );
    drop(client);
    let _ = child.kill().await;

    println!("Anthropic Messages API: raw sampling (ask)");
    let anthropic = Anthropic::builder()
        .base_url(args.base_url.trim_end_matches('/').trim_end_matches("/v1"))
        .model(&args.model)
        .timeout(Duration::from_secs(600))
        .build()?;
    let (client, mut child) = connect(&args.server, Recording(anthropic, log.clone())).await?;
    let result = client
        .call_tool(
            "ask",
            json!({ "prompt": "Say hello in one short sentence." }),
        )
        .await?;
    let out = tool_text(&result);
    check(
        out["text"].as_str().is_some_and(|t| !t.trim().is_empty())
            && matches!(out["stopReason"].as_str(), Some("endTurn" | "maxTokens")),
        "the model answered through the Messages API, with a stop reason",
        &out.to_string(),
        &mut failures,
    );
    drop(client);
    let _ = child.kill().await;

    let exchanges = log.lock().map_err(|_| "poisoned")?.len();
    println!(
        "{} passed, {failures} failed ({exchanges} model calls)",
        4 - failures
    );
    if failures > 0 {
        return Err(format!("{failures} check(s) failed").into());
    }
    Ok(())
}
