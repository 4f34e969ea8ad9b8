//! Typed sampling in tool bodies: `plan_trip` asks the client's model to pick a research
//! tool (`sample_tools`), runs it, then asks for a structured itinerary
//! (`sample_schema::<Itinerary>`). The other tools exercise one helper each (the interop
//! tests drive them with the TypeScript SDK client playing the model).
//!
//! ```text
//! cargo run -p tracksuit-examples --bin sampling -- --stdio
//! cargo run -p tracksuit-examples --bin sampling -- --port 8002
//! ```

use clap::Parser;
use serde::{Deserialize, Serialize};
use tracksuit::host::http::HttpOptions;
use tracksuit::protocol::{Implementation, Tool};
use tracksuit::sampling::{SampleError, tool_results};
use tracksuit::{Ctx, Json, Server, ToolError, mcp_tool, schema_for};

#[derive(Parser)]
struct Args {
    /// Port for Streamable HTTP on 127.0.0.1.
    #[arg(long, default_value_t = 8002)]
    port: u16,
    /// Serve over stdio instead of HTTP.
    #[arg(long)]
    stdio: bool,
}

/// Arguments of the research tools the model may choose.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct CityQuery {
    /// The city to research.
    city: String,
}

/// One day of a trip.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Day {
    /// What to do.
    activity: String,
    /// Indoors (bad weather) or not.
    indoors: bool,
}

/// The structured answer `plan_trip` asks for.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Itinerary {
    /// The destination.
    city: String,
    /// One entry per day.
    #[schemars(length(min = 1, max = 7))]
    days: Vec<Day>,
}

fn research_tools() -> Vec<Tool> {
    let mut weather = Tool::new("get_weather", schema_for::<CityQuery>());
    weather.description = Some("Current weather for a city".into());
    let mut events = Tool::new("get_events", schema_for::<CityQuery>());
    events.description = Some("Events this week in a city".into());
    vec![weather, events]
}

/// Our server-side "research": canned, so the demo needs no network.
fn research(tool: &str, city: &str) -> String {
    match tool {
        "get_weather" => format!("{city}: 4°C, rain all week"),
        _ => format!("{city}: jazz festival on Friday, museum night on Saturday"),
    }
}

/// Plan a short trip with the client's model: it picks what to research, we run it, then it
/// returns a structured itinerary.
#[mcp_tool(open_world)]
async fn plan_trip(
    ctx: &Ctx,
    /** where to go */
    city: String,
) -> Result<Json<Itinerary>, ToolError> {
    let choice = ctx
        .sample_tools()
        .system("You plan trips. First decide what to research.")
        .prompt(format!(
            "I am going to {city} for two days. What should we look up first?"
        ))
        .tools(research_tools())
        .await?;
    ctx.progress(1.0, Some(2.0), Some("researching")).await;
    // Answer every call with its tool_result (SEP-1577), keeping the history well-formed.
    let mut history = choice.messages.clone();
    let results = choice
        .parsed
        .iter()
        .map(|call| match call.input_as::<CityQuery>() {
            Ok(q) => call.result(research(&call.name, &q.city)),
            Err(e) => call.error(format!("bad arguments: {e}")),
        })
        .collect();
    history.push(tool_results(results));
    let plan = ctx
        .sample_schema::<Itinerary>()
        .system("You plan trips.")
        .history(history)
        .prompt("Now give the itinerary.")
        .retries(2)
        .await?;
    Ok(Json(plan.parsed))
}

/// Raw sampling: returns what the model said, its stop reason and the exchange size.
#[mcp_tool]
async fn ask(ctx: &Ctx, prompt: String) -> Result<String, ToolError> {
    let out = ctx.sample().prompt(prompt).max_tokens(50).await?;
    Ok(serde_json::json!({"text": out.text(), "stopReason": out.stop_reason().map(|s| s.as_str()), "messages": out.messages.len()}).to_string())
}

/// Raw sampling with tools: returns every tool call (parallel calls arrive together).
#[mcp_tool]
async fn research_calls(ctx: &Ctx, city: String) -> Result<String, ToolError> {
    let out = ctx
        .sample()
        .prompt(format!("Research {city}"))
        .tools(research_tools())
        .await?;
    let calls: Vec<_> = out
        .tool_calls()
        .into_iter()
        .map(|c| serde_json::json!({"name": c.name, "input": c.input}))
        .collect();
    Ok(serde_json::Value::Array(calls).to_string())
}

/// `sample_tools` alone: returns the calls, or the attempts when the budget ran out.
#[mcp_tool]
async fn must_research(
    ctx: &Ctx,
    city: String,
    retries: Option<usize>,
) -> Result<String, ToolError> {
    match ctx.sample_tools().prompt(format!("Research {city}")).tools(research_tools()).retries(retries.unwrap_or(2)).await {
        Ok(out) => Ok(serde_json::json!({"calls": out.parsed.iter().map(|c| c.name.clone()).collect::<Vec<_>>()}).to_string()),
        Err(SampleError::NoToolCall { attempts }) => Ok(serde_json::json!({"gaveUpAfter": attempts.len()}).to_string()),
        Err(e) => Err(e.into()),
    }
}

/// `sample_schema` alone: returns the itinerary, or the attempts when the budget ran out.
#[mcp_tool]
async fn itinerary(ctx: &Ctx, city: String) -> Result<String, ToolError> {
    match ctx.sample_schema::<Itinerary>().prompt(format!("Plan two days in {city}")).await {
        Ok(out) => Ok(serde_json::json!({"itinerary": out.parsed, "messages": out.messages.len()}).to_string()),
        Err(SampleError::Schema { attempts }) => Ok(serde_json::json!({"gaveUpAfter": attempts.len(), "problems": attempts.iter().map(|a| a.problem.clone()).collect::<Vec<_>>()}).to_string()),
        Err(e) => Err(e.into()),
    }
}

fn build() -> Server {
    Server::new(Implementation::new(
        "tracksuit-sampling-demo",
        env!("CARGO_PKG_VERSION"),
    ))
    .tool(plan_trip)
    .tool(ask)
    .tool(research_calls)
    .tool(must_research)
    .tool(itinerary)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let server = build();
    if args.stdio {
        return server.serve_stdio().await;
    }
    eprintln!(
        "tracksuit sampling demo on http://127.0.0.1:{}/mcp",
        args.port
    );
    server
        .serve_http_with(("127.0.0.1", args.port), HttpOptions::default())
        .await
}
