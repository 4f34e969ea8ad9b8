//! Fenced leases and durable task results against a real PostgreSQL that is taken down and
//! brought back (`TRACKSUIT_TEST_PG_STOP` / `TRACKSUIT_TEST_PG_START`, exported by
//! `scripts/lib/postgres.sh`). Two in-process replicas share the database, each served over
//! HTTP on a loopback port, with a 1 s lease:
//!
//! - an extension (2026-07-28) task of a handoff tool is live on r1 when the database goes
//!   down for three leases; r1 stops its copy before its lease can run out; answers go to
//!   both replicas afterwards; `after` runs once, no acknowledged answer is lost, and both
//!   replicas report the same result;
//! - the same with r1 cut off from a database that stays up (a proxy holds its traffic):
//!   r2 takes the task over once r1's lease ran out, and a write r1 sent before the cut,
//!   delivered after it heals, is refused by the fence;
//! - a 2025-11-25 task and an extension task finish while the database is down for 7 s:
//!   their replica answers `tasks/get` / `tasks/result` from memory meanwhile, stores the
//!   results once the database is back, and every replica then reports them (they are not
//!   settled as orphans).
//!
//! Run by `scripts/postgres.sh` (ten times in a row). The two tests take the database down,
//! so they run one at a time.

use serde_json::{Value, json};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tracksuit::client::{Client, Era, HttpTransport};
use tracksuit::events::PgEventBus;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::{Implementation, TaskStatus};
use tracksuit::task::{PostgresOptions, PostgresTaskStore, TaskStore};
use tracksuit::{Ctx, Elicits, PhaseCtx, Server, ServerHandle, ServerOptions, ToolError};
use tracksuit_tests::support::{text, wait_for, wait_until, within};

#[path = "pg.rs"]
mod pg;

/// The lease of every replica in these tests.
const LEASE: Duration = Duration::from_secs(1);

/// The tests take the database down: one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Runs the shell command in the environment variable `var` (stopping or starting the
/// database) and waits for it.
async fn run(var: &str) {
    let command =
        std::env::var(var).unwrap_or_else(|_| panic!("{var} is not set: run scripts/postgres.sh"));
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new("sh")
            .arg("-c")
            .arg(&command)
            .stdin(std::process::Stdio::null())
            .output()
    })
    .await
    .expect("join")
    .expect("run the command");
    assert!(
        output.status.success(),
        "{var} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The database is down from `stop` until `start`; dropped early (a failing test), it
/// brings the database back so the next test finds it.
struct Outage {
    down: bool,
}

impl Outage {
    async fn stop() -> Self {
        run("TRACKSUIT_TEST_PG_STOP").await;
        Outage { down: true }
    }

    async fn start(mut self) {
        run("TRACKSUIT_TEST_PG_START").await;
        self.down = false;
    }
}

impl Drop for Outage {
    fn drop(&mut self) {
        if self.down
            && let Ok(command) = std::env::var("TRACKSUIT_TEST_PG_START")
        {
            let _ = std::process::Command::new("sh")
                .arg("-c")
                .arg(command)
                .stdin(std::process::Stdio::null())
                .output();
        }
    }
}

/// Serves `server` on a loopback port; returns the endpoint URL.
async fn serve(server: ServerHandle) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = StreamableHttp::new(server, HttpOptions::default()).router("/mcp");
    tokio::spawn(tracksuit::host::http::serve(listener, app));
    format!("http://{addr}/mcp")
}

/// A replica named `owner`: tasks and events in PostgreSQL on `url` / `channel`, the
/// shared state keys, `tools`.
async fn replica(
    url: &str,
    channel: &str,
    owner: &str,
    tools: impl FnOnce(Server) -> Server,
) -> (ServerHandle, PostgresTaskStore, String) {
    let store =
        PostgresTaskStore::connect_with(url, PostgresOptions::default().owner(owner).lease(LEASE))
            .await
            .expect("store");
    let bus = PgEventBus::connect_channel(url, channel)
        .await
        .expect("bus");
    let keys = tracksuit::StateKeys::from_secret(b"fencing replicas share 0123456789abcdef")
        .expect("keys");
    let server = Server::with_options(
        Implementation::new("pg-fencing", "1"),
        ServerOptions::default().state_keys(keys),
    );
    let server = tools(server)
        .task_store(store.clone())
        .event_bus(Arc::new(bus))
        .build()
        .expect("server");
    let endpoint = serve(server.clone()).await;
    (server, store, endpoint)
}

/// A 2026-07-28 client of `endpoint` declaring the tasks extension and form elicitation
/// (the test answers through `tasks/update` itself).
async fn modern_client(endpoint: &str) -> Client {
    let builder = Client::builder()
        .era(Era::Stateless)
        .tasks_extension()
        .on_elicitation(|_params| async {
            Err(tracksuit::protocol::ErrorObject::internal(
                "answered with tasks/update",
            ))
        });
    let transport = HttpTransport::new(endpoint).expect("url");
    within("connect", builder.connect(transport))
        .await
        .expect("connected")
}

// --- Scenario A: an extension task live on r1 while the database is down -----------------

/// A word.
#[derive(serde::Deserialize, Elicits)]
struct Stop {
    /// A stop
    word: String,
}

/// `before` / `after` runs of `journey` by starting point (each test starts from a place
/// of its own).
static RUNS: std::sync::Mutex<Vec<(&'static str, String)>> = std::sync::Mutex::new(Vec::new());

fn ran(phase: &'static str, from: &str) {
    RUNS.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((phase, from.to_owned()));
}

fn runs(phase: &str, from: &str) -> usize {
    RUNS.lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|(p, f)| *p == phase && f == from)
        .count()
}

/// Where a journey starts.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Start {
    /// The starting point
    from: String,
}

/// What `before` hands on.
#[derive(serde::Serialize, serde::Deserialize)]
struct Origin(String);

/// A handoff tool asking two stops between a counted `before` and `after`.
struct Journey;

/// A journey of two stops.
#[tracksuit::mcp_tool(name = "journey", task_support = "optional")]
impl Journey {
    async fn before(args: Start, _ctx: &PhaseCtx) -> Result<Origin, ToolError> {
        ran("before", &args.from);
        Ok(Origin(args.from))
    }

    async fn client(from: &Origin, ctx: &Ctx) -> Result<Vec<String>, ToolError> {
        let mut stops = vec![from.0.clone()];
        for n in 1..=2 {
            let answer = ctx.elicit_form::<Stop>(format!("stop {n}?")).await?;
            stops.push(answer.accepted().map(|w| w.word).unwrap_or_default());
        }
        Ok(stops)
    }

    async fn after(from: Origin, stops: Vec<String>, _ctx: &PhaseCtx) -> String {
        ran("after", &from.0);
        stops.join(" / ")
    }
}

async fn get(client: &Client, task: &str) -> Result<Value, tracksuit::RequestError> {
    client
        .request::<_, Value>("tasks/get", json!({ "taskId": task }))
        .await
}

/// The key of the one question `task` asks, once it asks `message` (errors while the
/// database comes back are retried).
async fn asked(client: &Client, task: &str, message: &str) -> String {
    wait_for(&format!("the task asks {message:?}"), || async {
        let got = get(client, task).await.ok()?;
        let requests = got["inputRequests"].as_object()?;
        (got["status"] == "input_required"
            && requests.len() == 1
            && requests.values().all(|q| q["params"]["message"] == message))
        .then(|| requests.keys().next().cloned())
        .flatten()
    })
    .await
}

async fn update(
    client: &Client,
    task: &str,
    key: &str,
    word: &str,
) -> Result<Value, tracksuit::RequestError> {
    let answer = json!({"action": "accept", "content": {"word": word}});
    client
        .request::<_, Value>(
            "tasks/update",
            json!({"taskId": task, "inputResponses": {key: answer}}),
        )
        .await
}

/// Sends the answer until a replica acknowledges it.
async fn update_until_acknowledged(client: &Client, task: &str, key: &str, word: &str) {
    wait_for("the answer is acknowledged", || async {
        update(client, task, key, word).await.ok()
    })
    .await;
}

/// The task's `DetailedTask` on `client`'s replica once it completed.
async fn completed(client: &Client, task: &str, on: &str) -> Value {
    wait_for(&format!("{on} reports the task completed"), || async {
        let got = get(client, task).await.ok()?;
        assert_ne!(got["status"], "failed", "{got}");
        (got["status"] == "completed").then_some(got)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_that_cannot_renew_stops_its_copy_and_after_runs_once() {
    let _serial = SERIAL.lock().await;
    let (_, url) = pg::schema().await;
    let channel = format!("fence_{}", pg::uuid_like());
    let (r1, _, e1) = replica(&url, &channel, "r1", |s| s.tool(Journey)).await;
    let (r2, _, e2) = replica(&url, &channel, "r2", |s| s.tool(Journey)).await;
    let (c1, c2) = (modern_client(&e1).await, modern_client(&e2).await);

    let created: Value = c1
        .request(
            "tools/call",
            json!({"name": "journey", "arguments": {"from": "Paris"}}),
        )
        .await
        .expect("tools/call");
    assert_eq!(created["resultType"], "task", "{created}");
    let task = created["taskId"].as_str().expect("taskId").to_owned();
    let first = asked(&c2, &task, "stop 1?").await;
    update(&c1, &task, &first, "Dijon")
        .await
        .expect("r1 acknowledges the first answer");
    let second = asked(&c2, &task, "stop 2?").await;
    assert_eq!((r1.running_tasks(), r2.running_tasks()), (1, 0));

    let outage = Outage::stop().await;
    let down = Instant::now();
    // r1 cannot renew: it stops its copy before the lease (1 s) could run out.
    wait_until(|| r1.running_tasks() == 0, "r1 stops its copy").await;
    let stopped = down.elapsed();
    assert!(stopped < LEASE, "r1 stopped its copy after {stopped:?}");
    // An answer r1 cannot record is refused, not acknowledged.
    assert!(
        update(&c1, &task, &second, "Nowhere").await.is_err(),
        "an answer was acknowledged while nothing could record it"
    );
    // Down for three leases.
    tokio::time::sleep_until((down + 3 * LEASE).into()).await;
    outage.start().await;

    // The answer goes to both replicas; one of them resumes the task and takes it.
    tokio::join!(
        update_until_acknowledged(&c1, &task, &second, "Beaune"),
        update_until_acknowledged(&c2, &task, &second, "Beaune"),
    );
    let (done1, done2) = (
        completed(&c1, &task, "r1").await,
        completed(&c2, &task, "r2").await,
    );
    assert_eq!(
        done1["result"]["content"][0]["text"], "Paris / Dijon / Beaune",
        "{done1}"
    );
    assert_eq!(done1["result"], done2["result"], "both replicas agree");
    assert_eq!(runs("before", "Paris"), 1, "before ran once");
    assert_eq!(runs("after", "Paris"), 1, "after ran once");
    eprintln!("fencing A: r1 stopped its copy {stopped:?} after the database went down");
}

// --- Scenario B: a 2025 task finishes while the database is down -------------------------

/// Opened by the test: the `gated` tool finishes then.
fn gate() -> &'static tokio::sync::watch::Sender<bool> {
    static GATE: OnceLock<tokio::sync::watch::Sender<bool>> = OnceLock::new();
    GATE.get_or_init(|| tokio::sync::watch::channel(false).0)
}

/// Finishes once the gate opens.
#[tracksuit::mcp_tool(task_support = "optional")]
async fn gated() -> String {
    let mut open = gate().subscribe();
    let _ = open.wait_for(|open| *open).await;
    "finished while the database was down".to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_finished_during_an_outage_is_stored_and_delivered_afterwards() {
    let _serial = SERIAL.lock().await;
    let (_, url) = pg::schema().await;
    let channel = format!("durable_{}", pg::uuid_like());
    let (r1, store1, e1) = replica(&url, &channel, "r1", |s| s.tool(gated)).await;
    let (r2, _, e2) = replica(&url, &channel, "r2", |s| s.tool(gated)).await;
    let c1 = tracksuit_tests::support::connect(r1.clone(), Client::builder()).await;
    let c2 = tracksuit_tests::support::connect(r2.clone(), Client::builder()).await;
    let task = c1
        .call_tool_as_task("gated", json!({}), None)
        .await
        .expect("task")
        .task
        .task_id;
    // The same for a task of the tasks extension (2026-07-28).
    let (m1, m2) = (modern_client(&e1).await, modern_client(&e2).await);
    let created: Value = m1
        .request("tools/call", json!({"name": "gated", "arguments": {}}))
        .await
        .expect("tools/call");
    assert_eq!(created["resultType"], "task", "{created}");
    let modern = created["taskId"].as_str().expect("taskId").to_owned();

    let outage = Outage::stop().await;
    let down = Instant::now();
    gate().send_replace(true);
    // r1 answers from memory while the store is down.
    wait_for("r1 reports the task completed", || async {
        let got = c1.get_task(&task).await.ok()?;
        (got.task.status == TaskStatus::Completed).then_some(())
    })
    .await;
    let result = within("tasks/result on r1", c1.task_result(&task))
        .await
        .expect("the result, from memory");
    assert_eq!(text(&result), "finished while the database was down");
    let done_on_r1 = completed(&m1, &modern, "r1 (from memory)").await;
    tokio::time::sleep_until((down + Duration::from_secs(7)).into()).await;
    outage.start().await;

    // Stored once the database is back, and delivered by every replica.
    wait_for("the result is stored", || async {
        let stored = store1.get(&task).await.ok()??;
        assert_ne!(
            stored.task.status,
            TaskStatus::Failed,
            "settled as an orphan"
        );
        (stored.task.status == TaskStatus::Completed).then_some(())
    })
    .await;
    let got = within("tasks/get on r2", c2.get_task(&task))
        .await
        .expect("get");
    assert_eq!(got.task.status, TaskStatus::Completed);
    let result = within("tasks/result on r2", c2.task_result(&task))
        .await
        .expect("the result, from the store");
    assert_eq!(text(&result), "finished while the database was down");
    let done_on_r2 = completed(&m2, &modern, "r2 (from the store)").await;
    assert_eq!(done_on_r2["result"], done_on_r1["result"]);
    wait_until(|| r1.running_tasks() == 0, "r1 is done with them").await;
    eprintln!(
        "fencing B: stored {:?} after the database went down",
        down.elapsed()
    );
}

// --- The fence itself --------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_fences_the_old_holder_out_and_tells_it() {
    let _serial = SERIAL.lock().await;
    let (_, url) = pg::schema().await;
    let connect = |owner: &'static str| {
        let url = url.clone();
        async move {
            PostgresTaskStore::connect_with(
                &url,
                PostgresOptions::default().owner(owner).lease(LEASE),
            )
            .await
            .expect("store")
        }
    };
    let (old, new) = (connect("old").await, connect("new").await);
    let mut notices = old.notices().expect("a shared store has notices");
    let record = |status: TaskStatus| -> tracksuit::task::TaskRecord {
        serde_json::from_value(json!({
            "task": {"taskId": "fenced", "status": status, "ttl": null,
                     "createdAt": "", "lastUpdatedAt": ""},
            "method": "tools/call",
        }))
        .expect("record")
    };
    old.put(record(TaskStatus::Working)).await.expect("created");
    assert!(new.claim("fenced").await.expect("claim").is_none(), "held");
    // The old holder's lease runs out in the database (its process stalled, say), and
    // another takes the task over: the epoch moves on. (The old one keeps renewing, and
    // within a lease of the database's start — another test restarted it — every lease
    // counts as renewed: expire it until the claim gets in.)
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(conn);
    let before = epoch(&client).await;
    wait_for("the new process claims the task", || async {
        client
            .execute(
                "UPDATE tracksuit_tasks SET lease_expires = now() - interval '1 minute'",
                &[],
            )
            .await
            .expect("expire");
        new.claim("fenced").await.expect("claim")
    })
    .await;
    assert_eq!(epoch(&client).await, before + 1);
    // ...and the old holder's writes, terminal or not, are refused and reported.
    for status in [TaskStatus::InputRequired, TaskStatus::Completed] {
        assert!(
            matches!(
                old.put(record(status)).await,
                Err(tracksuit::task::TaskStoreError::Fenced(_))
            ),
            "{status:?} written by a fenced-out holder"
        );
    }
    let notice = within("the old holder hears it lost the lease", notices.recv())
        .await
        .expect("notice");
    assert_eq!(
        notice,
        tracksuit::task::TaskNotice::LeaseLost("fenced".into())
    );
    let stored = new.get("fenced").await.expect("get").expect("stored");
    assert_eq!(stored.task.status, TaskStatus::Working);
    new.put(record(TaskStatus::Completed))
        .await
        .expect("the new holder writes");
}

/// The lease epoch of the one task in the schema `client` uses.
async fn epoch(client: &tokio_postgres::Client) -> i64 {
    client
        .query_one("SELECT lease_epoch FROM tracksuit_tasks", &[])
        .await
        .expect("epoch")
        .get(0)
}

// --- Scenario C: r1 cut off from a database that stays up ---------------------------------

/// A TCP proxy to the database that can hold all traffic (a partition: packets wait, as in
/// a network that stopped delivering) and let it through again.
struct Partition {
    addr: std::net::SocketAddr,
    cut: tokio::sync::watch::Sender<bool>,
}

impl Partition {
    async fn to(target: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let cut = tokio::sync::watch::channel(false).0;
        let held = cut.subscribe();
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let (target, mut held) = (target.clone(), held.clone());
                tokio::spawn(async move {
                    let _ = held.wait_for(|cut| !*cut).await;
                    let Ok(outbound) = tokio::net::TcpStream::connect(&target).await else {
                        return;
                    };
                    let ((in_read, in_write), (out_read, out_write)) =
                        (inbound.into_split(), outbound.into_split());
                    tokio::join!(
                        pump(in_read, out_write, held.clone()),
                        pump(out_read, in_write, held),
                    );
                });
            }
        });
        Partition { addr, cut }
    }

    /// `url` with this proxy in place of the database's address.
    fn url(&self, url: &str) -> String {
        let (scheme, rest) = url.split_once('@').expect("user@host");
        let (_, path) = rest.split_once('/').expect("host/database");
        format!("{scheme}@{}/{path}", self.addr)
    }

    fn set(&self, cut: bool) {
        self.cut.send_replace(cut);
    }
}

/// Copies `from` to `to`, holding what it read while the partition is on.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut held: tokio::sync::watch::Receiver<bool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let _ = held.wait_for(|cut| !*cut).await;
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_cut_off_is_fenced_out_and_its_late_writes_refused() {
    let _serial = SERIAL.lock().await;
    let (_, url) = pg::schema().await;
    let channel = format!("cut_{}", pg::uuid_like());
    let database = url
        .split_once('@')
        .and_then(|(_, rest)| rest.split_once('/'))
        .map(|(host, _)| host.to_owned())
        .expect("the database's address");
    let partition = Partition::to(database).await;
    let (r1, _, e1) = replica(&partition.url(&url), &channel, "r1", |s| s.tool(Journey)).await;
    let (r2, _, e2) = replica(&url, &channel, "r2", |s| s.tool(Journey)).await;
    let (c1, c2) = (Arc::new(modern_client(&e1).await), modern_client(&e2).await);
    let created: Value = c1
        .request(
            "tools/call",
            json!({"name": "journey", "arguments": {"from": "Lyon"}}),
        )
        .await
        .expect("tools/call");
    let task = created["taskId"].as_str().expect("taskId").to_owned();
    let first = asked(&c2, &task, "stop 1?").await;
    update(&c1, &task, &first, "Dijon")
        .await
        .expect("acknowledged");
    let second = asked(&c2, &task, "stop 2?").await;

    partition.set(true);
    let cut = Instant::now();
    // An answer r1 takes now: its write waits in the partition.
    let late = {
        let (c1, task, second) = (c1.clone(), task.clone(), second.clone());
        tokio::spawn(async move { update(&c1, &task, &second, "Nowhere").await })
    };
    wait_until(|| r1.running_tasks() == 0, "r1 stops its copy").await;
    let stopped = cut.elapsed();
    assert!(stopped < LEASE, "r1 stopped its copy after {stopped:?}");
    // r2 takes the task over once r1's lease ran out, and finishes it.
    wait_until(|| r2.running_tasks() == 1, "r2 takes the task over").await;
    let taken = cut.elapsed();
    assert!(taken >= stopped, "r2 took over before r1 stopped");
    assert_eq!(
        asked(&c2, &task, "stop 2?").await,
        second,
        "the same question"
    );
    update_until_acknowledged(&c2, &task, &second, "Beaune").await;
    let done = completed(&c2, &task, "r2").await;

    partition.set(false);
    // r1's late write reaches the database now: refused, and not acknowledged.
    let late = within("r1's late answer", late).await.expect("join");
    assert!(
        late.is_err(),
        "a fenced-out write was acknowledged: {late:?}"
    );
    let on_r1 = completed(&c1, &task, "r1").await;
    assert_eq!(on_r1["result"], done["result"], "both replicas agree");
    assert_eq!(
        done["result"]["content"][0]["text"], "Lyon / Dijon / Beaune",
        "{done}"
    );
    assert_eq!(runs("before", "Lyon"), 1, "before ran once");
    assert_eq!(runs("after", "Lyon"), 1, "after ran once");
    eprintln!(
        "fencing C: r1 stopped its copy {stopped:?} after the cut, r2 took over after {taken:?}"
    );
}
