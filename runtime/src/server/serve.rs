//! How a host hands the server a message: one function, [`serve`], for both eras and every
//! host. The host says where the message came from ([`Scope`]); the server says what the
//! host has left to do ([`Served`]). Past this point every request takes the same way: to
//! its era's entry (a 2025 request's `ServerSession::work_of`, a 2026 request's
//! `modern_request` or `call_plain_tool`), through the server's layers (`dispatch`), to the
//! one method table (`table.rs`).

use super::modern::RequestMeta;
use super::request_scope::ModernScope;
use super::session::Work;
use super::{ServerHandle, ServerSession};
use crate::caller::Caller;
use crate::context::ClientInit;
use crate::json::member;
use crate::peer::{OutboundReceiver, Peer, Sending, outbound_queue};
use crate::protocol::*;
use futures::FutureExt as _;
use futures::future::Either;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio_util::sync::CancellationToken;

/// Where a message reaches the server from.
#[cfg_attr(not(feature = "http"), allow(dead_code))] // only the HTTP host POSTs
pub(crate) enum Scope<'a> {
    /// A 2025-11-25 session: a line's (stdio, in memory) or an HTTP session's. Answers and
    /// what comes before them go out on the session's engine.
    Session(&'a Arc<ServerSession>),
    /// A line of 2026-07-28 requests (stdio, in memory), whose engine is `line`'s: each
    /// request is served apart, its messages written on the line.
    Line(&'a Arc<ServerSession>),
    /// An HTTP POST carrying a 2026-07-28 request, whose `_meta` said this (the host
    /// checked its headers against it): served on the POST's own future.
    Post(RequestMeta),
    /// An HTTP POST to a stateless endpoint carrying a 2025-11-25 request: served on the
    /// POST's own future, with no session before or after it.
    Stateless,
}

/// What a host has left to do with a message [`serve`] took.
#[must_use = "a request is only served when the host runs what `serve` returns"]
#[cfg_attr(not(feature = "http"), allow(dead_code))] // only the HTTP host POSTs
pub(crate) enum Served<'a, A> {
    /// Nothing: the message was a notification or a response (for a POST: `202`).
    Done,
    /// An answer given at once (`initialize`, `ping`, a refusal), being queued on the
    /// scope's engine: the host awaits it before it reads on.
    Sending(Sending<'a>),
    /// The request's work, which sends its answer on the scope's engine: the host spawns it
    /// or polls it first ([`crate::peer::Served`]).
    Work(crate::peer::Served),
    /// A POST's answer alone (a plain tool call): polling `A` computes it.
    Answer(A),
    /// A POST's answer and what comes before it.
    Streamed(Streamed),
}

impl<'a, A> Served<'a, A> {
    /// A POST's answer alone (`Ok`), to be awaited where the host awaits anything, or what
    /// else the message came to (`Err`: no room for the answer's future in it, so passing
    /// it on moves a few words).
    #[cfg(feature = "http")]
    pub(crate) fn answer_alone(self) -> Result<A, Served<'a, std::convert::Infallible>> {
        Err(match self {
            Served::Answer(answer) => return Ok(answer),
            Served::Done => Served::Done,
            Served::Sending(sending) => Served::Sending(sending),
            Served::Work(work) => Served::Work(work),
            Served::Streamed(streamed) => Served::Streamed(streamed),
        })
    }

    /// For a scope with an engine (a session, a line): waits for an answer given at once to
    /// be queued, then hands back the request's work, if it has any. Only a POST's scope
    /// makes an `Answer` or a `Streamed`.
    ///
    /// Not an `async fn`: one would keep the room of a POST's answer (a few kilobytes) in
    /// the future of every host that awaits it, a session's POST among them.
    pub(crate) fn on_engine(self) -> impl Future<Output = Option<crate::peer::Served>> + Send + 'a {
        match self {
            Served::Sending(sending) => Either::Left(sending.map(|()| None)),
            Served::Work(work) => Either::Right(std::future::ready(Some(work))),
            Served::Done | Served::Answer(_) | Served::Streamed(_) => {
                Either::Right(std::future::ready(None))
            }
        }
    }
}

/// What a message to a scope with an engine (a session, a line) comes to: an answer being
/// queued at once, or the request's work, if it has any.
pub(super) type Started<'a> = Either<Sending<'a>, Option<crate::peer::Served>>;

/// Serves one message that reached the server from `scope`, made by `caller` (the
/// principal a request's handler sees in its `Ctx`). The only way a host reaches the
/// server's requests: see the module docs. Nothing waits here: what is left to run or
/// to wait for is in the [`Served`], which borrows the scope's session.
pub(crate) fn serve<'a>(
    server: &ServerHandle,
    message: JsonRpcMessage,
    scope: Scope<'a>,
    caller: Caller,
) -> Served<'a, impl Future<Output = JsonRpcMessage> + Send + use<>> {
    let started = match scope {
        Scope::Session(session) => session.handle_from(message, caller),
        Scope::Line(line) => line.handle_modern_from(message, caller),
        Scope::Post(meta) => {
            let JsonRpcMessage::Request(request) = message else {
                return Served::Done;
            };
            return match server.serve_modern(request, meta, caller) {
                Either::Left(answer) => Served::Answer(answer),
                Either::Right(streamed) => Served::Streamed(streamed),
            };
        }
        Scope::Stateless => {
            let JsonRpcMessage::Request(request) = message else {
                return Served::Done;
            };
            return Served::Streamed(server.serve_stateless(request, caller));
        }
    };
    match started {
        Either::Left(sending) => Served::Sending(sending),
        Either::Right(work) => work.map_or(Served::Done, Served::Work),
    }
}

/// A request's work on a POST: its answer, as the message to send. Boxed where it is made,
/// so that handing it to the host moves a pointer, not the handler's state.
pub(crate) type PostWork = Pin<Box<dyn Future<Output = JsonRpcMessage> + Send>>;

/// A request that may send messages before its answer: `work` computes the answer, what
/// comes before goes through `outlet` onto `queue`. The host closes `outlet` when the
/// response is over (work the request left running, a task, then sends nothing more there).
#[cfg_attr(not(feature = "http"), allow(dead_code))] // only the HTTP host POSTs
pub(crate) struct Streamed {
    pub(crate) work: PostWork,
    pub(crate) outlet: Arc<Peer>,
    pub(crate) queue: OutboundReceiver,
}

impl ServerHandle {
    /// Serves one 2026 request of Streamable HTTP whose `_meta` said `meta`. A plain tool
    /// call ([`ServerHandle::is_plain_tool_call`]) is its answer alone (`Left`), any other
    /// request streams (`Right`). Dropping a future (the client closed the stream) cancels
    /// the request.
    fn serve_modern(
        &self,
        request: JsonRpcRequest,
        meta: RequestMeta,
        caller: Caller,
    ) -> Either<impl Future<Output = JsonRpcMessage> + Send + use<>, Streamed> {
        let id = request.id.clone();
        if self.is_plain_tool_call(&request, &meta.capabilities) {
            let session = ModernScope::new(self.clone(), self.inner.detached.clone(), meta);
            return Either::Left(async move {
                let outcome = session.call_plain_tool(request, caller).await;
                answer_message(id, outcome)
            });
        }
        let (tx, queue) = outbound_queue(self.inner.options.outbound_queue);
        let outlet = Arc::new(Peer::new(tx));
        let session = ModernScope::new(self.clone(), outlet.clone(), meta);
        let JsonRpcRequest { method, params, .. } = request;
        let work = async move {
            let cancel = CancellationToken::new();
            let work = session.modern_request(id.clone(), method, params, caller, cancel.clone());
            answer_message(id, unless_dropped(cancel, work).await)
        };
        Either::Right(Streamed {
            work: Box::pin(work),
            outlet,
            queue,
        })
    }

    /// Whether `request`, from a client declaring `capabilities`, is a plain tool call:
    /// `tools/call` of a tool that cannot ask the client anything (no `Ctx` parameter), in
    /// a first round (no `inputResponses` or `requestState`), that does not become a task
    /// of the tasks extension here. Such a call needs none of what rounds, tasks or a
    /// handler on a task of its own bring, sends the client nothing but its result, and is
    /// served by [`ModernScope::call_plain_tool`].
    fn is_plain_tool_call(
        &self,
        request: &JsonRpcRequest,
        capabilities: &ClientCapabilities,
    ) -> bool {
        if request.method != methods::TOOLS_CALL {
            return false;
        }
        let Some(params) = request.params.as_ref() else {
            return false;
        };
        let Some(Value::String(name)) = member(params, "name") else {
            return false;
        };
        if member(params, "inputResponses").is_some() || member(params, "requestState").is_some() {
            return false;
        }
        match self.plain_tool(name) {
            Some(TaskSupport::Forbidden) => true,
            Some(TaskSupport::Optional) => !crate::task::extension_declared(capabilities),
            Some(TaskSupport::Required) | None => false,
        }
    }

    /// Serves one 2025-11-25 request of a stateless endpoint: no `initialize` came before
    /// it and none will follow, so it runs on a session of its own with default client
    /// capabilities (it can ask the client nothing). Dropping the future (the client closed
    /// the stream) cancels the request.
    fn serve_stateless(&self, request: JsonRpcRequest, caller: Caller) -> Streamed {
        let (tx, queue) = outbound_queue(self.inner.options.outbound_queue);
        let outlet = Arc::new(Peer::new(tx));
        let session = ServerSession::new_stateless(self.clone(), outlet.clone());
        let work = async move {
            let JsonRpcRequest { id, method, params } = request;
            let outcome = match session.work_of(&id, method, params, caller) {
                Work::AtOnce(result) => result.map(ResultPayload::from),
                Work::Later(cancel, work) => {
                    unless_dropped(cancel, work).await.map(ResultPayload::from)
                }
            };
            answer_message(id, outcome)
        };
        Streamed {
            work: Box::pin(work),
            outlet,
            queue,
        }
    }
}

impl ServerSession {
    /// A session that needs no `initialize`: it serves one request with default client
    /// capabilities, so it can make no server→client requests.
    fn new_stateless(server: ServerHandle, peer: Arc<Peer>) -> Arc<Self> {
        let session = Self::build(server, peer, true);
        let info = Implementation::new("stateless-client", "0");
        let profile = session
            .server
            .inner
            .options
            .profile_for(&info, &Default::default());
        let _ = session.init.set(ClientInit {
            protocol_version: LATEST_PROTOCOL_VERSION,
            capabilities: Arc::default(),
            client_info: Arc::new(info),
            schema_profile: profile,
        });
        session.initialized.store(true, Ordering::Release);
        session
    }
}

/// Runs `work` to its outcome: dropped unfinished (the client closed the stream), `cancel`
/// fires; a panic is an internal error.
pub(super) async fn unless_dropped<T>(
    cancel: CancellationToken,
    work: impl Future<Output = Result<T, ErrorObject>>,
) -> Result<T, ErrorObject> {
    let cancel_if_dropped = cancel.drop_guard();
    let outcome = std::panic::AssertUnwindSafe(work).catch_unwind().await;
    cancel_if_dropped.disarm();
    outcome.unwrap_or_else(|panic| Err(ErrorObject::internal(crate::peer::panic_message(&panic))))
}

/// A request's outcome as the message that answers it.
pub(super) fn answer_message(
    id: RequestId,
    outcome: Result<ResultPayload, ErrorObject>,
) -> JsonRpcMessage {
    match outcome {
        Ok(result) => JsonRpcMessage::response(id, result),
        Err(error) => JsonRpcMessage::error(Some(id), error),
    }
}
