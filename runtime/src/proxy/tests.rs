//! The proxy between two tracksuit servers in memory, in every pairing of eras, and its
//! mapping logic. (tests/proxy.rs and scripts/proxy.sh put SDK servers behind it.)

use super::relay::with_progress_token;
use super::sync::reconcile;
use super::{Attach, Remote, items::decode, remote_error};
use crate::authoring::ToolError;
use crate::client::{Client, ClientBuilder, Era};
use crate::context::Ctx;
use crate::peer::RequestError;
use crate::protocol::*;
use crate::server::{Server, ServerHandle, ToolFn};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// What the remote's `wait` tool tells the test.
#[derive(Default)]
struct Signals {
    started: Notify,
    dropped: Notify,
    /// How many times the remote's `ask` ran.
    asks: std::sync::atomic::AtomicUsize,
}

struct OnDrop(Arc<Signals>);
impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.dropped.notify_one();
    }
}

fn tool<F, Fut>(name: &str, f: F) -> ToolFn<F>
where
    F: Fn(Ctx, JsonObject) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
{
    ToolFn::new(Tool::new(name, JsonObject::new()), f)
}

fn remote_server(signals: Arc<Signals>) -> ServerHandle {
    let asks = signals.clone();
    let ask = tool("ask", move |ctx, _| {
        asks.asks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        ask(ctx)
    });
    let sample = tool("sample", |ctx, _| async move {
        let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
        let answer: Value = ctx
            .request(methods::SAMPLING_CREATE_MESSAGE, params)
            .await?;
        let text = answer.pointer("/content/text").and_then(Value::as_str);
        Ok(CallToolResult::text(format!(
            "model said {}",
            text.unwrap_or("?")
        )))
    });
    let count = tool("count", |ctx, _| async move {
        for i in 1..=3 {
            ctx.progress(f64::from(i), Some(3.0), Some("counting"))
                .await;
        }
        Ok(CallToolResult::text("counted"))
    });
    let waits = signals.clone();
    let wait = tool("wait", move |_ctx, _| {
        let signals = waits.clone();
        async move {
            let _guard = OnDrop(signals.clone());
            signals.started.notify_one();
            std::future::pending::<()>().await;
            Ok(CallToolResult::text("never"))
        }
    });
    let refuse = tool("refuse", |_ctx, _| async {
        Err(ToolError::protocol(ErrorObject::new(
            -32042,
            "open a URL first",
        )))
    });
    let oops = tool("oops", |_ctx, _| async { Err(ToolError::new("bad input")) });
    Server::new(Implementation::new("remote", "1.0.0"))
        .tool(ask)
        .tool(sample)
        .tool(count)
        .tool(wait)
        .tool(refuse)
        .tool(oops)
        .build()
        .expect("a valid server")
}

async fn ask(ctx: Ctx) -> Result<CallToolResult, ToolError> {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let params = json!({"mode": "form", "message": "name?", "requestedSchema": schema});
    let answer: Value = ctx.request(methods::ELICITATION_CREATE, params).await?;
    let name = answer.pointer("/content/name").and_then(Value::as_str);
    Ok(CallToolResult::text(format!(
        "hello {}",
        name.unwrap_or("?")
    )))
}

async fn remote(server: &ServerHandle, era: Era) -> Remote {
    let server = server.clone();
    let builder = Client::builder().era(era);
    Remote::connect(builder, move || {
        let (server_end, client_end) = crate::transport::memory::pair();
        tokio::spawn(server.clone().serve(server_end));
        Ok::<_, std::convert::Infallible>(client_end)
    })
    .await
    .expect("the remote connects")
}

fn caller(era: Era) -> ClientBuilder {
    named_caller(era, "Ada")
}

/// A caller whose user is called `name`.
fn named_caller(era: Era, name: &'static str) -> ClientBuilder {
    Client::builder()
        .era(era)
        .on_elicitation(move |_params| async move {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: json!({"name": name}).as_object().cloned(),
                meta: None,
                extra: Default::default(),
            })
        })
        .on_sampling(|_params| async {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: SamplingMessageContentBlock::text("yes").into(),
                model: "test".into(),
                stop_reason: None,
                meta: None,
                extra: Default::default(),
            })
        })
}

/// A proxy server in front of a remote of `remote_era`, and a caller of `caller_era`.
async fn pair(remote_era: Era, caller_era: Era) -> (ServerHandle, Arc<Signals>, Client) {
    let signals = Arc::new(Signals::default());
    let upstream = remote_server(signals.clone());
    let proxy = Server::new(Implementation::new("proxy", "1.0.0"))
        .build()
        .unwrap();
    let remote = remote(&upstream, remote_era).await;
    remote
        .attach(&proxy, Attach::default().prefix("up"))
        .await
        .unwrap();
    let client = crate::host::connect_in_memory(proxy, caller(caller_era))
        .await
        .unwrap();
    (upstream, signals, client)
}

const ERAS: [(Era, Era); 4] = [
    (Era::Session, Era::Session),
    (Era::Stateless, Era::Session),
    (Era::Session, Era::Stateless),
    (Era::Stateless, Era::Stateless),
];

fn text(result: &CallToolResult) -> &str {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
}

#[tokio::test]
async fn lists_calls_and_relays_questions_in_every_pairing_of_eras() {
    for (remote_era, caller_era) in ERAS {
        let at = format!("remote {remote_era:?}, caller {caller_era:?}");
        let (_upstream, signals, client) = pair(remote_era, caller_era).await;
        let tools = client.list_tools(None).await.unwrap();
        let names: Vec<_> = tools.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "up_ask",
                "up_sample",
                "up_count",
                "up_wait",
                "up_refuse",
                "up_oops"
            ],
            "{at}"
        );
        let asked = client.call_tool("up_ask", json!({})).await.unwrap();
        assert_eq!(text(&asked), "hello Ada", "{at}");
        let sampled = client.call_tool("up_sample", json!({})).await.unwrap();
        assert_eq!(text(&sampled), "model said yes", "{at}");
        // Asked twice in a row: each call has its own exchange.
        let again = client.call_tool("up_ask", json!({})).await.unwrap();
        assert_eq!(text(&again), "hello Ada", "{at}");
        if remote_era == Era::Session {
            // Sent once per call, however many rounds the caller took.
            assert_eq!(
                signals.asks.load(std::sync::atomic::Ordering::SeqCst),
                2,
                "{at}"
            );
        }
    }
}

#[tokio::test]
async fn errors_keep_their_code_and_is_error_stays() {
    for (remote_era, caller_era) in ERAS {
        let at = format!("remote {remote_era:?}, caller {caller_era:?}");
        let (_upstream, _signals, client) = pair(remote_era, caller_era).await;
        let refused = client.call_tool("up_refuse", json!({})).await;
        let Err(RequestError::Peer(e)) = refused else {
            panic!("{at}: {refused:?}")
        };
        assert_eq!(
            (e.code, e.message.as_str()),
            (-32042, "open a URL first"),
            "{at}"
        );
        let failed = client.call_tool("up_oops", json!({})).await.unwrap();
        assert_eq!(failed.is_error, Some(true), "{at}");
        assert_eq!(text(&failed), "bad input", "{at}");
    }
}

#[tokio::test]
async fn progress_reaches_the_caller() {
    for (remote_era, caller_era) in [(Era::Session, Era::Session), (Era::Stateless, Era::Session)] {
        let (_upstream, _signals, client) = pair(remote_era, caller_era).await;
        let mut notes = client.notifications();
        let token = ProgressToken::String("mine".into());
        let result = client
            .call_tool_with_progress("up_count", json!({}), token)
            .await
            .unwrap();
        assert_eq!(text(&result), "counted");
        let mut seen = Vec::new();
        while let Ok(note) = notes.try_recv() {
            if note.method == methods::PROGRESS {
                let p: ProgressNotificationParams =
                    serde_json::from_value(note.params.unwrap()).unwrap();
                assert_eq!(p.progress_token, ProgressToken::String("mine".into()));
                seen.push(p.progress);
            }
        }
        assert_eq!(seen, [1.0, 2.0, 3.0], "remote {remote_era:?}");
    }
}

#[tokio::test]
async fn a_cancelled_call_is_cancelled_at_the_remote() {
    for remote_era in [Era::Session, Era::Stateless] {
        let (_upstream, signals, client) = pair(remote_era, Era::Session).await;
        let call = client.call_tool("up_wait", json!({}));
        tokio::select! {
            _ = call => panic!("the call never ends"),
            _ = signals.started.notified() => {}
        }
        // The call's future was dropped: the caller sent notifications/cancelled, the
        // proxy dropped its handler, and the remote's handler is dropped in turn.
        tokio::time::timeout(Duration::from_secs(10), signals.dropped.notified())
            .await
            .unwrap_or_else(|_| panic!("remote {remote_era:?}: the remote call was not cancelled"));
    }
}

#[tokio::test]
async fn list_changes_are_followed_and_relayed() {
    for remote_era in [Era::Session, Era::Stateless] {
        let (upstream, _signals, client) = pair(remote_era, Era::Session).await;
        let mut notes = client.notifications();
        upstream
            .add_tool(tool("late", |_ctx, _| async {
                Ok(CallToolResult::text("here"))
            }))
            .unwrap();
        let changed = async {
            while let Ok(note) = notes.recv().await {
                if note.method == methods::TOOLS_LIST_CHANGED {
                    return;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), changed)
            .await
            .unwrap();
        let late = client.call_tool("up_late", json!({})).await.unwrap();
        assert_eq!(text(&late), "here");
        assert!(upstream.remove_tool("late"));
        let gone = async {
            loop {
                let tools = client.list_tools(None).await.unwrap();
                if tools.tools.iter().all(|t| t.name != "up_late") {
                    return;
                }
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), gone)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn a_remote_that_went_away_is_a_clear_error() {
    let upstream = remote_server(Arc::default());
    let (server_end, client_end) = crate::transport::memory::pair();
    let serving = tokio::spawn(upstream.clone().serve(server_end));
    let once = std::sync::Mutex::new(Some(client_end));
    let remote = Remote::connect(Client::builder(), move || {
        once.lock()
            .unwrap()
            .take()
            .ok_or("no second connection in this test")
    })
    .await
    .unwrap();
    let proxy = Server::new(Implementation::new("proxy", "1.0.0"))
        .build()
        .unwrap();
    remote.attach(&proxy, Attach::default()).await.unwrap();
    let client = crate::host::connect_in_memory(proxy, Client::builder())
        .await
        .unwrap();
    serving.abort();
    remote.client().closed().await;
    let Err(RequestError::Peer(e)) = client.call_tool("count", json!({})).await else {
        panic!("the call should fail");
    };
    assert_eq!(e.code, INTERNAL_ERROR);
    assert!(e.message.contains("`remote`"), "{}", e.message);
}

#[test]
fn remote_errors_map_to_caller_errors() {
    let kept = remote_error("r", RequestError::Peer(ErrorObject::new(-32002, "nope")));
    assert_eq!((kept.code, kept.message.as_str()), (-32002, "nope"));
    let gone = remote_error("r", RequestError::Closed);
    assert_eq!(gone.code, INTERNAL_ERROR);
    assert!(gone.message.contains("`r` went away"));
    let slow = remote_error("r", RequestError::Timeout(Duration::from_secs(2)));
    assert!(slow.message.contains("within 2s"));
}

#[test]
fn results_lose_their_era_members() {
    let value =
        json!({"content": [], "resultType": "complete", "serverInfo": {"name": "r"}, "x": 1});
    let result: CallToolResult = decode(value).unwrap();
    assert!(!result.extra.contains_key("resultType"));
    assert!(!result.extra.contains_key("serverInfo"));
    assert_eq!(result.extra["x"], 1);
    assert!(decode::<CallToolResult>(json!({"content": 7})).is_err());
}

#[test]
fn a_progress_token_is_added_to_meta() {
    let token = ProgressToken::String("t".into());
    let params = with_progress_token(json!({"name": "a", "_meta": {"k": 1}}), Some(&token));
    assert_eq!(params["_meta"], json!({"k": 1, "progressToken": "t"}));
    let params = with_progress_token(json!({"name": "a"}), Some(&token));
    assert_eq!(params["_meta"]["progressToken"], "t");
    assert_eq!(with_progress_token(json!({"a": 1}), None), json!({"a": 1}));
}

#[test]
fn reconcile_adds_removes_and_replaces() {
    let mut registered: HashMap<String, Value> = HashMap::new();
    let removed = std::cell::RefCell::new(Vec::new());
    let added = std::cell::RefCell::new(Vec::new());
    let run = |registered: &mut HashMap<String, Value>, wanted: Vec<(&str, i32)>| {
        removed.borrow_mut().clear();
        added.borrow_mut().clear();
        reconcile(
            registered,
            wanted.into_iter().map(|(k, v)| (k.to_owned(), v)),
            |v| v,
            |k| {
                removed.borrow_mut().push(k.to_owned());
                true
            },
            |v| {
                added.borrow_mut().push(v);
                Ok(())
            },
        )
        .unwrap();
        (removed.borrow().clone(), added.borrow().clone())
    };
    assert_eq!(
        run(&mut registered, vec![("a", 1), ("b", 2)]),
        (vec![], vec![1, 2])
    );
    // Unchanged: nothing happens; changed: replaced; gone: removed.
    let (mut gone, new) = run(&mut registered, vec![("a", 1), ("b", 3)]);
    gone.sort();
    assert_eq!((gone, new), (vec!["b".to_owned()], vec![3]));
    assert_eq!(
        run(&mut registered, vec![("b", 3)]),
        (vec!["a".to_owned()], vec![])
    );
}

#[tokio::test]
async fn a_taken_name_fails_the_attach() {
    let upstream = remote_server(Arc::default());
    let proxy = Server::new(Implementation::new("proxy", "1.0.0"))
        .tool(tool("count", |_ctx, _| async {
            Ok(CallToolResult::text("local"))
        }))
        .build()
        .unwrap();
    let remote = remote(&upstream, Era::Session).await;
    let refused = remote.attach(&proxy, Attach::default()).await;
    assert!(
        matches!(refused, Err(super::ProxyError::Register(_))),
        "{refused:?}"
    );
    // The rest is registered; the local tool is untouched.
    assert!(proxy.tool_names().contains(&"ask".to_owned()));
}

#[tokio::test]
async fn concurrent_calls_get_their_own_callers_answers() {
    for remote_era in [Era::Session, Era::Stateless] {
        let upstream = remote_server(Arc::default());
        let proxy = Server::new(Implementation::new("proxy", "1.0.0"))
            .build()
            .unwrap();
        let remote = remote(&upstream, remote_era).await;
        remote.attach(&proxy, Attach::default()).await.unwrap();
        let connect =
            |name| crate::host::connect_in_memory(proxy.clone(), named_caller(Era::Session, name));
        let (ada, bob) = (connect("Ada").await.unwrap(), connect("Bob").await.unwrap());
        // Both calls are open at the remote at once, each asking its own caller.
        let (a, b) = tokio::join!(
            ada.call_tool("ask", json!({})),
            bob.call_tool("ask", json!({}))
        );
        assert_eq!(text(&a.unwrap()), "hello Ada", "remote {remote_era:?}");
        assert_eq!(text(&b.unwrap()), "hello Bob", "remote {remote_era:?}");
    }
}

#[tokio::test]
async fn a_round_after_the_call_expired_is_refused_and_nothing_is_sent_again() {
    let signals = Arc::new(Signals::default());
    let upstream = remote_server(signals.clone());
    let proxy = Server::new(Implementation::new("proxy", "1.0.0"))
        .build()
        .unwrap();
    let remote = remote(&upstream, Era::Session)
        .await
        .round_ttl(Duration::ZERO);
    remote.attach(&proxy, Attach::default()).await.unwrap();
    let client = crate::host::connect_in_memory(proxy, caller(Era::Stateless))
        .await
        .unwrap();
    let Err(RequestError::Peer(e)) = client.call_tool("ask", json!({})).await else {
        panic!("the second round should be refused");
    };
    assert_eq!(e.code, INTERNAL_ERROR);
    assert!(e.message.contains("no longer open"), "{}", e.message);
    assert_eq!(signals.asks.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn resource_updates_reach_subscribed_callers() {
    for remote_era in [Era::Session, Era::Stateless] {
        let upstream = remote_server(Arc::default());
        let motd =
            crate::server::ResourceFn::new(Resource::new("mem://motd", "motd"), |_ctx| async {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    "mem://motd",
                    "Welcome",
                )]))
            });
        upstream.add_resource(motd).unwrap();
        let proxy = Server::new(Implementation::new("proxy", "1.0.0"))
            .build()
            .unwrap();
        let remote = remote(&upstream, remote_era).await;
        remote
            .attach(&proxy, Attach::default().subscribe_resources())
            .await
            .unwrap();
        let client = crate::host::connect_in_memory(proxy, caller(Era::Session))
            .await
            .unwrap();
        let read = client.read_resource("mem://motd").await.unwrap();
        assert_eq!(
            serde_json::to_value(&read.contents).unwrap()[0]["text"],
            "Welcome"
        );
        let mut notes = client.notifications();
        client.subscribe("mem://motd").await.unwrap();
        upstream.notify_resource_updated("mem://motd");
        let updated = async {
            while let Ok(note) = notes.recv().await {
                if note.method == methods::RESOURCES_UPDATED {
                    return note.params;
                }
            }
            None
        };
        let params = tokio::time::timeout(Duration::from_secs(10), updated)
            .await
            .unwrap();
        assert_eq!(
            params.unwrap()["uri"],
            "mem://motd",
            "remote {remote_era:?}"
        );
    }
}

#[tokio::test]
async fn calls_that_do_not_overlap_use_the_first_connection() {
    let upstream = remote_server(Arc::default());
    let remote = remote(&upstream, Era::Session).await;
    let pool = &remote.inner.pool;
    let route = || tokio::sync::mpsc::unbounded_channel().0;
    let first = pool.lease(route()).await.unwrap();
    let second = pool.lease(route()).await.unwrap();
    assert!(std::ptr::eq(first.client(), remote.client()));
    assert!(!std::ptr::eq(second.client(), remote.client()));
    // Given back first, then second: the next call still gets the first connection.
    drop(first);
    drop(second);
    let next = pool.lease(route()).await.unwrap();
    assert!(std::ptr::eq(next.client(), remote.client()));
}
