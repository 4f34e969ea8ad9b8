//! The PostgreSQL task store and event bus against a real PostgreSQL server. Run by
//! `scripts/postgres.sh`, which starts a throwaway server and sets
//! `TRACKSUIT_TEST_DATABASE_URL`; built only with `--features postgres`, and failing (not
//! skipping) when the variable is missing.
//!
//! Each test works in a schema of its own, so they run in parallel on one database.

use axum::body::Body;
use axum::http::Request;
use futures::StreamExt;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;
use tracksuit::events::{Event, EventBus, EventBusError, PgEventBus};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::{Implementation, TaskStatus};
use tracksuit::task::{
    PostgresOptions, PostgresTaskStore, TaskNotice, TaskOutcome, TaskRecord, TaskStore,
    TaskStoreError,
};
use tracksuit::{Server, ServerHandle};
use tracksuit_tests::support::{wait_for, within};

#[path = "pg.rs"]
mod pg;
use pg::{base_url, schema, uuid_like};

async fn raw(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(conn);
    client
}

async fn store(url: &str, owner: &str, lease_ms: u64) -> PostgresTaskStore {
    PostgresTaskStore::connect_with(
        url,
        PostgresOptions::default()
            .owner(owner)
            .lease(Duration::from_millis(lease_ms))
            .pool_size(4),
    )
    .await
    .expect("connect the store")
}

/// A record (built from JSON, so fields added to `TaskRecord` later take their defaults).
fn record(id: &str, status: TaskStatus, expires_at: Option<u64>) -> TaskRecord {
    serde_json::from_value(json!({
        "task": {
            "taskId": id,
            "status": status,
            "createdAt": "2026-07-28T10:30:00Z",
            "lastUpdatedAt": "2026-07-28T10:30:00Z",
        },
        "method": "tools/call",
        "expiresAt": expires_at,
    }))
    .expect("a task record")
}

fn completed(id: &str) -> TaskRecord {
    let mut r = record(id, TaskStatus::Completed, None);
    r.outcome = Some(TaskOutcome::Result(json!({"content": []})));
    r
}

#[tokio::test]
async fn stores_lists_pages_and_expires_like_every_store() {
    let (_, url) = schema().await;
    let store = store(&url, "r1", 10_000).await;
    for (i, id) in ["a", "b", "c"].iter().enumerate() {
        store
            .put(record(id, TaskStatus::Working, Some(100 + i as u64)))
            .await
            .expect("put");
    }
    let mut b = completed("b");
    b.expires_at = Some(101);
    store.put(b.clone()).await.expect("update");
    assert_eq!(store.get("b").await.expect("get"), Some(b));
    assert_eq!(store.get("nope").await.expect("get"), None);

    let first = store.list(None, 2).await.expect("list");
    let ids: Vec<_> = first
        .records
        .iter()
        .map(|r| r.task.task_id.as_str())
        .collect();
    assert_eq!(
        (ids, first.more),
        (vec!["a", "b"], true),
        "update keeps order"
    );
    let rest = store.list(Some("b"), 2).await.expect("list");
    assert_eq!(rest.records.len(), 1);
    assert!(!rest.more);
    assert!(matches!(
        store.list(Some("zzz"), 2).await,
        Err(TaskStoreError::UnknownCursor)
    ));
    assert_eq!(store.remove_expired(101).await.expect("expire"), 2);
    assert!(store.get("a").await.expect("get").is_none());
    assert!(store.get("c").await.expect("get").is_some());
}

#[tokio::test]
async fn replicas_starting_together_migrate_once() {
    let (schema, url) = schema().await;
    let opens = (0..8).map(|i| {
        let url = url.clone();
        async move { store(&url, &format!("r{i}"), 10_000).await }
    });
    let stores = futures::future::join_all(opens).await;
    assert_eq!(stores.len(), 8);
    let client = raw(&base_url()).await;
    let version: i32 = client
        .query_one(
            &format!("SELECT version FROM {schema}.tracksuit_schema_version"),
            &[],
        )
        .await
        .expect("version row")
        .get(0);
    assert_eq!(version, 4);
    let rows: i64 = client
        .query_one(
            &format!("SELECT count(*) FROM {schema}.tracksuit_schema_version"),
            &[],
        )
        .await
        .expect("count")
        .get(0);
    assert_eq!(rows, 1, "one version row");
}

#[tokio::test]
async fn an_older_schema_is_migrated_and_a_newer_one_refused() {
    let (_, url) = schema().await;
    drop(store(&url, "first", 10_000).await);
    let client = raw(&url).await;
    // Back to version 1, as a database made by an older build.
    client
        .batch_execute(
            "ALTER TABLE tracksuit_tasks DROP COLUMN inbox, DROP COLUMN lease_epoch;
             DROP INDEX tracksuit_tasks_owner;
             UPDATE tracksuit_schema_version SET version = 1;",
        )
        .await
        .expect("downgrade");
    let store = store(&url, "second", 10_000).await;
    store
        .put(record("t", TaskStatus::Working, None))
        .await
        .expect("put");
    let map = json!({"k": 1}).as_object().cloned().expect("object");
    assert!(
        store
            .post_input("t", map)
            .await
            .expect("the inbox exists again")
    );
    let version: i32 = client
        .query_one("SELECT version FROM tracksuit_schema_version", &[])
        .await
        .expect("version")
        .get(0);
    assert_eq!(version, 4);
    client
        .batch_execute("UPDATE tracksuit_schema_version SET version = 99")
        .await
        .expect("from the future");
    let refused = PostgresTaskStore::connect(&url).await.expect_err("too new");
    assert!(refused.to_string().contains("newer"), "{refused}");
}

#[tokio::test]
async fn a_terminal_status_never_changes_whoever_writes() {
    let (_, url) = schema().await;
    let store = store(&url, "r1", 10_000).await;
    store.put(completed("done")).await.expect("put");
    // The store's own write of a different record is refused, the same one again is not...
    store
        .put(completed("done"))
        .await
        .expect("an identical rewrite");
    let working = store.put(record("done", TaskStatus::Working, None)).await;
    assert!(
        matches!(&working, Err(TaskStoreError::Terminal(_))),
        "{working:?}"
    );
    let mut failed = completed("done");
    failed.task.status = TaskStatus::Failed;
    assert!(store.put(failed).await.is_err());
    let mut other = completed("done");
    other.outcome = Some(TaskOutcome::Result(
        json!({"content": [{"type": "text", "text": "x"}]}),
    ));
    assert!(store.put(other).await.is_err(), "nor its outcome");
    assert_eq!(
        store.get("done").await.expect("get"),
        Some(completed("done"))
    );
    // ...and any other writer is refused by the trigger.
    let client = raw(&url).await;
    let err = client
        .execute(
            "UPDATE tracksuit_tasks SET status = 'working',
                 record = jsonb_set(record, '{task,status}', '\"working\"')
             WHERE task_id = 'done'",
            &[],
        )
        .await
        .expect_err("the trigger refuses");
    assert_eq!(
        err.code(),
        Some(&tokio_postgres::error::SqlState::CHECK_VIOLATION),
        "{err}"
    );
    assert!(err.to_string().contains("terminal") || format!("{err:?}").contains("terminal"));
    // A status column that disagrees with the record is refused too.
    let err = client
        .execute(
            "INSERT INTO tracksuit_tasks (task_id, status, record)
             SELECT 'x', 'working', record FROM tracksuit_tasks WHERE task_id = 'done'
             ON CONFLICT DO NOTHING",
            &[],
        )
        .await;
    assert!(err.is_err(), "status must match the record");
    assert!(store.claim("done").await.expect("claim").is_none());
    assert!(!store.request_cancel("done").await.expect("cancel"));
}

#[tokio::test]
async fn exactly_one_replica_claims_each_free_task() {
    let (_, url) = schema().await;
    let creator = store(&url, "creator", 10_000).await;
    let ids: Vec<String> = (0..24).map(|i| format!("task-{i}")).collect();
    for id in &ids {
        creator
            .put(record(id, TaskStatus::Working, None))
            .await
            .expect("put");
        creator.release(id).await.expect("release");
    }
    let mut replicas = Vec::new();
    for i in 0..5 {
        replicas.push(store(&url, &format!("r{i}"), 10_000).await);
    }
    // Every replica tries every task at once.
    let attempts = replicas.iter().flat_map(|r| {
        ids.iter().map(move |id| async move {
            r.claim(id)
                .await
                .expect("claim")
                .map(|_| (id.clone(), r.owner().to_owned()))
        })
    });
    let won: Vec<(String, String)> = futures::future::join_all(attempts)
        .await
        .into_iter()
        .flatten()
        .collect();
    let distinct: HashSet<&String> = won.iter().map(|(id, _)| id).collect();
    assert_eq!(won.len(), ids.len(), "one winner per task: {won:?}");
    assert_eq!(distinct.len(), ids.len());
    for (id, owner) in &won {
        let lease = creator.lease(id).await.expect("lease").expect("leased");
        assert_eq!(&lease.owner, owner);
    }
    // The holder may claim again (renewal); the others still may not.
    let (id, owner) = &won[0];
    for r in &replicas {
        let again = r.claim(id).await.expect("claim").is_some();
        assert_eq!(again, r.owner() == owner, "{} on {id}", r.owner());
    }
}

#[tokio::test]
async fn a_dead_replicas_tasks_go_to_exactly_one_survivor() {
    let (_, url) = schema().await;
    let dying = store(&url, "dying", 300).await;
    let ids: Vec<String> = (0..12).map(|i| format!("orphan-{i}")).collect();
    for id in &ids {
        dying
            .put(record(id, TaskStatus::Working, None))
            .await
            .expect("put");
    }
    let survivors = [
        store(&url, "s1", 10_000).await,
        store(&url, "s2", 10_000).await,
        store(&url, "s3", 10_000).await,
    ];
    // While the holder lives (and renews), nobody else can take or overwrite its tasks.
    assert!(survivors[0].claim(&ids[0]).await.expect("claim").is_none());
    assert!(survivors[0].claim_expired().await.expect("claim").is_none());
    let mut failed = record(&ids[0], TaskStatus::Failed, None);
    failed.outcome = Some(TaskOutcome::Result(json!({"content": [], "isError": true})));
    // Refused by the fence, and said so (not reported as written).
    assert!(matches!(
        survivors[0].put(failed).await,
        Err(TaskStoreError::Fenced(ref id)) if *id == ids[0]
    ));
    assert_eq!(
        survivors[0]
            .get(&ids[0])
            .await
            .expect("get")
            .map(|r| r.task.status),
        Some(TaskStatus::Working),
        "a live replica's task is not settled by another"
    );
    let before = dying.lease(&ids[0]).await.expect("lease").expect("held");
    assert_eq!(dying.renew().await.expect("renew"), ids.len());
    let after = dying.lease(&ids[0]).await.expect("lease").expect("held");
    assert!(after.expires_at >= before.expires_at, "renewal extends");

    drop(dying); // its renewals stop: the leases run out

    let claimed = wait_for("the survivors take every orphan", || async {
        let all = survivors.iter().map(|s| async move {
            let mut mine = Vec::new();
            while let Some(c) = s.claim_expired().await.expect("claim_expired") {
                mine.push((c.record.task.task_id, s.owner().to_owned()));
            }
            mine
        });
        let got: Vec<_> = futures::future::join_all(all)
            .await
            .into_iter()
            .flatten()
            .collect();
        (!got.is_empty()).then_some(got)
    })
    .await;
    let mut seen = HashSet::new();
    for (id, _) in &claimed {
        assert!(seen.insert(id.clone()), "{id} claimed twice: {claimed:?}");
    }
    assert_eq!(
        seen.len(),
        ids.len(),
        "all orphans taken at once: {claimed:?}"
    );
    for (id, owner) in &claimed {
        let holder = survivors
            .iter()
            .find(|s| s.owner() == owner)
            .expect("a survivor");
        holder.put(completed(id)).await.expect("finish");
        assert_eq!(
            holder.get(id).await.expect("get").map(|r| r.task.status),
            Some(TaskStatus::Completed)
        );
    }
    assert!(
        survivors.iter().all(|s| s.held() == 0),
        "finished tasks are released"
    );
}

#[tokio::test]
async fn a_cancellation_request_reaches_the_replica_holding_the_task() {
    let (_, url) = schema().await;
    let holder = store(&url, "holder", 300).await;
    let other = store(&url, "other", 10_000).await;
    let mut notices = holder.notices().expect("a shared store reports them");
    holder
        .put(record("long", TaskStatus::Working, None))
        .await
        .expect("put");
    assert!(other.request_cancel("long").await.expect("request"));
    let notice = within("the holder hears of it", notices.recv())
        .await
        .expect("open");
    assert_eq!(notice, TaskNotice::CancelRequested("long".into()));
    // Once, not at every renewal.
    holder.renew().await.expect("renew");
    assert!(notices.try_recv().is_err());
    let claim = holder.claim("long").await.expect("claim").expect("held");
    assert!(claim.cancel_requested);
    let unknown = other.request_cancel("nope").await.expect("request");
    assert!(!unknown);
}

#[tokio::test]
async fn input_posted_on_another_replica_reaches_the_holder_once() {
    let (_, url) = schema().await;
    let holder = store(&url, "holder", 300).await;
    let other = store(&url, "other", 10_000).await;
    let mut notices = holder.notices().expect("a shared store reports them");
    holder
        .put(record("asks", TaskStatus::InputRequired, None))
        .await
        .expect("put");
    let answer = |word: &str| json!({"action": "accept", "content": {"word": word}});
    let first = json!({"elicit-0": answer("a")});
    let second = json!({"elicit-0": answer("b"), "elicit-1": answer("c")});
    for posted in [first, second] {
        let map = posted.as_object().cloned().expect("object");
        assert!(other.post_input("asks", map).await.expect("post"));
    }
    let notice = within("the holder hears of it", notices.recv())
        .await
        .expect("open");
    assert_eq!(notice, TaskNotice::InputPosted("asks".into()));
    assert_eq!(
        other.take_input("asks").await.expect("take"),
        None,
        "only the holder takes it"
    );
    let taken = holder
        .take_input("asks")
        .await
        .expect("take")
        .expect("input");
    assert_eq!(
        serde_json::Value::Object(taken),
        json!({"elicit-0": answer("b"), "elicit-1": answer("c")}),
        "merged, the later answer winning"
    );
    assert_eq!(
        holder.take_input("asks").await.expect("take"),
        None,
        "taken once"
    );
    holder.put(completed("asks")).await.expect("finish");
    let late = json!({"elicit-2": answer("d")})
        .as_object()
        .cloned()
        .expect("object");
    assert!(
        !other.post_input("asks", late).await.expect("post"),
        "a finished task takes no input"
    );
}

/// Two processes' buses on a fresh channel: the database URL, the channel, and the buses.
async fn two_buses() -> (String, String, PgEventBus, PgEventBus) {
    let channel = format!("ev_{}", uuid_like());
    let url = base_url();
    let a = PgEventBus::connect_channel(&url, &channel)
        .await
        .expect("a");
    let b = PgEventBus::connect_channel(&url, &channel)
        .await
        .expect("b");
    (url, channel, a, b)
}

#[tokio::test]
async fn events_reach_every_process_on_the_channel() {
    let (url, channel, a, b) = two_buses().await;
    let elsewhere = PgEventBus::connect_channel(&url, &format!("{channel}_x"))
        .await
        .expect("c");
    let (mut at_a, mut at_b, mut at_c) = (a.subscribe(), b.subscribe(), elsewhere.subscribe());
    let events = [
        Event::ToolsListChanged,
        Event::ResourceUpdated {
            uri: "file:///x".into(),
        },
        Event::TaskStatus {
            task_id: "t".into(),
            status: "completed".into(),
        },
        Event::TaskCancelRequested {
            task_id: "t".into(),
        },
        Event::TaskInputPosted {
            task_id: "t".into(),
        },
    ];
    for e in &events {
        b.publish(e.clone()).await.expect("publish");
    }
    for e in &events {
        assert_eq!(&within("a hears b", at_a.recv()).await.expect("open"), e);
        assert_eq!(
            &within("b hears itself", at_b.recv()).await.expect("open"),
            e
        );
    }
    assert!(at_c.try_recv().is_err(), "another channel hears nothing");
    let huge = Event::ResourceUpdated {
        uri: "x".repeat(9000),
    };
    assert!(matches!(
        a.publish(huge).await,
        Err(EventBusError::TooLarge(_))
    ));
    assert!(
        PgEventBus::connect_channel(&url, "bad channel")
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_burst_of_concurrent_events_is_all_heard_once() {
    // Publishes that queue up during a round trip go out together in one statement.
    let (_, _, a, b) = two_buses().await;
    let mut at_b = b.subscribe();
    let sent: std::collections::BTreeSet<String> =
        (0..900).map(|i| format!("file:///burst/{i}")).collect();
    let publishes = sent
        .iter()
        .map(|uri| a.publish(Event::ResourceUpdated { uri: uri.clone() }));
    for outcome in within("900 publishes", futures::future::join_all(publishes)).await {
        outcome.expect("published");
    }
    let mut heard = std::collections::BTreeSet::new();
    while heard.len() < sent.len() {
        match within("b hears the burst", at_b.recv())
            .await
            .expect("open")
        {
            Event::ResourceUpdated { uri } => assert!(heard.insert(uri), "an event heard twice"),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(heard, sent);
    assert!(at_b.try_recv().is_err(), "nothing more");
}

/// A modern request of `method` with `params`, headers mirroring it.
fn request(id: i64, method: &str, mut params: Value) -> Request<Body> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .body(Body::from(body.to_string()))
        .expect("request")
}

async fn replica(channel: &str) -> ServerHandle {
    let bus = PgEventBus::connect_channel(&base_url(), channel)
        .await
        .expect("bus");
    Server::new(Implementation::new("pg-replica", "1"))
        .event_bus(Arc::new(bus))
        .build()
        .expect("server")
}

#[tokio::test]
async fn a_list_change_on_one_replica_reaches_a_listen_stream_on_another() {
    let channel = format!("srv_{}", uuid_like());
    let (one, two) = (replica(&channel).await, replica(&channel).await);
    let app = StreamableHttp::new(two.clone(), HttpOptions::default()).router("/mcp");
    let listen = request(
        7,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["file:///r"]}}),
    );
    let resp = within("the listen stream opens", app.clone().oneshot(listen))
        .await
        .expect("infallible");
    let mut body = resp.into_body().into_data_stream();
    let mut next = async || -> Value {
        loop {
            let chunk = within("an event", body.next())
                .await
                .expect("open")
                .expect("chunk");
            let text = String::from_utf8_lossy(&chunk).into_owned();
            if let Some(line) = text.lines().find_map(|l| l.strip_prefix("data: ")) {
                return serde_json::from_str(line).expect("JSON");
            }
        }
    };
    let ack = next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    one.notify_tools_list_changed();
    let note = next().await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    one.notify_resource_updated("file:///r");
    let note = next().await;
    assert_eq!(note["method"], "notifications/resources/updated", "{note}");
    assert_eq!(note["params"]["uri"], "file:///r");
    // Exactly once: replica two's own broadcast comes back once too.
    two.notify_tools_list_changed();
    let note = next().await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
}

/// Runs until cancelled.
#[tracksuit::mcp_tool(task_support = "optional")]
async fn forever() -> String {
    std::future::pending::<()>().await;
    String::new()
}

/// A replica with a PostgreSQL store (lease `lease_ms`) and bus on `url` / `channel`;
/// returns it, its store and its bus.
async fn task_replica(
    url: &str,
    channel: &str,
    owner: &str,
    lease_ms: u64,
) -> (ServerHandle, PostgresTaskStore, Arc<PgEventBus>) {
    let store = store(url, owner, lease_ms).await;
    let bus = Arc::new(
        PgEventBus::connect_channel(url, channel)
            .await
            .expect("bus"),
    );
    let server = Server::new(Implementation::new("pg-task-replica", "1"))
        .tool(forever)
        .task_store(store.clone())
        .event_bus(bus.clone())
        .build()
        .expect("server");
    (server, store, bus)
}

async fn status_of(store: &PostgresTaskStore, id: &str) -> Option<TaskStatus> {
    store.get(id).await.expect("get").map(|r| r.task.status)
}

#[tokio::test]
async fn a_cancellation_asked_on_another_replica_stops_the_task_where_it_runs() {
    let (_, url) = schema().await;
    let channel = format!("cx_{}", uuid_like());
    let (a, a_store, _) = task_replica(&url, &channel, "a", 300).await;
    let (_b, b_store, b_bus) = task_replica(&url, &channel, "b", 10_000).await;
    let client =
        tracksuit_tests::support::connect(a.clone(), tracksuit::client::Client::builder()).await;

    // Through the store's flag alone (seen at A's next lease renewal)...
    let slow_path = client
        .call_tool_as_task("forever", json!({}), None)
        .await
        .expect("task")
        .task
        .task_id;
    assert_eq!(
        status_of(&b_store, &slow_path).await,
        Some(TaskStatus::Working)
    );
    assert!(b_store.request_cancel(&slow_path).await.expect("request"));
    wait_for("A cancels the task B asked about", || async {
        (status_of(&a_store, &slow_path).await == Some(TaskStatus::Cancelled)).then_some(())
    })
    .await;

    // ...and through the bus's event alone: C renews its leases every 20 s, later than the
    // wait's deadline, so only the event can stop the task in time.
    let (c, c_store, _) = task_replica(&url, &channel, "c", 60_000).await;
    let client =
        tracksuit_tests::support::connect(c.clone(), tracksuit::client::Client::builder()).await;
    let fast_path = client
        .call_tool_as_task("forever", json!({}), None)
        .await
        .expect("task")
        .task
        .task_id;
    b_bus
        .publish(Event::TaskCancelRequested {
            task_id: fast_path.clone(),
        })
        .await
        .expect("publish");
    wait_for("C cancels on the bus event", || async {
        (status_of(&c_store, &fast_path).await == Some(TaskStatus::Cancelled)).then_some(())
    })
    .await;
    tracksuit_tests::support::wait_until(|| c.running_tasks() == 0, "C's task stopped").await;
    tracksuit_tests::support::wait_until(|| a.running_tasks() == 0, "A's task stopped").await;
    let got = client.get_task(&fast_path).await.expect("get").task;
    assert_eq!(got.status, TaskStatus::Cancelled);
}

// --- The tasks extension (2026-07-28) across replicas --------------------------------------

/// A word.
#[derive(serde::Deserialize, tracksuit::Elicits)]
struct Stop {
    /// A stop
    word: String,
}

/// `before` / `after` runs of `trip` by starting point, across every replica of this test
/// process (the tests run in parallel, each from a place of its own).
static TRIP_RUNS: std::sync::Mutex<Vec<(&'static str, String)>> = std::sync::Mutex::new(Vec::new());

fn trip_ran(phase: &'static str, from: &str) {
    TRIP_RUNS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((phase, from.to_owned()));
}

fn trip_runs(phase: &str, from: &str) -> usize {
    TRIP_RUNS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|(p, f)| *p == phase && f == from)
        .count()
}

/// A handoff tool asking two stops between a counted `before` and `after`.
struct Trip;

/// A trip of two stops.
#[tracksuit::mcp_tool(name = "trip", task_support = "optional")]
impl Trip {
    async fn before(
        args: TripStart,
        _ctx: &tracksuit::PhaseCtx,
    ) -> Result<Origin, tracksuit::ToolError> {
        trip_ran("before", &args.from);
        Ok(Origin(args.from))
    }

    async fn client(
        from: &Origin,
        ctx: &tracksuit::Ctx,
    ) -> Result<Vec<String>, tracksuit::ToolError> {
        let mut stops = vec![from.0.clone()];
        for n in 1..=2 {
            let answer = ctx.elicit_form::<Stop>(format!("stop {n}?")).await?;
            stops.push(answer.accepted().map(|w| w.word).unwrap_or_default());
        }
        Ok(stops)
    }

    async fn after(
        from: Origin,
        stops: Vec<String>,
        _ctx: &tracksuit::PhaseCtx,
    ) -> Result<String, tracksuit::ToolError> {
        trip_ran("after", &from.0);
        Ok(stops.join(" / "))
    }
}

/// What `before` hands on.
#[derive(serde::Serialize, serde::Deserialize)]
struct Origin(String);

/// Where a trip starts.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TripStart {
    /// The starting point
    from: String,
}

/// A modern request of a client that declares the tasks extension and form elicitation.
fn task_request(method: &str, mut params: Value, name: &str) -> Request<Body> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(Body::from(body.to_string()))
        .expect("request")
}

/// Sends a request to `app` and returns the JSON-RPC result (panics on an error).
async fn call(app: &axum::Router, method: &str, params: Value, name: &str) -> Value {
    let resp = within(
        method,
        app.clone().oneshot(task_request(method, params, name)),
    )
    .await
    .expect("infallible");
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .expect("body");
    let text = String::from_utf8_lossy(&bytes);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or(&text);
    let reply: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {text}"));
    reply
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method} failed: {reply}"))
}

/// The key of the one question `task` asks, once it asks `message` (polled on `app`).
async fn asked(app: &axum::Router, task: &str, message: &str) -> String {
    wait_for(&format!("the task asks {message:?}"), || async {
        let got = call(app, "tasks/get", json!({"taskId": task}), task).await;
        let requests = got["inputRequests"].as_object()?;
        (got["status"] == "input_required"
            && requests.len() == 1
            && requests.values().all(|q| q["params"]["message"] == message))
        .then(|| requests.keys().next().cloned())
        .flatten()
    })
    .await
}

async fn answer(app: &axum::Router, task: &str, key: &str, word: &str) {
    let ack = call(
        app,
        "tasks/update",
        json!({"taskId": task, "inputResponses": {key: {"action": "accept", "content": {"word": word}}}}),
        task,
    )
    .await;
    assert_eq!(ack["resultType"], "complete", "{ack}");
}

/// A replica serving `trip` over HTTP, tasks and events in PostgreSQL, the given keys.
async fn trip_replica(
    url: &str,
    channel: &str,
    owner: &str,
    lease_ms: u64,
) -> (ServerHandle, axum::Router, PostgresTaskStore) {
    let store = store(url, owner, lease_ms).await;
    let bus = PgEventBus::connect_channel(url, channel)
        .await
        .expect("bus");
    let keys =
        tracksuit::StateKeys::from_secret(b"replicas share 0123456789abcdef, 42").expect("keys");
    let server = Server::with_options(
        Implementation::new("pg-trip-replica", "1"),
        tracksuit::ServerOptions::default().state_keys(keys),
    )
    .tool(Trip)
    .task_store(store.clone())
    .event_bus(Arc::new(bus))
    .build()
    .expect("server");
    let app = StreamableHttp::new(server.clone(), HttpOptions::default()).router("/mcp");
    (server, app, store)
}

#[tokio::test]
async fn an_extension_task_is_polled_updated_and_cancelled_through_another_replica() {
    let (_, url) = schema().await;
    let channel = format!("ext_{}", uuid_like());
    let (a, app_a, a_store) = trip_replica(&url, &channel, "a", 10_000).await;
    let (b, app_b, _) = trip_replica(&url, &channel, "b", 10_000).await;

    let created = call(
        &app_a,
        "tools/call",
        json!({"name": "trip", "arguments": {"from": "Lyon"}}),
        "trip",
    )
    .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let task = created["taskId"].as_str().expect("taskId").to_owned();
    // B sees A's question in the store, and leaves the task to A (its lease).
    let first = asked(&app_b, &task, "stop 1?").await;
    assert_eq!(
        a_store.lease(&task).await.expect("lease").map(|l| l.owner),
        Some("a".to_owned())
    );
    assert_eq!((a.running_tasks(), b.running_tasks()), (1, 0));
    // The answer given to B reaches A, which asks the next question before B acknowledges.
    answer(&app_b, &task, &first, "Dijon").await;
    let got = call(&app_b, "tasks/get", json!({"taskId": task}), &task).await;
    let requests = got["inputRequests"].as_object().expect("inputRequests");
    assert!(
        requests
            .values()
            .all(|q| q["params"]["message"] == "stop 2?"),
        "{got}"
    );
    assert_eq!(
        (a.running_tasks(), b.running_tasks()),
        (1, 0),
        "A still runs it"
    );
    // Cancelled through B: A stops it.
    let ack = call(&app_b, "tasks/cancel", json!({"taskId": task}), &task).await;
    assert_eq!(ack["resultType"], "complete", "{ack}");
    wait_for("A cancels the task", || async {
        let got = call(&app_b, "tasks/get", json!({"taskId": task}), &task).await;
        (got["status"] == "cancelled").then_some(())
    })
    .await;
    tracksuit_tests::support::wait_until(|| a.running_tasks() == 0, "A's task stopped").await;
}

#[tokio::test]
async fn a_dead_replicas_extension_task_is_resumed_by_exactly_one_survivor() {
    let (_, url) = schema().await;
    let channel = format!("res_{}", uuid_like());
    // A runs on a runtime of its own: shutting it down is its process dying (its tasks
    // stop, its leases are not renewed any more).
    let a_runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (a_url, a_channel) = (url.clone(), channel.clone());
    let (a, app_a, _) = a_runtime
        .spawn(async move { trip_replica(&a_url, &a_channel, "a", 400).await })
        .await
        .expect("replica a");
    let on_a = |method: &'static str, params: Value, name: String| {
        let app = app_a.clone();
        a_runtime.spawn(async move { call(&app, method, params, &name).await })
    };
    let created = on_a(
        "tools/call",
        json!({"name": "trip", "arguments": {"from": "Paris"}}),
        "trip".into(),
    )
    .await
    .expect("call");
    let task = created["taskId"].as_str().expect("taskId").to_owned();

    let (b, app_b, b_store) = trip_replica(&url, &channel, "b", 400).await;
    let (c, _app_c, _) = trip_replica(&url, &channel, "c", 400).await;
    let first = asked(&app_b, &task, "stop 1?").await;
    on_a(
        "tasks/update",
        json!({"taskId": task, "inputResponses": {first: {"action": "accept", "content": {"word": "Dijon"}}}}),
        task.clone(),
    )
    .await
    .expect("update");
    let second = asked(&app_b, &task, "stop 2?").await;
    assert_eq!(a.running_tasks(), 1);

    a_runtime.shutdown_background();
    // One survivor takes it over once the lease runs out, with nobody asking.
    let holder = wait_for("a survivor takes the task over", || async {
        b_store
            .lease(&task)
            .await
            .expect("lease")
            .map(|l| l.owner)
            .filter(|o| o != "a")
    })
    .await;
    assert_eq!(b.running_tasks() + c.running_tasks(), 1, "held by {holder}");
    let got = call(&app_b, "tasks/get", json!({"taskId": task}), &task).await;
    assert!(
        got["inputRequests"].get(&second).is_some(),
        "the same question, under the same key: {got}"
    );
    answer(&app_b, &task, &second, "Beaune").await;
    let done = wait_for("the trip completes", || async {
        let got = call(&app_b, "tasks/get", json!({"taskId": task}), &task).await;
        (got["status"] == "completed").then_some(got)
    })
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Paris / Dijon / Beaune",
        "{done}"
    );
    assert_eq!(trip_runs("before", "Paris"), 1, "before ran once, on A");
    assert_eq!(trip_runs("after", "Paris"), 1, "after ran once");
    drop(a);
}
