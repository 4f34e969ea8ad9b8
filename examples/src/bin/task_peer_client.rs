//! Drives a task server nobody here wrote with tracksuit's client: the TypeScript SDK's
//! `simpleTaskInteractive` example server (2025-11-25 tasks over Streamable HTTP, its tools
//! `taskSupport: "required"`), started by `scripts/interop.sh`.
//!
//! ```text
//! task_peer_client http://127.0.0.1:4231/mcp
//! ```
//!
//! `confirm_delete` asks for confirmation with an elicitation while it runs as a task and
//! `write_haiku` asks the client's model: both questions arrive on `tasks/result` and are
//! answered by the client's handlers. Each tool is called through the era-independent task
//! API (`call_tool_task`, `TaskHandle::poll`, `updates`, `result`). Exits non-zero on any
//! mismatch.

use serde_json::json;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tracksuit::client::{Client, Era, HttpTransport, TaskCall};
use tracksuit::protocol::*;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: task_peer_client <MCP endpoint URL>");
        return ExitCode::from(2);
    };
    match tokio::time::timeout(Duration::from_secs(60), run(&url)).await {
        Ok(Ok(())) => {
            println!("task peer: 2 tasks with input completed through the client's handlers");
            ExitCode::SUCCESS
        }
        Ok(Err(why)) => {
            eprintln!("task peer: {why}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("task peer: no outcome within 60 s");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str) -> Result<(), String> {
    let elicited = Arc::new(AtomicUsize::new(0));
    let sampled = Arc::new(AtomicUsize::new(0));
    let (e, s) = (elicited.clone(), sampled.clone());
    let transport = HttpTransport::new(url).map_err(|e| e.to_string())?;
    let client = Client::builder()
        .era(Era::Session)
        .on_elicitation(move |params| {
            e.fetch_add(1, Ordering::SeqCst);
            async move {
                let ElicitRequestParams::Form(_) = params else {
                    return Err(ErrorObject::invalid_params("a form was expected"));
                };
                Ok(ElicitResult {
                    action: ElicitAction::Accept,
                    content: json!({"confirm": true}).as_object().cloned(),
                    meta: None,
                    extra: Default::default(),
                })
            }
        })
        .on_sampling(move |_params| {
            s.fetch_add(1, Ordering::SeqCst);
            async move {
                let reply = json!({"role": "assistant", "model": "fixed",
                    "content": {"type": "text", "text": "old pond / a frog jumps in / water's sound"}});
                serde_json::from_value(reply).map_err(ErrorObject::internal)
            }
        })
        .connect(transport)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let server = client
        .server_init()
        .map(|i| i.server_info.name.clone())
        .unwrap_or_default();
    if server != "simple-task-interactive" {
        return Err(format!("unexpected server {server:?}"));
    }

    let deleted = drive(&client, "confirm_delete", json!({"filename": "notes.txt"})).await?;
    expect(&deleted, "Deleted 'notes.txt'")?;
    let haiku = drive(&client, "write_haiku", json!({"topic": "ponds"})).await?;
    expect(&haiku, "Haiku:\nold pond / a frog jumps in / water's sound")?;
    let counts = (
        elicited.load(Ordering::SeqCst),
        sampled.load(Ordering::SeqCst),
    );
    if counts != (1, 1) {
        return Err(format!(
            "handlers asked (elicitation, sampling) {counts:?} times"
        ));
    }
    Ok(())
}

/// Calls `tool` as a task, checks its first states, and returns the text it ends with.
async fn drive(
    client: &Client,
    tool: &str,
    arguments: serde_json::Value,
) -> Result<String, String> {
    let call = client
        .call_tool_task(tool, arguments, Some(60_000))
        .await
        .map_err(|e| format!("{tool}: tools/call: {e}"))?;
    let TaskCall::Task(task) = call else {
        return Err(format!("{tool}: the server answered without a task"));
    };
    if task.is_extension() {
        return Err(format!("{tool}: a 2025 session made an extension task"));
    }
    let polled = task
        .poll()
        .await
        .map_err(|e| format!("{tool}: tasks/get: {e}"))?;
    if polled.task.task_id != task.id() || polled.is_terminal() {
        return Err(format!("{tool}: unexpected first state {polled:?}"));
    }
    let result = task
        .result()
        .await
        .map_err(|e| format!("{tool}: tasks/result: {e}"))?;
    // Once over, the status stream yields the terminal state and ends.
    let mut updates = task.updates();
    match updates.next().await {
        Some(Ok(state)) if state.status() == TaskStatus::Completed => {}
        other => return Err(format!("{tool}: final state {other:?}")),
    }
    if updates.next().await.is_some() {
        return Err(format!("{tool}: the status stream went on after the end"));
    }
    Ok(result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect())
}

fn expect(got: &str, want: &str) -> Result<(), String> {
    if got == want {
        println!("ok: {want:?}");
        Ok(())
    } else {
        Err(format!("expected {want:?}, got {got:?}"))
    }
}
