//! The stdio host when its input ends: every request received before EOF is answered, in
//! either era, and the process exits (`printf 'init\nlist\ncall\n' | server`).

use serde_json::{Value, json};
use std::process::Stdio;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tracksuit_tests::support::within;

/// Runs the `stdio_server` test binary with `lines` as its whole input; the messages it
/// wrote before exiting.
async fn answers_to(lines: &[Value]) -> Vec<Value> {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_stdio_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn stdio_server");
    let mut stdin = child.stdin.take().expect("stdin");
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    stdin.write_all(input.as_bytes()).await.expect("write");
    drop(stdin); // EOF
    let mut out = String::new();
    let mut stdout = child.stdout.take().expect("stdout");
    within("the server's output", stdout.read_to_string(&mut out))
        .await
        .expect("read");
    let status = within("the server exits", child.wait())
        .await
        .expect("wait");
    assert!(status.success(), "{status}");
    out.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON-RPC message per line"))
        .collect()
}

fn answer(out: &[Value], id: i64) -> &Value {
    out.iter()
        .find(|m| m["id"] == id && (m.get("result").is_some() || m.get("error").is_some()))
        .unwrap_or_else(|| panic!("no answer to request {id} in {out:?}"))
}

#[tokio::test]
async fn a_2025_session_answers_every_request_received_before_eof() {
    let out = answers_to(&[
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello","arguments":{}}}),
        // Asks the client for its roots: nothing can answer once the input ended.
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{}}}),
    ])
    .await;
    assert_eq!(answer(&out, 1)["result"]["protocolVersion"], "2025-11-25");
    assert!(answer(&out, 2)["result"]["tools"].is_array());
    assert_eq!(answer(&out, 3)["result"]["content"][0]["text"], "hello");
    let asked = answer(&out, 4);
    assert!(
        asked["result"]["isError"] == true || asked.get("error").is_some(),
        "{asked}"
    );
}

#[tokio::test]
async fn a_modern_line_answers_every_request_received_before_eof() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    });
    let out = answers_to(&[
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta}}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{},"_meta": meta}}),
    ])
    .await;
    assert!(answer(&out, 1)["result"]["tools"].is_array(), "{out:?}");
    assert_eq!(answer(&out, 2)["result"]["content"][0]["text"], "hello");
}
