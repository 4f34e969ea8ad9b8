//! tracksuit's client against tracksuit's own servers on real sockets and processes: over
//! Streamable HTTP in both eras (a 2025-11-25 session with server requests on the response
//! stream, the standalone GET stream and resumption after a dropped stream; 2026-07-28 with
//! `server/discover`, MRTR and its round cap), and over a stdio child process.

use serde_json::json;
use tokio::net::TcpListener;
use tracksuit::client::{ChildTransport, Client, ClientBuilder, Era, HttpTransport};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{RequestError, Server, ServerHandle, ToolFn};
use tracksuit_tests::support::{obj, text, wait_for, within};

fn server() -> ServerHandle {
    Server::new(Implementation::new("client-http-test", "1"))
        .tool(ToolFn::new(
            Tool::new("hello", obj(json!({"type": "object"}))),
            |ctx, _| async move {
                ctx.progress(1.0, Some(1.0), Some("done")).await;
                Ok(CallToolResult::text("hello"))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("ask", obj(json!({"type": "object"}))),
            |ctx, _| async move {
                let roots = ctx.list_roots().await?;
                Ok(CallToolResult::text(format!("{} roots", roots.roots.len())))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("ask_twice", obj(json!({"type": "object"}))),
            |ctx, _| async move {
                let first = ctx.list_roots().await?;
                let second = ctx.list_roots().await?;
                let n = first.roots.len() + second.roots.len();
                Ok(CallToolResult::text(format!("{n} roots")))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("reconnect", obj(json!({"type": "object"}))),
            |ctx, _| async move {
                // The client must resume this stream (GET + Last-Event-ID) to see the
                // question and the result sent after it was closed.
                ctx.close_sse_stream();
                let roots = ctx.list_roots().await?;
                Ok(CallToolResult::text(format!(
                    "resumed, {} roots",
                    roots.roots.len()
                )))
            },
        ))
        .tool(ToolFn::new(
            Tool::new(
                "region",
                obj(json!({"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"}
                }})),
            ),
            |_ctx, args| async move {
                let region = args
                    .get("region")
                    .and_then(|r| r.as_str())
                    .unwrap_or("none");
                Ok(CallToolResult::text(format!("region {region}")))
            },
        ))
        .build()
        .expect("distinct names")
}

/// Serves `server` on a loopback port; returns the endpoint URL.
async fn start(server: ServerHandle) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = StreamableHttp::new(server, HttpOptions::default()).router("/mcp");
    tokio::spawn(tracksuit::host::http::serve(listener, app));
    format!("http://{addr}/mcp")
}

fn client(era: Era) -> ClientBuilder {
    Client::builder().era(era).roots(vec![Root {
        uri: "file:///work".into(),
        name: None,
        meta: None,
    }])
}

async fn connect(url: &str, builder: ClientBuilder) -> Client {
    let transport = HttpTransport::new(url).expect("url");
    within("connect", builder.connect(transport))
        .await
        .expect("connected")
}

#[tokio::test]
async fn session_over_http_answers_server_requests_and_sees_notifications() {
    let url = start(server()).await;
    let client = connect(&url, client(Era::Session)).await;
    assert_eq!(client.era(), Era::Session);
    let init = client.server_init().expect("initialized");
    assert_eq!(init.protocol_version, LATEST_PROTOCOL_VERSION);
    assert_eq!(client.list_tools(None).await.expect("tools").tools.len(), 5);

    let mut notes = client.notifications();
    let token = ProgressToken::String("p".into());
    let hello = client
        .call_tool_with_progress("hello", json!({}), token)
        .await
        .expect("hello");
    assert_eq!(text(&hello), "hello");
    let progress = within("progress", notes.recv())
        .await
        .expect("a notification");
    assert_eq!(progress.method, methods::PROGRESS);

    // roots/list arrives on the POST's SSE stream and is answered with a POST.
    let asked = within("ask", client.call_tool("ask", json!({}))).await;
    assert_eq!(text(&asked.expect("ask")), "1 roots");
}

#[tokio::test]
async fn a_dropped_response_stream_is_resumed_with_last_event_id() {
    let url = start(server()).await;
    let client = connect(&url, client(Era::Session)).await;
    let result = within("reconnect", client.call_tool("reconnect", json!({}))).await;
    assert_eq!(text(&result.expect("resumed")), "resumed, 1 roots");
}

#[tokio::test]
async fn the_standalone_get_stream_carries_list_changes() {
    let server = server();
    let url = start(server.clone()).await;
    let client = connect(&url, client(Era::Session)).await;
    let mut notes = client.notifications();
    // The GET stream opens after `initialized`; notify until a change comes through it.
    let seen = wait_for("a tools/list_changed on the GET stream", || {
        server.notify_tools_list_changed();
        let got = notes.try_recv().ok();
        async move { got }
    })
    .await;
    assert_eq!(seen.method, methods::TOOLS_LIST_CHANGED);
}

#[tokio::test]
async fn stateless_era_discovers_and_answers_input_required_rounds() {
    let url = start(server()).await;
    let client = connect(&url, client(Era::Stateless)).await;
    assert_eq!(client.era(), Era::Stateless);
    let discovered = client.discovered().expect("discovered");
    assert!(
        discovered
            .supported_versions
            .iter()
            .any(|v| v == "2026-07-28")
    );
    assert_eq!(
        discovered.server().map(|s| s.name).as_deref(),
        Some("client-http-test")
    );

    let asked = within("ask", client.call_tool("ask", json!({}))).await;
    assert_eq!(text(&asked.expect("ask")), "1 roots");
    let twice = within("ask_twice", client.call_tool("ask_twice", json!({}))).await;
    assert_eq!(text(&twice.expect("ask_twice")), "2 roots");
    // The server checks `Mcp-Param-Region` against the body: a wrong or missing header is
    // refused with -32020, so this passing means the header was mirrored.
    client.list_tools(None).await.expect("tools");
    let region = client
        .call_tool("region", json!({"region": " eu west "}))
        .await;
    assert_eq!(text(&region.expect("region")), "region  eu west ");
}

#[tokio::test]
async fn the_round_cap_stops_a_call_that_keeps_asking() {
    let url = start(server()).await;
    let client = connect(&url, client(Era::Stateless).max_input_rounds(1)).await;
    let capped = within("ask_twice", client.call_tool("ask_twice", json!({}))).await;
    match capped {
        Err(RequestError::InputRoundsExceeded {
            method,
            rounds,
            last,
        }) => {
            assert_eq!((method.as_str(), rounds), ("tools/call", 1));
            // The last result is the server's second question, as it sent it.
            assert_eq!(last["resultType"], "input_required", "{last}");
            let asks = last["inputRequests"].as_object().expect("inputRequests");
            assert!(asks.values().all(|q| q["method"] == "roots/list"), "{last}");
            assert!(last.get("requestState").is_some(), "{last}");
        }
        other => panic!("expected the round cap, got {other:?}"),
    }
    let once = within("ask", client.call_tool("ask", json!({}))).await;
    assert_eq!(text(&once.expect("ask")), "1 roots");
}

#[tokio::test]
async fn negotiation_picks_the_stateless_era_from_tracksuits_server() {
    let url = start(server()).await;
    let client = connect(&url, client(Era::Negotiate)).await;
    assert_eq!(client.era(), Era::Stateless);
    let asked = within("ask", client.call_tool("ask", json!({}))).await;
    assert_eq!(text(&asked.expect("ask")), "1 roots");
}

#[tokio::test]
async fn a_stdio_server_runs_as_a_child_process_in_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_stdio_server"));
        let transport = ChildTransport::spawn(command).expect("spawned");
        let client = within("connect", client(era).connect(transport))
            .await
            .expect("connected");
        assert_eq!(client.era(), era);
        let hello = within("hello", client.call_tool("hello", json!({}))).await;
        assert_eq!(text(&hello.expect("hello")), "hello");
        let asked = within("ask", client.call_tool("ask", json!({}))).await;
        assert_eq!(text(&asked.expect("ask")), "1 roots");
    }
}

#[tokio::test]
async fn an_unreachable_endpoint_fails_the_connect() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    drop(listener);
    let outcome = within(
        "connect",
        client(Era::Session).connect(HttpTransport::new(&url).expect("url")),
    )
    .await;
    assert!(matches!(outcome, Err(RequestError::Peer(_))), "{outcome:?}");
}

#[tokio::test]
async fn subscriptions_deliver_list_changes_in_both_eras() {
    use tracksuit::client::SubscriptionFilter;
    for era in [Era::Session, Era::Stateless] {
        let server = server();
        let url = start(server.clone()).await;
        let client = connect(&url, client(era)).await;
        let mut subscription = within(
            "subscribe",
            client.subscribe_to(SubscriptionFilter::default().tools_list_changed()),
        )
        .await
        .expect("subscribed");
        // Stateless: acknowledged, so one change is enough. Session: the GET stream may
        // still be opening, so notify until one comes through.
        let seen = within("a tools/list_changed on the subscription", async {
            loop {
                server.notify_tools_list_changed();
                let next = subscription.next();
                if let Ok(Some(n)) =
                    tokio::time::timeout(std::time::Duration::from_millis(50), next).await
                {
                    break n;
                }
            }
        })
        .await;
        assert_eq!(seen.method, methods::TOOLS_LIST_CHANGED, "{era:?}");
    }
}

/// Sets its flag when dropped.
struct SetOnDrop(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test]
async fn dropping_a_stateless_call_closes_its_stream_and_cancels_the_tool() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let cancelled = Arc::new(AtomicBool::new(false));
    let seen = cancelled.clone();
    let server = Server::new(Implementation::new("cancel-test", "1"))
        .tool(ToolFn::new(
            Tool::new("wait", obj(json!({"type": "object"}))),
            move |ctx, _| {
                let seen = seen.clone();
                async move {
                    // Cancelling drops the tool's future; the guard records that.
                    let _dropped = SetOnDrop(seen);
                    // A long job reporting progress: over HTTP/1 the server learns that the
                    // client closed the stream when it next writes to it.
                    let mut tick = tokio::time::interval(std::time::Duration::from_millis(20));
                    for step in 0.. {
                        tick.tick().await;
                        ctx.progress(f64::from(step), None, Some("working")).await;
                    }
                    Ok(CallToolResult::text("never"))
                }
            },
        ))
        .build()
        .expect("server");
    let url = start(server).await;
    let client = connect(&url, client(Era::Stateless)).await;
    let mut notes = client.notifications();
    {
        let call = client.call_tool_with_progress("wait", json!({}), ProgressToken::Number(1));
        tokio::pin!(call);
        // Poll the call until the tool reports it runs, then drop it.
        within("the tool starts", async {
            tokio::select! {
                _ = &mut call => panic!("the call ended on its own"),
                n = notes.recv() => assert_eq!(n.expect("progress").method, methods::PROGRESS),
            }
        })
        .await;
    }
    tracksuit_tests::support::wait_until(
        || cancelled.load(Ordering::SeqCst),
        "the server cancelled the tool",
    )
    .await;
}

/// Holds `held_echo` back until the test lets it through.
static HELD: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);

/// Echoes `text` once the test lets it through, as a task when asked.
#[tracksuit::mcp_tool(task_support = "optional")]
async fn held_echo(text: String) -> String {
    let _ = HELD.acquire().await.map(|p| p.forget());
    text
}

#[tokio::test]
async fn a_task_over_http_is_created_polled_and_its_status_streamed() {
    let server = Server::with_options(
        Implementation::new("tasks-over-http", "1"),
        tracksuit::ServerOptions::default().tasks(tracksuit::task::TaskOptions::default()),
    )
    .tool(held_echo)
    .build()
    .expect("server");
    let url = start(server.clone()).await;
    let client = connect(&url, client(Era::Session)).await;
    // Status notifications travel on the standalone GET stream: wait until it is open.
    let mut notes = client.notifications();
    within("the GET stream opens", async {
        loop {
            server.notify_tools_list_changed();
            let next = notes.recv();
            if let Ok(Ok(_)) =
                tokio::time::timeout(std::time::Duration::from_millis(50), next).await
            {
                break;
            }
        }
    })
    .await;
    let created = client
        .call_tool_as_task("held_echo", json!({"text": "hi"}), Some(60_000))
        .await
        .expect("created");
    let id = created.task.task_id.clone();
    assert_eq!(created.task.status, TaskStatus::Working);
    let mut updates = client.task_updates(&id);
    HELD.add_permits(1);
    let update = within("the completed status", async {
        loop {
            let state = updates.next().await.expect("open").expect("a state");
            if state.is_terminal() {
                break state;
            }
        }
    })
    .await;
    assert_eq!(update.task.task_id, id);
    assert_eq!(update.status(), TaskStatus::Completed);
    let result = within("the task's result", client.task_result(&id)).await;
    assert_eq!(text(&result.expect("result")), "hi");
    let polled = client.get_task(&id).await.expect("polled");
    assert_eq!(polled.task.status, TaskStatus::Completed);
}

#[tokio::test]
async fn negotiation_falls_back_to_a_session_when_discover_is_refused() {
    use axum::body::{Body, to_bytes};
    use axum::http::{Request, StatusCode};
    use axum::response::IntoResponse;
    // A 2025-only front: `server/discover` is an unknown method, everything else goes to
    // tracksuit's server.
    let inner = StreamableHttp::new(server(), HttpOptions::default()).router("/mcp");
    let front = axum::Router::new().fallback(move |request: Request<Body>| {
        let inner = inner.clone();
        async move {
            use tower::ServiceExt;
            let (parts, body) = request.into_parts();
            let bytes = to_bytes(body, 1 << 20).await.unwrap_or_default();
            if String::from_utf8_lossy(&bytes).contains("\"server/discover\"") {
                let error = json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32601, "message": "Method not found"}});
                return (StatusCode::NOT_FOUND, axum::Json(error)).into_response();
            }
            let request = Request::from_parts(parts, Body::from(bytes));
            match inner.oneshot(request).await {
                Ok(response) => response.into_response(),
                Err(never) => match never {},
            }
        }
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    tokio::spawn(tracksuit::host::http::serve(listener, front));
    let client = connect(&url, client(Era::Negotiate)).await;
    assert_eq!(client.era(), Era::Session);
    assert!(client.server_init().is_some());
    let asked = within("ask", client.call_tool("ask", json!({}))).await;
    assert_eq!(text(&asked.expect("ask")), "1 roots");
}
