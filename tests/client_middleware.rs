//! Tower middleware around the client's requests (`ClientBuilder::layer`): real tower layers
//! (timeout, concurrency limit with load shedding, `map_request`) and hand-written ones (an
//! audit log, a refusal rule, a cache) see every request the client sends in both eras, in
//! memory and over Streamable HTTP, including each round of a 2026 multi round-trip call.
//! What a layer refuses never reaches the server; what it times out is cancelled there.

use futures::future::BoxFuture;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tower::ServiceBuilder;
use tracksuit::client::middleware::{BoxError, ClientRequest, ClientResponse};
use tracksuit::client::{Client, ClientBuilder, Era, HttpTransport};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{RequestError, Server, ServerHandle, ToolFn};
use tracksuit_tests::support::{obj, text, wait_until, within};

/// What the client's audit layer wrote down for one request.
#[derive(Debug, Clone, PartialEq)]
struct Sent {
    method: String,
    target: Option<String>,
    era: Era,
    version: Option<String>,
    round: usize,
    failed: bool,
    tool_error: bool,
    input_required: bool,
}

#[derive(Clone, Default)]
struct Audit(Arc<Mutex<Vec<Sent>>>);

impl Audit {
    fn take(&self) -> Vec<Sent> {
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

impl<S> tower::Service<ClientRequest> for Audited<S>
where
    S: tower::Service<ClientRequest, Response = ClientResponse, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = ClientResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<ClientResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: ClientRequest) -> Self::Future {
        let mut sent = Sent {
            method: request.method().to_owned(),
            target: request.target().map(str::to_owned),
            era: request.era(),
            version: request.protocol_version().map(str::to_owned),
            round: request.round(),
            failed: false,
            tool_error: false,
            input_required: false,
        };
        let answered = self.inner.call(request);
        let log = self.log.clone();
        Box::pin(async move {
            let response = answered.await?;
            sent.failed = response.error().is_some();
            sent.tool_error = response.is_tool_error();
            sent.input_required = response.is_input_required();
            log.0.lock().expect("audit log").push(sent);
            Ok(response)
        })
    }
}

/// Refuses `tools/call` of any tool whose name starts with `drop_`: a client-side policy.
#[derive(Clone)]
struct NoDrops<S>(S);

impl<S> tower::Service<ClientRequest> for NoDrops<S>
where
    S: tower::Service<ClientRequest, Response = ClientResponse, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = ClientResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<ClientResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: ClientRequest) -> Self::Future {
        if request.target().is_some_and(|t| t.starts_with("drop_")) {
            let refused = ErrorObject::new(-32003, "this client never drops anything");
            return Box::pin(
                async move { Ok(ClientResponse::from_error(RequestError::Peer(refused))) },
            );
        }
        Box::pin(self.0.call(request))
    }
}

/// Answers a second `tools/list` from what the first one returned.
#[derive(Clone)]
struct ListCache<S> {
    inner: S,
    kept: Arc<Mutex<Option<ResultPayload>>>,
}

impl<S> tower::Service<ClientRequest> for ListCache<S>
where
    S: tower::Service<ClientRequest, Response = ClientResponse, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = ClientResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<ClientResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: ClientRequest) -> Self::Future {
        let listing = request.method() == methods::TOOLS_LIST;
        let kept = self.kept.clone();
        if listing && let Some(result) = kept.lock().expect("cache").clone() {
            return Box::pin(async move { Ok(ClientResponse::from_result(result)) });
        }
        let answered = self.inner.call(request);
        Box::pin(async move {
            let response = answered.await?;
            if listing && let Some(result) = response.result() {
                *kept.lock().expect("cache") = Some(result.clone());
            }
            Ok(response)
        })
    }
}

/// What the server saw: how many requests of each tool ran, and how many were cancelled.
#[derive(Default)]
struct Counts {
    calls: AtomicUsize,
    lists: AtomicUsize,
    entered: AtomicUsize,
    cancelled: AtomicUsize,
    open: tokio::sync::Notify,
}

/// Counts when dropped (the handler's future was dropped: the request was cancelled).
struct OnDrop(Arc<Counts>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.cancelled.fetch_add(1, Ordering::SeqCst);
    }
}

/// Tools: `echo`, `fail` (a tool error), `ask` (asks for the client's roots: a round on
/// 2026), `slow` (waits for `open`), `forever` (counts its cancellation), `drop_table`.
fn server(counts: Arc<Counts>) -> ServerHandle {
    let plain = |name: &str| Tool::new(name, obj(json!({"type": "object"})));
    let (slow, forever, every) = (counts.clone(), counts.clone(), counts.clone());
    Server::new(Implementation::new("client-middleware-test", "1"))
        .layer(tower::util::MapRequestLayer::new(
            move |request: tracksuit::middleware::McpRequest| {
                match request.method() {
                    methods::TOOLS_CALL => every.calls.fetch_add(1, Ordering::SeqCst),
                    methods::TOOLS_LIST => every.lists.fetch_add(1, Ordering::SeqCst),
                    _ => 0,
                };
                request
            },
        ))
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
            let counts = slow.clone();
            async move {
                counts.entered.fetch_add(1, Ordering::SeqCst);
                counts.open.notified().await;
                Ok(CallToolResult::text("slow done"))
            }
        }))
        .tool(ToolFn::new(plain("forever"), move |_, _| {
            let guard = OnDrop(forever.clone());
            async move {
                let _guard = guard;
                std::future::pending::<()>().await;
                Ok(CallToolResult::text("unreachable"))
            }
        }))
        .tool(ToolFn::new(plain("drop_table"), |_, _| async move {
            Ok(CallToolResult::text("dropped"))
        }))
        .build()
        .expect("server")
}

fn client(era: Era) -> ClientBuilder {
    Client::builder()
        .era(era)
        .roots(vec![Root::new("file:///work")])
}

/// The client's audit layer, and a `map_request` that gives `echo` its argument.
fn audited(era: Era, audit: &Audit) -> ClientBuilder {
    let fill = |mut request: ClientRequest| {
        if request.target() == Some("echo")
            && let Some(params) = request.params_mut().as_object_mut()
        {
            params.insert("arguments".into(), json!({"word": "filled by the client"}));
        }
        request
    };
    client(era).layer(ServiceBuilder::new().layer(audit.clone()).map_request(fill))
}

/// Calls `echo`, `fail`, `ask` and lists; checks what the audit layer saw in `era`.
async fn exercise_and_check(client: &Client, audit: &Audit, era: Era) {
    let echoed = client.call_tool("echo", json!({})).await.expect("echo");
    assert_eq!(text(&echoed), "filled by the client");
    let failed = client.call_tool("fail", json!({})).await.expect("fail");
    assert_eq!(failed.is_error, Some(true));
    let asked = client.call_tool("ask", json!({})).await.expect("ask");
    assert_eq!(text(&asked), "1 roots");
    client.list_tools(None).await.expect("list");

    let sent = audit.take();
    let first = match era {
        Era::Session => methods::INITIALIZE,
        _ => "server/discover",
    };
    assert_eq!(sent[0].method, first, "{sent:#?}");
    let calls: Vec<_> = sent
        .iter()
        .filter(|s| s.method == methods::TOOLS_CALL)
        .map(|s| {
            let target = s.target.as_deref().unwrap_or("");
            (target, s.round, s.tool_error, s.input_required)
        })
        .collect();
    let expected = match era {
        Era::Session => vec![
            ("echo", 0, false, false),
            ("fail", 0, true, false),
            ("ask", 0, false, false),
        ],
        // 2026: `ask` is two requests, the round the server asks in and the answer.
        _ => vec![
            ("echo", 0, false, false),
            ("fail", 0, true, false),
            ("ask", 0, false, true),
            ("ask", 1, false, false),
        ],
    };
    assert_eq!(calls, expected, "{sent:#?}");
    assert!(sent.iter().any(|s| s.method == methods::TOOLS_LIST));
    let version = match era {
        Era::Session => LATEST_PROTOCOL_VERSION,
        _ => "2026-07-28",
    };
    // Every request after the first knows the era and version it goes out with.
    for s in &sent[1..] {
        assert_eq!((s.era, s.version.as_deref()), (era, Some(version)), "{s:?}");
        assert!(!s.failed, "{s:?}");
    }
}

#[tokio::test]
async fn client_layers_see_every_request_of_both_eras_in_memory() {
    for era in [Era::Session, Era::Stateless] {
        let audit = Audit::default();
        let server = server(Arc::default());
        let client = tracksuit::host::connect_in_memory(server, audited(era, &audit))
            .await
            .expect("connect");
        within("calls", exercise_and_check(&client, &audit, era)).await;
    }
}

#[tokio::test]
async fn client_layers_see_every_request_of_both_eras_over_http() {
    for era in [Era::Session, Era::Stateless] {
        let audit = Audit::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
        let app =
            StreamableHttp::new(server(Arc::default()), HttpOptions::default()).router("/mcp");
        tokio::spawn(tracksuit::host::http::serve(listener, app));
        let transport = HttpTransport::new(&url).expect("url");
        let client = within("connect", audited(era, &audit).connect(transport))
            .await
            .expect("connect");
        within("calls", exercise_and_check(&client, &audit, era)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_client_timeout_layer_fails_the_call_and_cancels_it_on_the_server() {
    for era in [Era::Session, Era::Stateless] {
        let counts = Arc::new(Counts::default());
        let builder = client(era).layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)));
        let client = tracksuit::host::connect_in_memory(server(counts.clone()), builder)
            .await
            .expect("connect");
        let timed_out = client
            .call_tool("forever", json!({}))
            .await
            .expect_err("timed out");
        let RequestError::Layer(cause) = timed_out else {
            panic!("expected the layer's error, got {timed_out:?}");
        };
        assert!(cause.is::<tower::timeout::error::Elapsed>(), "{cause}");
        // The dropped request was cancelled: its handler's future is gone on the server.
        wait_until(
            || counts.cancelled.load(Ordering::SeqCst) == 1,
            "the server's handler cancelled",
        )
        .await;
        let echoed = client.call_tool("echo", json!({})).await.expect("echo");
        assert_eq!(text(&echoed), "-");
    }
}

#[tokio::test]
async fn client_load_shedding_refuses_while_its_limit_is_taken() {
    for era in [Era::Session, Era::Stateless] {
        let counts = Arc::new(Counts::default());
        let builder = client(era).layer(ServiceBuilder::new().load_shed().concurrency_limit(1));
        let client = tracksuit::host::connect_in_memory(server(counts.clone()), builder)
            .await
            .map(Arc::new)
            .expect("connect");
        let slow = tokio::spawn({
            let client = client.clone();
            async move { client.call_tool("slow", json!({})).await }
        });
        wait_until(
            || counts.entered.load(Ordering::SeqCst) == 1,
            "slow entered",
        )
        .await;
        let calls_before = counts.calls.load(Ordering::SeqCst);
        let shed = client.call_tool("echo", json!({})).await.expect_err("shed");
        let RequestError::Layer(cause) = shed else {
            panic!("expected the layer's error, got {shed:?}");
        };
        assert!(cause.is::<tower::load_shed::error::Overloaded>(), "{cause}");
        // The shed call never left the client.
        assert_eq!(counts.calls.load(Ordering::SeqCst), calls_before);
        counts.open.notify_one();
        let slow = within("slow", slow).await.expect("joined").expect("slow");
        assert_eq!(text(&slow), "slow done");
        let echoed = client.call_tool("echo", json!({})).await.expect("echo");
        assert_eq!(text(&echoed), "-");
    }
}

#[tokio::test]
async fn a_client_policy_layer_refuses_before_sending_and_a_cache_answers_itself() {
    for era in [Era::Session, Era::Stateless] {
        let counts = Arc::new(Counts::default());
        let cache = {
            let kept = Arc::new(Mutex::new(None));
            tower::layer::layer_fn(move |inner| ListCache {
                inner,
                kept: kept.clone(),
            })
        };
        let builder = client(era).layer(
            ServiceBuilder::new()
                .layer(tower::layer::layer_fn(NoDrops))
                .layer(cache),
        );
        let client = tracksuit::host::connect_in_memory(server(counts.clone()), builder)
            .await
            .expect("connect");
        let refused = client
            .call_tool("drop_table", json!({}))
            .await
            .expect_err("refused");
        let RequestError::Peer(error) = refused else {
            panic!("expected the policy's JSON-RPC error, got {refused:?}");
        };
        assert_eq!(error.code, -32003);
        assert_eq!(counts.calls.load(Ordering::SeqCst), 0, "never sent");

        let first = client.list_tools(None).await.expect("list");
        let second = client.list_tools(None).await.expect("cached list");
        assert_eq!(first.tools.len(), 6);
        assert_eq!(first.tools, second.tools);
        assert_eq!(
            counts.lists.load(Ordering::SeqCst),
            1,
            "the second was cached"
        );
    }
}
