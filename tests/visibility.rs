//! `Server::visibility` and `hide_unauthorized`: two principals see different lists; pages
//! stay full and list each visible item once; a hidden tool, prompt, resource or template
//! answers every request exactly as an absent one would (compared with a server that lacks
//! it), in both eras, in memory and over Streamable HTTP.

use axum::body::Body;
use axum::http::Request;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tracksuit::client::{Client, ClientBuilder, Era, HttpTransport};
use tracksuit::host::connect_in_memory_as;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{
    ItemKind, Principal, RequestError, Server, ServerHandle, ServerOptions, ToolFn, mcp_prompt,
    mcp_resource,
};
use tracksuit_tests::support::within;

/// A tool answering its name, optional as a task.
fn tool(
    name: &str,
) -> ToolFn<impl Fn(tracksuit::Ctx, JsonObject) -> ToolFuture + Send + Sync + use<>> {
    let name = name.to_owned();
    let mut descriptor = Tool::new(name.clone(), Default::default());
    descriptor.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Optional),
    });
    ToolFn::new(descriptor, move |_ctx, _args| -> ToolFuture {
        let name = name.clone();
        Box::pin(async move { Ok(CallToolResult::text(name)) })
    })
}

type ToolFuture = futures::future::BoxFuture<'static, Result<CallToolResult, tracksuit::ToolError>>;

/// A secret prompt.
#[mcp_prompt(complete = complete_any)]
async fn secret_prompt(
    /// Anything
    topic: String,
) -> String {
    topic
}

async fn complete_any(_argument: &str, value: &str) -> Vec<String> {
    vec![format!("{value}!")]
}

/// A secret resource.
#[mcp_resource(uri = "mem://secret", mime_type = "text/plain")]
async fn secret_resource() -> String {
    "hush".into()
}

/// Secret rows.
#[mcp_resource(uri = "mem://secret/{id}", complete = complete_any)]
async fn secret_rows(id: u32) -> String {
    id.to_string()
}

/// Public rows.
#[mcp_resource(uri = "mem://rows/{id}")]
async fn rows(id: u32) -> String {
    id.to_string()
}

/// Seven tools, three of them secret (`secret1`, `secret3`, `secret5`), the secret prompt,
/// resource and template when `with_secrets`, public rows; secrets only for `admin`.
fn server(with_secrets: bool) -> ServerHandle {
    let mut server = Server::with_options(
        tracksuit::crate_info!(),
        ServerOptions::default().page_size(2),
    );
    for n in 0..7 {
        let name = if n % 2 == 1 {
            format!("secret{n}")
        } else {
            format!("t{n}")
        };
        if with_secrets || n % 2 == 0 {
            server = server.tool(tool(&name));
        }
    }
    if with_secrets {
        server = server
            .prompt(secret_prompt)
            .resource(secret_resource)
            .resource_template(secret_rows);
    }
    server
        .resource_template(rows)
        .visibility(|item, viewer| !item.name().contains("secret") || viewer.has_scopes(&["admin"]))
        .visibility(|item, _viewer| item.kind() != ItemKind::Tool || item.name() != "never")
        .build()
        .expect("distinct names")
}

fn alice() -> Principal {
    Principal::new("alice").with_scopes(["admin"])
}

fn bob() -> Principal {
    Principal::new("bob")
}

async fn as_(server: ServerHandle, era: Era, who: Principal) -> Client {
    let builder = Client::builder().era(era).tasks_extension();
    connect_in_memory_as(server, builder, who)
        .await
        .expect("connects")
}

/// Every tool name, page by page (each page's length too).
async fn pages(client: &Client) -> (Vec<String>, Vec<usize>) {
    let (mut names, mut sizes, mut cursor) = (Vec::new(), Vec::new(), None);
    loop {
        let page = client.list_tools(cursor.take()).await.expect("tools/list");
        sizes.push(page.tools.len());
        names.extend(page.tools.into_iter().map(|t| t.name));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return (names, sizes),
        }
    }
}

#[tokio::test]
async fn two_principals_see_different_full_pages_in_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        let admin = as_(server(true), era, alice()).await;
        let (names, sizes) = pages(&admin).await;
        assert_eq!(
            names,
            ["t0", "secret1", "t2", "secret3", "t4", "secret5", "t6"]
        );
        assert_eq!(sizes, [2, 2, 2, 1], "{era:?}");
        let user = as_(server(true), era, bob()).await;
        let (names, sizes) = pages(&user).await;
        assert_eq!(names, ["t0", "t2", "t4", "t6"], "{era:?}");
        assert_eq!(sizes, [2, 2], "{era:?}: full pages, no empty last one");
        let prompts = user.list_prompts(None).await.expect("prompts/list");
        assert!(prompts.prompts.is_empty(), "{era:?}");
        let resources = user.list_resources(None).await.expect("resources/list");
        assert!(resources.resources.is_empty(), "{era:?}");
        let templates = user
            .list_resource_templates(None)
            .await
            .expect("templates/list");
        let uris: Vec<_> = templates
            .resource_templates
            .iter()
            .map(|t| t.uri_template.as_str())
            .collect();
        assert_eq!(uris, ["mem://rows/{id}"], "{era:?}");
        let prompts = admin.list_prompts(None).await.expect("prompts/list");
        assert_eq!(prompts.prompts.len(), 1, "{era:?}");
        let called = admin.call_tool("secret3", json!({})).await.expect("call");
        assert_eq!(called.content[0].as_text(), Some("secret3"));
    }
}

/// A request's outcome as JSON: its result or its error object.
async fn outcome(client: &Client, method: &str, params: Value) -> Value {
    match client.request::<_, Value>(method, params).await {
        Ok(result) => json!({ "result": result }),
        Err(RequestError::Peer(error)) => json!({ "error": error }),
        Err(other) => panic!("{method}: {other}"),
    }
}

#[tokio::test]
async fn hidden_items_answer_exactly_like_absent_ones_in_both_eras() {
    let cases = [
        ("tools/call", json!({"name": "secret1", "arguments": {}})),
        (
            "tools/call",
            json!({"name": "secret1", "arguments": {}, "task": {"ttl": 60000}}),
        ),
        (
            "prompts/get",
            json!({"name": "secret_prompt", "arguments": {"topic": "x"}}),
        ),
        ("resources/read", json!({"uri": "mem://secret"})),
        ("resources/read", json!({"uri": "mem://secret/5"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "secret_prompt"},
                   "argument": {"name": "topic", "value": "a"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "mem://secret/{id}"},
                   "argument": {"name": "id", "value": "1"}}),
        ),
    ];
    for era in [Era::Session, Era::Stateless] {
        let hidden = as_(server(true), era, bob()).await;
        let absent = as_(server(false), era, bob()).await;
        let admin = as_(server(true), era, alice()).await;
        for (method, params) in &cases {
            let seen = outcome(&hidden, method, params.clone()).await;
            let unknown = outcome(&absent, method, params.clone()).await;
            assert_eq!(seen, unknown, "{era:?} {method} {params}");
            let allowed = outcome(&admin, method, params.clone()).await;
            assert_ne!(allowed, unknown, "{era:?} {method}: the admin reaches it");
        }
        let error = &outcome(&hidden, "tools/call", cases[0].1.clone()).await["error"];
        assert_eq!(error["code"], INVALID_PARAMS, "{era:?}");
        assert_eq!(
            error["message"], "Invalid params: Unknown tool: secret1",
            "{era:?}"
        );
    }
    // 2025 subscriptions: accepted like an unknown URI.
    let hidden = as_(server(true), Era::Session, bob()).await;
    let absent = as_(server(false), Era::Session, bob()).await;
    let params = json!({"uri": "mem://secret"});
    assert_eq!(
        outcome(&hidden, "resources/subscribe", params.clone()).await,
        outcome(&absent, "resources/subscribe", params).await
    );
}

/// Serves `server` on a loopback port, the principal taken from an `x-user` header
/// (`alice` holds `admin` and `files:write`); returns the endpoint URL.
async fn start(server: ServerHandle) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = StreamableHttp::new(server, HttpOptions::default())
        .router("/mcp")
        .layer(tower::util::MapRequestLayer::new(
            |mut req: Request<Body>| {
                let user = req
                    .headers()
                    .get("x-user")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                if let Some(user) = user {
                    let principal = match user.as_str() {
                        "alice" => alice().with_scopes(["admin", "files:write"]),
                        other => Principal::new(other),
                    };
                    req.extensions_mut().insert(principal);
                }
                req
            },
        ));
    tokio::spawn(tracksuit::host::http::serve(listener, app));
    format!("http://{addr}/mcp")
}

async fn over_http(url: &str, era: Era, user: &str) -> Client {
    let transport = HttpTransport::new(url)
        .expect("url")
        .header("x-user", user)
        .expect("header");
    let builder: ClientBuilder = Client::builder().era(era);
    within("connect", builder.connect(transport))
        .await
        .expect("connected")
}

#[tokio::test]
async fn over_http_each_principal_sees_its_own_list_in_both_eras() {
    let url = start(server(true)).await;
    for era in [Era::Session, Era::Stateless] {
        let admin = over_http(&url, era, "alice").await;
        assert_eq!(pages(&admin).await.0.len(), 7, "{era:?}");
        let user = over_http(&url, era, "bob").await;
        assert_eq!(pages(&user).await.0, ["t0", "t2", "t4", "t6"], "{era:?}");
        let error = user
            .call_tool("secret5", json!({}))
            .await
            .expect_err("hidden");
        assert!(
            matches!(&error, RequestError::Peer(e) if e.code == INVALID_PARAMS && e.message == "Invalid params: Unknown tool: secret5"),
            "{era:?}: {error}"
        );
    }
}

/// Writes a file (needs `files:write`).
fn writer() -> impl tracksuit::ToolHandler {
    tool("write_file").scopes(["files:write"])
}

#[tokio::test]
async fn hide_unauthorized_hides_calls_too_while_a_shown_tool_is_refused_with_403() {
    for hide in [true, false] {
        let options = ServerOptions::default().hide_unauthorized(hide);
        let server = Server::with_options(tracksuit::crate_info!(), options)
            .tool(writer())
            .tool(tool("read_file"))
            .build()
            .expect("distinct names");
        let url = start(server).await;
        for era in [Era::Session, Era::Stateless] {
            let reader = over_http(&url, era, "bob").await;
            let names = pages(&reader).await.0;
            let error = reader
                .call_tool("write_file", json!({}))
                .await
                .expect_err("refused");
            if hide {
                assert_eq!(names, ["read_file"], "{era:?}");
                assert!(
                    matches!(&error, RequestError::Peer(e) if e.code == INVALID_PARAMS && e.message == "Invalid params: Unknown tool: write_file"),
                    "{era:?}: {error}"
                );
            } else {
                assert_eq!(names, ["write_file", "read_file"], "{era:?}");
                assert!(
                    error.to_string().contains("files:write"),
                    "{era:?}: {error}"
                );
            }
            let admin = over_http(&url, era, "alice").await;
            let wrote = admin
                .call_tool("write_file", json!({}))
                .await
                .expect("call");
            assert_eq!(wrote.content[0].as_text(), Some("write_file"));
        }
    }
}

#[tokio::test]
async fn results_that_depend_on_the_caller_are_never_publicly_cacheable() {
    let hint = tracksuit::CacheHint {
        ttl: std::time::Duration::from_secs(60),
        public: true,
    };
    for filtered in [false, true] {
        let mut server = Server::with_options(
            tracksuit::crate_info!(),
            ServerOptions::default().cache(hint),
        )
        .tool(tool("t0"));
        if filtered {
            server = server.visibility(|_, _| true);
        }
        let server = server.build().expect("distinct names");
        let client = as_(server, Era::Stateless, bob()).await;
        let listed: Value = client
            .request("tools/list", json!({}))
            .await
            .expect("tools/list");
        let scope = if filtered { "private" } else { "public" };
        assert_eq!(listed["cacheScope"], scope, "{listed}");
        assert_eq!(listed["ttlMs"], 60_000);
    }
}

/// A raw 2026-07-28 `tools/call` of `name` with `region` in its arguments and `header` as
/// its `Mcp-Param-Region`, by `user`, through the router; the JSON-RPC reply.
async fn call_with_region_header(
    app: &axum::Router,
    user: &str,
    name: &str,
    header: &str,
) -> Value {
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": name,
            "arguments": {"region": "eu"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    });
    let request = Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .header("mcp-param-region", header)
        .header("x-user", user)
        .body(Body::from(body.to_string()))
        .expect("a request");
    let response = app.clone().oneshot(request).await.expect("infallible");
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    let mut reply: Value = serde_json::from_slice(&bytes).expect("JSON");
    // The id and the tool's name aside, a hidden tool's reply must equal an absent one's.
    reply["error"]["message"] = json!(
        reply["error"]["message"]
            .as_str()
            .map(|m| m.replace(name, "NAME"))
    );
    reply
}

#[tokio::test]
async fn a_hidden_tools_mirrored_headers_do_not_tell_it_exists() {
    let region = |name: &str| {
        ToolFn::new(
            Tool::new(
                name,
                JsonObject::from_iter([
                    ("type".into(), json!("object")),
                    (
                        "properties".into(),
                        json!({"region": {"type": "string", "x-mcp-header": "Region"}}),
                    ),
                ]),
            ),
            |_ctx, _args| async { Ok(CallToolResult::text("served")) },
        )
    };
    let server = Server::new(tracksuit::crate_info!())
        .tool(region("region_secret"))
        .visibility(|item, viewer| {
            !item.name().ends_with("_secret")
                || viewer.principal().is_some_and(|p| p.subject == "alice")
        })
        .build()
        .expect("server");
    let app = StreamableHttp::new(server, HttpOptions::default())
        .router("/mcp")
        .layer(tower::util::MapRequestLayer::new(
            |mut req: Request<Body>| {
                let user = req
                    .headers()
                    .get("x-user")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                if let Some(user) = user {
                    req.extensions_mut().insert(Principal::new(user));
                }
                req
            },
        ));
    // Alice sees the tool: her wrong header is a header mismatch.
    let seen = call_with_region_header(&app, "alice", "region_secret", "us").await;
    assert_eq!(seen["error"]["code"], json!(HEADER_MISMATCH), "{seen}");
    // Bob does not: the same request is answered exactly as for a tool that does not exist.
    let hidden = call_with_region_header(&app, "bob", "region_secret", "us").await;
    let absent = call_with_region_header(&app, "bob", "region_nothing", "us").await;
    assert_eq!(hidden, absent);
    assert_eq!(hidden["error"]["code"], json!(INVALID_PARAMS), "{hidden}");
}
