//! Helpers the integration tests share: waiting on events and conditions (never on a fixed
//! amount of time), connecting an in-memory client, a scripted sampling model, and small
//! conversions.
//!
//! The waits fail with a message naming what was awaited once [`DEADLINE`] has passed on the
//! wall clock; they return as soon as the event happens, so the deadline can be generous.

use serde_json::{Value, json};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;
use tracksuit::client::{Client, ClientBuilder};
use tracksuit::host::connect_in_memory;
use tracksuit::protocol::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, ErrorObject, JsonObject,
    JsonRpcNotification,
};
use tracksuit::{Ctx, Server, ServerHandle, ToolError, mcp_tool};

/// How long a wait may take before the test fails (wall-clock time, so a paused tokio
/// clock does not shorten it).
pub const DEADLINE: Duration = Duration::from_secs(10);

/// Polls `probe` until it gives `Some`, and returns that value; panics naming `what` if
/// that has not happened within [`DEADLINE`]. Between polls it yields to the runtime (and,
/// once the first few yields were not enough, sleeps a millisecond), so the tasks the test
/// waits on run meanwhile.
pub async fn wait_for<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let start = Instant::now();
    let mut polls = 0u32;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "timed out after {DEADLINE:?} waiting until {what}"
        );
        polls += 1;
        if polls < 64 {
            tokio::task::yield_now().await;
        } else {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
}

/// Waits until `condition` holds; panics naming `what` after [`DEADLINE`].
///
/// ```no_run
/// # async fn f(server: tracksuit::ServerHandle) {
/// tracksuit_tests::support::wait_until(|| server.running_tasks() == 0, "no task runs").await;
/// # }
/// ```
pub async fn wait_until(mut condition: impl FnMut() -> bool, what: &str) {
    wait_for(what, || std::future::ready(condition().then_some(()))).await
}

/// Awaits `future`; panics naming `what` if it has not finished within [`DEADLINE`].
pub async fn within<F: Future>(what: &str, future: F) -> F::Output {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(output) => output,
        Err(_) => panic!("timed out after {DEADLINE:?} waiting until {what}"),
    }
}

/// The next notification named `method` (others are skipped); panics if none arrives
/// within [`DEADLINE`] or the client closed.
pub async fn next_notification(
    notes: &mut broadcast::Receiver<JsonRpcNotification>,
    method: &str,
) -> JsonRpcNotification {
    within(&format!("a {method} notification arrives"), async {
        loop {
            let note = notes.recv().await.expect("the client is open");
            if note.method == method {
                return note;
            }
        }
    })
    .await
}

/// The `requestId`s of the next `n` `notifications/cancelled`.
pub async fn cancelled_ids(
    notes: &mut broadcast::Receiver<JsonRpcNotification>,
    n: usize,
) -> Vec<Value> {
    let mut ids = Vec::new();
    while ids.len() < n {
        let note = next_notification(notes, "notifications/cancelled").await;
        ids.push(note.params.expect("params")["requestId"].clone());
    }
    ids
}

/// A server to connect to: a builder (built here, its names must be distinct) or a
/// running handle.
pub trait Running {
    /// The running server.
    fn running(self) -> ServerHandle;
}

impl Running for Server {
    fn running(self) -> ServerHandle {
        self.build().expect("the test server's names are distinct")
    }
}

impl Running for ServerHandle {
    fn running(self) -> ServerHandle {
        self
    }
}

/// Connects an in-memory client built by `client` to `server`.
pub async fn connect(server: impl Running, client: ClientBuilder) -> Client {
    connect_in_memory(server.running(), client)
        .await
        .expect("connects")
}

/// Connects a client built by `client` to `server` and calls `tool` with no arguments.
pub async fn call_once(server: impl Running, client: ClientBuilder, tool: &str) -> CallToolResult {
    connect(server, client)
        .await
        .call_tool(tool, json!({}))
        .await
        .expect("call")
}

/// Two branches sample at the same time ("for" and "against"); the answers joined with
/// `+`. It may run as a task.
#[mcp_tool(task_support = "optional")]
pub async fn both(ctx: &Ctx) -> Result<String, ToolError> {
    let (a, b) = tokio::try_join!(
        ctx.branch(|b| async move { b.sample().prompt("for").await }),
        ctx.branch(|b| async move { b.sample().prompt("against").await }),
    )?;
    Ok(format!("{}+{}", a?.text(), b?.text()))
}

/// A JSON object (an empty one for anything else).
pub fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// A tool result's text blocks, joined.
pub fn text(r: &CallToolResult) -> String {
    r.content.iter().filter_map(ContentBlock::as_text).collect()
}

/// When [`Model`] answers a sampling request.
#[derive(Clone)]
enum Answer {
    /// At once.
    Now,
    /// Never: the request stays pending until it is withdrawn.
    Never,
    /// Once this many requests are pending together.
    Together(Arc<tokio::sync::Barrier>),
    /// Once the test lets it through ([`Model::open`]).
    Gated(Arc<tokio::sync::Semaphore>),
}

/// A model on the client side: records every sampling request and answers "ok" (with the
/// usage set by [`Model::usage`], if any) when its [`Answer`] policy says so.
#[derive(Clone)]
pub struct Model {
    requests: Arc<Mutex<Vec<CreateMessageRequestParams>>>,
    answer: Answer,
    usage: Option<(u64, u64)>,
}

impl Model {
    fn with(answer: Answer) -> Self {
        Model {
            requests: Arc::default(),
            answer,
            usage: None,
        }
    }

    /// Answers every request at once.
    pub fn answering() -> Self {
        Model::with(Answer::Now)
    }

    /// Never answers.
    pub fn silent() -> Self {
        Model::with(Answer::Never)
    }

    /// Answers only once `n` requests are pending at the same time (sequential requests
    /// would wait forever).
    pub fn together(n: usize) -> Self {
        Model::with(Answer::Together(Arc::new(tokio::sync::Barrier::new(n))))
    }

    /// Answers a request only once [`Model::open`] let it through.
    pub fn gated() -> Self {
        Model::with(Answer::Gated(Arc::new(tokio::sync::Semaphore::new(0))))
    }

    /// Lets `n` more requests of a [`Model::gated`] model be answered.
    pub fn open(&self, n: usize) {
        match &self.answer {
            Answer::Gated(gate) => gate.add_permits(n),
            _ => panic!("only a gated model has a gate to open"),
        }
    }

    /// Reports `usage.inputTokens` / `usage.outputTokens` in every answer.
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Some((input, output));
        self
    }

    /// A client builder whose sampling handler is this model.
    pub fn client(&self) -> ClientBuilder {
        let me = self.clone();
        Client::builder().on_sampling(move |p| {
            let me = me.clone();
            async move {
                me.requests.lock().expect("lock").push(p);
                match &me.answer {
                    Answer::Now => {}
                    Answer::Never => std::future::pending::<()>().await,
                    Answer::Together(barrier) => {
                        barrier.wait().await;
                    }
                    Answer::Gated(gate) => {
                        let _ = gate.acquire().await.map(|p| p.forget());
                    }
                }
                let mut reply =
                    json!({"role":"assistant","model":"m","content":{"type":"text","text":"ok"}});
                if let Some((input, output)) = me.usage {
                    reply["usage"] = json!({"inputTokens": input, "outputTokens": output});
                }
                serde_json::from_value(reply).map_err(ErrorObject::internal)
            }
        })
    }

    /// How many sampling requests arrived.
    pub fn count(&self) -> usize {
        self.requests.lock().expect("lock").len()
    }

    /// The sampling requests that arrived, in order.
    pub fn requests(&self) -> Vec<CreateMessageRequestParams> {
        self.requests.lock().expect("lock").clone()
    }
}
