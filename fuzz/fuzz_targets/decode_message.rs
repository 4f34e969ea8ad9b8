//! Newline-delimited JSON-RPC, end to end.
//!
//! Each line of the input is first classified on its own (`JsonRpcMessage::from_slice`,
//! which must never panic and whose successes must survive a round trip), then the whole
//! input is written line by line to a server on the line transport, after a valid
//! `initialize` (`$TASK` in a line becomes the id of the last task the server announced).
//! The server must not panic, must write nothing but well-formed JSON-RPC
//! messages, must still answer a `ping` afterwards, and must shut down when the client
//! hangs up.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tracksuit::protocol::JsonRpcMessage;
use tracksuit::transport::io::LineTransport;
use tracksuit_fuzz::{
    INITIALIZE, INITIALIZED, PING, assert_valid_message, expand_task, is_ping_answer, task_id_of,
};

/// Lines longer than this are refused by the server (`-32600`); small, so the fuzzer can
/// reach the over-long-line path.
const MAX_LINE: usize = 2048;

/// Virtual time (the clock is paused) the server gets to answer the final ping. Far more
/// than every timeout the server sets, so hitting it means the session is wedged.
const DEADLINE: Duration = Duration::from_secs(24 * 3600);

fuzz_target!(|data: &[u8]| {
    for line in data.split(|b| *b == b'\n') {
        classify(line.trim_ascii());
    }
    tracksuit_fuzz::runtime().block_on(serve(data));
});

/// One line through the framing layer alone.
fn classify(line: &[u8]) {
    let Ok(message) = JsonRpcMessage::from_slice(line) else {
        return;
    };
    let again = JsonRpcMessage::from_slice(&message.to_vec())
        .unwrap_or_else(|e| panic!("{message:?} does not survive a round trip: {e}"));
    let shape = |m: &JsonRpcMessage| match m {
        JsonRpcMessage::Request(r) => (0, Some(r.id.clone()), Some(r.method.clone())),
        JsonRpcMessage::Notification(n) => (1, None, Some(n.method.clone())),
        JsonRpcMessage::Response(r) => (2, Some(r.id.clone()), None),
        JsonRpcMessage::Error(e) => (3, e.id.clone(), None),
    };
    assert_eq!(
        shape(&message),
        shape(&again),
        "round trip changed the message"
    );
}

async fn serve(data: &[u8]) {
    let (client, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let transport = LineTransport::new(server_read, server_write).max_message_size(MAX_LINE);
    let serving = tokio::spawn(tracksuit_fuzz::server().serve(transport));
    let (client_read, mut client_write) = tokio::io::split(client);

    let input = data.to_vec();
    let task = Arc::new(Mutex::new(String::new()));
    let last_task = task.clone();
    let writer = tokio::spawn(async move {
        for line in [INITIALIZE, INITIALIZED] {
            client_write.write_all(line.as_bytes()).await.ok()?;
            client_write.write_all(b"\n").await.ok()?;
        }
        // Line by line, yielding in between, so that handlers run (and send their own
        // requests) before the next line arrives: answers to server→client requests in the
        // input then find the request they answer.
        for line in input.split_inclusive(|b| *b == b'\n') {
            let line = expand_task(line, &last_task.lock().expect("unpoisoned"));
            client_write.write_all(&line).await.ok()?;
            for _ in 0..8 {
                tokio::task::yield_now().await;
            }
        }
        client_write.write_all(b"\n").await.ok()?;
        client_write.write_all(PING.as_bytes()).await.ok()?;
        client_write.write_all(b"\n").await.ok()?;
        Some(client_write)
    });

    let mut reader = BufReader::new(client_read);
    let mut line = Vec::new();
    let answered = tokio::time::timeout(DEADLINE, async {
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return false,
                Ok(_) => {}
            }
            let message = assert_valid_message(line.trim_ascii());
            if is_ping_answer(&message) {
                return true;
            }
            if let Some(id) = task_id_of(&message) {
                *task.lock().expect("unpoisoned") = id;
            }
        }
    })
    .await;
    assert_eq!(
        answered,
        Ok(true),
        "the server stopped answering (Err: wedged, false: closed the connection)"
    );

    // Hang up; the server must finish writing, close its end and return.
    if let Some(mut client_write) = writer.await.expect("the writer task") {
        let _ = client_write.shutdown().await;
    }
    let drained = tokio::time::timeout(DEADLINE, async {
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    assert_valid_message(line.trim_ascii());
                }
            }
        }
    })
    .await;
    assert!(drained.is_ok(), "the server kept its end open after EOF");
    let done = tokio::time::timeout(DEADLINE, serving).await;
    assert!(
        matches!(done, Ok(Ok(Ok(())))),
        "serve did not return after EOF"
    );
}
