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
//!
//! With `--http URL` it connects to a server already running at that Streamable HTTP
//! endpoint instead (e.g. `sampling --port 8002` → `--http http://127.0.0.1:8002/mcp`); add
//! `--oauth` when the server wants a token: the authorization URL is printed, and the
//! browser's redirect comes back to a listener on 127.0.0.1 (`--redirect-port`, default
//! any free port; the client registers dynamically unless `--client-id` names a client
//! registered for `http://127.0.0.1:<port>/callback`). One authorization serves both
//! connections.

use clap::Parser;
use serde_json::{Value, json};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracksuit::client::oauth::{ClientRegistration, LoopbackUserAgent, OAuthClient};
use tracksuit::client::{Client, HttpTransport};
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
    #[arg(long, required_unless_present = "http", conflicts_with = "http")]
    server: Option<String>,
    /// The MCP endpoint of a server already running (Streamable HTTP) instead.
    #[arg(long)]
    http: Option<String>,
    /// Authorize with OAuth at the `--http` server (authorization code + PKCE, the
    /// browser redirected to a listener on 127.0.0.1).
    #[arg(long, requires = "http")]
    oauth: bool,
    /// The loopback port the browser is redirected to (`--oauth`; 0: any free port).
    #[arg(long, default_value_t = 0)]
    redirect_port: u16,
    /// A client id registered beforehand (`--oauth`; default: dynamic registration).
    #[arg(long)]
    client_id: Option<String>,
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

/// Where the MCP server is.
enum Target {
    /// A binary to spawn, serving over stdio.
    Stdio(String),
    /// A running server's Streamable HTTP endpoint, with the OAuth client if it needs one.
    Http(String, Option<OAuthClient>),
}

impl Target {
    async fn from_args(args: &Args) -> Result<Target, Box<dyn std::error::Error>> {
        let Some(url) = &args.http else {
            return Ok(Target::Stdio(args.server.clone().unwrap_or_default()));
        };
        if !args.oauth {
            return Ok(Target::Http(url.clone(), None));
        }
        let mut oauth = OAuthClient::builder()
            .client_name("tracksuit real_model example")
            .user_agent(LoopbackUserAgent::bind(args.redirect_port).await?);
        if let Some(id) = &args.client_id {
            oauth = oauth.pre_registered(ClientRegistration::public(id.clone()));
        }
        Ok(Target::Http(url.clone(), Some(oauth.build()?)))
    }
}

/// Connects a client answering sampling with `sampler` to `target` (spawning a stdio
/// server, whose process is returned).
async fn connect<S: Sampler>(
    target: &Target,
    sampler: S,
) -> Result<(Client, Option<tokio::process::Child>), Box<dyn std::error::Error>> {
    let builder = Client::builder()
        .timeout(Duration::from_secs(900))
        .on_sampling(handler(sampler));
    let server = match target {
        Target::Stdio(server) => server,
        Target::Http(url, oauth) => {
            let mut transport = HttpTransport::new(url)?;
            if let Some(oauth) = oauth {
                transport = transport.oauth(oauth.clone());
            }
            return Ok((builder.connect(transport).await?, None));
        }
    };
    let mut child = tokio::process::Command::new(server)
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err("no stdio pipes".into());
    };
    let client = builder.connect(LineTransport::new(stdout, stdin)).await?;
    Ok((client, Some(child)))
}

/// The server's raw `ask`, answered through the Anthropic Messages API (llama.cpp serves
/// it too), on a connection of its own.
async fn anthropic_ask(
    args: &Args,
    target: &Target,
    log: &Log,
    failures: &mut usize,
) -> Result<(), Box<dyn std::error::Error>> {
    println!("Anthropic Messages API: raw sampling (ask)");
    let anthropic = Anthropic::builder()
        .base_url(args.base_url.trim_end_matches('/').trim_end_matches("/v1"))
        .model(&args.model)
        .timeout(Duration::from_secs(600))
        .build()?;
    let (client, child) = connect(target, Recording(anthropic, log.clone())).await?;
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
        failures,
    );
    stop(client, child).await;
    Ok(())
}

/// Drops the client and ends the stdio server, if there is one.
async fn stop(client: Client, child: Option<tokio::process::Child>) {
    drop(client);
    if let Some(mut child) = child {
        let _ = child.kill().await;
    }
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
    let target = Target::from_args(&args).await?;
    let (client, child) = connect(&target, Recording(model, log.clone())).await?;
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
    stop(client, child).await;
    anthropic_ask(&args, &target, &log, &mut failures).await?;

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
