//! Deserialises the JSON-RPC examples of the MCP 2025-11-25 spec pages (extracted into
//! `spec/2025-11-25/examples/` by `scripts/extract-spec-examples.py`) into the typed params
//! and results of their methods, and checks that re-serialising keeps every field.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tracksuit::protocol::*;

/// Decodes `value` as `T` and checks nothing the example said was lost.
fn decode<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    let back = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    lost(value, &back, "")
}

/// Every member of `original` is present (recursively) in `back`; numbers compare by value.
fn lost(original: &Value, back: &Value, path: &str) -> Result<(), String> {
    match (original, back) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let Some(w) = b.get(k) else {
                    return Err(format!("{path}/{k} was dropped"));
                };
                lost(v, w, &format!("{path}/{k}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .try_for_each(|(i, (x, y))| lost(x, y, &format!("{path}/{i}"))),
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => Ok(()),
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{path} changed from {a} to {b}")),
    }
}

fn params(method: &str, p: &Value) -> Result<(), String> {
    match method {
        "initialize" => decode::<InitializeRequestParams>(p),
        "tools/call" => decode::<CallToolRequestParams>(p),
        "tools/list"
        | "prompts/list"
        | "resources/list"
        | "resources/templates/list"
        | "tasks/list" => decode::<PaginatedRequestParams>(p),
        "prompts/get" => decode::<GetPromptRequestParams>(p),
        "resources/read"
        | "resources/subscribe"
        | "resources/unsubscribe"
        | "notifications/resources/updated" => decode::<ResourceRequestParams>(p),
        "completion/complete" => decode::<CompleteRequestParams>(p),
        "logging/setLevel" => decode::<SetLevelRequestParams>(p),
        "sampling/createMessage" => decode::<CreateMessageRequestParams>(p),
        "elicitation/create" => decode::<ElicitRequestParams>(p),
        "notifications/cancelled" => decode::<CancelledNotificationParams>(p),
        "notifications/progress" => decode::<ProgressNotificationParams>(p),
        "notifications/message" => decode::<LoggingMessageNotificationParams>(p),
        "notifications/elicitation/complete" => decode::<ElicitationCompleteNotificationParams>(p),
        "notifications/tasks/status" => decode::<TaskStatusNotificationParams>(p),
        "tasks/get" | "tasks/cancel" | "tasks/result" => decode::<TaskIdParams>(p),
        _ => decode::<RequestParams>(p),
    }
}

fn result(method: &str, r: &Value) -> Result<(), String> {
    match method {
        "initialize" => decode::<InitializeResult>(r),
        // A task-augmented call answers with the created task instead.
        "tools/call" => {
            decode::<CallToolResult>(r).or_else(|e| decode::<CreateTaskResult>(r).map_err(|_| e))
        }
        "tools/list" => decode::<ListToolsResult>(r),
        "prompts/list" => decode::<ListPromptsResult>(r),
        "prompts/get" => decode::<GetPromptResult>(r),
        "resources/list" => decode::<ListResourcesResult>(r),
        "resources/templates/list" => decode::<ListResourceTemplatesResult>(r),
        "resources/read" => decode::<ReadResourceResult>(r),
        "completion/complete" => decode::<CompleteResult>(r),
        "sampling/createMessage" => decode::<CreateMessageResult>(r)
            .or_else(|e| decode::<CreateTaskResult>(r).map_err(|_| e)),
        "elicitation/create" => decode::<ElicitResult>(r),
        "roots/list" => decode::<ListRootsResult>(r),
        "tasks/get" | "tasks/cancel" => decode::<GetTaskResult>(r),
        "tasks/list" => decode::<ListTasksResult>(r),
        "tasks/result" => decode::<CallToolResult>(r),
        _ => decode::<EmptyResult>(r),
    }
}

#[test]
fn spec_examples_deserialise_into_their_types() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/2025-11-25/examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("examples dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut typed = 0;
    for file in &files {
        let example: Value =
            serde_json::from_str(&std::fs::read_to_string(file).expect("read")).expect("json");
        let method = example["method"].as_str().expect("method");
        let raw = serde_json::to_vec(&example["message"]).expect("bytes");
        let message = match JsonRpcMessage::from_slice(&raw) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: not a JSON-RPC message: {e}", file.display()));
                continue;
            }
        };
        let outcome = match &message {
            JsonRpcMessage::Request(r) => params(
                method,
                r.params
                    .as_ref()
                    .unwrap_or(&Value::Object(Default::default())),
            ),
            JsonRpcMessage::Notification(n) => params(
                method,
                n.params
                    .as_ref()
                    .unwrap_or(&Value::Object(Default::default())),
            ),
            JsonRpcMessage::Response(r) => result(method, &r.decode().expect("a JSON result")),
            JsonRpcMessage::Error(e) => {
                decode::<ErrorObject>(&serde_json::to_value(&e.error).expect("error"))
            }
        };
        match outcome {
            Ok(()) => typed += 1,
            Err(e) => failures.push(format!(
                "{} ({method}): {e}",
                file.file_name().and_then(|n| n.to_str()).unwrap_or("?")
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert!(typed >= 60, "only {typed} examples checked");
}
