//! The narrow handles a [`Ctx`](super::Ctx) holds: what it needs of the session a request
//! came on ([`SessionScope`]) and of the task the call runs as ([`TaskScope`]). The server
//! layer implements them; the context layer never sees the server's types.

use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel, RequestId};
use futures::future::BoxFuture;
use serde_json::Value;
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

/// What the client told the server about itself (in `initialize` on a 2025 session, in
/// every request's `_meta` on 2026-07-28). Shared, not copied: a modern request's comes
/// from the last one the same client sent.
#[derive(Debug, Clone)]
pub(crate) struct ClientInit {
    /// One of the versions this crate speaks.
    pub(crate) protocol_version: &'static str,
    pub(crate) capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Arc<Implementation>,
    /// The schema profile the server chose for this client.
    pub(crate) schema_profile: super::SchemaProfile,
}

/// The session a request is served on, as a handler's context sees it.
pub(crate) trait SessionScope: Send + Sync + 'static {
    /// What the client declared, once known.
    fn client(&self) -> Option<&ClientInit>;
    /// Whether `notifications/message` at `level` reaches the client.
    fn log_enabled(&self, level: LoggingLevel) -> bool;
    /// How long a server→client request may take.
    fn request_timeout(&self) -> Duration;
    /// The server behind the session, for the layer that knows its type.
    fn server(&self) -> &dyn Any;
    /// The app state the server was given (`Server::state`).
    fn app_state(&self) -> &super::AppState;
}

/// The task a call runs as, as a handler's context sees it.
pub(crate) trait TaskScope: Send + Sync + 'static {
    /// The task's id.
    fn id(&self) -> &str;
    /// The request the task's messages travel with now.
    fn route(&self) -> RequestId;
    /// Adds the related-task `_meta` to a request's or notification's params.
    fn tag(&self, params: &mut Value);
    /// One more server→client request outstanding: the task is `input_required`.
    fn asking(&self) -> BoxFuture<'_, ()>;
    /// One outstanding request was answered: back to `working` when none is left.
    fn answered(&self) -> BoxFuture<'_, ()>;
    /// One outstanding request was abandoned (its future dropped): uncount it without
    /// waiting.
    fn abandoned(&self);
}

/// Counts one server→client request of a task while it is outstanding.
pub(crate) struct Asking<'a> {
    task: &'a dyn TaskScope,
    armed: bool,
}

impl<'a> Asking<'a> {
    pub(crate) async fn start(task: &'a dyn TaskScope) -> Self {
        task.asking().await;
        Asking { task, armed: true }
    }

    pub(crate) async fn answered(mut self) {
        self.armed = false;
        self.task.answered().await;
    }
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.task.abandoned();
        }
    }
}
