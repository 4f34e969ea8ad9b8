//! Streamable HTTP, driven through the axum `Router` as a tower service (no sockets):
//! the session lifecycle, SSE framing and resumption, JSON mode, stateless mode, and every
//! HTTP bad-input row (400, 403, 404, 406, 413, 415).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures::StreamExt;
use serde_json::{Value, json};
use std::time::Duration;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{Server, ServerHandle, ToolFn};
use tracksuit_tests::support::{obj, wait_until, within};

#[path = "http_requests.rs"]
mod http_requests;
use http_requests::*;

/// Holds the `reconnect` tool's result back until the test has reconnected.
static RECONNECTED: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);

fn server() -> ServerHandle {
    Server::new(Implementation::new("http-test", "1"))
        .tool(ToolFn::new(
            Tool::new("hello", obj(json!({"type":"object"}))),
            |ctx, _| async move {
                ctx.log(LoggingLevel::Info, "saying hello").await;
                Ok(CallToolResult::text("hello"))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("reconnect", obj(json!({"type":"object"}))),
            |ctx, _| async move {
                ctx.close_sse_stream();
                let _ = RECONNECTED.acquire().await.map(|p| p.forget());
                Ok(CallToolResult::text("after reconnect"))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("slow", obj(json!({"type":"object"}))),
            |_, _| async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(CallToolResult::text("too late"))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("ask", obj(json!({"type":"object"}))),
            |ctx, _| async move {
                let roots = ctx.list_roots().await?;
                Ok(CallToolResult::text(format!("{} roots", roots.roots.len())))
            },
        ))
        .build()
        .expect("the test server's names are distinct")
}

/// Calls `hello` in `session` and returns the result's text.
async fn call_hello(app: &axum::Router, session: &str) -> Value {
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{}}});
    let resp = send(app, post(&call.to_string(), Some(session))).await;
    assert_eq!(resp.status(), StatusCode::OK, "session {session} serves");
    let events = sse_events(resp, 2).await;
    let v: Value = serde_json::from_str(&events.last().expect("event").1).expect("json");
    v["result"]["content"][0]["text"].clone()
}

/// Waits until `http` has no session left.
async fn until_no_sessions(http: &StreamableHttp) {
    wait_until(
        || http.session_count() == 0,
        "the sweeper dropped every session",
    )
    .await;
}

fn app() -> axum::Router {
    StreamableHttp::new(server(), HttpOptions::default()).router("/mcp")
}

#[tokio::test]
async fn session_lifecycle_and_sse_call() {
    let app = app();
    let session = initialize(&app).await;
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{}}});
    let resp = send(&app, post(&call.to_string(), Some(&session))).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let events = sse_events(resp, 2).await;
    let log: Value = serde_json::from_str(&events[1].1).expect("json");
    assert_eq!(
        log["method"], "notifications/message",
        "the log rides the call's stream"
    );
    let result: Value = serde_json::from_str(&events[2].1).expect("json");
    assert_eq!(result["result"]["content"][0]["text"], "hello");

    assert_eq!(send(&app, delete(&session)).await.status(), StatusCode::OK);
    let again = send(&app, post(&call.to_string(), Some(&session))).await;
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn closed_stream_resumes_with_last_event_id() {
    let app = app();
    let session = initialize(&app).await;
    let call = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"reconnect","arguments":{}}});
    let resp = send(&app, post(&call.to_string(), Some(&session))).await;
    // The server closes the call's stream while the tool still runs: the body ends, with
    // nothing but the priming event in it.
    let text = body_to_end(resp, "the server closes the call's stream").await;
    assert_eq!(
        text.matches("\n\n").count(),
        1,
        "only the priming event before the server closed the stream: {text}"
    );
    let last = text
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("the priming event's id")
        .to_owned();
    let get = Request::get("/mcp")
        .header("host", "localhost")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", &last)
        .body(Body::empty())
        .expect("req");
    let resumed = send(&app, get).await;
    assert_eq!(resumed.status(), StatusCode::OK);
    // Reconnected: now the tool may finish, and its result comes on the resumed stream.
    RECONNECTED.add_permits(1);
    let events = sse_events(resumed, 1).await;
    let result: Value = serde_json::from_str(&events[0].1).expect("json");
    assert_eq!(result["id"], 7);
    assert_eq!(result["result"]["content"][0]["text"], "after reconnect");
}

#[tokio::test]
async fn server_to_client_request_goes_on_the_post_stream() {
    let app = app();
    let session = initialize(&app).await;
    let call = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{}}});
    let resp = send(&app, post(&call.to_string(), Some(&session))).await;
    let mut stream = resp.into_body().into_data_stream();
    let mut seen = String::new();
    let request = loop {
        let chunk = within("the roots/list request arrives", stream.next())
            .await
            .expect("open")
            .expect("chunk");
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if let Some(line) = seen.lines().find(|l| l.contains("roots/list")) {
            let v: Value = serde_json::from_str(line.trim_start_matches("data: ")).expect("json");
            break v;
        }
    };
    let answer =
        json!({"jsonrpc":"2.0","id":request["id"],"result":{"roots":[{"uri":"file:///tmp"}]}});
    assert_eq!(
        send(&app, post(&answer.to_string(), Some(&session)))
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    let rest = within("the call's result arrives", stream.next())
        .await
        .expect("open")
        .expect("chunk");
    assert!(String::from_utf8_lossy(&rest).contains("1 roots"));
}

#[tokio::test]
async fn json_response_and_stateless_modes() {
    let app =
        StreamableHttp::new(server(), HttpOptions::default().json_response(true)).router("/mcp");
    let resp = send(&app, post(&init_body(), None)).await;
    assert_eq!(resp.headers()["content-type"], "application/json");
    let session = resp.headers()["mcp-session-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert_eq!(
        body_json(resp).await["result"]["protocolVersion"],
        "2025-11-25"
    );
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{}}});
    let resp = send(&app, post(&call.to_string(), Some(&session))).await;
    assert_eq!(
        body_json(resp).await["result"]["content"][0]["text"],
        "hello"
    );

    let app = StreamableHttp::new(
        server(),
        HttpOptions::default().stateless(true).json_response(true),
    )
    .router("/mcp");
    let resp = send(&app, post(&call.to_string(), None)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(!resp.headers().contains_key("mcp-session-id"));
    assert_eq!(
        body_json(resp).await["result"]["content"][0]["text"],
        "hello"
    );
    let ask = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}});
    let v = body_json(send(&app, post(&ask.to_string(), None)).await).await;
    assert_eq!(
        v["result"]["isError"], true,
        "stateless sessions cannot ask the client: {v}"
    );
}

#[tokio::test]
async fn a_stateless_endpoint_streams_what_a_call_sends_before_its_answer() {
    let app = StreamableHttp::new(server(), HttpOptions::default().stateless(true)).router("/mcp");
    let call = json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hello","arguments":{}}});
    let resp = send(&app, post(&call.to_string(), None)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(!resp.headers().contains_key("mcp-session-id"));
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let messages: Vec<Value> = sse_events(resp, 2)
        .await
        .into_iter()
        .filter(|(_, data)| !data.is_empty())
        .map(|(_, data)| serde_json::from_str(&data).expect("JSON"))
        .collect();
    assert_eq!(
        messages[0]["method"], "notifications/message",
        "the log rides the call's stream, before the answer: {messages:?}"
    );
    assert_eq!(messages[1]["id"], 4);
    assert_eq!(messages[1]["result"]["content"][0]["text"], "hello");
    // An answer with nothing before it is one JSON body.
    let ping = json!({"jsonrpc":"2.0","id":5,"method":"ping"});
    let resp = send(&app, post(&ping.to_string(), None)).await;
    assert_eq!(resp.headers()["content-type"], "application/json");
    assert_eq!(
        body_json(resp).await,
        json!({"jsonrpc":"2.0","id":5,"result":{}})
    );
    // A notification means nothing without a session: accepted, and the endpoint goes on.
    let note = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    let resp = send(&app, post(&note.to_string(), None)).await;
    assert_eq!(resp.status(), StatusCode::ACCEPTED);
    let unknown = json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope","arguments":{}}});
    let v = body_json(send(&app, post(&unknown.to_string(), None)).await).await;
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(6), json!(-32602)),
        "{v}"
    );
}

#[tokio::test]
async fn bad_http_input_gets_the_right_status_and_the_server_keeps_serving() {
    let app =
        StreamableHttp::new(server(), HttpOptions::default().max_body_size(1024)).router("/mcp");
    let session = initialize(&app).await;
    let ping = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;

    // 400: no session id on a non-initialize request.
    assert_eq!(
        send(&app, post(ping, None)).await.status(),
        StatusCode::BAD_REQUEST
    );
    // 404: unknown session.
    assert_eq!(
        send(&app, post(ping, Some("deadbeef"))).await.status(),
        StatusCode::NOT_FOUND
    );
    // 400 + -32700: not JSON.
    let resp = send(&app, post("{oops", Some(&session))).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert_eq!(body_json(resp).await["error"]["code"], PARSE_ERROR);
    // 400 + -32600: a batch.
    let resp = send(&app, post(&format!("[{ping}]"), Some(&session))).await;
    assert_eq!(body_json(resp).await["error"]["code"], INVALID_REQUEST);
    // 413: over the body limit.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(4096)
    );
    assert_eq!(
        send(&app, post(&big, Some(&session))).await.status(),
        StatusCode::PAYLOAD_TOO_LARGE
    );
    // 415: wrong content type.
    let req = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "text/plain")
        .header("accept", ACCEPT_BOTH)
        .header("mcp-session-id", &session)
        .body(Body::from(ping))
        .expect("req");
    assert_eq!(
        send(&app, req).await.status(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    // 406: missing Accept.
    let req = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .body(Body::from(ping))
        .expect("req");
    assert_eq!(send(&app, req).await.status(), StatusCode::NOT_ACCEPTABLE);
    // 403: bad Origin, bad Host.
    let mut req = post(ping, Some(&session));
    req.headers_mut()
        .insert("origin", "http://evil.example".parse().expect("hv"));
    assert_eq!(send(&app, req).await.status(), StatusCode::FORBIDDEN);
    let mut req = post(ping, Some(&session));
    req.headers_mut()
        .insert("host", "evil.example:80".parse().expect("hv"));
    assert_eq!(send(&app, req).await.status(), StatusCode::FORBIDDEN);
    // 400: unsupported protocol version header; supported ones pass.
    let mut req = post(ping, Some(&session));
    req.headers_mut()
        .insert("mcp-protocol-version", "1999-01-01".parse().expect("hv"));
    assert_eq!(send(&app, req).await.status(), StatusCode::BAD_REQUEST);
    for (i, v) in ["2025-11-25", "2025-06-18", "2025-03-26"]
        .into_iter()
        .enumerate()
    {
        // Ids are never reused within a session.
        let ping = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#, 20 + i);
        let mut req = post(&ping, Some(&session));
        req.headers_mut()
            .insert("mcp-protocol-version", v.parse().expect("hv"));
        assert_eq!(
            send(&app, req).await.status(),
            StatusCode::OK,
            "version {v}"
        );
    }
    // 405: other methods.
    let req = Request::put("/mcp")
        .header("host", "localhost")
        .body(Body::empty())
        .expect("req");
    assert_eq!(
        send(&app, req).await.status(),
        StatusCode::METHOD_NOT_ALLOWED
    );

    // After all that, the session still serves, and so does a new one.
    let resp = send(&app, post(ping, Some(&session))).await;
    let events = sse_events(resp, 1).await;
    let v: Value = serde_json::from_str(&events.last().expect("event").1).expect("json");
    assert_eq!(v["result"], json!({}));
    let other = initialize(&app).await;
    assert_ne!(other, session);
    assert_eq!(call_hello(&app, &other).await, "hello");
}

/// The clock is paused so the background sweeper (a tokio timer) stays out of the way: only
/// `expire_idle_sessions` expires here. Idleness is measured on the wall clock: with a zero
/// timeout a session is idle past it at once, with the default half hour it is not.
#[tokio::test(start_paused = true)]
async fn idle_sessions_expire() {
    let ping = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;
    let http = StreamableHttp::new(server(), HttpOptions::default());
    let app = http.router("/mcp");
    let session = initialize(&app).await;
    assert_eq!(http.expire_idle_sessions(), 0, "a fresh session is kept");
    assert_eq!(http.session_count(), 1);
    assert_eq!(
        send(&app, post(ping, Some(&session))).await.status(),
        StatusCode::OK
    );

    let http = StreamableHttp::new(
        server(),
        HttpOptions::default().session_idle_timeout(Duration::ZERO),
    );
    let app = http.router("/mcp");
    let session = initialize(&app).await;
    assert_eq!(http.session_count(), 1);
    assert_eq!(http.expire_idle_sessions(), 1);
    assert_eq!(http.session_count(), 0);
    assert_eq!(
        send(&app, post(ping, Some(&session))).await.status(),
        StatusCode::NOT_FOUND
    );
}

/// A burst of sessions closing down starts the release of freed memory (glibc
/// `malloc_trim`) in the background; the endpoint keeps serving meanwhile and afterwards.
/// The release waits on tokio timers; the clock is paused and the test moves it.
#[tokio::test(start_paused = true)]
async fn a_subsided_burst_of_sessions_keeps_serving_while_memory_is_released() {
    let http = StreamableHttp::new(server(), HttpOptions::default());
    let app = http.router("/mcp");
    let mut sessions = Vec::new();
    for _ in 0..80 {
        sessions.push(initialize(&app).await);
    }
    for session in sessions.drain(..70) {
        assert_eq!(send(&app, delete(&session)).await.status(), StatusCode::OK);
    }
    assert_eq!(http.session_count(), 10);
    // The release is scheduled once the count fell to a quarter of the peak (20). A second
    // later the count has fallen further (10): still waiting; a second after that it has
    // held still, and memory is released.
    clock_moves_on(Duration::from_millis(1500)).await;
    for session in &sessions {
        assert_eq!(call_hello(&app, session).await, "hello", "release waiting");
    }
    clock_moves_on(Duration::from_secs(1)).await;
    for session in &sessions {
        assert_eq!(call_hello(&app, session).await, "hello", "released");
    }
    // The watch ends after 30 quiet periods.
    clock_moves_on(Duration::from_secs(30)).await;
    for session in sessions.iter().chain([&initialize(&app).await]) {
        assert_eq!(call_hello(&app, session).await, "hello", "watch over");
    }
}

/// Moves the paused clock on by `by`: the runtime jumps from one timer to the next as it
/// falls due, running what each wakes (and not while a blocking task such as the memory
/// release runs), so every timer before `by` has fired and its work is done when this
/// returns. No wall-clock time passes.
async fn clock_moves_on(by: Duration) {
    let wall = std::time::Instant::now();
    // (Only a sleep waits for the timers it passes to fire; `advance` would not.)
    tokio::time::sleep(by).await;
    assert!(wall.elapsed() < by, "the tokio clock is paused");
}

/// An idle server still drops sessions whose clients vanished: before, expiry only ran when
/// the next session was created, so a burst of clients that never sent `DELETE` stayed in
/// memory until another client came.
#[tokio::test]
async fn idle_sessions_expire_without_new_traffic() {
    let http = StreamableHttp::new(
        server(),
        HttpOptions::default().session_idle_timeout(Duration::from_millis(50)),
    );
    let app = http.router("/mcp");
    initialize(&app).await;
    initialize(&app).await;
    assert_eq!(http.session_count(), 2);
    until_no_sessions(&http).await;
    assert_eq!(http.session_count(), 0, "swept in the background");
    // The sweeper ended with the last session; a new session starts it again.
    initialize(&app).await;
    assert_eq!(http.session_count(), 1);
    until_no_sessions(&http).await;
    assert_eq!(http.session_count(), 0, "swept again");
}

/// Found by the robustness benchmark: a cancelled call's SSE stream stayed open until the
/// client gave up, and its request id stayed "in flight" for the session's lifetime.
#[tokio::test]
async fn a_cancelled_call_ends_its_stream_without_a_response_and_frees_its_id() {
    let app = app();
    let session = initialize(&app).await;
    let call =
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#;
    let resp = send(&app, post(call, Some(&session))).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let cancel = post(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}"#,
        Some(&session),
    );
    assert_eq!(send(&app, cancel).await.status(), StatusCode::ACCEPTED);
    let text = body_to_end(resp, "the cancelled call's stream ends").await;
    assert!(
        !text.contains("too late") && !text.contains("\"result\""),
        "{text}"
    );
    // The id is free again.
    let again = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hello","arguments":{}}}"#;
    let resp = send(&app, post(again, Some(&session))).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let events = sse_events(resp, 2).await;
    assert!(
        events.iter().any(|(_, d)| d.contains("\"hello\"")),
        "{events:?}"
    );
}

/// The status and JSON-RPC error body of a refused POST of `body`.
async fn refusal(app: &axum::Router, body: &str, session: Option<&str>) -> (StatusCode, Value) {
    let resp = send(app, post(body, session)).await;
    let status = resp.status();
    (status, body_json(resp).await)
}

/// The `id` member of a response (`None` if it has none: never acceptable for a response).
fn id_member(v: &Value) -> Option<&Value> {
    v.as_object()?.get("id")
}

#[tokio::test]
async fn error_bodies_carry_the_request_id_when_it_can_be_read_and_null_otherwise() {
    let app =
        StreamableHttp::new(server(), HttpOptions::default().max_body_size(1024)).router("/mcp");
    let session = initialize(&app).await;
    let s = Some(session.as_str());

    // Nothing readable: 400 with `"id": null`, present.
    for (garbage, code) in [
        ("{oops", PARSE_ERROR),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            INVALID_REQUEST,
        ),
    ] {
        let (status, v) = refusal(&app, garbage, s).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{garbage}");
        assert_eq!(v["error"]["code"], code, "{garbage}: {v}");
        assert_eq!(id_member(&v), Some(&Value::Null), "{garbage}: {v}");
    }
    // An invalid request whose id can be read: that id.
    let (status, v) = refusal(&app, r#"{"jsonrpc":"2.0","id":41}"#, s).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (v["error"]["code"].clone(), v["id"].clone()),
        (json!(INVALID_REQUEST), json!(41))
    );
    let (_, v) = refusal(&app, r#"{"jsonrpc":"1.0","id":"old","method":"ping"}"#, s).await;
    assert_eq!(
        (v["error"]["code"].clone(), v["id"].clone()),
        (json!(INVALID_REQUEST), json!("old"))
    );
    // `params` as a string: answered with its id.
    let (status, v) = refusal(
        &app,
        r#"{"jsonrpc":"2.0","id":42,"method":"tools/list","params":"all"}"#,
        s,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(v["id"], 42, "{v}");
    assert!([INVALID_REQUEST, INVALID_PARAMS].contains(&v["error"]["code"].as_i64().unwrap_or(0)));
    // `"id": null`: not a notification (that would be 202 and no answer) but 400 + -32600.
    let (status, v) = refusal(&app, r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, s).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(v["error"]["code"], INVALID_REQUEST, "{v}");
    assert_eq!(id_member(&v), Some(&Value::Null), "{v}");
    // 413: the body is never read, so null.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":43,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(4096)
    );
    let (status, v) = refusal(&app, &big, s).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(v["error"]["code"], INVALID_REQUEST, "{v}");
    assert_eq!(id_member(&v), Some(&Value::Null), "{v}");
    // Refused on the session after the body was read: the request's id.
    let ping = r#"{"jsonrpc":"2.0","id":44,"method":"ping"}"#;
    let (status, v) = refusal(&app, ping, None).await;
    assert_eq!(
        (status, v["id"].clone()),
        (StatusCode::BAD_REQUEST, json!(44))
    );
    let (status, v) = refusal(&app, ping, Some("deadbeef")).await;
    assert_eq!(
        (status, v["id"].clone()),
        (StatusCode::NOT_FOUND, json!(44))
    );
    let (status, v) = refusal(&app, &init_body(), s).await;
    assert_eq!(
        (status, v["id"].clone()),
        (StatusCode::BAD_REQUEST, json!(0))
    );
    // …and null for what has no id (a notification).
    let (status, v) = refusal(
        &app,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(id_member(&v), Some(&Value::Null), "{v}");
    // Refused before the body is looked at (here 415): null.
    let req = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "text/plain")
        .header("accept", ACCEPT_BOTH)
        .header("mcp-session-id", &session)
        .body(Body::from(ping))
        .expect("req");
    let resp = send(&app, req).await;
    assert_eq!(resp.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(id_member(&body_json(resp).await), Some(&Value::Null));

    // A long unknown method name comes back cut short.
    let long = json!({"jsonrpc":"2.0","id":45,"method":"x".repeat(600)}).to_string();
    let events = sse_events(send(&app, post(&long, s)).await, 1).await;
    let v: Value = serde_json::from_str(&events.last().expect("event").1).expect("json");
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(45), json!(METHOD_NOT_FOUND))
    );
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("Method not found: xxx") && message.ends_with('…'),
        "{message}"
    );
    assert!(message.chars().count() < 200, "{message}");

    // The session still serves.
    assert_eq!(call_hello(&app, &session).await, "hello");
}
