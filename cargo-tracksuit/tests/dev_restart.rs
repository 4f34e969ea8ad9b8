//! `cargo tracksuit dev` restarting the conformance example while tracksuit's client stays
//! connected over stdio, in both eras. The restart is provoked by touching the example's
//! source (its modification time only: cargo rebuilds the binary, the content is unchanged).
//! Checked: a call running at the restart gets `-32603`; a 2025 session gets the list
//! changes of every list the server has and goes on (its `initialize` was replayed); a 2026
//! subscription gets the list changes it asked for and stays open.

mod support;

use serde_json::json;
use std::time::{Duration, SystemTime};
use support::{BIN, conformance, workspace};
use tokio::sync::broadcast;
use tracksuit::RequestError;
use tracksuit::client::{ChildTransport, Client, Era, SubscriptionFilter};
use tracksuit::protocol::*;

const DEADLINE: Duration = Duration::from_secs(240);

async fn dev(era: Era) -> Client {
    let manifest = workspace().join("examples/Cargo.toml");
    let mut command = tokio::process::Command::new(BIN);
    command
        .args(["tracksuit", "dev", "--manifest-path"])
        .arg(manifest)
        .args(["--bin", "conformance", "--", "--stdio"])
        .stderr(std::process::Stdio::null());
    let transport = ChildTransport::spawn(command).expect("cargo tracksuit dev starts");
    Client::builder()
        .era(era)
        .timeout(DEADLINE)
        .connect(transport)
        .await
        .expect("connects through dev")
}

/// A new modification time on the example's source: the next build is not fresh.
fn touch_source() {
    let path = workspace().join("examples/src/bin/conformance.rs");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("the source opens");
    file.set_modified(SystemTime::now())
        .expect("its time is set");
}

/// Waits until every method of `wanted` arrived on `notes`.
async fn await_methods(notes: &mut broadcast::Receiver<JsonRpcNotification>, wanted: &[&str]) {
    let mut missing: Vec<&str> = wanted.to_vec();
    tokio::time::timeout(DEADLINE, async {
        while !missing.is_empty() {
            let Ok(note) = notes.recv().await else {
                continue;
            };
            missing.retain(|m| *m != note.method);
        }
    })
    .await
    .unwrap_or_else(|_| panic!("still missing {missing:?}"));
}

/// A call the server is still running when it is replaced.
async fn cut_short(client: &Client, restart: impl Future<Output = ()>) {
    let slow = client.call_tool("test_tool_slow", json!({"durationMs": 120_000}));
    let (slow, ()) = tokio::join!(slow, restart);
    let Err(RequestError::Peer(error)) = slow else {
        panic!("the running call should fail: {slow:?}");
    };
    assert_eq!(error.code, -32603);
    assert!(error.message.contains("restarted"), "{}", error.message);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restart_keeps_both_eras_connected_and_tells_them() {
    conformance();

    // 2025-11-25: the session survives; every list the server has is announced.
    let client = dev(Era::Session).await;
    client
        .subscribe("test://static-text")
        .await
        .expect("resources/subscribe");
    let mut notes = client.notifications();
    cut_short(&client, async {
        touch_source();
        let all = [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
        ];
        await_methods(&mut notes, &all).await;
    })
    .await;
    let answer = client
        .call_tool("test_simple_text", json!({}))
        .await
        .expect("served again");
    assert_eq!(
        answer.content[0].as_text(),
        Some("This is a simple text response for testing.")
    );
    let read = client
        .read_resource("test://static-text")
        .await
        .expect("resources/read");
    assert!(!read.contents.is_empty());
    drop(client);

    // 2026-07-28: the open subscription is carried over and told what it asked for.
    let client = dev(Era::Stateless).await;
    let filter = SubscriptionFilter::default()
        .tools_list_changed()
        .prompts_list_changed();
    let mut subscription = client
        .subscribe_to(filter)
        .await
        .expect("subscriptions/listen");
    cut_short(&client, async {
        touch_source();
        let mut seen = Vec::new();
        while seen.len() < 2 {
            let next = tokio::time::timeout(DEADLINE, subscription.next()).await;
            let note = next.expect("in time").expect("the subscription stays open");
            seen.push(note.method);
        }
        seen.sort();
        let expected = [
            "notifications/prompts/list_changed",
            "notifications/tools/list_changed",
        ];
        assert_eq!(seen, expected);
    })
    .await;
    let answer = client
        .call_tool("test_simple_text", json!({}))
        .await
        .expect("served again");
    assert_eq!(
        answer.content[0].as_text(),
        Some("This is a simple text response for testing.")
    );
}
