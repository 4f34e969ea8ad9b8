//! The tracksuit twin's tools, shared by the twin binary and the in-process floor.

use tracksuit::{Json, Server, ServerHandle, mcp_tool};

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

/// The twin server: `echo`, `add` and `sleep`.
pub fn server() -> ServerHandle {
    Server::new(tracksuit::crate_info!())
        .tool(echo)
        .tool(add)
        .tool(sleep)
        .build()
        .expect("the tools, prompts and resources have distinct names")
}
