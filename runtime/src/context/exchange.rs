//! The seam between a handler and its client: how the requests a [`Ctx`](super::Ctx)
//! makes (sampling, elicitation, roots, ping, any request) are answered and where its
//! notifications go. One type, chosen when the request is served:
//!
//! - **live** — a 2025-11-25 session: each question is a server→client request on the
//!   session's JSON-RPC engine, answered while the handler waits;
//! - **task** — a 2025-11-25 task: live too, but every message carries the task's
//!   `related-task` metadata and travels with the `tasks/result` that now carries it, and the
//!   task is `input_required` while a question is outstanding;
//! - **rounds** — a 2026-07-28 request (or a task of the tasks extension): a question is
//!   answered from the answers the client already gave, or becomes one of the
//!   `input_required` round's questions ([`Rounds`]);
//! - **silent** — a request that can send nothing (a plain tool call, which has no `Ctx`
//!   parameter): it holds no engine at all.
//!
//! A handler's code is the same on every way; only this module knows which it runs on.

use super::ask::{KeptExchange, json_text, keyed_elicitation, logged_method, question_text};
use super::scope::{Asking, TaskScope};
use super::{Flow, Rounds};
use crate::peer::{Peer, RequestError};
use crate::protocol::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// How one request's questions and notifications reach its client.
pub(crate) struct Exchange {
    /// Where its messages go: the session's engine, or the one-request stream of a modern
    /// request; `None` for a request that sends nothing.
    outlet: Option<Arc<Peer>>,
    way: Way,
}

enum Way {
    /// Server→client requests on the session; `false` where the session cannot carry any
    /// (stateless 2025 HTTP).
    Live { can_request: bool },
    /// A 2025 task's: live, tagged and routed as the task's.
    Task(Arc<dyn TaskScope>),
    /// MRTR rounds.
    Rounds(Arc<Rounds>),
}

impl Exchange {
    /// Live on a session; `can_request` is whether it carries server→client requests.
    pub(crate) fn live(outlet: Arc<Peer>, can_request: bool) -> Self {
        Exchange {
            outlet: Some(outlet),
            way: Way::Live { can_request },
        }
    }

    /// Live as a 2025 task's.
    pub(crate) fn task(outlet: Arc<Peer>, task: Arc<dyn TaskScope>) -> Self {
        Exchange {
            outlet: Some(outlet),
            way: Way::Task(task),
        }
    }

    /// In rounds; notifications go to `outlet`.
    pub(crate) fn rounds(outlet: Arc<Peer>, rounds: Arc<Rounds>) -> Self {
        Exchange {
            outlet: Some(outlet),
            way: Way::Rounds(rounds),
        }
    }

    /// For a request that can send nothing (a plain tool call: no `Ctx` parameter): a
    /// question is refused, a notification goes nowhere. It holds no engine.
    pub(crate) fn silent() -> Self {
        Exchange {
            outlet: None,
            way: Way::Live { can_request: false },
        }
    }

    /// The rounds of a modern request.
    pub(super) fn in_rounds(&self) -> Option<&Arc<Rounds>> {
        match &self.way {
            Way::Rounds(rounds) => Some(rounds),
            _ => None,
        }
    }

    /// The id of the task the call runs as, if it does.
    pub(super) fn task_id(&self) -> Option<&str> {
        match &self.way {
            Way::Task(task) => Some(task.id()),
            Way::Rounds(rounds) => rounds.task_id(),
            Way::Live { .. } => None,
        }
    }

    /// The request the call's messages belong to: `request` itself, or for a 2025 task the
    /// pending `tasks/result` that now carries them.
    fn related(&self, request: &RequestId) -> RequestId {
        match &self.way {
            Way::Task(task) => task.route(),
            _ => request.clone(),
        }
    }

    /// Sends a notification on the request's stream, waiting while the outbound queue is
    /// full.
    pub(super) async fn notify(&self, request: &RequestId, method: &str, params: Option<Value>) {
        let mut params = params;
        if let (Way::Task(task), Some(params)) = (&self.way, params.as_mut()) {
            task.tag(params);
        }
        if let Some(outlet) = &self.outlet {
            let related = self.related(request);
            outlet.notify(method, params, Some(related)).await;
        }
    }

    /// Closes the request's SSE stream (Streamable HTTP; ignored elsewhere).
    pub(super) fn close_stream(&self, request: &RequestId) {
        if let Some(outlet) = &self.outlet {
            outlet.close_stream(self.related(request));
        }
    }

    /// The error for a question the client declared no capability for: returned on a
    /// live session; in rounds the whole request fails with `-32021` naming it, and this
    /// never returns.
    pub(super) async fn refuse(&self, capability: &'static str) -> RequestError {
        if let Way::Rounds(rounds) = &self.way {
            rounds.fail(missing_capability(capability));
            std::future::pending::<()>().await;
        }
        RequestError::CapabilityMissing(capability)
    }

    /// Asks the client `method` with `params`: the answer decoded as `R`, and the entry for
    /// the exchange log when `method` is one it keeps.
    pub(super) async fn ask<P: Serialize, R: DeserializeOwned>(
        &self,
        flow: &Flow,
        request: &RequestId,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<(R, Option<KeptExchange>), RequestError> {
        match &self.way {
            Way::Rounds(rounds) => ask_in_rounds(rounds, flow, method, params).await,
            Way::Live { can_request: false } => Err(RequestError::Unsupported),
            Way::Live { .. } => self.ask_live(None, request, method, params, timeout).await,
            Way::Task(task) => {
                self.ask_live(Some(&**task), request, method, params, timeout)
                    .await
            }
        }
    }

    /// A server→client request on the session, waited for.
    async fn ask_live<P: Serialize, R: DeserializeOwned>(
        &self,
        task: Option<&dyn TaskScope>,
        request: &RequestId,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<(R, Option<KeptExchange>), RequestError> {
        let Some(outlet) = &self.outlet else {
            return Err(RequestError::Unsupported);
        };
        let mut params =
            serde_json::to_value(params).map_err(|e| RequestError::Decode(e.to_string()))?;
        // A task waiting on its requestor is `input_required` until the answer arrives.
        let asking = match task {
            Some(task) => {
                task.tag(&mut params);
                Some(Asking::start(task).await)
            }
            None => None,
        };
        let for_log = logged_method(method).and_then(|m| Some((m, json_text(&params).ok()?)));
        // Under an `OtelLayer`: the request's span, its context in `_meta` (not in the log).
        #[cfg(feature = "otel")]
        let span = crate::telemetry::exchange::Exchange::start(method, &mut params);
        let related = self.related(request);
        let value = outlet
            .request(method, Some(params), Some(related), timeout)
            .await;
        #[cfg(feature = "otel")]
        if let Some(span) = span {
            span.end(
                value
                    .as_ref()
                    .err()
                    .map(|e| (e.error_type(), e.to_string())),
            );
        }
        if let Some(asking) = asking {
            asking.answered().await;
        }
        let value = value?;
        let kept = match for_log {
            Some((method, params)) => Some(KeptExchange {
                method,
                params,
                result: value
                    .to_text()
                    .map_err(|e| RequestError::Decode(e.to_string()))?,
            }),
            None => None,
        };
        let result = value
            .decode()
            .map_err(|e| RequestError::Decode(e.to_string()))?;
        Ok((result, kept))
    }
}

/// A question in MRTR rounds: answered from the round's answers, or collected as a
/// question (the handler then waits for the next round).
async fn ask_in_rounds<P: Serialize, R: DeserializeOwned>(
    rounds: &Rounds,
    flow: &Flow,
    method: &str,
    params: &P,
) -> Result<(R, Option<KeptExchange>), RequestError> {
    // Serialised once, straight to JSON text: its digest, its key and (if unanswered) the
    // question all come from this text, and no value tree is built for an answered
    // question.
    let params = question_text(method, params)?;
    let keyed = keyed_elicitation(&params);
    let key = flow.key(method, keyed.as_deref());
    let answer = rounds.ask(&key, method, &params).await;
    // An answer that is not a result of the request's kind is the client's protocol error:
    // the whole request fails (-32602) rather than the tool seeing it.
    let result = match serde_json::from_str::<R>(answer.get()) {
        Ok(result) => result,
        Err(_) => {
            // Reported as a value tree's deserializer words it (no text positions).
            let error = match serde_json::from_str::<Value>(answer.get()) {
                Ok(value) => R::deserialize(&value).err().map(|e| e.to_string()),
                Err(e) => Some(e.to_string()),
            };
            let error = error.unwrap_or_else(|| "not valid JSON".to_owned());
            rounds.malformed(&key, method, &error);
            return std::future::pending().await;
        }
    };
    let kept = logged_method(method).map(|method| KeptExchange {
        method,
        params,
        result: answer,
    });
    Ok((result, kept))
}

/// `-32021` naming the client capability a modern request needs, with the capability as
/// an object path in `requiredCapabilities` (`sampling.tools` → `{"sampling":{"tools":{}}}`).
fn missing_capability(capability: &str) -> ErrorObject {
    let mut required = serde_json::Map::new();
    let mut at = &mut required;
    let mut parts = capability.split('.').peekable();
    while let Some(part) = parts.next() {
        let entry = at
            .entry(part.to_owned())
            .or_insert_with(|| Value::Object(Default::default()));
        if parts.peek().is_none() {
            break;
        }
        match entry {
            Value::Object(next) => at = next,
            _ => break,
        }
    }
    ErrorObject::missing_capability(
        format!("this request needs the client capability `{capability}`"),
        serde_json::Value::Object(required),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_capability_is_named_as_an_object_path() {
        let error = super::missing_capability("sampling.tools");
        assert_eq!(
            error.code,
            crate::protocol::MISSING_REQUIRED_CLIENT_CAPABILITY
        );
        assert_eq!(
            error.data,
            Some(serde_json::json!({"requiredCapabilities": {"sampling": {"tools": {}}}}))
        );
    }
}
