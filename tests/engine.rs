//! The session engine and server dispatch, driven in memory: lifecycle, version
//! negotiation, cancellation, progress, logging, server→client requests, pagination,
//! list_changed, subscriptions, and every bad-input row that is not HTTP-specific.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tracksuit::client::Client;
use tracksuit::protocol::*;
use tracksuit::transport::memory::{self, MemoryTransport};
use tracksuit::transport::{MessageSink, MessageStream, Transport};
use tracksuit::{PromptFn, RequestError, ResourceFn, Server, ServerOptions, ToolError, ToolFn};
use tracksuit_tests::support::{Running, connect, obj, wait_until, within};

fn server() -> Server {
    Server::new(Implementation::new("engine-test", "0.0.1"))
        .tool(ToolFn::new(
            Tool::new("echo", obj(json!({"type":"object"}))),
            |_, args| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) },
        ))
        .tool(ToolFn::new(
            Tool::new("progress", obj(json!({"type":"object"}))),
            |ctx, _| async move {
                ctx.progress(1.0, Some(2.0), Some("half")).await;
                ctx.progress(2.0, Some(2.0), None).await;
                Ok(CallToolResult::text("done"))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("log", obj(json!({"type":"object"}))),
            |ctx, _| async move {
                ctx.log(LoggingLevel::Debug, "debug line").await;
                ctx.log(LoggingLevel::Error, "error line").await;
                Ok(CallToolResult::text("logged"))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("panic", obj(json!({"type":"object"}))),
            |_, _| async move {
                if true {
                    panic!("boom");
                }
                Ok(CallToolResult::text("unreachable"))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("fail", obj(json!({"type":"object"}))),
            |_, _| async move { Err(ToolError::new("nope")) },
        ))
        .tool(ToolFn::new(
            Tool::new("sample", obj(json!({"type":"object"}))),
            |ctx, args| async move {
                let with_tools = args.get("tools").and_then(Value::as_bool).unwrap_or(false);
                let mut params = CreateMessageRequestParams {
                    messages: vec![SamplingMessage::user_text("hi")],
                    max_tokens: 10,
                    ..Default::default()
                };
                if with_tools {
                    params.tools = Some(vec![Tool::new("t", obj(json!({"type":"object"})))]);
                }
                match ctx.create_message(params).await {
                    Ok(r) => Ok(CallToolResult::text(serde_json::to_string(&r.content)?)),
                    Err(RequestError::CapabilityMissing(c)) => {
                        Ok(CallToolResult::text(format!("missing {c}")))
                    }
                    Err(e) => Err(e.into()),
                }
            },
        ))
        .prompt(PromptFn::new(Prompt::new("broken"), |_, _| async move {
            if true {
                panic!("prompt boom");
            }
            Ok(GetPromptResult::new(vec![]))
        }))
        .resource(ResourceFn::new(Resource::new("mem://a", "a"), |_| async {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(
                "mem://a", "A",
            )]))
        }))
}

/// A raw client end: sends JSON-RPC, reads what the server sends.
struct Raw {
    stream: <MemoryTransport as Transport>::Stream,
    sink: <MemoryTransport as Transport>::Sink,
}

impl Raw {
    fn start(server: impl Running) -> Raw {
        let (server_end, client_end) = memory::pair();
        tokio::spawn(server.running().serve(server_end));
        let (stream, sink) = client_end.split();
        Raw { stream, sink }
    }

    async fn send(&mut self, v: Value) {
        let msg = serde_json::from_value::<JsonRpcMessage>(v).expect("valid test message");
        self.sink.send(msg).await.expect("server alive");
    }

    async fn recv(&mut self) -> Value {
        let msg = within("a message from the server arrives", self.stream.next())
            .await
            .expect("stream open")
            .expect("decodable");
        serde_json::to_value(msg).expect("serialisable")
    }

    async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
            .await;
        loop {
            let v = self.recv().await;
            if v.get("id") == Some(&json!(id)) && v.get("method").is_none() {
                return v;
            }
        }
    }

    async fn init(&mut self, version: &str, caps: Value) -> Value {
        let r = self
            .request(0, "initialize", json!({"protocolVersion":version,"capabilities":caps,"clientInfo":{"name":"raw","version":"1"}}))
            .await;
        self.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        r
    }
}

#[tokio::test]
async fn negotiates_versions() {
    for (asked, agreed) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let mut raw = Raw::start(server());
        let r = raw.init(asked, json!({})).await;
        assert_eq!(r["result"]["protocolVersion"], agreed, "asked {asked}");
        assert_eq!(r["result"]["serverInfo"]["name"], "engine-test");
        assert!(r["result"]["capabilities"]["tools"].is_object());
    }
}

#[tokio::test]
async fn requests_before_initialize_are_refused_but_ping_and_discover_answer() {
    let mut raw = Raw::start(server());
    let r = raw.request(1, "tools/list", json!({})).await;
    assert_eq!(r["error"]["code"], INVALID_REQUEST);
    let r = raw.request(2, "server/discover", json!({})).await;
    assert_eq!(r["error"]["code"], METHOD_NOT_FOUND);
    let r = raw.request(3, "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
    // And the session still initializes afterwards.
    let r = raw.init("2025-11-25", json!({})).await;
    assert!(r["result"].is_object());
}

#[tokio::test]
async fn bad_requests_get_the_right_codes() {
    let mut raw = Raw::start(server());
    raw.init("2025-11-25", json!({})).await;
    assert_eq!(
        raw.request(1, "no/such", json!({})).await["error"]["code"],
        METHOD_NOT_FOUND
    );
    assert_eq!(
        raw.request(2, "tools/call", json!({"name": 5})).await["error"]["code"],
        INVALID_PARAMS
    );
    assert_eq!(
        raw.request(3, "tools/call", json!({"name": "nope"})).await["error"]["code"],
        INVALID_PARAMS
    );
    assert_eq!(
        raw.request(4, "tools/list", json!({"cursor": "garbage"}))
            .await["error"]["code"],
        INVALID_PARAMS
    );
    assert_eq!(
        raw.request(5, "logging/setLevel", json!({"level": "loud"}))
            .await["error"]["code"],
        INVALID_PARAMS
    );
    let r = raw
        .request(6, "resources/read", json!({"uri": "mem://missing"}))
        .await;
    assert_eq!(r["error"]["data"]["uri"], "mem://missing");
    // A panicking tool is an execution error; a panicking prompt is -32603; both leave the
    // session serving.
    let r = raw
        .request(7, "tools/call", json!({"name": "panic", "arguments": {}}))
        .await;
    assert_eq!(r["result"]["isError"], true);
    // The client learns that it panicked, not what the panic said (the server logs that).
    let said = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        said.contains("panicked") && !said.contains("boom"),
        "{said}"
    );
    let r = raw
        .request(8, "prompts/get", json!({"name": "broken"}))
        .await;
    assert_eq!(r["error"]["code"], INTERNAL_ERROR);
    let r = raw
        .request(9, "tools/call", json!({"name": "fail", "arguments": {}}))
        .await;
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["content"][0]["text"], "nope");
    let r = raw
        .request(
            10,
            "tools/call",
            json!({"name": "echo", "arguments": {"x": 1}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], r#"{"x":1}"#);
}

#[tokio::test]
async fn progress_echoes_the_token_and_logs_follow_the_level() {
    let mut raw = Raw::start(server());
    raw.init("2025-11-25", json!({})).await;
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"tok-1"}}})).await;
    let p1 = raw.recv().await;
    assert_eq!(p1["method"], "notifications/progress");
    assert_eq!(p1["params"]["progressToken"], "tok-1");
    assert_eq!(p1["params"]["progress"], 1.0);
    assert_eq!(p1["params"]["total"], 2.0);
    assert_eq!(p1["params"]["message"], "half");
    let p2 = raw.recv().await;
    assert_eq!(p2["params"]["progress"], 2.0);
    assert_eq!(raw.recv().await["id"], 1);

    // Without a token: no progress notifications, just the result.
    let r = raw
        .request(2, "tools/call", json!({"name":"progress","arguments":{}}))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "done");

    raw.request(3, "logging/setLevel", json!({"level":"warning"}))
        .await;
    raw.send(json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"log","arguments":{}}})).await;
    let first = raw.recv().await;
    assert_eq!(first["method"], "notifications/message");
    assert_eq!(first["params"]["level"], "error");
    assert_eq!(first["params"]["data"], "error line");
    assert_eq!(raw.recv().await["id"], 4, "the debug line was filtered out");
}

#[tokio::test]
async fn cancellation_drops_the_future_and_sends_no_response() {
    let started = Arc::new(tokio::sync::Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    let (on_start, flag) = (started.clone(), dropped.clone());
    let server = server()
        .tool(ToolFn::new(
            Tool::new("slow", obj(json!({"type":"object"}))),
            move |_, _| {
                let (on_start, flag) = (on_start.clone(), flag.clone());
                async move {
                    struct Guard(Arc<AtomicBool>);
                    impl Drop for Guard {
                        fn drop(&mut self) {
                            self.0.store(true, Ordering::SeqCst);
                        }
                    }
                    let _g = Guard(flag);
                    on_start.notify_one();
                    // The tool's own work: long enough that only the cancel can end it.
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    Ok(CallToolResult::text("late"))
                }
            },
        ))
        .build()
        .expect("distinct names");
    let mut raw = Raw::start(server.clone());
    raw.init("2025-11-25", json!({})).await;
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}})).await;
    within("the slow tool starts", started.notified()).await;
    assert_eq!(server.in_flight_requests(), 1);
    raw.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}})).await;
    wait_until(
        || dropped.load(Ordering::SeqCst),
        "the handler future is dropped",
    )
    .await;
    assert_eq!(server.in_flight_requests(), 0);
    // The very next message is the answer to a later ping: nothing for id 1 came before it.
    raw.send(json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
        .await;
    let next = raw.recv().await;
    assert_eq!(
        next,
        json!({"jsonrpc":"2.0","id":2,"result":{}}),
        "the ping's answer is the next message"
    );
}

#[tokio::test]
async fn sampling_round_trip_and_capability_checks() {
    // A client that declares sampling (with tools) and answers with a fixed reply.
    let client = connect(
        server(),
        Client::builder().on_sampling(|p| async move {
            assert_eq!(p.max_tokens, 10);
            Ok(serde_json::from_value(json!({
                "role":"assistant","content":{"type":"text","text":"pong"},"model":"test","stopReason":"endTurn"
            }))
            .expect("valid result"))
        }),
    )
    .await;
    let r = client
        .call_tool("sample", json!({"tools": true}))
        .await
        .expect("call");
    assert_eq!(r.is_error, None);
    let text = serde_json::to_value(&r.content).expect("json");
    assert!(
        text[0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("pong")
    );

    // A client with no sampling capability: the tool gets a typed error, nothing is sent.
    let bare = connect(server(), Client::builder()).await;
    let r = bare.call_tool("sample", json!({})).await.expect("call");
    assert_eq!(
        serde_json::to_value(&r.content).expect("json")[0]["text"],
        "missing sampling"
    );

    // Sampling declared without tools: using tools is a typed error.
    let caps: ClientCapabilities = serde_json::from_value(json!({"sampling": {}})).expect("caps");
    let no_tools = connect(
        server(),
        Client::builder()
            .on_sampling(|_| async { Err(ErrorObject::internal("unused")) })
            .capabilities(caps),
    )
    .await;
    let r = no_tools
        .call_tool("sample", json!({"tools": true}))
        .await
        .expect("call");
    assert_eq!(
        serde_json::to_value(&r.content).expect("json")[0]["text"],
        "missing sampling.tools"
    );
}

#[tokio::test(start_paused = true)]
async fn server_requests_time_out_and_cancel() {
    let options = ServerOptions::default().request_timeout(Duration::from_secs(5));
    let server = Server::with_options(Implementation::new("t", "1"), options).tool(ToolFn::new(
        Tool::new("ask", obj(json!({"type":"object"}))),
        |ctx, _| async move {
            let err = ctx
                .list_roots()
                .await
                .expect_err("the client never answers");
            Ok(CallToolResult::text(err.to_string()))
        },
    ));
    let mut raw = Raw::start(server);
    raw.init("2025-11-25", json!({"roots": {}})).await;
    raw.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}})).await;
    let req = raw.recv().await;
    assert_eq!(req["method"], "roots/list");
    let cancel = raw.recv().await;
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], req["id"]);
    let done = raw.recv().await;
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("no response within")
    );
}

#[tokio::test]
async fn pagination_list_changed_and_subscriptions() {
    let options = ServerOptions::default().page_size(2);
    let server = Server::with_options(Implementation::new("t", "1"), options)
        .build()
        .expect("empty server");
    for name in ["a", "b", "c"] {
        server
            .add_tool(ToolFn::new(
                Tool::new(name, obj(json!({"type":"object"}))),
                |_, _| async { Ok(CallToolResult::text("x")) },
            ))
            .expect("a new name");
    }
    server
        .add_resource(ResourceFn::new(Resource::new("mem://w", "w"), |_| async {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(
                "mem://w", "W",
            )]))
        }))
        .expect("a new URI");
    let client = connect(server.clone(), Client::builder()).await;
    let page1 = client.list_tools(None).await.expect("page 1");
    assert_eq!(
        page1
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["a", "b"]
    );
    let page2 = client.list_tools(page1.next_cursor).await.expect("page 2");
    assert_eq!(
        page2
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["c"]
    );
    assert!(page2.next_cursor.is_none());

    let mut notes = client.notifications();
    server
        .add_tool(ToolFn::new(
            Tool::new("d", obj(json!({"type":"object"}))),
            |_, _| async { Ok(CallToolResult::text("x")) },
        ))
        .expect("a new name");
    assert!(
        server
            .add_tool(ToolFn::new(
                Tool::new("d", obj(json!({"type":"object"}))),
                |_, _| async { Ok(CallToolResult::text("y")) },
            ))
            .is_err(),
        "a second tool named d is refused"
    );
    let n = within("tools/list_changed is announced", notes.recv())
        .await
        .expect("open");
    assert_eq!(n.method, "notifications/tools/list_changed");

    client.subscribe("mem://w").await.expect("subscribe");
    server.notify_resource_updated("mem://other");
    server.notify_resource_updated("mem://w");
    let n = within("the resource update is announced", notes.recv())
        .await
        .expect("open");
    assert_eq!(n.method, "notifications/resources/updated");
    assert_eq!(n.params.expect("params")["uri"], "mem://w");
}

#[tokio::test]
async fn line_transport_rejects_garbage_and_keeps_serving() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let transport = tracksuit::transport::io::LineTransport::new(r, w).max_message_size(256);
    tokio::spawn(server().serve(transport));
    let (cr, mut cw) = tokio::io::split(client_io);
    let mut lines = BufReader::new(cr).lines();
    let mut ask = async |line: String| -> Value {
        cw.write_all(line.as_bytes()).await.expect("write");
        cw.write_all(b"\n").await.expect("write");
        let l = within("the server answers the line", lines.next_line())
            .await
            .expect("io")
            .expect("a line");
        serde_json::from_str(&l).expect("the server writes JSON")
    };
    assert_eq!(ask("{not json".into()).await["error"]["code"], PARSE_ERROR);
    assert_eq!(ask("[1,2]".into()).await["error"]["code"], INVALID_REQUEST);
    assert_eq!(
        ask(r#"{"jsonrpc":"2.0","id":1}"#.into()).await["error"]["code"],
        INVALID_REQUEST
    );
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(1000)
    );
    assert_eq!(ask(huge).await["error"]["code"], INVALID_REQUEST);
    let ok = ask(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.into()).await;
    assert_eq!(ok["id"], 2);
    assert_eq!(ok["result"], json!({}));
}

/// A server on a line transport (the stdio framing), driven with raw lines.
struct Lines {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Lines {
    fn start(server: Server, max_message_size: usize) -> Lines {
        use tokio::io::AsyncBufReadExt;
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(server_io);
        let transport =
            tracksuit::transport::io::LineTransport::new(r, w).max_message_size(max_message_size);
        tokio::spawn(server.serve(transport));
        let (read, write) = tokio::io::split(client_io);
        Lines {
            write,
            read: tokio::io::BufReader::new(read).lines(),
        }
    }

    /// Writes `line` and returns the next line the server writes.
    async fn ask(&mut self, line: &str) -> Value {
        use tokio::io::AsyncWriteExt;
        self.write.write_all(line.as_bytes()).await.expect("write");
        self.write.write_all(b"\n").await.expect("write");
        let l = tokio::time::timeout(Duration::from_secs(5), self.read.next_line())
            .await
            .expect("in time")
            .expect("io")
            .expect("a line");
        serde_json::from_str(&l).expect("the server writes JSON")
    }
}

/// The `id` member of a response (`None` if it has none: never acceptable for a response).
fn id_member(v: &Value) -> Option<&Value> {
    v.as_object()?.get("id")
}

#[tokio::test]
async fn line_rejections_carry_the_request_id_when_it_can_be_read_and_null_otherwise() {
    let mut lines = Lines::start(server(), 1024);
    // Nothing readable: `"id": null`, present.
    for garbage in [
        "{not json",
        "[1,2]",
        "42",
        r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
    ] {
        let r = lines.ask(garbage).await;
        assert!(r["error"]["code"].is_i64(), "{garbage}: {r}");
        assert_eq!(id_member(&r), Some(&Value::Null), "{garbage}: {r}");
    }
    assert_eq!(lines.ask("{not json").await["error"]["code"], PARSE_ERROR);
    // An invalid request whose id can be read gets that id back.
    let r = lines.ask(r#"{"jsonrpc":"2.0","id":1}"#).await;
    assert_eq!(
        (r["error"]["code"].clone(), r["id"].clone()),
        (json!(INVALID_REQUEST), json!(1))
    );
    let r = lines.ask(r#"{"jsonrpc":"2.0","id":"m7","method":7}"#).await;
    assert_eq!(
        (r["error"]["code"].clone(), r["id"].clone()),
        (json!(INVALID_REQUEST), json!("m7"))
    );
    // `params` that is not structured: answered, with its id, so the caller does not hang.
    let r = lines
        .ask(r#"{"jsonrpc":"2.0","id":"p","method":"ping","params":"x"}"#)
        .await;
    assert_eq!(r["id"], "p", "{r}");
    assert!([INVALID_REQUEST, INVALID_PARAMS].contains(&r["error"]["code"].as_i64().unwrap_or(0)));
    // `"id": null` is not a notification: -32600 with a null id.
    let r = lines
        .ask(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)
        .await;
    assert_eq!(r["error"]["code"], INVALID_REQUEST, "{r}");
    assert_eq!(id_member(&r), Some(&Value::Null), "{r}");
    // An over-long line is skipped unread: null.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(2000)
    );
    let r = lines.ask(&huge).await;
    assert_eq!(r["error"]["code"], INVALID_REQUEST, "{r}");
    assert_eq!(id_member(&r), Some(&Value::Null), "{r}");
    // And the connection still serves.
    let ok = lines
        .ask(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)
        .await;
    assert_eq!(
        (ok["id"].clone(), ok["result"].clone()),
        (json!(2), json!({}))
    );
}

#[tokio::test]
async fn long_input_is_cut_short_in_error_messages() {
    let mut lines = Lines::start(server(), 1 << 16);
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}});
    assert!(lines.ask(&init.to_string()).await["result"].is_object());
    let long = "é".repeat(5000);
    let bounded = |r: &Value| {
        let message = r["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            message.chars().count() <= 300 && message.contains('…'),
            "{} chars: {message}",
            message.chars().count()
        );
        message
    };
    // (No `notifications/initialized` needed: `initialize` answered is enough to serve.)
    let r = lines
        .ask(&json!({"jsonrpc":"2.0","id":1,"method":long}).to_string())
        .await;
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(1), json!(METHOD_NOT_FOUND))
    );
    assert!(bounded(&r).starts_with("Method not found: éé"));
    let r = lines
        .ask(
            &json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":long}})
                .to_string(),
        )
        .await;
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(2), json!(INVALID_PARAMS))
    );
    assert!(bounded(&r).starts_with("Invalid params: Unknown tool: éé"));
    // A bad cursor, a serde error quoting the value, an unknown URI: each bounded.
    let cases = [
        ("tools/list", json!({"cursor": long}), INVALID_PARAMS),
        ("logging/setLevel", json!({"level": long}), INVALID_PARAMS),
        ("resources/read", json!({"uri": long}), RESOURCE_NOT_FOUND),
    ];
    for (id, (method, params, code)) in (3..).zip(cases) {
        let request = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params});
        let r = lines.ask(&request.to_string()).await;
        assert_eq!(r["error"]["code"], code, "{method}");
        bounded(&r);
    }
}

#[tokio::test]
async fn a_change_right_after_the_handshake_reaches_the_client() {
    // The client's handshake returns once `initialize` is answered; the server may not have
    // read `notifications/initialized` yet. A change made at that moment is still announced.
    for _ in 0..20 {
        let server = Server::new(Implementation::new("t", "1"))
            .build()
            .expect("empty server");
        let client = connect(server.clone(), Client::builder()).await;
        let mut notes = client.notifications();
        server.notify_tools_list_changed();
        let n = within("tools/list_changed right after connect", notes.recv())
            .await
            .expect("open");
        assert_eq!(n.method, "notifications/tools/list_changed");
    }
}
