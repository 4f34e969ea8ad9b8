//! The 3-round MRTR call in process, for profilers: `mrtr_inprocess [N]` makes N whole
//! `three_rounds` calls (four POSTs each) through the twin's router with
//! `tower::ServiceExt::oneshot`, on one thread, and prints the time they took. No sockets
//! and no second process, so `perf record`, `valgrind --tool=callgrind` or two builds timed
//! back to back (`taskset -c 1`) show the server's own work per call; the driver's rows
//! remain the measure of record.

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt as _;
use serde_json::{Map, Value, json};
use tower::ServiceExt as _;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit_bench::payload::Requests;

fn main() {
    let calls: u64 = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("N: a number of calls"))
        .unwrap_or(2000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async move {
        let server = tracksuit_bench::tracksuit_tools::server();
        let app = StreamableHttp::new(server, HttpOptions::default()).router("/mcp");
        let started = std::time::Instant::now();
        for call in 0..calls {
            let mut retry: Option<(String, Option<String>)> = None;
            for post in 0..4u64 {
                let body = Requests::three_rounds(
                    call * 4 + post,
                    retry.as_ref().map(|(r, s)| (r.as_str(), s.as_deref())),
                );
                let request = Request::post("/mcp")
                    .header("host", "127.0.0.1:9101")
                    .header("accept", "application/json, text/event-stream")
                    .header("content-type", "application/json")
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "tools/call")
                    .header("mcp-name", "three_rounds")
                    .body(Body::from(body))
                    .expect("a request");
                let response = app.clone().oneshot(request).await.expect("infallible");
                let bytes = response
                    .into_body()
                    .collect()
                    .await
                    .expect("a body")
                    .to_bytes();
                let reply: Value = serde_json::from_slice(&bytes).expect("JSON");
                let result = &reply["result"];
                if post == 3 {
                    assert_eq!(result["content"][0]["text"], "a1, a2, a3", "{reply}");
                    continue;
                }
                let questions = result["inputRequests"].as_object().expect("input_required");
                let answers: Map<String, Value> = questions
                    .keys()
                    .map(|key| {
                        let answer = format!("a{}", post + 1);
                        (
                            key.clone(),
                            json!({"action": "accept", "content": {"answer": answer}}),
                        )
                    })
                    .collect();
                let state = result["requestState"].as_str().map(str::to_owned);
                retry = Some((Value::Object(answers).to_string(), state));
            }
        }
        eprintln!("{calls} calls in {:?}", started.elapsed());
    });
}
