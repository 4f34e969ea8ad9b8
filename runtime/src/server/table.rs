//! The method table: every request of both eras, once past the server's layers, is
//! answered here, by one `match` on the method. What a method does in each era sits side by
//! side: a 2025-11-25 session's `tools/call` runs the tool with live server→client
//! requests, a 2026-07-28 request's runs it in rounds; 2026 lists carry cache hints; each
//! era has methods the other lacks, which fall through to the extensions (and so answer
//! `-32601` when nothing claims them).

use super::ServerSession;
use super::answer::{Answer, Answering};
use super::dispatch::{Call, Serving};
use super::modern::{SERVER_DISCOVER, SUBSCRIPTIONS_LISTEN};
use super::request_scope::RequestScope;
use crate::context::{Ctx, Exchange};
use crate::protocol::{ErrorObject, methods};
use serde_json::Value;

impl RequestScope {
    /// Answers `call` as its route says: a 2025-11-25 session's request, a 2026-07-28
    /// request, or a 2026 `tools/call` the host found to be of a tool that never asks.
    /// (A 2025 session's `initialize`, `ping` and refusals before `initialize` never get
    /// here: they are answered before the layers, or by the innermost service.)
    ///
    /// Not an `async fn`: what needs no waiting is answered here, and a handler's state is
    /// boxed where it is made, so every move of the request's future after this (the
    /// layers' seam, the span, the host's `Served`) copies a few words.
    pub(super) fn answer(self, call: Call, table: Serving) -> Answering {
        match call.method.as_str() {
            methods::TOOLS_LIST
            | methods::PROMPTS_LIST
            | methods::RESOURCES_LIST
            | methods::RESOURCES_TEMPLATES_LIST => {
                let session = !self.is_modern();
                Answering::ready(self.list(call, session))
            }
            methods::TOOLS_CALL
            | methods::PROMPTS_GET
            | methods::RESOURCES_READ
            | methods::COMPLETION_COMPLETE => {
                Answering::Running(Box::pin(self.run_handler(call, table)))
            }
            // The rarer methods, with large states.
            _ => Answering::Running(Box::pin(async move {
                match &self {
                    RequestScope::Session(session) => {
                        self.session_only(session, call).await.map(Answer::Tree)
                    }
                    RequestScope::Modern(_) => self.stateless_only(call).await,
                }
            })),
        }
    }

    /// A list, in pages, of what the caller may see; cacheable in 2026-07-28 (a hint the
    /// client may use).
    fn list(&self, call: Call, session: bool) -> Result<Answer, ErrorObject> {
        let Call {
            method,
            params,
            caller,
            ..
        } = call;
        let tree = match method.as_str() {
            methods::TOOLS_LIST => self.list_tools(&caller, params),
            methods::PROMPTS_LIST => self.list_prompts(&caller, params),
            methods::RESOURCES_LIST => self.list_resources(&caller, params),
            _ => self.list_templates(&caller, params),
        }?;
        Ok(Answer::Tree(if session {
            tree
        } else {
            self.cacheable(tree)
        }))
    }

    /// A method that runs a handler: `tools/call`, `prompts/get`, `resources/read` (in
    /// rounds for a 2026-07-28 request, unless the host found the tool never asks) and
    /// `completion/complete`.
    async fn run_handler(self, call: Call, table: Serving) -> Result<Answer, ErrorObject> {
        let Call {
            id,
            method,
            mut params,
            caller,
            progress_token,
            cancel,
        } = call;
        let in_rounds = table == Serving::Stateless && method != methods::COMPLETION_COMPLETE;
        if in_rounds {
            // Boxed: a round's state is three times a plain call's, and every request's
            // future (a 2025 call's, a 2026 plain tool call's) would carry it.
            let rounds = self.in_rounds(&method, id, progress_token, cancel, params, caller);
            let answer = Box::pin(rounds).await;
            return match answer {
                Ok(Answer::Tree(v))
                    if method == methods::RESOURCES_READ && v.get("resultType").is_none() =>
                {
                    Ok(Answer::Tree(self.cacheable(v)))
                }
                other => other,
            };
        }
        if table == Serving::PlainTool
            && let Some(map) = params.as_mut().and_then(Value::as_object_mut)
        {
            // The 2025-11-25 `task` param is tolerated and ignored, as in a round.
            map.remove("task");
        }
        let exchange = match table {
            // It has no `Ctx` parameter: nothing it runs can ask or notify.
            Serving::PlainTool => Exchange::silent(),
            _ => Exchange::live(self.peer().clone(), self.can_request()),
        };
        let ctx = Ctx::new(
            self.for_context(),
            exchange,
            id,
            progress_token,
            cancel,
            caller,
        );
        match method.as_str() {
            methods::TOOLS_CALL => self.call_tool(ctx, params).await,
            // Boxed: a prompt's state is half again a tool call's, and calls are the many.
            methods::PROMPTS_GET => Box::pin(self.get_prompt(ctx, params))
                .await
                .map(Answer::Tree),
            methods::RESOURCES_READ => self.read_resource(ctx, params).await.map(Answer::Tree),
            _ => self.complete(&ctx, params).await.map(Answer::Tree),
        }
    }

    /// The methods only a 2025-11-25 session has: tasks, subscriptions, the log level.
    async fn session_only(
        &self,
        session: &ServerSession,
        call: Call,
    ) -> Result<Value, ErrorObject> {
        let Call {
            id,
            method,
            params,
            caller,
            ..
        } = call;
        let caller = &caller;
        let tasks = &self.server().inner.tasks;
        // Whose tasks: taken by the task methods only (an owner is a `String`).
        let owner = || self.task_owner(caller);
        match method.as_str() {
            methods::TASKS_GET => tasks.get(params, owner().as_deref()).await,
            methods::TASKS_RESULT => {
                tasks
                    .result(params, self.peer(), id, owner().as_deref())
                    .await
            }
            methods::TASKS_CANCEL => tasks.cancel(params, owner().as_deref()).await,
            methods::TASKS_LIST if tasks.options().list => {
                let page_size = self.server().inner.options.page_size;
                tasks.list(params, page_size, owner().as_deref()).await
            }
            methods::RESOURCES_SUBSCRIBE => session.subscribe(self, caller, params, true),
            methods::RESOURCES_UNSUBSCRIBE => session.subscribe(self, caller, params, false),
            methods::LOGGING_SET_LEVEL => session.set_level(params),
            other => self.server().extension_method(other, params.as_ref()),
        }
    }

    /// The methods only a 2026-07-28 request has: `server/discover`,
    /// `subscriptions/listen`, the tasks extension; skills lists are cacheable.
    async fn stateless_only(&self, call: Call) -> Result<Answer, ErrorObject> {
        let Call {
            id,
            method,
            params,
            caller,
            ..
        } = call;
        let tree = match method.as_str() {
            SERVER_DISCOVER => Ok(self.discover()),
            SUBSCRIPTIONS_LISTEN => {
                let end = self.server().inner.subscriptions_end.clone();
                let listening = self.listen(id.clone(), params, &caller);
                tokio::select! {
                    listened = listening => listened,
                    () = end.cancelled() => Ok(super::modern::listen_ended(&id)),
                }
            }
            crate::task::TASKS_GET | crate::task::TASKS_UPDATE | crate::task::TASKS_CANCEL => {
                self.task_method(&method, params, caller.owner()).await
            }
            "skills/list" | "skills/get" => {
                return (self.server())
                    .extension_method(&method, params.as_ref())
                    .map(|v| Answer::Tree(self.cacheable(v)));
            }
            other => self.server().extension_method(other, params.as_ref()),
        };
        tree.map(Answer::Tree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Implementation, RequestId};
    use crate::server::ServerSession;

    fn call(method: &str) -> Call {
        Call {
            id: RequestId::Number(1),
            method: method.into(),
            params: None,
            caller: Default::default(),
            progress_token: None,
            cancel: Default::default(),
        }
    }

    /// Every request's future is moved several times (through the layers' seam, the span,
    /// the host's `Served`) and boxed: its size is a cost per call no other test sees. A
    /// handler method's state is boxed where the method table makes it, so what moves is
    /// a named `Answering` (104 bytes: a ready answer or that box); the box itself holds a
    /// `tools/call`'s state and no more (832 bytes; 1 056 when the request's name and
    /// params were kept across the handler's await, 3.1 KiB when the 2026 rounds were
    /// inline). It must stay under 1 032 bytes, glibc's
    /// per-thread cache limit: above it every call's box takes malloc's slow path, which
    /// also consolidates the fast bins. The bounds have room for compiler changes, not for
    /// another handler's state. An `Answer` is moved through every layer too: a tool's
    /// result is boxed in it so it stays small.
    #[tokio::test]
    async fn a_tool_calls_future_carries_no_other_methods_state() {
        let server = crate::server::Server::new(Implementation::new("t", "1"))
            .build()
            .unwrap();
        let (tx, _rx) = crate::peer::outbound_queue(4);
        let session = ServerSession::new(server, tx);
        for serving in [Serving::Session, Serving::PlainTool] {
            let scope = RequestScope::Session(session.clone());
            let boxed = scope.clone().run_handler(call("tools/call"), serving);
            let size = std::mem::size_of_val(&boxed);
            assert!(
                size <= 920,
                "{serving:?}: the handler's state is {size} bytes"
            );
            let moved = scope.answer(call("tools/call"), serving);
            let size = std::mem::size_of_val(&moved);
            assert!(
                size <= 160,
                "{serving:?}: the request's future is {size} bytes"
            );
        }
        let size = std::mem::size_of::<Answer>();
        assert!(size <= 80, "an answer is {size} bytes");
    }
}
