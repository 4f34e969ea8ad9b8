//! The floor: what one call costs with nothing but serde_json (parse the request, serialise
//! the response, typed), against tracksuit serving the same call in-process.

use crate::payload::{Requests, Tool};
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};
use tracksuit::protocol::JsonRpcMessage;
use tracksuit::transport::memory;
use tracksuit::transport::{MessageSink, MessageStream, Transport};

#[derive(Deserialize)]
#[allow(dead_code)]
struct FloorRequest<A> {
    jsonrpc: String,
    id: u64,
    method: String,
    params: FloorParams<A>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct FloorParams<A> {
    name: String,
    arguments: A,
}

#[derive(Deserialize)]
struct EchoArgs {
    text: String,
}

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Serialize)]
struct FloorResponse<R> {
    jsonrpc: &'static str,
    id: u64,
    result: R,
}

#[derive(Serialize)]
struct TextContent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct EchoResult<'a> {
    content: [TextContent<'a>; 1],
}

#[derive(Serialize)]
struct Sum {
    sum: i64,
}

#[derive(Serialize)]
struct AddResult<'a> {
    content: [TextContent<'a>; 1],
    #[serde(rename = "structuredContent")]
    structured_content: Sum,
}

/// Per-call time of the serde_json floor for `tool`: typed parse of the request bytes,
/// typed serialisation of the response (for `add`, including the JSON text content).
pub fn serde_floor(tool: Tool, iterations: u32) -> Duration {
    let requests = Requests::default();
    let line = requests.call(tool, 7);
    let bytes = line.as_bytes();
    let mut out = Vec::with_capacity(4096);
    let started = Instant::now();
    for _ in 0..iterations {
        out.clear();
        match tool {
            Tool::Echo => {
                let req: FloorRequest<EchoArgs> =
                    serde_json::from_slice(black_box(bytes)).expect("floor request");
                let response = FloorResponse {
                    jsonrpc: "2.0",
                    id: req.id,
                    result: EchoResult {
                        content: [TextContent {
                            kind: "text",
                            text: &req.params.arguments.text,
                        }],
                    },
                };
                serde_json::to_writer(&mut out, &response).expect("floor response");
            }
            Tool::Add => {
                let req: FloorRequest<AddArgs> =
                    serde_json::from_slice(black_box(bytes)).expect("floor request");
                let sum = Sum {
                    sum: req.params.arguments.a + req.params.arguments.b,
                };
                let text = serde_json::to_string(&sum).expect("sum");
                let response = FloorResponse {
                    jsonrpc: "2.0",
                    id: req.id,
                    result: AddResult {
                        content: [TextContent {
                            kind: "text",
                            text: &text,
                        }],
                        structured_content: sum,
                    },
                };
                serde_json::to_writer(&mut out, &response).expect("floor response");
            }
        }
        black_box(&out);
    }
    started.elapsed() / iterations
}

/// Per-call time of the tracksuit server over its in-memory transport: a decoded
/// `tools/call` goes in, the response message comes out (no bytes on either side).
pub async fn tracksuit_in_memory(tool: Tool, iterations: u32) -> Duration {
    let (server_end, client_end) = memory::pair();
    tokio::spawn(crate::tracksuit_tools::server().serve(server_end));
    let (mut rx, mut tx) = client_end.split();
    let message = |line: &str| serde_json::from_str::<JsonRpcMessage>(line).expect("message");
    tx.send(message(&Requests::initialize(0)))
        .await
        .expect("send");
    let _ = rx.next().await;
    tx.send(message(Requests::initialized()))
        .await
        .expect("send");
    let requests = Requests::default();
    let call = message(&requests.call(tool, 7));
    // The client loop runs as a task beside the server's: woken by the server's answer, it
    // is scheduled like any task. Awaited directly in `block_on` instead, each answer would
    // wake the runtime's parked thread through its I/O driver (an eventfd write and an
    // epoll round per call), a cost of how the loop is driven rather than of the server.
    let client = tokio::spawn(async move {
        let mut run = async |n: u32| {
            for _ in 0..n {
                tx.send(call.clone()).await.expect("send");
                match rx.next().await {
                    Some(Ok(JsonRpcMessage::Response(r))) => {
                        black_box(r);
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
        };
        run(iterations / 10).await;
        let started = Instant::now();
        run(iterations).await;
        started.elapsed() / iterations
    });
    client.await.expect("the client loop")
}

/// Per-call time through tracksuit's own client and server, both in-process.
pub async fn tracksuit_client_in_memory(tool: Tool, iterations: u32) -> Duration {
    let client = tracksuit::host::connect_in_memory(
        crate::tracksuit_tools::server(),
        tracksuit::client::Client::builder(),
    )
    .await
    .expect("connect");
    let text = crate::payload::echo_text();
    let args = match tool {
        Tool::Echo => serde_json::json!({ "text": text }),
        Tool::Add => serde_json::json!({ "a": 7, "b": 14 }),
    };
    for _ in 0..iterations / 10 {
        black_box(
            client
                .call_tool(tool.name(), args.clone())
                .await
                .expect("call"),
        );
    }
    let started = Instant::now();
    for _ in 0..iterations {
        black_box(
            client
                .call_tool(tool.name(), args.clone())
                .await
                .expect("call"),
        );
    }
    started.elapsed() / iterations
}
