//! Tower middleware around the server's request handling (`Server::layer`): real tower
//! layers (timeout, concurrency limit with load shedding, `map_request`) and hand-written
//! ones (an audit log, an authorization rule per tool) see every request of both eras,
//! in memory and over Streamable HTTP, including each round of a 2026 multi round-trip
//! call; their refusals reach the client as JSON-RPC errors and the server keeps serving.

use futures::future::BoxFuture;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::Notify;
use tower::ServiceBuilder;
use tracksuit::client::{Client, ClientBuilder, Era as ClientEra, HttpTransport};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::middleware::{BoxError, Era, McpRequest, McpResponse};
use tracksuit::protocol::*;
use tracksuit::{Principal, RequestError, Server, ServerHandle, ToolFn};
use tracksuit_tests::support::{obj, text, wait_until, within};

/// What the audit layer wrote down for one request.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    era: Era,
    method: String,
    target: Option<String>,
    principal: Option<String>,
    over_http: bool,
    error: Option<i64>,
    tool_error: bool,
    input_required: bool,
}

#[derive(Clone, Default)]
struct Audit(Arc<Mutex<Vec<Seen>>>);

impl Audit {
    fn take(&self) -> Vec<Seen> {
        std::mem::take(&mut self.0.lock().expect("audit log"))
    }
}

impl<S> tower::Layer<S> for Audit {
    type Service = Audited<S>;
    fn layer(&self, inner: S) -> Audited<S> {
        Audited {
            inner,
            log: self.clone(),
        }
    }
}

#[derive(Clone)]
struct Audited<S> {
    inner: S,
    log: Audit,
}

impl<S> tower::Service<McpRequest> for Audited<S>
where
    S: tower::Service<McpRequest, Response = McpResponse, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let (era, method) = (request.era(), request.method().to_owned());
        let target = request.target().map(str::to_owned);
        let principal = request.principal().map(|p| p.subject.clone());
        let over_http = request.http_parts().is_some();
        let served = self.inner.call(request);
        let log = self.log.clone();
        Box::pin(async move {
            let response = served.await?;
            log.0.lock().expect("audit log").push(Seen {
                era,
                method,
                target,
                principal,
                over_http,
                error: response.error().map(|e| e.code),
                tool_error: response.is_tool_error(),
                input_required: response.is_input_required(),
            });
            Ok(response)
        })
    }
}

/// Refuses `tools/call` of `drop_table` unless the caller has the `admin` scope.
#[derive(Clone)]
struct AdminOnly<S>(S);

impl<S> tower::Service<McpRequest> for AdminOnly<S>
where
    S: tower::Service<McpRequest, Response = McpResponse, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let admin = request.principal().is_some_and(|p| p.has_scope("admin"));
        if request.method() == methods::TOOLS_CALL
            && request.target() == Some("drop_table")
            && !admin
        {
            let refused = ErrorObject::new(-32003, "drop_table needs the admin scope");
            return Box::pin(async move { Ok(McpResponse::from_error(refused)) });
        }
        Box::pin(self.0.call(request))
    }
}

/// Tools: `echo` (plain), `fail` (a tool error), `ask` (asks the client for its roots: a
/// round on 2026), `slow` (waits at `gate`), `forever` and `drop_table`.
fn tools(server: Server, gate: Arc<Gate>) -> Server {
    let plain = |name: &str| Tool::new(name, obj(json!({"type": "object"})));
    server
        .tool(ToolFn::new(plain("echo"), |_, args| async move {
            let word = args.get("word").and_then(|w| w.as_str()).unwrap_or("-");
            Ok(CallToolResult::text(word.to_owned()))
        }))
        .tool(ToolFn::new(plain("fail"), |_, _| async move {
            Ok(CallToolResult::error_text("no"))
        }))
        .tool(ToolFn::new(plain("ask"), |ctx, _| async move {
            let roots = ctx.list_roots().await?;
            Ok(CallToolResult::text(format!("{} roots", roots.roots.len())))
        }))
        .tool(ToolFn::new(plain("slow"), move |_, _| {
            let gate = gate.clone();
            async move {
                gate.entered.fetch_add(1, Ordering::SeqCst);
                gate.open.notified().await;
                Ok(CallToolResult::text("slow done"))
            }
        }))
        .tool(ToolFn::new(plain("forever"), |_, _| async move {
            std::future::pending::<()>().await;
            Ok(CallToolResult::text("unreachable"))
        }))
        .tool(ToolFn::new(plain("drop_table"), |_, _| async move {
            Ok(CallToolResult::text("dropped"))
        }))
}

#[derive(Default)]
struct Gate {
    entered: AtomicUsize,
    open: Notify,
}

fn client(era: ClientEra) -> ClientBuilder {
    Client::builder()
        .era(era)
        .roots(vec![Root::new("file:///work")])
}

fn code(error: RequestError) -> i64 {
    match error {
        RequestError::Peer(e) => e.code,
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

const ERAS: [(ClientEra, Era); 2] = [
    (ClientEra::Session, Era::Session),
    (ClientEra::Stateless, Era::Stateless),
];

/// The calls every audit test makes, and what the audit log must hold for them.
async fn exercise(client: &Client) {
    let echoed = client.call_tool("echo", json!({})).await.expect("echo");
    // `map_request` filled in the missing argument before the handler ran.
    assert_eq!(text(&echoed), "filled");
    assert_eq!(
        client
            .call_tool("fail", json!({}))
            .await
            .expect("fail")
            .is_error,
        Some(true)
    );
    assert_eq!(
        text(&client.call_tool("ask", json!({})).await.expect("ask")),
        "1 roots"
    );
    client.list_tools(None).await.expect("list");
}

fn assert_audited(seen: &[Seen], era: Era, principal: Option<&str>, over_http: bool) {
    let calls: Vec<_> = seen
        .iter()
        .filter(|s| s.method == methods::TOOLS_CALL)
        .collect();
    let targets: Vec<_> = calls
        .iter()
        .map(|s| s.target.as_deref().unwrap_or(""))
        .collect();
    // 2026: `ask` is two requests, the round that asks and the one that answers.
    let expected = match era {
        Era::Session => vec!["echo", "fail", "ask"],
        _ => vec!["echo", "fail", "ask", "ask"],
    };
    assert_eq!(targets, expected, "{seen:#?}");
    for s in seen {
        assert_eq!(s.era, era, "{s:?}");
        assert_eq!(s.principal.as_deref(), principal, "{s:?}");
        assert_eq!(s.over_http, over_http, "{s:?}");
        assert_eq!(s.error, None, "{s:?}");
    }
    assert_eq!(
        calls.iter().map(|s| s.tool_error).collect::<Vec<_>>()[..2],
        [false, true]
    );
    let rounds: Vec<_> = calls[2..].iter().map(|s| s.input_required).collect();
    match era {
        Era::Session => assert_eq!(rounds, [false]),
        _ => assert_eq!(rounds, [true, false]),
    }
    let first = match era {
        Era::Session => methods::INITIALIZE,
        _ => "server/discover",
    };
    assert_eq!(seen[0].method, first, "{seen:#?}");
    assert!(seen.iter().any(|s| s.method == methods::TOOLS_LIST));
}

fn audited_server(audit: &Audit) -> ServerHandle {
    let fill = |mut request: McpRequest| {
        if request.target() == Some("echo")
            && let Some(params) = request
                .params_mut()
                .as_mut()
                .and_then(|p| p.as_object_mut())
        {
            params.insert("arguments".into(), json!({"word": "filled"}));
        }
        request
    };
    let server = Server::new(Implementation::new("middleware-test", "1"))
        .layer(ServiceBuilder::new().layer(audit.clone()).map_request(fill));
    tools(server, Arc::default()).build().expect("server")
}

#[tokio::test]
async fn layers_see_every_request_of_both_eras_in_memory() {
    for (client_era, era) in ERAS {
        let audit = Audit::default();
        let alice = Principal::new("alice");
        let client = tracksuit::host::connect_in_memory_as(
            audited_server(&audit),
            client(client_era),
            alice,
        )
        .await
        .expect("connect");
        within("calls", exercise(&client)).await;
        assert_audited(&audit.take(), era, Some("alice"), false);
    }
}

#[tokio::test]
async fn layers_see_every_request_of_both_eras_over_http() {
    for (client_era, era) in ERAS {
        let audit = Audit::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
        let app =
            StreamableHttp::new(audited_server(&audit), HttpOptions::default()).router("/mcp");
        tokio::spawn(tracksuit::host::http::serve(listener, app));
        let transport = HttpTransport::new(&url).expect("url");
        let client = within("connect", client(client_era).connect(transport))
            .await
            .expect("connect");
        within("calls", exercise(&client)).await;
        assert_audited(&audit.take(), era, None, true);
    }
}

#[tokio::test(start_paused = true)]
async fn a_timeout_layer_answers_request_timed_out_and_the_server_keeps_serving() {
    for (client_era, _) in ERAS {
        let server = Server::new(Implementation::new("middleware-test", "1"))
            .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)));
        let server = tools(server, Arc::default()).build().expect("server");
        let client = tracksuit::host::connect_in_memory(server, client(client_era))
            .await
            .expect("connect");
        let timed_out = client
            .call_tool("forever", json!({}))
            .await
            .expect_err("timed out");
        assert_eq!(code(timed_out), REQUEST_TIMEOUT);
        let echoed = client
            .call_tool("echo", json!({"arguments": {}}))
            .await
            .expect("echo");
        assert_eq!(text(&echoed), "-");
    }
}

#[tokio::test]
async fn load_shedding_answers_overloaded_while_the_limit_is_taken() {
    for (client_era, _) in ERAS {
        let gate = Arc::new(Gate::default());
        let limit = ServiceBuilder::new().load_shed().concurrency_limit(1);
        let server = Server::new(Implementation::new("middleware-test", "1")).layer(limit);
        let server = tools(server, gate.clone()).build().expect("server");
        let client = tracksuit::host::connect_in_memory(server, client(client_era))
            .await
            .map(Arc::new)
            .expect("connect");
        let slow = tokio::spawn({
            let client = client.clone();
            async move { client.call_tool("slow", json!({})).await }
        });
        wait_until(|| gate.entered.load(Ordering::SeqCst) == 1, "slow entered").await;
        let shed = client.call_tool("echo", json!({})).await.expect_err("shed");
        assert_eq!(code(shed), SERVER_OVERLOADED);
        gate.open.notify_one();
        let slow = within("slow", slow).await.expect("joined").expect("slow");
        assert_eq!(text(&slow), "slow done");
        // The permit is back: the next call goes through.
        assert_eq!(
            text(&client.call_tool("echo", json!({})).await.expect("echo")),
            "-"
        );
    }
}

#[tokio::test]
async fn an_authorization_layer_refuses_per_tool_and_principal() {
    for (client_era, _) in ERAS {
        let server = Server::new(Implementation::new("middleware-test", "1"))
            .layer(tower::layer::layer_fn(AdminOnly));
        let server = tools(server, Arc::default()).build().expect("server");
        let bob = Principal::new("bob");
        let admin = Principal::new("root").with_scopes(["admin"]);
        let as_bob = tracksuit::host::connect_in_memory_as(server.clone(), client(client_era), bob)
            .await
            .expect("connect");
        let refused = as_bob
            .call_tool("drop_table", json!({}))
            .await
            .expect_err("refused");
        assert_eq!(code(refused), -32003);
        // Everything else still reaches its handler.
        assert_eq!(
            text(&as_bob.call_tool("echo", json!({})).await.expect("echo")),
            "-"
        );
        let as_admin = tracksuit::host::connect_in_memory_as(server, client(client_era), admin)
            .await
            .expect("connect");
        let dropped = as_admin
            .call_tool("drop_table", json!({}))
            .await
            .expect("admin");
        assert_eq!(text(&dropped), "dropped");
    }
}

#[derive(Clone, Debug)]
struct Tenant(String);

#[tokio::test]
async fn handlers_read_what_a_layer_attached() {
    let tenancy = |mut request: McpRequest| {
        let tenant = request
            .principal()
            .map(|p| format!("tenant-of-{}", p.subject));
        if let Some(tenant) = tenant {
            request.extensions_mut().insert(Tenant(tenant));
        }
        request
    };
    for (client_era, _) in ERAS {
        let server = Server::new(Implementation::new("middleware-test", "1"))
            .layer(tower::util::MapRequestLayer::new(tenancy))
            .tool(ToolFn::new(
                Tool::new("whose", obj(json!({"type": "object"}))),
                |ctx, _| async move {
                    let tenant = ctx.extension::<Tenant>().map(|t| t.0.clone());
                    Ok(CallToolResult::text(
                        tenant.unwrap_or_else(|| "nobody".into()),
                    ))
                },
            ))
            .build()
            .expect("server");
        let carol = Principal::new("carol");
        let as_carol =
            tracksuit::host::connect_in_memory_as(server.clone(), client(client_era), carol)
                .await
                .expect("connect");
        let whose = as_carol.call_tool("whose", json!({})).await.expect("whose");
        assert_eq!(text(&whose), "tenant-of-carol");
        // Without a principal the layer attaches nothing, and the handler sees nothing.
        let anonymous = tracksuit::host::connect_in_memory(server, client(client_era))
            .await
            .expect("connect");
        let whose = anonymous
            .call_tool("whose", json!({}))
            .await
            .expect("whose");
        assert_eq!(text(&whose), "nobody");
    }
}
