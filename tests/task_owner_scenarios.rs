//! Whose tasks are whose on a 2025-11-25 HTTP server without authentication: a task
//! belongs to the session that created it (its id is that client's only credential), so
//! another session neither finds, cancels, reads nor lists it; `tasks/list` is off unless
//! the server turns it on; and one session cannot fill the task store for everyone
//! (`TaskOptions::max_stored_per_caller`). The scenarios take the task store: this file's
//! tests run them on the in-memory and SQLite stores, `postgres_task_owners.rs` on
//! PostgreSQL.
#![allow(dead_code)]

use axum::http::StatusCode;
use serde_json::{Value, json};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::task::{TaskOptions, TaskStore};
use tracksuit::{Server, ServerOptions, mcp_tool};
use tracksuit_tests::support::wait_for;

#[path = "http_requests.rs"]
mod http_requests;
use http_requests::{body_json, init_body, post, send};

/// Echoes `text`.
#[mcp_tool(task_support = "optional")]
async fn echo(text: String) -> String {
    text
}

fn app(tasks: TaskOptions, store: impl TaskStore) -> axum::Router {
    let server = Server::with_options(
        tracksuit::crate_info!(),
        ServerOptions::default().tasks(tasks),
    )
    .tool(echo)
    .task_store(store)
    .build()
    .expect("one tool");
    StreamableHttp::new(server, HttpOptions::default().json_response(true)).router("/mcp")
}

/// A new session's id, and its `initialize` result.
async fn open(app: &axum::Router) -> (String, Value) {
    let resp = send(app, post(&init_body(), None)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let session = resp.headers()["mcp-session-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let init = body_json(resp).await;
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(
        send(app, post(note, Some(&session))).await.status(),
        StatusCode::ACCEPTED
    );
    (session, init)
}

/// The JSON-RPC response to `method` with `params`, sent in `session`.
async fn rpc(app: &axum::Router, session: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc":"2.0","id":7,"method":method,"params":params}).to_string();
    body_json(send(app, post(&body, Some(session))).await).await
}

/// Starts `echo` as a task in `session`; its id, or the error.
async fn start(app: &axum::Router, session: &str) -> Result<String, Value> {
    let params = json!({"name":"echo","arguments":{"text":"hi"},"task":{"ttl":60_000}});
    let resp = rpc(app, session, "tools/call", params).await;
    match resp["result"]["task"]["taskId"].as_str() {
        Some(id) => Ok(id.to_owned()),
        None => Err(resp["error"].clone()),
    }
}

async fn completed(app: &axum::Router, session: &str, id: &str) {
    wait_for("the task completes", || async {
        let got = rpc(app, session, "tasks/get", json!({"taskId": id})).await;
        (got["result"]["status"] == "completed").then_some(())
    })
    .await;
}

pub async fn a_task_belongs_to_the_session_that_created_it(store: impl TaskStore) {
    let app = app(TaskOptions::default().list(true), store);
    let (alice, _) = open(&app).await;
    let (bob, _) = open(&app).await;
    let id = start(&app, &alice).await.expect("a task");
    completed(&app, &alice, &id).await;
    let result = rpc(&app, &alice, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["result"]["content"][0]["text"], "hi", "{result}");

    // Bob holds a session of his own and Alice's task id: to him it does not exist.
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let got = rpc(&app, &bob, method, json!({"taskId": id})).await;
        assert_eq!(got["error"]["code"], -32602, "{method}: {got}");
        assert!(got.get("result").is_none(), "{method}: {got}");
    }
    let listed = |v: &Value| -> Vec<String> {
        v["result"]["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .map(|t| t["taskId"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let bobs = rpc(&app, &bob, "tasks/list", json!({})).await;
    assert_eq!(listed(&bobs), Vec::<String>::new(), "{bobs}");
    let alices = rpc(&app, &alice, "tasks/list", json!({})).await;
    assert_eq!(listed(&alices), vec![id.clone()], "{alices}");
    // Bob's own task is his alone.
    let his = start(&app, &bob).await.expect("his task");
    let alices = rpc(&app, &alice, "tasks/list", json!({})).await;
    assert_eq!(listed(&alices), vec![id], "{alices}");
    let bobs = rpc(&app, &bob, "tasks/list", json!({})).await;
    assert_eq!(listed(&bobs), vec![his], "{bobs}");
}

pub async fn tasks_list_is_off_unless_turned_on<S: TaskStore>(store: impl Fn() -> S) {
    let app = app(TaskOptions::default(), store());
    let (session, init) = open(&app).await;
    let tasks = &init["result"]["capabilities"]["tasks"];
    assert!(tasks.is_object(), "{init}");
    assert!(tasks.get("list").is_none(), "{init}");
    let got = rpc(&app, &session, "tasks/list", json!({})).await;
    assert_eq!(got["error"]["code"], -32601, "{got}");

    let app = self::app(TaskOptions::default().list(true), store());
    let (_, init) = open(&app).await;
    assert!(
        init["result"]["capabilities"]["tasks"]["list"].is_object(),
        "{init}"
    );
}

pub async fn one_session_cannot_fill_the_task_store(store: impl TaskStore) {
    let app = app(TaskOptions::default().max_stored_per_caller(3), store);
    let (greedy, _) = open(&app).await;
    let (other, _) = open(&app).await;
    for _ in 0..3 {
        let id = start(&app, &greedy).await.expect("under the cap");
        completed(&app, &greedy, &id).await;
    }
    // Finished tasks count until they expire: a fourth is refused, clearly.
    let refused = start(&app, &greedy).await.expect_err("over the cap");
    assert_eq!(refused["code"], -32603, "{refused}");
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(message.contains("max_stored_per_caller"), "{message}");
    // Everyone else is served.
    let id = start(&app, &other).await.expect("another session's task");
    completed(&app, &other, &id).await;
}

/// A store that holds two records refuses a third task with a clear error.
pub async fn a_full_store_refuses_new_tasks(store: impl TaskStore) {
    let app = app(TaskOptions::default(), store);
    let (session, _) = open(&app).await;
    for _ in 0..2 {
        let id = start(&app, &session).await.expect("room for it");
        completed(&app, &session, &id).await;
    }
    let refused = start(&app, &session).await.expect_err("the store is full");
    assert_eq!(refused["code"], -32603, "{refused}");
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("holds as many tasks as it may (2)"),
        "{message}"
    );
}
