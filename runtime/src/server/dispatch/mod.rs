//! The dispatch service: every request of both eras, from every host, reaches its handler
//! through here, so this is where [`Server::layer`](crate::Server::layer) wraps tower
//! middleware around the handlers.
//!
//! A host hands every message to `server::serve` (`server/serve.rs`), which takes it to its
//! era's entry (a 2025 request's `work_of`, a 2026 request's `modern_request` or
//! `call_plain_tool`); that entry builds a [`Route`] to the one method table (`server/table.rs`), saying how it is served
//! ([`Serving`]: 2025 session, 2026 request, 2026 plain tool call). With no layers the
//! table is called directly: nothing is built or boxed that the request did not already need. With
//! layers the request becomes an [`McpRequest`], goes through the server's
//! [`McpService`] (the layers around [`Handlers`]) and comes back an [`McpResponse`].

#[cfg(feature = "otel")]
pub(crate) mod otel;
mod request;
mod response;

pub use request::{Era, McpRequest};
pub(crate) use request::{Route, Serving};
pub use response::McpResponse;

use super::answer::{Answer, Answering};
use super::request_scope::RequestScope;
use crate::protocol::ErrorObject;
use futures::FutureExt as _;
use std::task::{Context, Poll};
use tower::ServiceExt as _;

/// The error a layer may fail a request with (tower's `BoxError`). It reaches the client
/// as a JSON-RPC error: an [`ErrorObject`] as it is, tower's timeout as `-32001` (request
/// timed out), tower's load shedding as `-32000` (server overloaded), anything else as
/// `-32603` with the error's text.
pub type BoxError = tower::BoxError;

/// The server's request handling as a tower service: the layers given to
/// [`Server::layer`](crate::Server::layer) around the handlers. A layer's service must be
/// `Clone` (each request is served by a clone, as in axum); wrap a middleware that is not
/// (tower's `RateLimit`) in a `Buffer`.
pub type McpService = tower::util::BoxCloneSyncService<McpRequest, McpResponse, BoxError>;

/// The innermost service: answers a request from the method table, as its route says.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Handlers;

impl tower::Service<McpRequest> for Handlers {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = futures::future::Map<Answering, fn(Result<Answer, ErrorObject>) -> Served>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        request
            .answer()
            .map(|outcome| Ok(McpResponse::new(outcome)))
    }
}

/// What the innermost service comes to.
type Served = Result<McpResponse, BoxError>;

/// The service of a server with no layers yet.
pub(crate) fn handlers() -> McpService {
    McpService::new(Handlers)
}

/// `call` answered as `table` says: by the method table itself when the server has no
/// layers, else as an [`McpRequest`] through them (its layers around [`Handlers`]), a
/// layer's failure mapped to a JSON-RPC error.
pub(crate) fn answer(scope: RequestScope, call: Call, table: Serving) -> Answering {
    let Some(service) = scope.server().inner.service.clone() else {
        return scope.answer(call, table);
    };
    let served = service.oneshot(call.into_request(scope, table));
    Answering::Running(Box::pin(served.map(|served| {
        served.map_or_else(|e| Err(layer_error(e)), |response| response.outcome)
    })))
}

/// A layer's failure as the JSON-RPC error the client gets.
fn layer_error(error: BoxError) -> ErrorObject {
    match error.downcast::<ErrorObject>() {
        Ok(error) => *error,
        Err(error) if error.is::<tower::timeout::error::Elapsed>() => {
            ErrorObject::request_timeout()
        }
        Err(error) if error.is::<tower::load_shed::error::Overloaded>() => {
            ErrorObject::overloaded()
        }
        Err(error) => ErrorObject::internal(error),
    }
}

impl McpRequest {
    /// The handler's answer, from the method table, served as the route says (a 2025
    /// session's `initialize`, `ping` and refusals before `initialize` at once).
    fn answer(self) -> Answering {
        let McpRequest {
            id,
            method,
            mut params,
            mut caller,
            extensions,
            route,
            ..
        } = self;
        // What the layers attached reaches the handler (`Ctx::extension`).
        if !extensions.is_empty() {
            caller.extensions = Some(std::sync::Arc::new(extensions));
        }
        let Route {
            scope,
            progress_token,
            cancel,
            table,
        } = route;
        if let RequestScope::Session(session) = &scope
            && let Some(result) = session.answer_at_once(&method, &mut params)
        {
            return Answering::ready(result.map(Answer::Tree));
        }
        let call = Call {
            id,
            method,
            params,
            caller,
            progress_token,
            cancel,
        };
        scope.answer(call, table)
    }
}

/// What the method table is given: one request, past every layer.
pub(crate) struct Call {
    pub(crate) id: crate::protocol::RequestId,
    pub(crate) method: String,
    pub(crate) params: Option<serde_json::Value>,
    pub(crate) caller: crate::caller::Caller,
    pub(crate) progress_token: Option<crate::protocol::ProgressToken>,
    /// Fires when the request is cancelled (the handler's token).
    pub(crate) cancel: tokio_util::sync::CancellationToken,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_failures_become_json_rpc_errors() {
        let own = layer_error(Box::new(ErrorObject::new(-32050, "mine")));
        assert_eq!((own.code, own.message.as_str()), (-32050, "mine"));
        let elapsed = layer_error(Box::new(tower::timeout::error::Elapsed::new()));
        assert_eq!(elapsed.code, crate::protocol::REQUEST_TIMEOUT);
        let shed = layer_error(Box::new(tower::load_shed::error::Overloaded::new()));
        assert_eq!(shed.code, crate::protocol::SERVER_OVERLOADED);
        let other = layer_error("no".into());
        assert_eq!(
            (other.code, other.message.as_str()),
            (crate::protocol::INTERNAL_ERROR, "Internal error: no")
        );
    }
}
