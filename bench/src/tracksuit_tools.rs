//! The tracksuit twin's tools, shared by the twin binary and the in-process floor.

use tracksuit::{Ctx, Elicits, Json, Server, ServerHandle, ToolError, mcp_tool};

/// Echoes the text.
#[mcp_tool]
pub async fn echo(text: String) -> String {
    text
}

/// The `add` tool's structured output.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Sum {
    /// a + b
    pub sum: i64,
}

/// Adds two integers.
#[mcp_tool]
pub async fn add(a: i64, b: i64) -> Json<Sum> {
    Json(Sum { sum: a + b })
}

/// Sleeps `ms` milliseconds (the robustness run's slow call; it can run as a task).
/// Not one of the compared tools.
#[mcp_tool(task_support = "optional")]
pub async fn sleep(ms: u64) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(ms.min(60_000))).await;
    format!("slept {ms} ms")
}

/// The one-field form `three_rounds` asks with.
#[derive(serde::Deserialize, Elicits)]
pub struct Answer {
    /// The answer
    pub answer: String,
}

/// The questions `three_rounds` asks, in order (the rmcp twin asks the same).
pub const QUESTIONS: [&str; 3] = ["First?", "Second?", "Third?"];

/// Asks the client three things, one after the other, and returns the answers joined
/// with ", ". On an MCP 2026-07-28 request each question is a round of its own
/// (`input_required`, then the client retries with the answer): the driver's 3-round MRTR
/// row. Not one of the compared tools of the other rows.
#[mcp_tool]
pub async fn three_rounds(ctx: &Ctx) -> Result<String, ToolError> {
    let mut answers = Vec::with_capacity(QUESTIONS.len());
    for question in QUESTIONS {
        let answer = ctx.elicit_form::<Answer>(question).await?.accepted();
        answers.push(answer.map(|a| a.answer).unwrap_or_default());
    }
    Ok(answers.join(", "))
}

/// The twin server: `echo`, `add`, `sleep` and `three_rounds`.
pub fn server() -> ServerHandle {
    built(tools())
}

/// The twin server's tools, not yet built (a twin variant adds its layers first).
pub fn tools() -> Server {
    Server::new(tracksuit::crate_info!())
        .tool(echo)
        .tool(add)
        .tool(sleep)
        .tool(three_rounds)
}

/// `server`, built.
pub fn built(server: Server) -> ServerHandle {
    server
        .build()
        .expect("the tools, prompts and resources have distinct names")
}
