//! [`McpRequest`]: one request as middleware sees it, and the route it takes to its
//! handler once every layer has let it through.

use crate::caller::{Caller, Principal};
use crate::protocol::{ClientCapabilities, Implementation, ProgressToken, RequestId};
use crate::server::request_scope::RequestScope;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Which protocol era a request belongs to.
///
/// ```
/// use tracksuit::middleware::Era;
/// assert_eq!(Era::Stateless.protocol_version(), "2026-07-28");
/// assert_eq!(Era::Session.protocol_version(), "2025-11-25");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Era {
    /// A 2025-11-25 session (or an older revision negotiated by `initialize`).
    Session,
    /// A 2026-07-28 stateless request: its `_meta` carries the protocol version and the
    /// client; each round of a multi round-trip request is a request of its own.
    Stateless,
}

impl Era {
    /// The newest protocol version of the era.
    pub fn protocol_version(self) -> &'static str {
        match self {
            Era::Session => crate::protocol::LATEST_PROTOCOL_VERSION,
            Era::Stateless => crate::server::MODERN_PROTOCOL_VERSIONS[0],
        }
    }
}

/// One MCP request on its way to its handler: what a [`tower::Layer`] given to
/// [`Server::layer`](crate::Server::layer) sees.
///
/// It carries the method, the target (a tool's or prompt's name, a resource's URI), the
/// raw params (a layer may rewrite them), the era, the client's description, the
/// authenticated principal, the HTTP request's head on Streamable HTTP, and
/// [`extensions`](Self::extensions) for layers to pass values along. `initialize`,
/// `ping`, list calls, `tools/call`, task methods and every round of a 2026 multi
/// round-trip request are all requests; notifications and responses are not.
///
/// ```
/// use tracksuit::middleware::{Era, McpRequest};
/// fn describe(request: &McpRequest) -> String {
///     format!("{} {} ({:?})", request.method(), request.target().unwrap_or("-"), request.era())
/// }
/// ```
pub struct McpRequest {
    pub(super) id: RequestId,
    pub(super) method: String,
    pub(super) params: Option<Value>,
    pub(super) era: Era,
    pub(super) caller: Caller,
    pub(super) extensions: http::Extensions,
    pub(super) route: Route,
}

/// Where a request goes once the layers let it through: the scope it is served in and how
/// the method table ([`RequestScope::answer`]) serves it.
pub(crate) struct Route {
    pub(super) scope: RequestScope,
    pub(super) progress_token: Option<ProgressToken>,
    pub(super) cancel: CancellationToken,
    pub(super) table: Serving,
}

/// How the one method table serves a request: its era, and a 2026 shortcut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Serving {
    /// A 2025-11-25 session's request: handlers ask the client live.
    Session,
    /// A 2026-07-28 request: `tools/call`, `prompts/get` and `resources/read` run in
    /// rounds; lists carry cache hints; `server/discover`, `subscriptions/listen`, the
    /// tasks extension.
    Stateless,
    /// A 2026-07-28 `tools/call` of a tool that never asks the client, served on the
    /// HTTP request's own future (no rounds to seal).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    PlainTool,
}

impl super::Call {
    /// The request as layers see it, to be answered in `scope` as `table` says once they
    /// let it through.
    pub(crate) fn into_request(self, scope: RequestScope, table: Serving) -> McpRequest {
        let era = match table {
            Serving::Session => Era::Session,
            Serving::Stateless | Serving::PlainTool => Era::Stateless,
        };
        McpRequest {
            id: self.id,
            method: self.method,
            params: self.params,
            era,
            caller: self.caller,
            extensions: http::Extensions::new(),
            route: Route {
                scope,
                progress_token: self.progress_token,
                cancel: self.cancel,
                table,
            },
        }
    }
}

impl McpRequest {
    /// The JSON-RPC method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// What the request is about: the tool's or prompt's `name` (`tools/call`,
    /// `prompts/get`), the resource's `uri` (`resources/read`, `resources/subscribe`), the
    /// task's `taskId` (task methods); `None` for the others.
    pub fn target(&self) -> Option<&str> {
        crate::protocol::request_target(&self.method, self.params.as_ref()?)
    }

    /// The request's params as the client sent them.
    pub fn params(&self) -> Option<&Value> {
        self.params.as_ref()
    }

    /// The params, for a layer that rewrites them before the handler runs.
    pub fn params_mut(&mut self) -> &mut Option<Value> {
        &mut self.params
    }

    /// The JSON-RPC request id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The protocol era of the request.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The negotiated protocol version (a 2025 session's) or the one the request carries
    /// (2026); `None` on a 2025 session before `initialize` has been answered.
    pub fn protocol_version(&self) -> Option<&'static str> {
        self.route.scope.client().map(|i| i.protocol_version)
    }

    /// The client's name and version, as it described itself (`initialize` or the
    /// request's `_meta`); `None` on a 2025 session before `initialize`.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.route.scope.client().map(|i| &*i.client_info)
    }

    /// The capabilities the client declared.
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        self.route.scope.client().map(|i| &*i.capabilities)
    }

    /// The authenticated caller, when the transport has one (a bearer token on HTTP, the
    /// principal given to a stdio or in-memory connection).
    pub fn principal(&self) -> Option<&Principal> {
        self.caller.principal.as_deref()
    }

    /// The HTTP request's head (method, URI, headers, extensions) on Streamable HTTP.
    #[cfg(feature = "http")]
    pub fn http_parts(&self) -> Option<&http::request::Parts> {
        self.caller.http.as_deref()
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

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("id", &self.id)
            .field("method", &self.method)
            .field("era", &self.era)
            .field("target", &self.target())
            .finish_non_exhaustive()
    }
}
