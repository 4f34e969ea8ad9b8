//! How the HTTP host reaches the server with a request served on its POST's own future:
//! a 2026 request ([`ServerHandle::serve_modern`]) or a 2025 one on a stateless endpoint
//! (`ServerHandle::serve_stateless`). The server says what the request needs: a plain
//! tool call is its answer alone; anything else also sends what comes before its answer
//! through an engine of its own, whose queue the host's response reads.

use super::modern::RequestMeta;
use super::session::Work;
use super::{ServerHandle, ServerSession};
use crate::caller::Caller;
use crate::context::ClientInit;
use crate::peer::{OutboundReceiver, Peer, outbound_queue};
use crate::protocol::*;
use futures::FutureExt as _;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio_util::sync::CancellationToken;

/// A request served on the host's future, as the server starts it.
pub(crate) enum OnPost<P, S> {
    /// It sends nothing but its answer, which `P` computes.
    Answer(P),
    /// It may send messages before its answer.
    Streamed(Streamed<S>),
}

/// A request that may send messages before its answer: `work` computes the answer, what
/// comes before goes through `outlet` onto `queue`. The host closes `outlet` when the
/// response is over (work the request left running, a task, then sends nothing more there).
pub(crate) struct Streamed<S> {
    pub(crate) work: S,
    pub(crate) outlet: Arc<Peer>,
    pub(crate) queue: OutboundReceiver,
}

impl ServerHandle {
    /// Serves one 2026 request of Streamable HTTP whose `_meta` said `meta`. A plain tool
    /// call ([`ServerHandle::is_plain_tool_call`]) is its answer alone, any other request
    /// streams. Dropping a future (the client closed the stream) cancels the request.
    pub(crate) fn serve_modern(
        &self,
        request: JsonRpcRequest,
        meta: RequestMeta,
        caller: Caller,
    ) -> OnPost<
        impl Future<Output = JsonRpcMessage> + Send + 'static,
        impl Future<Output = JsonRpcMessage> + Send + 'static,
    > {
        let id = request.id.clone();
        if self.is_plain_tool_call(&request, &meta.capabilities) {
            let session =
                ServerSession::new_modern(self.clone(), self.inner.detached.clone(), meta);
            return OnPost::Answer(async move {
                let outcome = session.call_plain_tool(request, caller).await;
                answer_message(id, outcome)
            });
        }
        let (tx, queue) = outbound_queue(self.inner.options.outbound_queue);
        let outlet = Arc::new(Peer::new(tx));
        let session = ServerSession::new_modern(self.clone(), outlet.clone(), meta);
        let JsonRpcRequest { method, params, .. } = request;
        let work = async move {
            let cancel = CancellationToken::new();
            let work = session.modern_request(id.clone(), method, params, caller, cancel.clone());
            answer_message(id, unless_dropped(cancel, work).await)
        };
        OnPost::Streamed(Streamed {
            work,
            outlet,
            queue,
        })
    }

    /// Whether `request`, from a client declaring `capabilities`, is a plain tool call:
    /// `tools/call` of a tool that cannot ask the client anything (no `Ctx` parameter), in
    /// a first round (no `inputResponses` or `requestState`), that does not become a task
    /// of the tasks extension here. Such a call needs none of what rounds, tasks or a
    /// handler on a task of its own bring, sends the client nothing but its result, and is
    /// served by [`ServerSession::call_plain_tool`].
    fn is_plain_tool_call(
        &self,
        request: &JsonRpcRequest,
        capabilities: &ClientCapabilities,
    ) -> bool {
        if request.method != methods::TOOLS_CALL {
            return false;
        }
        let Some(params) = request.params.as_ref().and_then(Value::as_object) else {
            return false;
        };
        let Some(Value::String(name)) = params.get("name") else {
            return false;
        };
        if params.contains_key("inputResponses") || params.contains_key("requestState") {
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
    pub(crate) fn serve_stateless(
        &self,
        request: JsonRpcRequest,
        caller: Caller,
    ) -> Streamed<impl Future<Output = JsonRpcMessage> + Send + 'static> {
        let (tx, queue) = outbound_queue(self.inner.options.outbound_queue);
        let outlet = Arc::new(Peer::new(tx));
        let session = ServerSession::new_stateless(self.clone(), outlet.clone());
        let work = async move {
            let JsonRpcRequest { id, method, params } = request;
            let outcome = match session.work_of(&id, method, params, caller) {
                Work::AtOnce(result) => result.map(ResultPayload::from),
                Work::Later(cancel, work) => unless_dropped(cancel, work).await,
            };
            answer_message(id, outcome)
        };
        Streamed {
            work,
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
pub(super) async fn unless_dropped(
    cancel: CancellationToken,
    work: impl Future<Output = Result<ResultPayload, ErrorObject>>,
) -> Result<ResultPayload, ErrorObject> {
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
