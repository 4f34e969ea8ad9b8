//! How a server resumes a task of the tasks extension that another process left behind:
//! it rebuilds the tool call from the task's replay record, in a request scope of its own
//! (nobody listens to its logs or progress), asking through the replayed rounds.

use super::modern::RequestMeta;
use super::request_scope::{ModernScope, RequestScope};
use super::{ServerHandle, ServerInner};
use crate::context::{Ctx, Exchange, Rounds};
use crate::protocol::{ErrorObject, Implementation, RequestId};
use crate::seal::StateKeys;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::{Arc, Weak};
use tokio_util::sync::CancellationToken;

/// The [`Resumer`](crate::task::Resumer) of one server.
pub(crate) struct Resume(pub(crate) Weak<ServerInner>);

impl crate::task::Resumer for Resume {
    fn keys(&self) -> StateKeys {
        match self.0.upgrade() {
            Some(inner) => inner.state_keys.clone(),
            None => StateKeys::random(),
        }
    }

    fn restart(
        &self,
        call: &Value,
        rounds: Arc<Rounds>,
        cancel: CancellationToken,
    ) -> Option<BoxFuture<'static, Result<Value, ErrorObject>>> {
        let server = ServerHandle {
            inner: self.0.upgrade()?,
        };
        let name = call.get("name")?.as_str()?.to_owned();
        // A tool that is gone cannot be resumed.
        server.inner.tools.read().ok()?.get(&name)?;
        let meta = RequestMeta {
            version: super::MODERN_PROTOCOL_VERSIONS.first()?,
            capabilities: std::sync::Arc::new(
                serde_json::from_value(call.get("capabilities")?.clone()).ok()?,
            ),
            client_info: call
                .get("clientInfo")
                .and_then(|i| serde_json::from_value::<Implementation>(i.clone()).ok())
                .map(std::sync::Arc::new),
            log_level: None,
        };
        // Its messages have no client to go to: they are dropped.
        let detached = server.inner.detached.clone();
        // Its tool was visible to the caller that started the task.
        let session = RequestScope::Modern(Arc::new(ModernScope {
            unfiltered: true,
            ..ModernScope::of(server, detached, meta)
        }));
        let id = RequestId::String(format!("resumed:{name}"));
        // It runs as the principal that started it (the record keeps it, sealed).
        let caller = call
            .get("principal")
            .and_then(crate::caller::Principal::from_record)
            .map_or_else(crate::caller::Caller::default, crate::caller::Caller::of);
        let exchange = Exchange::rounds(session.peer().clone(), rounds);
        let ctx = Ctx::new(session.for_context(), exchange, id, None, cancel, caller);
        let params = json!({ "name": name, "arguments": call.get("arguments").cloned().unwrap_or(Value::Null) });
        Some(Box::pin(async move {
            session
                .call_tool(ctx, Some(params))
                .await
                .map(super::answer::Answer::into_value)
        }))
    }
}
