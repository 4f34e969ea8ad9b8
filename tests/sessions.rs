//! 2025-11-25 HTTP sessions as hostile callers see them: a session belongs to the
//! principal that opened it, and one principal (or everyone together) can hold only so
//! many open.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures::StreamExt;
use serde_json::{Value, json};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{Server, ToolFn};
use tracksuit_tests::support::{obj, within};

#[path = "http_requests.rs"]
mod http_requests;
use http_requests::*;

/// A server whose `ask` tool asks the client for its roots.
fn app(options: HttpOptions) -> axum::Router {
    let server = Server::new(Implementation::new("sessions-test", "1"))
        .tool(ToolFn::new(
            Tool::new("ask", obj(json!({"type":"object"}))),
            |ctx, _| async move {
                let roots = ctx.list_roots().await?;
                Ok(CallToolResult::text(format!("{} roots", roots.roots.len())))
            },
        ))
        .build()
        .expect("one tool");
    StreamableHttp::new(server, options).router("/mcp")
}

/// `app()` behind a stand-in for an authentication layer: the `x-user` header becomes the
/// request's `Principal`.
fn app_with_users(options: HttpOptions) -> axum::Router {
    app(options).layer(tower::util::MapRequestLayer::new(
        |mut req: Request<Body>| {
            let user = req.headers().get("x-user").and_then(|v| v.to_str().ok());
            if let Some(user) = user.map(str::to_owned) {
                req.extensions_mut()
                    .insert(tracksuit::Principal::new(user).with_issuer("https://issuer.test"));
            }
            req
        },
    ))
}

/// `request` as `user` sends it.
fn as_user(mut request: Request<Body>, user: &str) -> Request<Body> {
    let value = user.parse().expect("header value");
    request.headers_mut().insert("x-user", value);
    request
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let app = app_with_users(HttpOptions::default());
    let opened = send(&app, as_user(post(&init_body(), None), "alice")).await;
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let sent = send(&app, as_user(post(note, Some(&session)), "alice")).await;
    assert_eq!(sent.status(), StatusCode::ACCEPTED);
    // Alice's call asks her for roots; the question waits on her POST's stream.
    let call = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{}}});
    let resp = send(
        &app,
        as_user(post(&call.to_string(), Some(&session)), "alice"),
    )
    .await;
    let mut stream = resp.into_body().into_data_stream();
    let mut seen = String::new();
    let asked = loop {
        let chunk = within("the roots/list request", stream.next())
            .await
            .expect("open");
        seen.push_str(&String::from_utf8_lossy(&chunk.expect("chunk")));
        if let Some(line) = seen.lines().find(|l| l.contains("roots/list")) {
            break serde_json::from_str::<Value>(line.trim_start_matches("data: ")).expect("json");
        }
    };
    let answer = |n: usize| {
        let roots: Vec<Value> = (0..n)
            .map(|i| json!({"uri": format!("file:///r{i}")}))
            .collect();
        json!({"jsonrpc":"2.0","id":asked["id"],"result":{"roots": roots}}).to_string()
    };
    // Bob, with a valid identity of his own and Alice's session id, finds no session: he
    // cannot answer her question, replay her streams or end her session. Nor can a
    // request with no identity.
    for request in [
        as_user(post(&answer(5), Some(&session)), "bob"),
        post(&answer(5), Some(&session)),
        as_user(post(&call.to_string(), Some(&session)), "bob"),
        as_user(
            Request::get("/mcp")
                .header("host", "localhost")
                .header("accept", "text/event-stream")
                .header("mcp-session-id", &session)
                .header("last-event-id", format!("{session}-0"))
                .body(Body::empty())
                .expect("request"),
            "bob",
        ),
        as_user(delete(&session), "bob"),
    ] {
        let (method, status) = (request.method().clone(), send(&app, request).await.status());
        assert_eq!(
            status,
            StatusCode::NOT_FOUND,
            "{method} by another principal"
        );
    }
    // Alice's session is intact: her answer is the one her call gets.
    let sent = send(&app, as_user(post(&answer(1), Some(&session)), "alice")).await;
    assert_eq!(sent.status(), StatusCode::ACCEPTED);
    let rest = within("the call's result", stream.next())
        .await
        .expect("open")
        .expect("chunk");
    assert!(
        String::from_utf8_lossy(&rest).contains("1 roots"),
        "{rest:?}"
    );
    let ended = send(&app, as_user(delete(&session), "alice")).await;
    assert_eq!(ended.status(), StatusCode::OK);
}

/// Opens a session as `user` (or anonymously); the response's status and session id.
async fn open_as(app: &axum::Router, user: Option<&str>) -> (StatusCode, Option<String>) {
    let request = post(&init_body(), None);
    let request = match user {
        Some(user) => as_user(request, user),
        None => request,
    };
    let response = send(app, request).await;
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (response.status(), id)
}

#[tokio::test]
async fn one_principal_cannot_hold_more_sessions_than_its_quota() {
    let app = app_with_users(HttpOptions::default().max_sessions(100, 3));
    let mut mallory = Vec::new();
    for _ in 0..3 {
        let (status, id) = open_as(&app, Some("mallory")).await;
        assert_eq!(status, StatusCode::OK);
        mallory.push(id.expect("a session id"));
    }
    // The fourth is refused with a clear error; everyone else is still served.
    let response = send(&app, as_user(post(&init_body(), None), "mallory")).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let refused = body_json(response).await;
    assert_eq!(refused["id"], 0, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("max_sessions_per_principal"), "{refused}");
    assert_eq!(open_as(&app, Some("alice")).await.0, StatusCode::OK);
    // Ending one makes room again.
    let ended = send(&app, as_user(delete(&mallory[0]), "mallory")).await;
    assert_eq!(ended.status(), StatusCode::OK);
    assert_eq!(open_as(&app, Some("mallory")).await.0, StatusCode::OK);
}

#[tokio::test]
async fn the_server_wide_cap_refuses_new_sessions_with_503() {
    let app = app_with_users(HttpOptions::default().max_sessions(4, 64));
    for user in ["a", "b", "c"] {
        assert_eq!(open_as(&app, Some(user)).await.0, StatusCode::OK);
    }
    assert_eq!(open_as(&app, None).await.0, StatusCode::OK);
    // Full, and no session is idle long enough to sweep.
    let (status, id) = open_as(&app, Some("d")).await;
    assert_eq!((status, id), (StatusCode::SERVICE_UNAVAILABLE, None));
}
