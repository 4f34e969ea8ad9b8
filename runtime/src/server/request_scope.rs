//! What a request is served in: the 2025-11-25 session it came on, or, for a 2026-07-28
//! request, a scope of its own made from its `_meta` and dropped with it. The method table
//! (`table.rs`) and the calls it makes (`calls.rs`, `listing.rs`, `visibility.rs`, the
//! rounds) are written once over [`RequestScope`].

use super::session::level_index;
use super::{ServerHandle, ServerSession};
use crate::caller::Caller;
use crate::context::{ClientInit, SessionScope};
use crate::peer::Peer;
use crate::protocol::LoggingLevel;
use std::sync::Arc;

/// The scope a request is served in. Cloning it clones an `Arc`.
#[derive(Clone)]
pub(crate) enum RequestScope {
    /// A 2025-11-25 session's request (a line's, an HTTP session's, or a stateless
    /// endpoint's one-request session): it reads the session's state as it is now.
    Session(Arc<ServerSession>),
    /// A 2026-07-28 request: everything it knows of its client came with it.
    Modern(Arc<ModernScope>),
}

/// A 2026-07-28 request's own scope: what its `_meta` said of its client, the log level it
/// asked for, and the engine its messages go out on (the line's, the HTTP response's, or a
/// detached one for a request that sends none). It carries no server→client request.
pub(crate) struct ModernScope {
    pub(super) server: ServerHandle,
    pub(super) peer: Arc<Peer>,
    pub(super) client: ClientInit,
    /// Minimum level for `notifications/message` (see `level_index`); `u8::MAX` = none.
    pub(super) log_level: u8,
    /// Sees every item whatever the visibility rules say: a resumed task's call, whose
    /// caller was admitted when the task started.
    pub(super) unfiltered: bool,
}

impl RequestScope {
    /// The server serving the request.
    pub(super) fn server(&self) -> &ServerHandle {
        match self {
            RequestScope::Session(session) => &session.server,
            RequestScope::Modern(scope) => &scope.server,
        }
    }

    /// The engine the request's messages go out on.
    pub(super) fn peer(&self) -> &Arc<Peer> {
        match self {
            RequestScope::Session(session) => &session.peer,
            RequestScope::Modern(scope) => &scope.peer,
        }
    }

    /// What the client declared, once known (a 2025 session's after `initialize`).
    pub(super) fn client(&self) -> Option<&ClientInit> {
        match self {
            RequestScope::Session(session) => session.init.get(),
            RequestScope::Modern(scope) => Some(&scope.client),
        }
    }

    /// Whether it serves a 2026-07-28 request.
    pub(super) fn is_modern(&self) -> bool {
        matches!(self, RequestScope::Modern(_))
    }

    /// Whether a handler may ask the client live (a 2025 session that is not a stateless
    /// endpoint's): a 2026 request asks in rounds.
    pub(super) fn can_request(&self) -> bool {
        match self {
            RequestScope::Session(session) => session.can_request(),
            RequestScope::Modern(_) => false,
        }
    }

    /// Whether it sees every item whatever the visibility rules say.
    pub(super) fn unfiltered(&self) -> bool {
        match self {
            RequestScope::Session(_) => false,
            RequestScope::Modern(scope) => scope.unfiltered,
        }
    }

    /// Whom a task this caller creates or asks about belongs to: its principal, or without
    /// one a 2025 HTTP session's own key (if bound), else nobody.
    pub(super) fn task_owner(&self, caller: &Caller) -> Option<String> {
        match self {
            RequestScope::Session(session) => session.task_owner(caller),
            RequestScope::Modern(_) => caller.owner(),
        }
    }

    /// The scope as a handler's context holds it.
    pub(super) fn for_context(&self) -> Arc<dyn SessionScope> {
        match self {
            RequestScope::Session(session) => session.clone(),
            RequestScope::Modern(scope) => scope.clone(),
        }
    }
}

impl SessionScope for ModernScope {
    fn client(&self) -> Option<&ClientInit> {
        Some(&self.client)
    }

    fn log_enabled(&self, level: LoggingLevel) -> bool {
        level_index(level) >= self.log_level
    }

    fn request_timeout(&self) -> std::time::Duration {
        self.server.inner.options.request_timeout
    }

    fn server(&self) -> &dyn std::any::Any {
        &self.server
    }

    fn app_state(&self) -> &crate::context::AppState {
        &self.server.inner.app_state
    }
}
