//! `cargo tracksuit dev` as a relay, without edits (the restarts are `scripts/dev-loop.sh`'s):
//! tracksuit's client talks to the conformance example through it, over stdio (the client
//! starts `dev`) and over HTTP (`dev --port 0`), in both eras — the server's sampling and
//! elicitation requests (2025) or rounds (2026) reach the client's handlers and come back,
//! progress arrives, tool errors and protocol errors pass through unchanged.

mod support;

use std::process::Stdio;
use std::time::Duration;
use support::{BIN, conformance, workspace};
use tokio::io::{AsyncBufReadExt, BufReader};
use tracksuit::client::{ChildTransport, Client, ClientBuilder, Era, HttpTransport};
use tracksuit::protocol::*;

fn dev_args() -> Vec<String> {
    let manifest = workspace().join("examples/Cargo.toml");
    let manifest = manifest.to_str().expect("a UTF-8 path").to_owned();
    [
        "tracksuit",
        "dev",
        "--manifest-path",
        &manifest,
        "--bin",
        "conformance",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn builder(era: Era) -> ClientBuilder {
    Client::builder()
        .era(era)
        .timeout(Duration::from_secs(120))
        .on_sampling(|params| async move {
            let asked = params
                .messages
                .last()
                .and_then(|m| m.content.iter().find_map(|b| b.as_text()));
            let reply = format!("echo: {}", asked.unwrap_or_default());
            Ok(CreateMessageResult::text(reply, "echo"))
        })
        .on_elicitation(|_params| async {
            let content = serde_json::json!({"username": "ada", "email": "ada@example.com"});
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: content.as_object().cloned(),
                meta: None,
                extra: Default::default(),
            })
        })
}

/// What every era and transport must show through the relay.
async fn exercise(client: &Client, label: &str) {
    let tools = client.list_tools(None).await.expect("tools/list");
    assert!(
        tools.tools.iter().any(|t| t.name == "test_sampling"),
        "{label}"
    );
    // The server asks the client's model: a request (2025) or an MRTR round (2026).
    let sampled = client
        .call_tool("test_sampling", serde_json::json!({"prompt": "hi"}))
        .await
        .expect("test_sampling");
    assert_eq!(
        sampled.content[0].as_text(),
        Some("LLM response: echo: hi"),
        "{label}"
    );
    let elicited = client
        .call_tool("test_elicitation", serde_json::json!({"message": "who?"}))
        .await
        .expect("test_elicitation");
    let text = elicited.content[0].as_text().unwrap_or_default();
    assert!(
        text.contains("action=accept") && text.contains("ada@example.com"),
        "{label}: {text}"
    );
    // Progress comes through with the call's token.
    let mut notes = client.notifications();
    let token = ProgressToken::String(format!("p-{label}"));
    client
        .call_tool_with_progress(
            "test_tool_with_progress",
            serde_json::json!({}),
            token.clone(),
        )
        .await
        .expect("test_tool_with_progress");
    let mut progress = 0;
    while let Ok(note) = notes.try_recv() {
        if note.method == methods::PROGRESS {
            let params = note.params.unwrap_or_default();
            assert_eq!(params["progressToken"], serde_json::json!(token), "{label}");
            progress += 1;
        }
    }
    assert!(progress > 0, "{label}: no progress");
    // A tool error and a protocol error, as the server sent them.
    let failed = client
        .call_tool("test_error_handling", serde_json::json!({}))
        .await;
    assert_eq!(failed.expect("a result").is_error, Some(true), "{label}");
    let unknown = client
        .call_tool("no_such_tool", serde_json::json!({}))
        .await;
    let Err(tracksuit::RequestError::Peer(error)) = unknown else {
        panic!("{label}: {unknown:?}");
    };
    assert_eq!(error.code, -32602, "{label}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_stdio_relay_is_transparent_in_both_eras() {
    conformance(); // built before `dev` looks, so its build is fresh
    for era in [Era::Session, Era::Stateless] {
        let mut command = tokio::process::Command::new(BIN);
        command
            .args(dev_args())
            .args(["--", "--stdio"])
            .stderr(Stdio::null());
        let transport = ChildTransport::spawn(command).expect("cargo tracksuit dev starts");
        let client = builder(era)
            .connect(transport)
            .await
            .expect("connects through dev");
        assert_eq!(client.era(), era);
        if era == Era::Session {
            // dev announces the list changes it will send on restarts.
            let init = client.server_init().expect("initialized");
            assert_eq!(
                init.capabilities
                    .tools
                    .as_ref()
                    .and_then(|t| t.list_changed),
                Some(true)
            );
            assert_eq!(init.server_info.name, "tracksuit-conformance");
        }
        exercise(&client, &format!("stdio {era:?}")).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_http_endpoint_serves_sessions_and_stateless_requests() {
    conformance();
    let mut dev = tokio::process::Command::new(BIN)
        .args(dev_args())
        .args(["--port", "0", "--", "--stdio"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("cargo tracksuit dev starts");
    let stderr = dev.stderr.take().expect("piped");
    let mut lines = BufReader::new(stderr).lines();
    let url = tokio::time::timeout(Duration::from_secs(300), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.strip_prefix("[tracksuit dev] serving ") {
                return url.to_owned();
            }
        }
        panic!("dev exited before serving");
    })
    .await
    .expect("dev serves within the deadline");
    // Keep reading its stderr so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    for era in [Era::Session, Era::Stateless] {
        let transport = HttpTransport::new(&url).expect("a URL");
        let client = builder(era)
            .connect(transport)
            .await
            .expect("connects over HTTP");
        assert_eq!(client.era(), era);
        exercise(&client, &format!("http {era:?}")).await;
    }
    // Two 2025 sessions at once, each with its own server.
    let a = builder(Era::Session)
        .connect(HttpTransport::new(&url).expect("URL"))
        .await;
    let b = builder(Era::Session)
        .connect(HttpTransport::new(&url).expect("URL"))
        .await;
    let (a, b) = (a.expect("session a"), b.expect("session b"));
    for client in [&a, &b] {
        let result = client
            .call_tool("test_simple_text", serde_json::json!({}))
            .await;
        assert!(result.expect("answered").is_error.is_none());
    }
    let _ = dev.kill().await;
}
