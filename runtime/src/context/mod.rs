//! [`Ctx`]: what a tool, prompt or resource handler sees of its request and session —
//! logging, progress, cancellation, and raw server→client requests (sampling, elicitation,
//! roots, ping) that check the client's declared capabilities first.

mod ask;
mod exchange;
mod notify;
mod once;
mod profile;
mod rounds;
mod scope;
mod state;

pub use ask::LoggedExchange;
pub use once::{MAX_ONCE_LEN, OnceError};
pub use profile::SchemaProfile;
pub use state::MissingState;

pub(crate) use exchange::Exchange;
pub(crate) use rounds::{Carried, Digest, Question, Rounds, Stuck};
pub(crate) use scope::{ClientInit, SessionScope, TaskScope};
pub(crate) use state::AppState;

use crate::caller::Caller;
use crate::peer::RequestError;
use crate::peer::sync::lock;
use crate::protocol::*;
use ask::KeptExchange;
use std::sync::Arc;
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
    /// The app state of the mounted servers the handler belongs to, innermost first
    /// (`Server::mount`); `None` for an item registered on the server itself.
    mounted: Option<Arc<state::Mounted>>,
    keys: std::marker::PhantomData<fn() -> K>,
}

impl<K> Clone for Ctx<K> {
    fn clone(&self) -> Self {
        Ctx {
            inner: self.inner.clone(),
            flow: self.flow.clone(),
            mounted: self.mounted.clone(),
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
    /// How its questions are answered and where its notifications go: live on a session,
    /// as a 2025 task's, or in MRTR rounds.
    exchange: Exchange,
    /// Who made the request.
    caller: Caller,
    /// The last progress value sent: each must be greater (the spec's MUST).
    last_progress: std::sync::Mutex<Option<f64>>,
}

impl<K> std::fmt::Debug for Ctx<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("request_id", &self.inner.request_id)
            .finish_non_exhaustive()
    }
}

impl Ctx {
    /// The context of request `request_id` on `session`, asking its client through
    /// `exchange`.
    pub(crate) fn new(
        session: Arc<dyn SessionScope>,
        exchange: Exchange,
        request_id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        caller: Caller,
    ) -> Self {
        Ctx {
            inner: Arc::new(CtxInner {
                session,
                request_id,
                progress_token,
                cancel,
                log: std::sync::Mutex::default(),
                exchange,
                caller,
                last_progress: std::sync::Mutex::new(None),
            }),
            flow: Arc::default(),
            mounted: None,
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
            mounted: self.mounted.clone(),
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
            mounted: self.mounted.clone(),
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
        self.inner.exchange.in_rounds()
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

    /// A value a layer given to [`Server::layer`](crate::Server::layer) attached to this
    /// request ([`McpRequest::extensions_mut`](crate::middleware::McpRequest::extensions_mut)):
    /// what an authentication or tenancy layer found out, handed to the handler. `None`
    /// when no layer attached a `T`. A task's context keeps those of the request that
    /// created the task.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    /// #[derive(Clone)]
    /// struct Tenant(String);
    /// /// Says whose data this is.
    /// #[mcp_tool]
    /// async fn whose(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let tenant = ctx.extension::<Tenant>().ok_or_else(|| ToolError::new("no tenant"))?;
    ///     Ok(tenant.0.clone())
    /// }
    /// ```
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.caller.extensions.as_deref()?.get::<T>()
    }

    /// A capability the client did not declare: an error for the caller on a 2025 session;
    /// on a modern request the whole request fails with `-32021` naming it, before
    /// anything is asked.
    async fn missing(&self, capability: &'static str) -> RequestError {
        self.inner.exchange.refuse(capability).await
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
        self.inner.exchange.task_id()
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
        let Some(rounds) = self.rounds() else {
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
