//! [`Ctx`]: what a tool, prompt or resource handler sees of its request and session —
//! logging, progress, cancellation, and raw server→client requests (sampling, elicitation,
//! roots, ping) that check the client's declared capabilities first.

mod scope;

pub(crate) use scope::{ClientInit, SessionScope, TaskScope};

use crate::peer::RequestError;
use crate::peer::sync::lock;
use crate::protocol::*;
use scope::Asking;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

/// The context of one request being served.
///
/// Cheap to clone. Dropping the handler's future (the request was cancelled) cancels every
/// server→client request the context has outstanding. `K` is the set of keyed elicitations
/// the tool declared (`#[mcp_tool(elicits = Keys)]`); `()` when it declared none.
pub struct Ctx<K = ()> {
    inner: Arc<CtxInner>,
    keys: std::marker::PhantomData<fn() -> K>,
}

impl<K> Clone for Ctx<K> {
    fn clone(&self) -> Self {
        Ctx {
            inner: self.inner.clone(),
            keys: std::marker::PhantomData,
        }
    }
}

struct CtxInner {
    session: Arc<dyn SessionScope>,
    request_id: RequestId,
    progress_token: Option<ProgressToken>,
    cancel: CancellationToken,
    log: std::sync::Mutex<Vec<LoggedExchange>>,
    /// The task this call runs as, if it was task-augmented.
    task: Option<Arc<dyn TaskScope>>,
}

/// One answer the client gave during a call (sampling or elicitation), in order. A handoff
/// tool's `client` phase is deterministic given its inputs and these answers, which is what
/// lets a stateless engine (MCP 2026-07-28 MRTR, durable tasks) replay it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoggedExchange {
    /// The request method (`sampling/createMessage`, `elicitation/create`).
    pub method: String,
    /// The request params.
    pub params: Value,
    /// The client's result.
    pub result: Value,
}

impl<K> std::fmt::Debug for Ctx<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("request_id", &self.inner.request_id)
            .finish_non_exhaustive()
    }
}

impl Ctx {
    pub(crate) fn new(
        session: Arc<dyn SessionScope>,
        request_id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
    ) -> Self {
        Self::with_task(session, request_id, progress_token, cancel, None)
    }

    /// The context of a call running as a task.
    pub(crate) fn for_task(
        session: Arc<dyn SessionScope>,
        request_id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        task: Arc<dyn TaskScope>,
    ) -> Self {
        Self::with_task(session, request_id, progress_token, cancel, Some(task))
    }

    fn with_task(
        session: Arc<dyn SessionScope>,
        request_id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        task: Option<Arc<dyn TaskScope>>,
    ) -> Self {
        Ctx {
            inner: Arc::new(CtxInner {
                session,
                request_id,
                progress_token,
                cancel,
                log: std::sync::Mutex::default(),
                task,
            }),
            keys: std::marker::PhantomData,
        }
    }
}

impl<K> Ctx<K> {
    /// The same context, typed with the key set `K2` (generated code uses this to hand a
    /// tool the `Ctx<Keys>` it declared).
    pub fn with_keys<K2>(&self) -> Ctx<K2> {
        Ctx {
            inner: self.inner.clone(),
            keys: std::marker::PhantomData,
        }
    }

    /// The same context without its key set.
    pub fn erased(&self) -> Ctx {
        self.with_keys()
    }

    /// The id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The id of the task this call runs as, when the client asked for a task-augmented
    /// call (`tools/call` with `task`); `None` for a plain call.
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task.as_deref().map(|t| t.id())
    }

    /// The request this call's messages belong to: the call itself, or for a task the
    /// pending `tasks/result` that now carries its messages.
    fn related(&self) -> RequestId {
        match &self.inner.task {
            Some(task) => task.route(),
            None => self.inner.request_id.clone(),
        }
    }

    /// The progress token the client attached to this request, if any.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.inner.progress_token.as_ref()
    }

    /// The session this request came on.
    pub(crate) fn session(&self) -> &dyn SessionScope {
        &*self.inner.session
    }

    /// The capabilities the client declared in `initialize`.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.inner
            .session
            .client()
            .map(|i| i.capabilities.clone())
            .unwrap_or_default()
    }

    /// The client's name and version from `initialize`.
    pub fn client_info(&self) -> Option<Implementation> {
        self.inner.session.client().map(|i| i.client_info.clone())
    }

    /// The protocol version agreed for this session.
    pub fn protocol_version(&self) -> &str {
        self.inner
            .session
            .client()
            .map_or(LATEST_PROTOCOL_VERSION, |i| i.protocol_version.as_str())
    }

    /// Whether the request has been cancelled (by the client or because the session ended).
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the request is cancelled; use in `tokio::select!` to stop work early.
    pub fn cancelled(&self) -> WaitForCancellationFuture<'_> {
        self.inner.cancel.cancelled()
    }

    /// A token cancelled with this request, for handing to spawned work.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.inner.cancel.clone()
    }

    /// Sends `notifications/message` at `level` if the client's log level lets it through.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.log_to(level, None, data).await
    }

    /// [`Ctx::log`] with a logger name.
    pub async fn log_to(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        if !self.inner.session.log_enabled(level) {
            return;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data: serde_json::to_value(data).unwrap_or(Value::Null),
            ..Default::default()
        };
        self.notify(methods::MESSAGE, params).await;
    }

    /// Sends `notifications/progress` if the client asked for progress (a no-op otherwise).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = self.inner.progress_token.clone() else {
            return;
        };
        let params = ProgressNotificationParams {
            progress_token: token,
            progress,
            total,
            message: message.map(str::to_owned),
            meta: None,
        };
        self.notify(methods::PROGRESS, params).await;
    }

    /// Sends a notification on this request's stream, waiting while the session's outbound
    /// queue is full (the client reads slowly).
    ///
    /// In a task, the notification carries the task's `related-task` metadata.
    pub async fn notify(&self, method: &str, params: impl Serialize) {
        let mut params = serde_json::to_value(params).ok();
        if let (Some(task), Some(params)) = (&self.inner.task, params.as_mut()) {
            task.tag(params);
        }
        self.inner
            .session
            .peer()
            .notify(method, params, Some(self.related()))
            .await;
    }

    /// Closes this request's SSE stream on Streamable HTTP so the client reconnects with
    /// `Last-Event-ID` (SEP-1699). Messages sent meanwhile are kept for the resumed stream.
    /// Other transports ignore it.
    pub fn close_sse_stream(&self) {
        self.inner.session.peer().close_stream(self.related());
    }

    /// Asks the client's model for a message (`sampling/createMessage`).
    ///
    /// Fails with [`RequestError::CapabilityMissing`] if the client did not declare
    /// `sampling` (or `sampling.tools` when `params.tools` is set), without sending anything.
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, RequestError> {
        let caps = self.client_capabilities();
        let Some(sampling) = caps.sampling else {
            return Err(RequestError::CapabilityMissing("sampling"));
        };
        if params.tools.as_ref().is_some_and(|t| !t.is_empty()) && sampling.tools.is_none() {
            return Err(RequestError::CapabilityMissing("sampling.tools"));
        }
        self.request(methods::SAMPLING_CREATE_MESSAGE, params).await
    }

    /// Asks the user for input (`elicitation/create`), in form or URL mode.
    ///
    /// Fails with [`RequestError::CapabilityMissing`] if the client did not declare
    /// `elicitation` (an empty object means form mode) or `elicitation.url` for URL mode.
    pub async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, RequestError> {
        let caps = self.client_capabilities();
        let Some(elicitation) = caps.elicitation else {
            return Err(RequestError::CapabilityMissing("elicitation"));
        };
        let is_url = matches!(params, ElicitRequestParams::Url(_));
        if is_url && elicitation.url.is_none() {
            return Err(RequestError::CapabilityMissing("elicitation.url"));
        }
        if !is_url && elicitation.form.is_none() && elicitation.url.is_some() {
            return Err(RequestError::CapabilityMissing("elicitation.form"));
        }
        self.request(methods::ELICITATION_CREATE, params).await
    }

    /// Lists the client's roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<ListRootsResult, RequestError> {
        if self.client_capabilities().roots.is_none() {
            return Err(RequestError::CapabilityMissing("roots"));
        }
        self.request(methods::ROOTS_LIST, serde_json::json!({}))
            .await
    }

    /// Pings the client.
    pub async fn ping(&self) -> Result<(), RequestError> {
        let _: Value = self.request(methods::PING, serde_json::json!({})).await?;
        Ok(())
    }

    /// Sends a request to the client on this request's stream and decodes the answer.
    /// Fails with [`RequestError::Unsupported`] on stateless sessions.
    pub async fn request<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
    ) -> Result<R, RequestError> {
        self.request_with_timeout(method, params, self.inner.session.request_timeout())
            .await
    }

    /// [`Ctx::request`] with an explicit timeout.
    pub async fn request_with_timeout<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
        timeout: Duration,
    ) -> Result<R, RequestError> {
        if !self.inner.session.can_request() {
            return Err(RequestError::Unsupported);
        }
        let mut params =
            serde_json::to_value(params).map_err(|e| RequestError::Decode(e.to_string()))?;
        // A task waiting on its requestor is `input_required` until the answer arrives.
        let asking = match &self.inner.task {
            Some(task) => {
                task.tag(&mut params);
                Some(Asking::start(&**task).await)
            }
            None => None,
        };
        let logged =
            method == methods::SAMPLING_CREATE_MESSAGE || method == methods::ELICITATION_CREATE;
        let params_for_log = logged.then(|| params.clone());
        let value = self
            .inner
            .session
            .peer()
            .request(method, Some(params), Some(self.related()), timeout)
            .await;
        if let Some(asking) = asking {
            asking.answered().await;
        }
        let value = value?;
        if let Some(params) = params_for_log {
            lock(&self.inner.log).push(LoggedExchange {
                method: method.to_owned(),
                params,
                result: value.clone(),
            });
        }
        serde_json::from_value(value).map_err(|e| RequestError::Decode(e.to_string()))
    }

    /// Every sampling and elicitation answer of this call so far, in order.
    pub fn exchange_log(&self) -> Vec<LoggedExchange> {
        lock(&self.inner.log).clone()
    }
}
