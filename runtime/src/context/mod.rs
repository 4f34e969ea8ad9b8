//! [`Ctx`]: what a tool, prompt or resource handler sees of its request and session —
//! logging, progress, cancellation, and raw server→client requests (sampling, elicitation,
//! roots, ping) that check the client's declared capabilities first.

mod once;
mod profile;
mod rounds;
mod scope;
mod state;

pub use once::{MAX_ONCE_LEN, OnceError};
pub use profile::SchemaProfile;
pub use state::MissingState;

pub(crate) use rounds::{Carried, Digest, Question, Rounds, Stuck};
pub(crate) use scope::{ClientInit, SessionScope, TaskScope};
pub(crate) use state::AppState;

use crate::caller::Caller;
use crate::peer::RequestError;
use crate::peer::sync::lock;
use crate::protocol::*;
use scope::Asking;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

/// The context of one request being served.
///
/// Cheap to clone. Dropping the handler's future (the request was cancelled) cancels every
/// server→client request the context has outstanding. `K` is the set of keyed elicitations
/// the tool declared (`#[mcp_tool(elicits = Keys)]`); `()` when it declared none.
///
/// ```
/// use tracksuit::{Ctx, mcp_tool, protocol::LoggingLevel};
/// /// Reports who is asking, and logs to the client.
/// #[mcp_tool]
/// async fn whoami(ctx: &Ctx) -> String {
///     ctx.log(LoggingLevel::Info, "asked who I am").await;
///     let client = ctx.client_info().map(|i| i.name).unwrap_or_default();
///     format!("request {} from {client} ({})", ctx.request_id(), ctx.protocol_version())
/// }
/// # fn main() {}
/// ```
pub struct Ctx<K = ()> {
    inner: Arc<CtxInner>,
    flow: Arc<Flow>,
    keys: std::marker::PhantomData<fn() -> K>,
}

impl<K> Clone for Ctx<K> {
    fn clone(&self) -> Self {
        Ctx {
            inner: self.inner.clone(),
            flow: self.flow.clone(),
            keys: std::marker::PhantomData,
        }
    }
}

/// The `_meta` key under which a keyed elicitation carries its key (`{"key": ..,
/// "context": ..}`); on a modern request that key names the question in `inputRequests`.
pub(crate) const KEYED_ELICITATION_META: &str = "io.tracksuit/elicitation";

/// `PickMove` → `pick_move`: a keyed elicitation's variant name as an `inputRequests` key.
/// `{path}{kind}-{n}`, without the formatting machinery (a key is made per question).
fn numbered(path: &str, kind: &str, n: u32) -> String {
    let mut key = String::with_capacity(path.len() + kind.len() + 12);
    key.push_str(path);
    key.push_str(kind);
    key.push('-');
    push_decimal(&mut key, n);
    key
}

/// Appends `n` in decimal.
fn push_decimal(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// One sequential line of a call's code: the call itself, or one of its branches. The
/// questions a flow asks the client are numbered in order, so on a modern (MRTR) request
/// each gets the same key every time the call is replayed, whatever the branches around it
/// do meanwhile.
#[derive(Debug, Default)]
struct Flow {
    /// `""` for the call, `"b0."`, `"b0.b1."`… for branches.
    path: String,
    asked: std::sync::atomic::AtomicU32,
    branches: std::sync::atomic::AtomicU32,
    /// Exchanges (answered questions written into conversation history) numbered so far.
    exchanges: std::sync::atomic::AtomicU32,
    /// How often each keyed elicitation was asked in this flow.
    keyed: std::sync::Mutex<std::collections::HashMap<String, u32>>,
}

impl Flow {
    /// The key of the next question: a keyed elicitation's own key (numbered from its second
    /// use), else the flow's path, the kind of request and its position in the flow.
    fn key(&self, method: &str, keyed: Option<&str>) -> String {
        use std::sync::atomic::Ordering;
        let n = self.asked.fetch_add(1, Ordering::Relaxed);
        if let Some(key) = keyed {
            let mut seen = lock(&self.keyed);
            let uses = seen.entry(key.to_owned()).or_insert(0);
            *uses += 1;
            let key = snake_case(key);
            return match *uses {
                1 => format!("{}{key}", self.path),
                u => format!("{}{key}-{u}", self.path),
            };
        }
        let kind = match method {
            methods::SAMPLING_CREATE_MESSAGE => "sample",
            methods::ELICITATION_CREATE => "elicit",
            methods::ROOTS_LIST => "roots",
            once::ONCE => "once",
            _ => "ask",
        };
        numbered(&self.path, kind, n)
    }
}

struct CtxInner {
    session: Arc<dyn SessionScope>,
    request_id: RequestId,
    progress_token: Option<ProgressToken>,
    cancel: CancellationToken,
    log: std::sync::Mutex<Vec<KeptExchange>>,
    /// The task this call runs as, if it was task-augmented.
    task: Option<Arc<dyn TaskScope>>,
    /// On a modern (2026-07-28) request: the answers so far and the questions of this round.
    rounds: Option<Arc<Rounds>>,
    /// Who made the request.
    caller: Caller,
    /// The last progress value sent: each must be greater (the spec's MUST).
    last_progress: std::sync::Mutex<Option<f64>>,
}

/// One answer the client gave during a call (sampling or elicitation), in order. A handoff
/// tool's `client` phase is deterministic given its inputs and these answers, which is what
/// lets a stateless engine (MCP 2026-07-28 MRTR, durable tasks) replay it.
///
/// ```
/// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::*};
/// /// Asks the model once, then reports what the call's log kept.
/// #[mcp_tool]
/// async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
///     let params = CreateMessageRequestParams {
///         messages: vec![SamplingMessage::user_text("hi")],
///         max_tokens: 8,
///         ..Default::default()
///     };
///     ctx.create_message(params).await.map_err(|e| ToolError::new(e.to_string()))?;
///     let log = ctx.exchange_log();
///     Ok(format!("{} {}", log.len(), log[0].method))
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(ask).build()?;
/// let client = tracksuit::client::Client::builder().on_sampling(|_params| async {
///     Ok(CreateMessageResult {
///         role: Role::Assistant,
///         content: SamplingMessageContentBlock::text("hello").into(),
///         model: "echo".into(),
///         stop_reason: Some(StopReason::EndTurn),
///         meta: None,
///         extra: Default::default(),
///     })
/// });
/// let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("ask", serde_json::json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some("1 sampling/createMessage"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoggedExchange {
    /// The request method (`sampling/createMessage`, `elicitation/create`).
    pub method: String,
    /// The request params.
    pub params: Value,
    /// The client's result.
    pub result: Value,
}

/// A [`LoggedExchange`] as the call keeps it: the params as the JSON text they were sent
/// (or asked) as, turned into a value only when the log is read.
struct KeptExchange {
    /// `sampling/createMessage` or `elicitation/create`.
    method: &'static str,
    /// JSON text, as serde_json wrote it.
    params: String,
    result: KeptResult,
}

/// The method a [`KeptExchange`] records, if `method` is one that is logged.
fn logged_method(method: &str) -> Option<&'static str> {
    [
        methods::SAMPLING_CREATE_MESSAGE,
        methods::ELICITATION_CREATE,
    ]
    .into_iter()
    .find(|m| *m == method)
}

/// The client's result in a [`KeptExchange`], as the JSON text it was carried as.
type KeptResult = Box<serde_json::value::RawValue>;

/// A request to the client as JSON text, for a modern (2026-07-28) round. 2026-07-28 has no
/// elicitation ids (the retry itself tells the outcome), and a fresh id per replay would
/// make the request differ from the one answered: a URL elicitation's id is dropped.
fn question_text<P: Serialize>(method: &str, params: &P) -> Result<String, RequestError> {
    let decode = |e: serde_json::Error| RequestError::Decode(e.to_string());
    let text = json_text(params).map_err(decode)?;
    if method != methods::ELICITATION_CREATE || !text.contains("\"elicitationId\"") {
        return Ok(text);
    }
    let mut value: Value = serde_json::from_str(&text).map_err(decode)?;
    if let Some(map) = value.as_object_mut() {
        map.remove("elicitationId");
    }
    json_text(&value).map_err(decode)
}

/// `value` as JSON text, written into a buffer sized for a typical request (growing it
/// from empty is a reallocation per doubling).
fn json_text<P: Serialize + ?Sized>(value: &P) -> Result<String, serde_json::Error> {
    let mut out = Vec::with_capacity(256);
    serde_json::to_writer(&mut out, value)?;
    // serde_json writes UTF-8 only.
    String::from_utf8(out).map_err(serde::ser::Error::custom)
}

/// The key of a keyed elicitation (`_meta["io.tracksuit/elicitation"].key`), read from
/// the request's text without building it.
fn keyed_elicitation(params: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        // KEYED_ELICITATION_META
        #[serde(rename = "io.tracksuit/elicitation")]
        keyed: Option<Keyed>,
    }
    #[derive(serde::Deserialize)]
    struct Keyed {
        key: Option<String>,
    }
    const _: () = assert!(KEYED_ELICITATION_META.len() == "io.tracksuit/elicitation".len());
    // The text is serde_json's own (keys written as they are, never escaped): without the
    // `_meta` key's name anywhere in it, there is nothing to parse.
    if !params.contains(KEYED_ELICITATION_META) {
        return None;
    }
    serde_json::from_str::<Params>(params)
        .ok()?
        .meta?
        .keyed?
        .key
}

impl<K> std::fmt::Debug for Ctx<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("request_id", &self.inner.request_id)
            .finish_non_exhaustive()
    }
}

impl Ctx {
    pub(crate) fn new(
        session: Arc<dyn SessionScope>,
        request_id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        caller: Caller,
    ) -> Self {
        Self::build(
            session,
            request_id,
            progress_token,
            cancel,
            None,
            None,
            caller,
        )
    }

    /// The context of a modern (MCP 2026-07-28) request: questions to the client become
    /// MRTR rounds.
    pub(crate) fn for_rounds(
        session: Arc<dyn SessionScope>,
        request_id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        rounds: Arc<Rounds>,
        caller: Caller,
    ) -> Self {
        Self::build(
            session,
            request_id,
            progress_token,
            cancel,
            None,
            Some(rounds),
            caller,
        )
    }

    /// The context of a call running as a task.
    pub(crate) fn for_task(
        session: Arc<dyn SessionScope>,
        request_id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        task: Arc<dyn TaskScope>,
        caller: Caller,
    ) -> Self {
        Self::build(
            session,
            request_id,
            progress_token,
            cancel,
            Some(task),
            None,
            caller,
        )
    }

    fn build(
        session: Arc<dyn SessionScope>,
        request_id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        task: Option<Arc<dyn TaskScope>>,
        rounds: Option<Arc<Rounds>>,
        caller: Caller,
    ) -> Self {
        Ctx {
            inner: Arc::new(CtxInner {
                session,
                request_id,
                progress_token,
                cancel,
                log: std::sync::Mutex::default(),
                task,
                rounds,
                caller,
                last_progress: std::sync::Mutex::new(None),
            }),
            flow: Arc::default(),
            keys: std::marker::PhantomData,
        }
    }
}

impl<K> Ctx<K> {
    /// The same context, typed with the key set `K2` (generated code uses this to hand a
    /// tool the `Ctx<Keys>` it declared).
    ///
    /// ```
    /// struct MyKeys; // normally made by `#[derive(Elicits)]`
    /// fn typed(ctx: &tracksuit::Ctx) -> tracksuit::Ctx<MyKeys> {
    ///     ctx.with_keys::<MyKeys>()
    /// }
    /// # let _ = typed;
    /// ```
    pub fn with_keys<K2>(&self) -> Ctx<K2> {
        Ctx {
            inner: self.inner.clone(),
            flow: self.flow.clone(),
            keys: std::marker::PhantomData,
        }
    }

    /// The same context for a new branch of the call: its questions to the client are
    /// numbered on their own.
    pub(crate) fn branch_flow(&self) -> Ctx<K> {
        use std::sync::atomic::Ordering;
        let n = self.flow.branches.fetch_add(1, Ordering::Relaxed);
        Ctx {
            inner: self.inner.clone(),
            flow: Arc::new(Flow {
                path: format!("{}b{n}.", self.flow.path),
                ..Flow::default()
            }),
            keys: std::marker::PhantomData,
        }
    }

    /// An id for an exchange this flow writes into conversation history (the `tool_use` /
    /// `tool_result` pair of an answered elicitation). Deterministic — the flow's path and
    /// the exchange's position in it — so a replayed call builds the same history, and the
    /// same later requests, as the round that was answered.
    pub(crate) fn exchange_id(&self, prefix: &str) -> String {
        use std::sync::atomic::Ordering;
        let n = self.flow.exchanges.fetch_add(1, Ordering::Relaxed);
        let mut id = String::with_capacity(prefix.len() + self.flow.path.len() + 12);
        id.push_str(prefix);
        id.push('-');
        id.push_str(&self.flow.path);
        push_decimal(&mut id, n);
        id
    }

    /// The MRTR rounds of a modern request.
    pub(crate) fn rounds(&self) -> Option<&Arc<Rounds>> {
        self.inner.rounds.as_ref()
    }

    /// Who made the request.
    pub(crate) fn caller(&self) -> &Caller {
        &self.inner.caller
    }

    /// The authenticated caller: set when the request came through a token validator
    /// (`tracksuit::host::http::auth`, feature `auth`) or through your own middleware that
    /// put a [`Principal`](crate::Principal) into the HTTP request's extensions. `None` on
    /// stdio and on unauthenticated HTTP.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    ///
    /// /// Says who is calling.
    /// #[mcp_tool]
    /// async fn whoami(ctx: &Ctx) -> Result<String, ToolError> {
    ///     match ctx.principal() {
    ///         Some(p) => Ok(format!("{} ({})", p.subject, p.scopes.join(" "))),
    ///         None => Err(ToolError::new("not authenticated")),
    ///     }
    /// }
    /// # let _ = whoami;
    /// ```
    pub fn principal(&self) -> Option<&crate::caller::Principal> {
        self.inner.caller.principal.as_deref()
    }

    /// The head of the HTTP request that carried this call (method, URI, headers and the
    /// extensions your own middleware attached), on Streamable HTTP; `None` on other
    /// transports. A task's context keeps the head of the request that created the task.
    /// The `Authorization` header is not among the headers when a token validator checked
    /// it: the token is never handed on.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    ///
    /// /// Echoes the caller's user agent.
    /// #[mcp_tool]
    /// async fn agent(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let head = ctx.http_request().ok_or_else(|| ToolError::new("not over HTTP"))?;
    ///     Ok(head
    ///         .headers
    ///         .get("user-agent")
    ///         .and_then(|v| v.to_str().ok())
    ///         .unwrap_or("unknown")
    ///         .to_owned())
    /// }
    /// # let _ = agent;
    /// ```
    #[cfg(feature = "http")]
    pub fn http_request(&self) -> Option<&http::request::Parts> {
        self.inner.caller.http.as_deref()
    }

    /// A capability the client did not declare: an error for the caller on a 2025 session;
    /// on a modern request the whole request fails with `-32021` naming it, before
    /// anything is asked.
    async fn missing(&self, capability: &'static str) -> RequestError {
        if let Some(rounds) = &self.inner.rounds {
            let mut required = serde_json::Map::new();
            let mut at = &mut required;
            let mut parts = capability.split('.').peekable();
            while let Some(part) = parts.next() {
                let entry = at
                    .entry(part.to_owned())
                    .or_insert_with(|| Value::Object(Default::default()));
                if parts.peek().is_none() {
                    break;
                }
                match entry {
                    Value::Object(next) => at = next,
                    _ => break,
                }
            }
            rounds.fail(
                ErrorObject::new(
                    MISSING_REQUIRED_CLIENT_CAPABILITY,
                    format!("this request needs the client capability `{capability}`"),
                )
                .with_data(serde_json::json!({ "requiredCapabilities": required })),
            );
            std::future::pending::<()>().await;
        }
        RequestError::CapabilityMissing(capability)
    }

    /// The same context without its key set.
    ///
    /// ```
    /// fn plain<K>(ctx: &tracksuit::Ctx<K>) -> tracksuit::Ctx {
    ///     ctx.erased()
    /// }
    /// # let _ = plain::<()>;
    /// ```
    pub fn erased(&self) -> Ctx {
        self.with_keys()
    }

    /// The id of the request being served.
    ///
    /// ```
    /// /// Echoes its request id (handy in logs).
    /// #[tracksuit::mcp_tool]
    /// async fn id(ctx: &tracksuit::Ctx) -> String { ctx.request_id().to_string() }
    /// # fn main() {}
    /// ```
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The id of the task this call runs as: a task-augmented call of MCP 2025-11-25
    /// (`tools/call` with `task`), or a call that became a task of the tasks extension (MCP
    /// 2026-07-28); `None` for a plain call (and before a call becomes a task).
    ///
    /// ```
    /// /// Says whether it runs as a task.
    /// #[tracksuit::mcp_tool(task_support = "optional")]
    /// async fn job(ctx: &tracksuit::Ctx) -> String { format!("{:?}", ctx.task_id()) }
    /// # fn main() {}
    /// ```
    pub fn task_id(&self) -> Option<&str> {
        match &self.inner.task {
            Some(task) => Some(task.id()),
            None => self.inner.rounds.as_ref().and_then(|r| r.task_id()),
        }
    }

    /// The request this call's messages belong to: the call itself, or for a task the
    /// pending `tasks/result` that now carries its messages.
    fn related(&self) -> RequestId {
        match &self.inner.task {
            Some(task) => task.route(),
            None => self.inner.request_id.clone(),
        }
    }

    /// The progress token the client attached to this request, if any.
    ///
    /// ```
    /// /// Reports progress only when the client asked for it.
    /// #[tracksuit::mcp_tool]
    /// async fn work(ctx: &tracksuit::Ctx) -> String {
    ///     format!("progress wanted: {}", ctx.progress_token().is_some())
    /// }
    /// # fn main() {}
    /// ```
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.inner.progress_token.as_ref()
    }

    /// The session this request came on.
    pub(crate) fn session(&self) -> &dyn SessionScope {
        &*self.inner.session
    }

    /// The capabilities the client declared in `initialize`.
    ///
    /// ```
    /// /// Says whether the client can answer sampling requests.
    /// #[tracksuit::mcp_tool]
    /// async fn can_sample(ctx: &tracksuit::Ctx) -> String {
    ///     ctx.client_capabilities().sampling.is_some().to_string()
    /// }
    /// # fn main() {}
    /// ```
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.inner
            .session
            .client()
            .map(|i| ClientCapabilities::clone(&i.capabilities))
            .unwrap_or_default()
    }

    /// The client's name and version from `initialize`.
    ///
    /// ```
    /// /// Names the client.
    /// #[tracksuit::mcp_tool]
    /// async fn client(ctx: &tracksuit::Ctx) -> String {
    ///     ctx.client_info().map(|i| format!("{} {}", i.name, i.version)).unwrap_or_default()
    /// }
    /// # fn main() {}
    /// ```
    pub fn client_info(&self) -> Option<Implementation> {
        self.inner
            .session
            .client()
            .map(|i| Implementation::clone(&i.client_info))
    }

    /// The protocol version agreed for this session.
    ///
    /// ```
    /// /// Names the protocol revision in use.
    /// #[tracksuit::mcp_tool]
    /// async fn revision(ctx: &tracksuit::Ctx) -> String { ctx.protocol_version().to_owned() }
    /// # fn main() {}
    /// ```
    pub fn protocol_version(&self) -> &str {
        self.inner
            .session
            .client()
            .map_or(LATEST_PROTOCOL_VERSION, |i| i.protocol_version)
    }

    /// Continues the call as a task of the tasks extension (MCP 2026-07-28,
    /// `io.modelcontextprotocol/tasks`), for a tool whose
    /// [`ToolHandler::input_before_task`](crate::server::ToolHandler::input_before_task) is
    /// true: the questions asked so far were answered in multi round-trip rounds, and from
    /// here the request answers with a `CreateTaskResult` while the rest of the call runs in
    /// the background (later questions become the task's `inputRequests`).
    ///
    /// Anywhere else — a 2025 session, a client without the extension, a call that already
    /// is a task — it returns at once and the call goes on as it was.
    ///
    /// ```no_run
    /// # async fn f(ctx: &tracksuit::Ctx) {
    /// ctx.become_task().await;
    /// # }
    /// ```
    pub async fn become_task(&self) {
        let Some(rounds) = &self.inner.rounds else {
            return;
        };
        if rounds.is_live() {
            return;
        }
        rounds.request_task();
        // Yield once, so whoever polls the call sees the request and can move it.
        let mut yielded = false;
        std::future::poll_fn(|cx| {
            if yielded {
                std::task::Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            }
        })
        .await;
    }

    /// Whether the request has been cancelled (by the client or because the session ended).
    ///
    /// When a request is cancelled the runtime **drops the handler's future** at its next
    /// `.await` (nothing is sent back, as the spec asks): code after that point never runs,
    /// so a `tokio::select!` branch on [`cancelled`](Self::cancelled) inside the handler
    /// itself does not get to run either. Clean-up inside the handler belongs in a `Drop`
    /// guard. `is_cancelled`, `cancelled()` and [`cancellation_token`](Self::cancellation_token)
    /// are for work that outlives the future: spawned tasks and blocking threads, which the
    /// runtime does not stop for you.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    ///
    /// /// Sums a long range on a blocking thread that stops when the call is cancelled.
    /// #[mcp_tool]
    /// async fn crunch(ctx: &Ctx, n: u64) -> Result<String, ToolError> {
    ///     struct Log; // runs whether the call finishes or is cancelled (dropped)
    ///     impl Drop for Log { fn drop(&mut self) { eprintln!("crunch over") } }
    ///     let _log = Log;
    ///     let token = ctx.cancellation_token();
    ///     let sum = tokio::task::spawn_blocking(move || {
    ///         let mut sum = 0u64;
    ///         for i in 0..n {
    ///             if i % 1_000_000 == 0 && token.is_cancelled() {
    ///                 return None; // the thread stops too, not only the future
    ///             }
    ///             sum = sum.wrapping_add(i);
    ///         }
    ///         Some(sum)
    ///     })
    ///     .await
    ///     .map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok(format!("{sum:?}"))
    /// }
    /// # fn main() {}
    /// ```
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the request is cancelled. The handler's own future is dropped at the
    /// same moment (see [`is_cancelled`](Self::is_cancelled)), so this is for work the
    /// handler spawned with a clone of the `Ctx`, e.g. a background task that must notice
    /// the cancellation and stop:
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// Starts a watcher that lives as long as the call.
    /// #[mcp_tool]
    /// async fn watch(ctx: &Ctx) -> String {
    ///     let ctx2 = ctx.clone();
    ///     tokio::spawn(async move {
    ///         tokio::select! {
    ///             _ = ctx2.cancelled() => { /* the call was cancelled: stop */ }
    ///             _ = tokio::time::sleep(std::time::Duration::from_secs(60)) => {}
    ///         }
    ///     });
    ///     "watching".into()
    /// }
    /// # fn main() {}
    /// ```
    pub fn cancelled(&self) -> WaitForCancellationFuture<'_> {
        self.inner.cancel.cancelled()
    }

    /// A token cancelled with this request, for handing to spawned work (which the runtime
    /// does not stop when it drops the handler's future).
    pub fn cancellation_token(&self) -> CancellationToken {
        self.inner.cancel.clone()
    }

    /// Sends `notifications/message` at `level` if the client's log level lets it through.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool, protocol::LoggingLevel};
    /// /// Logs a line, then answers.
    /// #[mcp_tool]
    /// async fn work(ctx: &Ctx) -> String {
    ///     ctx.log(LoggingLevel::Info, "starting").await;
    ///     "done".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(work).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.set_level(LoggingLevel::Debug).await?;
    /// client.call_tool("work", serde_json::json!({})).await?;
    /// let note = notes.recv().await?;
    /// assert_eq!(note.method, "notifications/message");
    /// assert_eq!(note.params.unwrap()["data"], "starting");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.log_to(level, None, data).await
    }

    /// [`Ctx::log`] with a logger name.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool, protocol::LoggingLevel};
    /// /// Logs as the `db` logger.
    /// #[mcp_tool]
    /// async fn query(ctx: &Ctx) -> String {
    ///     ctx.log_to(LoggingLevel::Warning, Some("db"), serde_json::json!({"slow_ms": 250})).await;
    ///     "rows".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(query).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.set_level(LoggingLevel::Info).await?;
    /// client.call_tool("query", serde_json::json!({})).await?;
    /// let params = notes.recv().await?.params.unwrap();
    /// assert_eq!((params["logger"].as_str(), &params["data"]["slow_ms"]), (Some("db"), &serde_json::json!(250)));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn log_to(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        if !self.inner.session.log_enabled(level) {
            return;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data: serde_json::to_value(data).unwrap_or(Value::Null),
            ..Default::default()
        };
        self.notify(methods::MESSAGE, params).await;
    }

    /// Sends `notifications/progress` if the client asked for progress (a no-op otherwise).
    /// Each value must be greater than the last one sent for this request (the spec's
    /// MUST): one that is not, or is not finite, is dropped.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool, protocol::ProgressToken};
    /// /// Reports half-way progress (the repeated and the smaller value are not sent).
    /// #[mcp_tool]
    /// async fn copy(ctx: &Ctx) -> String {
    ///     ctx.progress(50.0, Some(100.0), Some("half-way")).await;
    ///     ctx.progress(50.0, Some(100.0), None).await;
    ///     ctx.progress(10.0, Some(100.0), None).await;
    ///     ctx.progress(100.0, Some(100.0), Some("done")).await;
    ///     "copied".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(copy).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// let token = ProgressToken::String("copy-1".into());
    /// client.call_tool_with_progress("copy", serde_json::json!({}), token).await?;
    /// let params = notes.recv().await?.params.unwrap();
    /// assert_eq!(params["progressToken"], "copy-1");
    /// assert_eq!(params["progress"], 50.0);
    /// assert_eq!(notes.recv().await?.params.unwrap()["progress"], 100.0);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = self.inner.progress_token.clone() else {
            return;
        };
        {
            // Progress MUST increase with each notification: a value that does not (or is
            // not a number) is dropped rather than sent.
            let mut last = self
                .inner
                .last_progress
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !progress.is_finite() || last.is_some_and(|last| progress <= last) {
                tracing::debug!(progress, last = ?*last, "progress that does not increase is not sent");
                return;
            }
            *last = Some(progress);
        }
        let params = ProgressNotificationParams {
            progress_token: token,
            progress,
            total,
            message: message.map(str::to_owned),
            meta: None,
        };
        self.notify(methods::PROGRESS, params).await;
    }

    /// Sends a notification on this request's stream, waiting while the session's outbound
    /// queue is full (the client reads slowly).
    ///
    /// In a task, the notification carries the task's `related-task` metadata.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// Sends a custom notification.
    /// #[mcp_tool]
    /// async fn poke(ctx: &Ctx) -> String {
    ///     ctx.notify("notifications/example/poked", serde_json::json!({"n": 1})).await;
    ///     "poked".into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(poke).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let mut notes = client.notifications();
    /// client.call_tool("poke", serde_json::json!({})).await?;
    /// assert_eq!(notes.recv().await?.method, "notifications/example/poked");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn notify(&self, method: &str, params: impl Serialize) {
        let mut params = serde_json::to_value(params).ok();
        if let (Some(task), Some(params)) = (&self.inner.task, params.as_mut()) {
            task.tag(params);
        }
        self.inner
            .session
            .peer()
            .notify(method, params, Some(self.related()))
            .await;
    }

    /// Closes this request's SSE stream on Streamable HTTP so the client reconnects with
    /// `Last-Event-ID` (SEP-1699). Messages sent meanwhile are kept for the resumed stream.
    /// Other transports ignore it.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// A long call that lets its HTTP client reconnect instead of holding the stream open.
    /// #[mcp_tool]
    /// async fn long(ctx: &Ctx) -> String {
    ///     ctx.close_sse_stream(); // the client resumes with `Last-Event-ID`
    ///     "finished".into()
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(long).build().unwrap();
    /// ```
    pub fn close_sse_stream(&self) {
        self.inner.session.peer().close_stream(self.related());
    }

    /// Asks the client's model for a message (`sampling/createMessage`).
    ///
    /// Fails with [`RequestError::CapabilityMissing`] if the client did not declare
    /// `sampling` (or `sampling.tools` when `params.tools` is set), without sending anything.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::*};
    /// /// Asks the client's model a question.
    /// #[mcp_tool]
    /// async fn capital(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let params = CreateMessageRequestParams {
    ///         messages: vec![SamplingMessage::user_text("Capital of France?")],
    ///         max_tokens: 16,
    ///         ..Default::default()
    ///     };
    ///     let answer = ctx.create_message(params).await.map_err(|e| ToolError::new(e.to_string()))?;
    ///     let text = answer.content.iter().find_map(|b| b.as_text()).unwrap_or_default();
    ///     Ok(text.to_owned())
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(capital).build()?;
    ///
    /// let client = tracksuit::client::Client::builder().on_sampling(|params| async move {
    ///     assert_eq!(params.max_tokens, 16);
    ///     Ok(CreateMessageResult {
    ///         role: Role::Assistant,
    ///         content: SamplingMessageContentBlock::text("Paris").into(),
    ///         model: "stub-model".into(),
    ///         stop_reason: Some(StopReason::EndTurn),
    ///         meta: None,
    ///         extra: Default::default(),
    ///     })
    /// });
    ///
    /// let client = tracksuit::host::connect_in_memory(server, client).await?;
    /// let result = client.call_tool("capital", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("Paris"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, RequestError> {
        let caps = self.client_capabilities();
        let Some(sampling) = caps.sampling else {
            return Err(self.missing("sampling").await);
        };
        if params.tools.as_ref().is_some_and(|t| !t.is_empty()) && sampling.tools.is_none() {
            return Err(self.missing("sampling.tools").await);
        }
        self.request(methods::SAMPLING_CREATE_MESSAGE, params).await
    }

    /// Asks the user for input (`elicitation/create`), in form or URL mode.
    ///
    /// Fails with [`RequestError::CapabilityMissing`] if the client did not declare
    /// `elicitation` (an empty object means form mode) or `elicitation.url` for URL mode.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::*};
    /// /// Asks the user to confirm.
    /// #[mcp_tool]
    /// async fn delete(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let params = ElicitRequestParams::Form(ElicitRequestFormParams {
    ///         message: "Delete everything?".into(),
    ///         ..Default::default()
    ///     });
    ///     let answer = ctx.create_elicitation(params).await.map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok(format!("{:?}", answer.action))
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(delete).build()?;
    /// let client = tracksuit::client::Client::builder().on_elicitation(|_params| async {
    ///     Ok(ElicitResult { action: ElicitAction::Decline, content: None, meta: None, extra: Default::default() })
    /// });
    /// let client = tracksuit::host::connect_in_memory(server, client).await?;
    /// let result = client.call_tool("delete", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("Decline"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, RequestError> {
        let is_url = matches!(params, ElicitRequestParams::Url(_));
        if let Some(missing) = self.elicitation_missing(is_url) {
            return Err(self.missing(missing).await);
        }
        self.request(methods::ELICITATION_CREATE, params).await
    }

    /// [`Ctx::create_elicitation`] of form params given as borrowed parts
    /// ([`ElicitRequestFormParams::borrowed`]): the same checks, the same request.
    pub(crate) async fn create_form_elicitation(
        &self,
        params: FormOut<'_>,
    ) -> Result<ElicitResult, RequestError> {
        if let Some(missing) = self.elicitation_missing(false) {
            return Err(self.missing(missing).await);
        }
        self.request(methods::ELICITATION_CREATE, params).await
    }

    /// The elicitation capability a URL (`is_url`) or form elicitation needs and the client
    /// did not declare. Read in place: the capabilities are not copied for each question.
    fn elicitation_missing(&self, is_url: bool) -> Option<&'static str> {
        match self
            .inner
            .session
            .client()
            .and_then(|init| init.capabilities.elicitation.as_ref())
        {
            None => Some("elicitation"),
            Some(e) if is_url && e.url.is_none() => Some("elicitation.url"),
            Some(e) if !is_url && e.form.is_none() && e.url.is_some() => Some("elicitation.form"),
            Some(_) => None,
        }
    }

    /// Lists the client's roots (`roots/list`).
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::Root};
    /// /// Names the client's first root.
    /// #[mcp_tool]
    /// async fn workspace(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let roots = ctx.list_roots().await.map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok(roots.roots.first().map(|r| r.uri.clone()).unwrap_or_default())
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(workspace).build()?;
    /// let client = tracksuit::client::Client::builder().roots(vec![Root::new("file:///home/me/project")]);
    /// let client = tracksuit::host::connect_in_memory(server, client).await?;
    /// let result = client.call_tool("workspace", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("file:///home/me/project"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_roots(&self) -> Result<ListRootsResult, RequestError> {
        if self.client_capabilities().roots.is_none() {
            return Err(self.missing("roots").await);
        }
        self.request(methods::ROOTS_LIST, serde_json::json!({}))
            .await
    }

    /// Pings the client.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// Checks the client still answers.
    /// #[mcp_tool]
    /// async fn alive(ctx: &Ctx) -> String {
    ///     if ctx.ping().await.is_ok() { "yes" } else { "no" }.into()
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(alive).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, tracksuit::client::Client::builder()).await?;
    /// let result = client.call_tool("alive", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("yes"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn ping(&self) -> Result<(), RequestError> {
        let _: Value = self.request(methods::PING, serde_json::json!({})).await?;
        Ok(())
    }

    /// Sends a request to the client on this request's stream and decodes the answer.
    /// Fails with [`RequestError::Unsupported`] on stateless sessions.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool, protocol::{ListRootsResult, Root}};
    /// /// Sends `roots/list` by hand and decodes the typed result.
    /// #[mcp_tool]
    /// async fn count_roots(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let roots: ListRootsResult = ctx
    ///         .request("roots/list", serde_json::json!({}))
    ///         .await
    ///         .map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok(roots.roots.len().to_string())
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(count_roots).build()?;
    /// let client = tracksuit::client::Client::builder().roots(vec![Root::new("file:///a"), Root::new("file:///b")]);
    /// let client = tracksuit::host::connect_in_memory(server, client).await?;
    /// let result = client.call_tool("count_roots", serde_json::json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("2"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn request<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
    ) -> Result<R, RequestError> {
        self.request_with_timeout(method, params, self.inner.session.request_timeout())
            .await
    }

    /// [`Ctx::request`] with an explicit timeout.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    /// /// Gives the client two seconds to answer a ping.
    /// #[mcp_tool]
    /// async fn quick_ping(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let _: serde_json::Value = ctx
    ///         .request_with_timeout("ping", serde_json::json!({}), Duration::from_secs(2))
    ///         .await
    ///         .map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok("pong".into())
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(quick_ping).build().unwrap();
    /// ```
    pub async fn request_with_timeout<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
        timeout: Duration,
    ) -> Result<R, RequestError> {
        if let Some(rounds) = &self.inner.rounds {
            // Serialised once, straight to JSON text: its digest, its key and (if unanswered)
            // the question all come from this text, and no value tree is built for an
            // answered question.
            let params = question_text(method, &params)?;
            let keyed = keyed_elicitation(&params);
            let key = self.flow.key(method, keyed.as_deref());
            let answer = rounds.ask(&key, method, &params).await;
            // An answer that is not a result of the request's kind is the client's protocol
            // error: the whole request fails (-32602) rather than the tool seeing it.
            let result = match serde_json::from_str::<R>(answer.get()) {
                Ok(result) => result,
                Err(_) => {
                    // Reported as a value tree's deserializer words it (no text positions).
                    let error = match serde_json::from_str::<Value>(answer.get()) {
                        Ok(value) => R::deserialize(&value).err().map(|e| e.to_string()),
                        Err(e) => Some(e.to_string()),
                    };
                    let error = error.unwrap_or_else(|| "not valid JSON".to_owned());
                    rounds.malformed(&key, method, &error);
                    return std::future::pending().await;
                }
            };
            if let Some(method) = logged_method(method) {
                lock(&self.inner.log).push(KeptExchange {
                    method,
                    params,
                    result: answer,
                });
            }
            return Ok(result);
        }
        if !self.inner.session.can_request() {
            return Err(RequestError::Unsupported);
        }
        let mut params =
            serde_json::to_value(params).map_err(|e| RequestError::Decode(e.to_string()))?;
        // A task waiting on its requestor is `input_required` until the answer arrives.
        let asking = match &self.inner.task {
            Some(task) => {
                task.tag(&mut params);
                Some(Asking::start(&**task).await)
            }
            None => None,
        };
        let for_log = logged_method(method).and_then(|m| Some((m, json_text(&params).ok()?)));
        let value = self
            .inner
            .session
            .peer()
            .request(method, Some(params), Some(self.related()), timeout)
            .await;
        if let Some(asking) = asking {
            asking.answered().await;
        }
        let value = value?;
        if let Some((method, params)) = for_log {
            lock(&self.inner.log).push(KeptExchange {
                method,
                params,
                result: value
                    .to_text()
                    .map_err(|e| RequestError::Decode(e.to_string()))?,
            });
        }
        value
            .decode()
            .map_err(|e| RequestError::Decode(e.to_string()))
    }

    /// Every sampling and elicitation answer of this call so far, in order.
    ///
    /// ```
    /// use tracksuit::{Ctx, mcp_tool};
    /// /// Reports how many sampling/elicitation answers this call has had.
    /// #[mcp_tool]
    /// async fn answers(ctx: &Ctx) -> String {
    ///     ctx.exchange_log().len().to_string()
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(answers).build().unwrap();
    /// ```
    pub fn exchange_log(&self) -> Vec<LoggedExchange> {
        lock(&self.inner.log)
            .iter()
            .map(|kept| LoggedExchange {
                method: kept.method.to_owned(),
                params: serde_json::from_str(&kept.params).unwrap_or(Value::Null),
                result: serde_json::from_str(kept.result.get()).unwrap_or(Value::Null),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn question_keys_are_numbered_in_decimal() {
        for n in [0u32, 7, 10, 99, 12_345, u32::MAX] {
            assert_eq!(
                super::numbered("b0.", "elicit", n),
                format!("b0.elicit-{n}")
            );
            assert_eq!(super::numbered("", "sample", n), format!("sample-{n}"));
        }
    }
}
