//! A 2025-11-25 request on a stateless Streamable HTTP endpoint: no `initialize` came
//! before it and none will follow, so it is served on a one-request session with default
//! client capabilities (it can ask the client nothing), on the caller's future.

use super::session::Work;
use super::{ServerHandle, ServerSession};
use crate::caller::Caller;
use crate::context::ClientInit;
use crate::peer::Peer;
use crate::protocol::*;
use futures::FutureExt as _;
use std::sync::Arc;
use std::sync::atomic::Ordering;

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

impl ServerHandle {
    /// Serves one request of a stateless endpoint on the caller's future: its answer, as
    /// the message to send. What it sends before (progress, logs) goes through `outlet`.
    /// Dropping the future (the client closed the stream) cancels the request.
    pub(crate) fn serve_stateless(
        &self,
        request: JsonRpcRequest,
        caller: Caller,
        outlet: Arc<Peer>,
    ) -> impl std::future::Future<Output = JsonRpcMessage> + Send + 'static {
        let session = ServerSession::new_stateless(self.clone(), outlet);
        async move {
            let JsonRpcRequest { id, method, params } = request;
            let outcome = match session.work_of(&id, method, params, caller) {
                Work::AtOnce(result) => result.map(ResultPayload::from),
                Work::Later(cancel, work) => {
                    let cancel_if_dropped = cancel.drop_guard();
                    let outcome = std::panic::AssertUnwindSafe(work).catch_unwind().await;
                    cancel_if_dropped.disarm();
                    outcome.unwrap_or_else(|panic| {
                        Err(ErrorObject::internal(crate::peer::panic_message(&panic)))
                    })
                }
            };
            match outcome {
                Ok(result) => JsonRpcMessage::response(id, result),
                Err(error) => JsonRpcMessage::error(Some(id), error),
            }
        }
    }
}
