//! Sampling helpers against a scripted model (the in-memory client's sampling handler):
//! raw text, parallel tool calls, `sample_tools` retries, `sample_schema` retries with the
//! error fed back, text answers, budget exhaustion, capability fallbacks, the tool loop.

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tracksuit::client::{Client, ClientBuilder};
use tracksuit::protocol::*;
use tracksuit::sampling::SampleError;
use tracksuit::{Ctx, Server, ServerHandle, ToolError, mcp_tool};
use tracksuit_tests::support::{self, call_once};

/// A model that answers from a script and records what it was asked.
#[derive(Clone, Default)]
struct Script {
    replies: Arc<Mutex<VecDeque<Value>>>,
    requests: Arc<Mutex<Vec<CreateMessageRequestParams>>>,
}

impl Script {
    fn new(replies: Vec<Value>) -> Self {
        Script {
            replies: Arc::new(Mutex::new(replies.into())),
            requests: Arc::default(),
        }
    }

    fn client(&self, tools: bool) -> ClientBuilder {
        let me = self.clone();
        let builder = Client::builder().on_sampling(move |p| {
            let me = me.clone();
            async move {
                me.requests.lock().expect("lock").push(p);
                let reply = me
                    .replies
                    .lock()
                    .expect("lock")
                    .pop_front()
                    .expect("the script has a reply");
                serde_json::from_value(reply).map_err(ErrorObject::internal)
            }
        });
        if tools {
            builder
        } else {
            builder.capabilities(serde_json::from_value(json!({"sampling": {}})).expect("caps"))
        }
    }

    fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .expect("lock")
            .iter()
            .map(|r| serde_json::to_value(r).expect("json"))
            .collect()
    }
}

fn text(t: &str) -> Value {
    json!({"role":"assistant","model":"scripted","stopReason":"endTurn","content":{"type":"text","text":t}})
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"role":"assistant","model":"scripted","stopReason":"toolUse","content":[{"type":"tool_use","id":id,"name":name,"input":input}]})
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema, serde::Serialize)]
struct Move {
    /// Row, 0-2
    #[schemars(range(min = 0, max = 2))]
    row: u8,
    /// Column, 0-2
    #[schemars(range(min = 0, max = 2))]
    col: u8,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Weather {
    city: String,
}

/// Raw sampling.
#[mcp_tool]
async fn raw(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx
        .sample()
        .system("Be brief.")
        .prompt("Say hi")
        .max_tokens(10)
        .temperature(0.1)
        .stop_sequence("END")
        .await?;
    assert_eq!(out.messages.len(), 2, "[user, assistant]");
    Ok(format!(
        "{}|{:?}|{}",
        out.text(),
        out.stop_reason(),
        out.model()
    ))
}

/// Parallel tool calls in one answer.
#[mcp_tool]
async fn parallel(ctx: &Ctx) -> Result<String, ToolError> {
    let weather = Tool::new("weather", tracksuit::schema_for::<Weather>());
    let out = ctx
        .sample()
        .prompt("Weather in Oslo and Rome?")
        .tool(weather)
        .await?;
    let cities: Vec<String> = out
        .tool_calls()
        .iter()
        .map(|c| c.input_as::<Weather>().map(|w| w.city))
        .collect::<Result<_, _>>()?;
    Ok(cities.join(","))
}

/// At least one tool call, retried.
#[mcp_tool]
async fn must_call(ctx: &Ctx) -> Result<String, ToolError> {
    let weather = Tool::new("weather", tracksuit::schema_for::<Weather>());
    let out = ctx
        .sample_tools()
        .prompt("Weather in Oslo?")
        .tool(weather)
        .await?;
    Ok(format!(
        "{}:{}",
        out.parsed.len(),
        out.parsed[0].input_as::<Weather>()?.city
    ))
}

/// A structured move, retried until valid.
#[mcp_tool]
async fn pick_move(ctx: &Ctx) -> Result<String, ToolError> {
    match ctx.sample_schema::<Move>().prompt("Your move?").await {
        Ok(out) => {
            let roles: Vec<String> = out
                .messages
                .iter()
                .map(|m| format!("{:?}", m.role))
                .collect();
            Ok(format!(
                "{},{}|{}|{}",
                out.parsed.row,
                out.parsed.col,
                out.messages.len(),
                roles.join(",")
            ))
        }
        Err(SampleError::Schema { attempts }) => Ok(format!(
            "gave up after {}: {}",
            attempts.len(),
            attempts
                .last()
                .map(|a| a.problem.clone())
                .unwrap_or_default()
        )),
        Err(e) => Err(e.into()),
    }
}

/// The tool loop.
#[mcp_tool]
async fn plan(ctx: &Ctx) -> Result<String, ToolError> {
    let out = ctx
        .tool_loop()
        .prompt("What to wear in Oslo?")
        .function("weather", "Weather for a city", |w: Weather| async move {
            Ok::<_, String>(format!("{}: 3C rain", w.city))
        })
        .max_rounds(3)
        .await?;
    Ok(format!("{}|{}", out.parsed, out.messages.len()))
}

fn server() -> ServerHandle {
    Server::new(tracksuit::crate_info!())
        .tool(raw)
        .tool(parallel)
        .tool(must_call)
        .tool(pick_move)
        .tool(plan)
        .build()
        .expect("the test server's names are distinct")
}

async fn call(script: &Script, tools: bool, name: &str) -> CallToolResult {
    call_once(server(), script.client(tools), name).await
}

#[tokio::test]
async fn raw_text_and_request_shape() {
    let script = Script::new(vec![text("hi!")]);
    let r = call(&script, true, "raw").await;
    assert_eq!(support::text(&r), "hi!|Some(EndTurn)|scripted");
    let req = &script.requests()[0];
    assert_eq!(req["systemPrompt"], "Be brief.");
    assert_eq!(req["maxTokens"], 10);
    assert_eq!(req["temperature"], 0.1);
    assert_eq!(req["stopSequences"], json!(["END"]));
    assert_eq!(req["messages"][0]["content"]["text"], "Say hi");
}

#[tokio::test]
async fn parallel_tool_calls_arrive_as_an_array() {
    let reply = json!({"role":"assistant","model":"m","stopReason":"toolUse","content":[
        {"type":"tool_use","id":"a","name":"weather","input":{"city":"Oslo"}},
        {"type":"tool_use","id":"b","name":"weather","input":{"city":"Rome"}}]});
    let script = Script::new(vec![reply]);
    assert_eq!(
        support::text(&call(&script, true, "parallel").await),
        "Oslo,Rome"
    );
}

#[tokio::test]
async fn sample_tools_retries_when_the_model_does_not_call() {
    let script = Script::new(vec![
        text("It is probably cold."),
        tool_use("t1", "weather", json!({"city":"Oslo"})),
    ]);
    assert_eq!(
        support::text(&call(&script, true, "must_call").await),
        "1:Oslo"
    );
    let reqs = script.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["toolChoice"]["mode"], "required");
    let retry = reqs[1]["messages"].as_array().expect("messages");
    assert_eq!(retry.len(), 3, "prompt, the text answer, the feedback");
    assert_eq!(retry[1]["role"], "assistant");
    assert!(
        retry[2]["content"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("calling one of the provided tools (weather)")
    );
}

#[tokio::test]
async fn sample_tools_budget_is_a_typed_error() {
    let script = Script::new(vec![text("no"), text("no"), text("still no")]);
    let r = call(&script, true, "must_call").await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        support::text(&r).contains("did not call a tool in 3 attempt(s)"),
        "{}",
        support::text(&r)
    );
}

#[tokio::test]
async fn sample_schema_feeds_errors_back_until_valid() {
    let script = Script::new(vec![
        text("I'd go {row: 1, col: 1}"), // invalid JSON
        tool_use("s2", "__schema__", json!({"row": 7, "col": 1})), // fails the schema
        tool_use("s3", "__schema__", json!({"row": 1, "col": 2})), // valid
    ]);
    let r = call(&script, true, "pick_move").await;
    assert_eq!(support::text(&r), "1,2|3|User,Assistant,User");
    let reqs = script.requests();
    assert_eq!(reqs.len(), 3);
    let tool = &reqs[0]["tools"][0];
    assert_eq!(tool["name"], "__schema__");
    assert_eq!(
        tool["description"],
        "Respond with structured data matching this schema."
    );
    assert_eq!(tool["inputSchema"]["properties"]["row"]["maximum"], 2);
    assert_eq!(reqs[0]["toolChoice"]["mode"], "required");
    // Retry 1: the text answer, then a user message saying why.
    let m = reqs[1]["messages"].as_array().expect("messages");
    assert_eq!(m.len(), 3);
    assert!(
        m[2]["content"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("no JSON value"),
        "{}",
        m[2]
    );
    // Retry 2: the failed tool_use answered by an error tool_result naming the field.
    let m = reqs[2]["messages"].as_array().expect("messages");
    assert_eq!(m.len(), 5);
    assert_eq!(m[3]["content"][0]["type"], "tool_use");
    let result = &m[4]["content"];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["toolUseId"], "s2");
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("`row`"),
        "{result}"
    );
}

#[tokio::test]
async fn sample_schema_accepts_json_in_text() {
    let script = Script::new(vec![text("```json\n{\"row\": 0, \"col\": 2}\n```")]);
    assert_eq!(
        support::text(&call(&script, true, "pick_move").await),
        "0,2|3|User,Assistant,User"
    );
}

#[tokio::test]
async fn sample_schema_budget_keeps_every_attempt() {
    let script = Script::new(vec![text("a"), text("b"), text("c")]);
    let r = call(&script, true, "pick_move").await;
    assert!(
        support::text(&r).starts_with("gave up after 3:"),
        "{}",
        support::text(&r)
    );
    assert_eq!(script.requests().len(), 3);
}

#[tokio::test]
async fn without_sampling_tools_the_schema_goes_in_the_prompt() {
    let script = Script::new(vec![
        text(r#"{"row": 2, "col": 0}"#),
        tool_use("x", "weather", json!({"city":"Oslo"})),
    ]);
    assert_eq!(
        support::text(&call(&script, false, "pick_move").await),
        "2,0|3|User,Assistant,User"
    );
    let req = &script.requests()[0];
    assert!(
        req.get("tools").is_none(),
        "no tools for a client without sampling.tools"
    );
    assert!(
        req["systemPrompt"]
            .as_str()
            .unwrap_or_default()
            .contains("JSON Schema")
    );
    // Raw sampling with tools against the same client: a typed error, nothing sent.
    let r = call(&script, false, "parallel").await;
    assert_eq!(r.is_error, Some(true));
    assert!(support::text(&r).contains("sampling.tools"));
}

#[tokio::test]
async fn tool_loop_runs_functions_and_returns_the_answer() {
    let script = Script::new(vec![
        tool_use("w1", "weather", json!({"city":"Oslo"})),
        text("Wear a raincoat."),
    ]);
    assert_eq!(
        support::text(&call(&script, true, "plan").await),
        "Wear a raincoat.|4"
    );
    let reqs = script.requests();
    let m = reqs[1]["messages"].as_array().expect("messages");
    assert_eq!(m[2]["content"]["type"], "tool_result");
    assert_eq!(m[2]["content"]["content"][0]["text"], "Oslo: 3C rain");
}
