//! One proxied call: the remote request runs on a task of its own, and the handler that
//! serves our caller relays what it sends back — questions (asked of our caller through
//! [`Ctx::request`], so live on a 2025 session and as multi round-trip questions for a
//! 2026-07-28 caller) and progress — until the remote answers.
//!
//! A 2026-07-28 caller's handler is run again each round, but the remote request must not
//! be sent again: the call's [`Exchange`] is kept in [`Calls`] between rounds, under an id
//! the first round logs with [`Ctx::once`] (so it rides, sealed, in `requestState`). Each
//! round replays the questions asked so far (answered from the round's `inputResponses`,
//! the answers handed to the remote once) and goes on waiting.

use super::{Remote, pool::ROUTE, remote_error};
use crate::context::Ctx;
use crate::peer::sync::lock;
use crate::protocol::{ErrorObject, ProgressNotificationParams, ProgressToken, methods};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OwnedMutexGuard, mpsc, oneshot};
use tokio::task::JoinHandle;

/// What a remote call sends its caller.
pub(super) enum Event {
    /// The remote asks: `elicitation/create` or `sampling/createMessage`.
    Ask {
        method: String,
        params: Value,
        reply: oneshot::Sender<Result<Value, ErrorObject>>,
    },
    /// The remote reported progress.
    Progress(ProgressNotificationParams),
}

/// A question the remote asked, and where its answer goes (until it went).
struct Asked {
    method: String,
    params: Value,
    reply: Option<oneshot::Sender<Result<Value, ErrorObject>>>,
}

/// The remote side of one proxied call.
pub(super) struct Exchange {
    asked: Vec<Asked>,
    events: mpsc::UnboundedReceiver<Event>,
    task: JoinHandle<Result<Value, ErrorObject>>,
    /// The handler is waiting for our caller's answer (a dropped handler then ended a
    /// round, not the call).
    answering: bool,
}

impl Drop for Exchange {
    fn drop(&mut self) {
        // The remote request is dropped with its task: a 2025 remote is sent
        // `notifications/cancelled`, a 2026 remote's HTTP request is closed.
        self.task.abort();
    }
}

impl Exchange {
    /// Sends `method` to the remote on a task of its own.
    fn start(
        remote: Remote,
        method: String,
        params: Value,
        token: Option<ProgressToken>,
    ) -> Exchange {
        let (route, events) = mpsc::unbounded_channel();
        let call = remote_call(remote, method, params, token, route.clone());
        Exchange {
            asked: Vec::new(),
            events,
            task: tokio::spawn(ROUTE.scope(route, call)),
            answering: false,
        }
    }

    /// Relays questions and progress to `ctx`'s caller until the remote answers.
    async fn drive(&mut self, ctx: &Ctx) -> Result<Value, ErrorObject> {
        for index in 0..self.asked.len() {
            self.answer(ctx, index).await;
        }
        loop {
            tokio::select! {
                biased;
                event = self.events.recv() => match event {
                    Some(Event::Ask { method, params, reply }) => {
                        // Kept before it is asked: a round that ends waiting for the
                        // answer leaves it here for the next round to answer.
                        self.asked.push(Asked { method, params, reply: Some(reply) });
                        self.answer(ctx, self.asked.len() - 1).await;
                    }
                    Some(Event::Progress(p)) => {
                        ctx.progress(p.progress, p.total, p.message.as_deref()).await;
                    }
                    None => return joined((&mut self.task).await),
                },
                outcome = &mut self.task => return joined(outcome),
            }
        }
    }
}

impl Exchange {
    /// Asks our caller question `index` (answered at once when replayed) and hands the
    /// answer to the remote, if it has not had it yet.
    async fn answer(&mut self, ctx: &Ctx, index: usize) {
        let Some(asked) = self.asked.get(index) else {
            return;
        };
        self.answering = true;
        let answer = answer(ctx, &asked.method, &asked.params).await;
        self.answering = false;
        if let Some(reply) = self.asked.get_mut(index).and_then(|a| a.reply.take()) {
            let _ = reply.send(answer);
        }
    }
}

fn joined(
    outcome: Result<Result<Value, ErrorObject>, tokio::task::JoinError>,
) -> Result<Value, ErrorObject> {
    outcome.unwrap_or_else(|e| {
        Err(ErrorObject::internal(format!(
            "the proxied call failed: {e}"
        )))
    })
}

/// Asks our caller what the remote asked; a failure goes back to the remote as an error.
async fn answer(ctx: &Ctx, method: &str, params: &Value) -> Result<Value, ErrorObject> {
    ctx.request::<_, Value>(method, params)
        .await
        .map_err(|e| match e {
            crate::peer::RequestError::Peer(e) => e,
            other => ErrorObject::internal(format!("the proxy's caller could not answer: {other}")),
        })
}

/// The remote request, on a connection leased for it, relaying its progress to `route`.
async fn remote_call(
    remote: Remote,
    method: String,
    params: Value,
    token: Option<ProgressToken>,
    route: super::pool::Route,
) -> Result<Value, ErrorObject> {
    let name = remote.name().to_owned();
    let lease = remote
        .inner
        .pool
        .lease(route.clone())
        .await
        .map_err(|e| ErrorObject::internal(format!("the remote MCP server `{name}`: {e}")))?;
    let client = lease.client();
    let mut notes = client.notifications();
    let request = client.request::<Value, Value>(&method, params);
    tokio::pin!(request);
    let mut listening = token.is_some();
    loop {
        // Progress first: it was read before the answer, and goes out before it.
        tokio::select! {
            biased;
            note = notes.recv(), if listening => match note {
                Ok(n) if n.method == methods::PROGRESS => {
                    let progress = n.params.and_then(|p| serde_json::from_value(p).ok());
                    if let Some(p) = progress.filter(|p: &ProgressNotificationParams| Some(&p.progress_token) == token.as_ref()) {
                        let _ = route.send(Event::Progress(p));
                    }
                }
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => listening = false,
            },
            outcome = &mut request => return outcome.map_err(|e| remote_error(&name, e)),
        }
    }
}

/// A kept call, shared by the rounds that drive it in turn.
type Shared = Arc<tokio::sync::Mutex<Exchange>>;

/// The open remote calls of 2026-07-28 callers, between their rounds.
pub(super) struct Calls {
    open: Mutex<HashMap<String, (Instant, Shared)>>,
    ttl: Mutex<Duration>,
}

impl Calls {
    pub(super) fn new(ttl: Duration) -> Calls {
        Calls {
            open: Mutex::default(),
            ttl: Mutex::new(ttl),
        }
    }

    pub(super) fn set_ttl(&self, ttl: Duration) {
        *lock(&self.ttl) = ttl;
    }

    /// The call `id`, started by `start` if `fresh` (its first round); expired calls go.
    fn get_or_start(
        &self,
        id: &str,
        fresh: bool,
        start: impl FnOnce() -> Exchange,
    ) -> Option<Shared> {
        let ttl = *lock(&self.ttl);
        let mut open = lock(&self.open);
        open.retain(|_, (born, _)| born.elapsed() < ttl);
        if let Some((_, exchange)) = open.get(id) {
            return Some(exchange.clone());
        }
        if !fresh {
            return None;
        }
        let exchange = Arc::new(tokio::sync::Mutex::new(start()));
        open.insert(id.to_owned(), (Instant::now(), exchange.clone()));
        Some(exchange)
    }

    fn remove(&self, id: &str) {
        lock(&self.open).remove(id);
    }
}

/// A round's hold on a kept call: dropped while not waiting for our caller (the caller
/// cancelled), the call ends and the remote request with it.
struct Held<'r> {
    exchange: OwnedMutexGuard<Exchange>,
    calls: &'r Calls,
    id: String,
    done: bool,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if self.done || !self.exchange.answering {
            self.calls.remove(&self.id);
        }
    }
}

/// Sends `method` with `params` to the remote for `ctx`'s caller and relays what comes
/// back; the remote's answer, or its error (see [`remote_error`]).
pub(super) async fn relayed(
    remote: &Remote,
    ctx: &Ctx,
    method: &str,
    params: Value,
) -> Result<Value, ErrorObject> {
    let token = ctx
        .progress_token()
        .map(|_| ProgressToken::String(format!("tracksuit-proxy-{}", uuid::Uuid::new_v4())));
    let params = with_progress_token(params, token.as_ref());
    let start = || Exchange::start(remote.clone(), method.to_owned(), params, token);
    if ctx.rounds().is_none() {
        // A call that runs once: the exchange lives and dies with this handler.
        return start().drive(ctx).await;
    }
    let mut fresh = false;
    let id: String = ctx
        .once("tracksuit/proxy-call", async {
            fresh = true;
            uuid::Uuid::new_v4().to_string()
        })
        .await
        .map_err(ErrorObject::internal)?;
    let calls = &remote.inner.calls;
    let Some(shared) = calls.get_or_start(&id, fresh, start) else {
        return Err(ErrorObject::internal(format!(
            "the remote call of this request is no longer open (it expired, or this round reached another proxy process); call `{}` again",
            remote.name()
        )));
    };
    let mut held = Held {
        exchange: shared.lock_owned().await,
        calls,
        id,
        done: false,
    };
    let outcome = held.exchange.drive(ctx).await;
    held.done = true;
    outcome
}

/// `params` asking the remote for progress under `token`, when our caller asked for it.
pub(super) fn with_progress_token(mut params: Value, token: Option<&ProgressToken>) -> Value {
    let (Some(token), Some(object)) = (token, params.as_object_mut()) else {
        return params;
    };
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Default::default()));
    if let (Some(meta), Ok(token)) = (meta.as_object_mut(), serde_json::to_value(token)) {
        meta.insert("progressToken".into(), token);
    }
    params
}
