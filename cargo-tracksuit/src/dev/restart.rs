//! A restart: the new build is started and brought to the client's session state *before*
//! it replaces the running server, so a build that does not start (it exits, or does not
//! answer `initialize` in time) leaves the previous one serving.
//!
//! 1. 2025 session: the client's `initialize` params are sent to the new server (our own
//!    id), then `notifications/initialized`, `logging/setLevel` and each
//!    `resources/subscribe` again. A 2026 client has no session: nothing to replay.
//! 2. The swap: the old server is killed. Requests it had not answered get a JSON-RPC
//!    error (`-32603`: sent again, they would run twice or against other code), except
//!    `subscriptions/listen` (and an `initialize` still unanswered), which are sent to the
//!    new server under the client's id; its second acknowledgment stops here. The old
//!    server's requests to the client are cancelled (`notifications/cancelled`).
//! 3. The client is told: `notifications/tools/list_changed`, `prompts/list_changed` and
//!    `resources/list_changed` on a 2025 session (for the capabilities the server has), and
//!    on each open 2026 subscription the ones it asked for, with its `subscriptionId`.

use super::relay::{Child, Event, Relay, SUBSCRIPTION_ID, send_to};
use crate::Error;
use serde_json::{Value, json};
use std::path::Path;
use tokio::time::Instant;
use tracksuit::protocol::*;
use tracksuit::transport::MessageSink;

/// The list-changed notifications: capability, method, 2026 filter flag.
const LISTS: [(&str, &str, &str); 3] = [
    (
        "tools",
        "notifications/tools/list_changed",
        "toolsListChanged",
    ),
    (
        "prompts",
        "notifications/prompts/list_changed",
        "promptsListChanged",
    ),
    (
        "resources",
        "notifications/resources/list_changed",
        "resourcesListChanged",
    ),
];

impl<S: MessageSink> Relay<S> {
    /// Replaces the running server with one started from `executable`.
    pub async fn restart(&mut self, executable: &Path) -> Result<(), Error> {
        let mut next = match self.spawn(executable) {
            Ok(next) => next,
            Err(e) => {
                eprintln!(
                    "[tracksuit dev] cannot start the new build: {e}; the previous one keeps serving"
                );
                return Ok(());
            }
        };
        let deferred = match self.replay_session(&mut next).await {
            Ok(deferred) => deferred,
            Err(e) => {
                eprintln!(
                    "[tracksuit dev] the new build did not start: {e}; the previous one keeps serving"
                );
                return Ok(()); // dropping `next` kills it
            }
        };
        let generation = next.generation;
        let old = self.child.replace(next);
        drop(old);
        self.fail_in_flight(
            "cargo tracksuit dev restarted the server (a new build)",
            true,
        )
        .await?;
        self.resend_open_requests().await;
        for message in deferred {
            self.on_child(generation, Event::Message(message)).await?;
        }
        self.announce().await?;
        eprintln!("[tracksuit dev] restarted: the new build serves (generation {generation})");
        Ok(())
    }

    /// Brings `next` to the client's 2025 session state. Returns what `next` sent meanwhile
    /// besides the answer; the running server's traffic goes on being relayed.
    async fn replay_session(&mut self, next: &mut Child) -> Result<Vec<JsonRpcMessage>, Error> {
        let answered = !self
            .in_flight
            .values()
            .any(|f| f.method == methods::INITIALIZE);
        let Some(init) = self.init.clone().filter(|_| answered) else {
            return Ok(Vec::new());
        };
        let id = RequestId::String(format!("tracksuit-dev-init-{}", next.generation));
        let request = JsonRpcMessage::request(id.clone(), methods::INITIALIZE, Some(init));
        if !send_to(next, request).await {
            return Err("it exited at once".into());
        }
        let deferred = self.await_answer(next.generation, &id).await?;
        if self.initialized {
            let note = JsonRpcMessage::notification(methods::INITIALIZED, None);
            send_to(next, note).await;
        }
        let mut replays: Vec<(&str, Value)> = Vec::new();
        if let Some(level) = &self.level {
            replays.push(("logging/setLevel", level.clone()));
        }
        for uri in &self.subscribed {
            replays.push(("resources/subscribe", json!({ "uri": uri })));
        }
        for (n, (method, params)) in replays.into_iter().enumerate() {
            let id = RequestId::String(format!("tracksuit-dev-replay-{}-{n}", next.generation));
            self.ours.insert(id.clone());
            send_to(next, JsonRpcMessage::request(id, method, Some(params))).await;
        }
        Ok(deferred)
    }

    /// Waits for generation `generation`'s answer to our `initialize` (`id`), relaying the
    /// running server meanwhile; keeps the new server's other messages for after the swap.
    async fn await_answer(
        &mut self,
        generation: u64,
        id: &RequestId,
    ) -> Result<Vec<JsonRpcMessage>, Error> {
        let deadline = Instant::now() + self.launch.init_timeout;
        let mut deferred = Vec::new();
        loop {
            let received = tokio::time::timeout_at(deadline, self.events_rx.recv()).await;
            let Ok(Some((from, event))) = received else {
                return Err("no answer to initialize in time".into());
            };
            if from != generation {
                self.on_child(from, event).await?;
                continue;
            }
            match event {
                Event::Exited => return Err("it exited during initialize".into()),
                Event::Message(JsonRpcMessage::Response(r)) if &r.id == id => {
                    let result: Value = r.result.decode()?;
                    self.capabilities = result.get("capabilities").cloned();
                    return Ok(deferred);
                }
                Event::Message(JsonRpcMessage::Error(e)) if e.id.as_ref() == Some(id) => {
                    return Err(format!("it refused initialize: {}", e.error.message).into());
                }
                Event::Message(other) => deferred.push(other),
            }
        }
    }

    /// `subscriptions/listen` (and an unanswered `initialize`) go to the new server under
    /// the client's id.
    async fn resend_open_requests(&mut self) {
        let open: Vec<(RequestId, String, Option<Value>)> = self
            .in_flight
            .iter()
            .map(|(id, f)| (id.clone(), f.method.clone(), f.params.clone()))
            .collect();
        for (id, method, params) in open {
            if method == "subscriptions/listen"
                && let Ok(key) = serde_json::to_string(&id)
            {
                self.swallow_acks.insert(key);
            }
            if !self
                .send_child(JsonRpcMessage::request(id.clone(), method, params))
                .await
            {
                self.in_flight.remove(&id);
            }
        }
    }

    /// Tells the client its lists may have changed.
    async fn announce(&mut self) -> Result<(), Error> {
        if self.init.is_some() && self.initialized {
            let capabilities = self.capabilities.clone().unwrap_or_else(|| json!({}));
            for (capability, method, _) in LISTS {
                if capabilities.get(capability).is_some() {
                    let note = JsonRpcMessage::notification(method, None);
                    self.send_client(note).await?;
                }
            }
        }
        let listens: Vec<(RequestId, Value)> = self
            .listens
            .iter()
            .map(|(id, p)| (id.clone(), p.clone()))
            .collect();
        for (id, params) in listens {
            let wanted = params.get("notifications").cloned().unwrap_or_default();
            for (_, method, flag) in LISTS {
                if wanted.get(flag).and_then(Value::as_bool) == Some(true) {
                    let params = json!({ "_meta": { SUBSCRIPTION_ID: id } });
                    let note = JsonRpcMessage::notification(method, Some(params));
                    self.send_client(note).await?;
                }
            }
        }
        Ok(())
    }
}
