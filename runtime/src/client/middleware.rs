//! Client middleware: [`ClientBuilder::layer`](super::ClientBuilder::layer) wraps tower
//! layers around every request the client sends.
//!
//! A layer sees a [`ClientRequest`] (method, params as they go on the wire, era, protocol
//! version, which `input_required` round it is, extensions) and the [`ClientResponse`] that
//! comes back (the result or the error, whether a tool failed, whether the server asks for
//! input). Every request passes through: `initialize` and `server/discover`, typed calls,
//! [`Client::request`](super::Client::request), each round of a 2026-07-28 multi
//! round-trip request (the client answers `input_required` between rounds), the
//! `subscriptions/listen` of a subscription and the `resources/unsubscribe` sent when one
//! ends. Without layers, requests go straight to the connection: nothing is built for them.

use super::Era;
use crate::peer::{Peer, RequestError};
use crate::protocol::{ResultMarkers, ResultPayload};
use futures::FutureExt as _;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tower::ServiceExt as _;

/// The error a client layer may fail a request with (tower's `BoxError`). The caller gets
/// a [`RequestError`] boxed in it back as it is, and anything else (tower's timeout, a
/// rate limit's refusal) as [`RequestError::Layer`].
pub type BoxError = tower::BoxError;

/// The client's requests as a tower service: the layers given to
/// [`ClientBuilder::layer`](super::ClientBuilder::layer) around the connection. Each request
/// is served by a clone.
pub type ClientService = tower::util::BoxCloneSyncService<ClientRequest, ClientResponse, BoxError>;

/// One request on its way to the server, as a client layer sees it.
///
/// ```
/// use tracksuit::client::middleware::ClientRequest;
/// fn describe(request: &ClientRequest) -> String {
///     format!("{} round {} ({:?})", request.method(), request.round(), request.era())
/// }
/// ```
pub struct ClientRequest {
    method: String,
    params: Value,
    era: Era,
    protocol_version: Option<String>,
    round: usize,
    extensions: http::Extensions,
    peer: Arc<Peer>,
    timeout: Duration,
}

impl ClientRequest {
    /// The JSON-RPC method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The params as they go on the wire (on 2026-07-28 with the `_meta` every request
    /// carries, and on a later round with the answers and `requestState`).
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// The params, for a layer that rewrites them (adds `_meta`, say) before they are sent.
    pub fn params_mut(&mut self) -> &mut Value {
        &mut self.params
    }

    /// What the request is about: the tool's or prompt's `name`, the resource's `uri`,
    /// the task's `taskId`; `None` for the other methods.
    pub fn target(&self) -> Option<&str> {
        crate::protocol::request_target(&self.method, &self.params)
    }

    /// The era the client speaks ([`Era::Session`] until negotiation has picked 2026-07-28).
    pub fn era(&self) -> Era {
        self.era
    }

    /// The protocol version the request goes out with: the one `initialize` agreed, or the
    /// 2026-07-28 era's; `None` before either.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// 0 for a request's first send; `n` for the `n`th retry after an `input_required`
    /// answer (2026-07-28).
    pub fn round(&self) -> usize {
        self.round
    }

    /// Values layers attach to the request for the layers inside them.
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// Mutable [`extensions`](Self::extensions).
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }
}

impl std::fmt::Debug for ClientRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientRequest")
            .field("method", &self.method)
            .field("era", &self.era)
            .field("round", &self.round)
            .finish_non_exhaustive()
    }
}

/// What came back for a [`ClientRequest`]: the server's result or what went wrong (its
/// JSON-RPC error, a timeout, a closed connection), or what a layer answered instead.
///
/// ```
/// use tracksuit::client::middleware::ClientResponse;
/// use tracksuit::protocol::ResultPayload;
/// let cached = ClientResponse::from_result(ResultPayload::from(serde_json::json!({"tools": []})));
/// assert!(cached.error().is_none());
/// assert!(!cached.is_tool_error());
/// ```
#[derive(Debug)]
pub struct ClientResponse {
    outcome: Result<ResultPayload, RequestError>,
    extensions: http::Extensions,
}

impl ClientResponse {
    fn new(outcome: Result<ResultPayload, RequestError>) -> Self {
        ClientResponse {
            outcome,
            extensions: http::Extensions::new(),
        }
    }

    /// A response carrying `result`, for a layer that answers the request itself (a
    /// cache): nothing is sent.
    pub fn from_result(result: ResultPayload) -> Self {
        Self::new(Ok(result))
    }

    /// A response carrying `error`, for a layer that refuses the request itself.
    pub fn from_error(error: RequestError) -> Self {
        Self::new(Err(error))
    }

    /// The result, if the request succeeded.
    pub fn result(&self) -> Option<&ResultPayload> {
        self.outcome.as_ref().ok()
    }

    /// What went wrong, if the request failed.
    pub fn error(&self) -> Option<&RequestError> {
        self.outcome.as_ref().err()
    }

    /// Whether a `tools/call` ran and its tool failed: a result with `isError: true`.
    pub fn is_tool_error(&self) -> bool {
        self.result()
            .is_some_and(|r| ResultMarkers::of(r).is_error == Some(true))
    }

    /// Whether the server answered a 2026-07-28 `input_required` round: the client answers
    /// its input requests and sends the request again (the next round).
    pub fn is_input_required(&self) -> bool {
        self.result()
            .is_some_and(|r| ResultMarkers::of(r).result_type.as_deref() == Some("input_required"))
    }

    /// The outcome, for the caller.
    pub fn into_outcome(self) -> Result<ResultPayload, RequestError> {
        self.outcome
    }

    /// Values layers attach to the response for the layers outside them.
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// Mutable [`extensions`](Self::extensions).
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }
}

/// Whether a `tools/call` result says `isError: true`.
#[cfg(feature = "otel")]
pub(super) fn tool_failed(result: &ResultPayload) -> bool {
    ResultMarkers::of(result).is_error == Some(true)
}

/// The connection a request goes out on, and what layers (if any) it passes on the way.
/// Cheap to clone into a task (an unsubscribe, a subscription's `listen`).
#[derive(Clone)]
pub(super) struct Wire {
    pub(super) peer: Arc<Peer>,
    pub(super) layers: Option<ClientService>,
    pub(super) era: Era,
    pub(super) protocol_version: Option<String>,
}

impl Wire {
    /// Sends `method` (round `round` of it) through the layers, or straight to the peer
    /// when there are none; waits at most `timeout` for the answer.
    pub(super) fn send<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        round: usize,
        timeout: Duration,
    ) -> impl Future<Output = Result<ResultPayload, RequestError>> + Send + 'a {
        let Some(layers) = &self.layers else {
            return self
                .peer
                .request(method, Some(params), None, timeout)
                .left_future();
        };
        let request = ClientRequest {
            method: method.to_owned(),
            params,
            era: self.era,
            protocol_version: self.protocol_version.clone(),
            round,
            extensions: http::Extensions::new(),
            peer: self.peer.clone(),
            timeout,
        };
        layers
            .clone()
            .oneshot(request)
            .map(|sent| sent.map_or_else(|e| Err(layer_error(e)), ClientResponse::into_outcome))
            .right_future()
    }
}

/// A layer's failure as the caller gets it.
fn layer_error(error: BoxError) -> RequestError {
    match error.downcast::<RequestError>() {
        Ok(error) => *error,
        Err(error) => RequestError::Layer(Arc::from(error)),
    }
}

/// The innermost service: sends the request on the connection.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Connection;

impl tower::Service<ClientRequest> for Connection {
    type Response = ClientResponse;
    type Error = BoxError;
    type Future = futures::future::BoxFuture<'static, Result<ClientResponse, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: ClientRequest) -> Self::Future {
        let ClientRequest {
            method,
            params,
            peer,
            timeout,
            ..
        } = request;
        Box::pin(async move {
            let sent = peer.request(&method, Some(params), None, timeout).await;
            Ok(ClientResponse::new(sent))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_failures_keep_request_errors() {
        let own = layer_error(Box::new(RequestError::Closed));
        assert!(matches!(own, RequestError::Closed));
        let elapsed = layer_error(Box::new(tower::timeout::error::Elapsed::new()));
        let RequestError::Layer(inner) = elapsed else {
            panic!("expected a layer error, got {elapsed:?}");
        };
        assert!(inner.is::<tower::timeout::error::Elapsed>());
    }

    #[test]
    fn a_response_tells_tool_errors_and_rounds() {
        let failed = ClientResponse::from_result(ResultPayload::from(
            serde_json::json!({"content": [], "isError": true}),
        ));
        assert!(failed.is_tool_error() && !failed.is_input_required());
        let round = ClientResponse::from_result(ResultPayload::from(
            serde_json::json!({"resultType": "input_required", "inputRequests": {}}),
        ));
        assert!(round.is_input_required() && !round.is_tool_error());
        let refused = ClientResponse::from_error(RequestError::Closed);
        assert!(!refused.is_tool_error() && refused.error().is_some());
    }
}
