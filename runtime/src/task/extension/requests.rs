//! The tasks extension's requests (`tasks/get`, `tasks/update`, `tasks/cancel`): the
//! caller's own tasks only, an update's answers delivered to the task's runner wherever it
//! runs.

use super::{Found, detailed};
use crate::protocol::{ErrorObject, JsonObject};
use crate::task::engine::TaskEngine;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

pub(super) fn task_id_param(params: &Option<Value>) -> Result<String, ErrorObject> {
    params
        .as_ref()
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ErrorObject::invalid_params("`taskId` (a string) is required"))
}

impl TaskEngine {
    /// Waits (a bounded time) until the task `id`, which another replica runs, no longer
    /// waits on any of `keys`: its holder took the answers posted for it. Wakes on the
    /// bus's status events; without a bus it does not wait.
    pub(super) async fn await_answered(&self, id: &str, keys: &[String]) {
        if self.bus.get().is_none() {
            return;
        }
        let mut changes = self.changes.subscribe();
        let check = async {
            loop {
                match self.store().get(id).await {
                    Ok(Some(record))
                        if record.is_terminal()
                            || !record
                                .input_requests
                                .as_ref()
                                .is_some_and(|r| keys.iter().any(|k| r.contains_key(k))) =>
                    {
                        return;
                    }
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => return,
                }
                loop {
                    match changes.recv().await {
                        Ok(changed) if changed == id => break,
                        Ok(_) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => break,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    }
                }
            }
        };
        if tokio::time::timeout(REMOTE_ANSWER_WAIT, check)
            .await
            .is_err()
        {
            tracing::debug!(task = %id, "the replica running the task has not taken its answers yet");
        }
    }

    /// `tasks/get`: the task with its inline result, error or `inputRequests`.
    pub(crate) async fn extension_get(
        self: &Arc<Self>,
        params: Option<Value>,
        owner: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let id = task_id_param(&params)?;
        Ok(match self.find(&id, owner).await? {
            Found::Running(running) => detailed(&*running.record.lock().await),
            Found::Stored(record) | Found::Elsewhere(record) => detailed(&record),
        })
    }

    /// `tasks/update`: delivers `inputResponses` to the questions the task waits on
    /// (others are ignored) and acknowledges once the record shows them answered.
    pub(crate) async fn extension_update(
        self: &Arc<Self>,
        params: Option<Value>,
        owner: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let id = task_id_param(&params)?;
        let responses = match params.as_ref().and_then(|p| p.get("inputResponses")) {
            Some(Value::Object(r)) => r.clone(),
            None | Some(Value::Null) => JsonObject::new(),
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "`inputResponses` must be an object",
                ));
            }
        };
        match self.find(&id, owner).await? {
            Found::Running(running) => self.deliver(&running, &responses).await?,
            // Another replica runs it: the answers to its questions go through the store,
            // and the bus tells the holder to collect them.
            Found::Elsewhere(record) => {
                let asked = record.input_requests.unwrap_or_default();
                let answers: JsonObject = responses
                    .into_iter()
                    .filter(|(key, _)| asked.contains_key(key))
                    .collect();
                if !answers.is_empty() {
                    let keys: Vec<String> = answers.keys().cloned().collect();
                    if self
                        .store()
                        .post_input(&id, answers)
                        .await
                        .map_err(ErrorObject::internal)?
                    {
                        self.signal(crate::events::Event::TaskInputPosted {
                            task_id: id.clone(),
                        })
                        .await;
                        self.await_answered(&id, &keys).await;
                    }
                }
            }
            // A finished task ignores answers.
            Found::Stored(_) => {}
        }
        Ok(json!({}))
    }

    /// `tasks/cancel`: acknowledges; the task ends `cancelled` unless it finished first.
    pub(crate) async fn extension_cancel(
        self: &Arc<Self>,
        params: Option<Value>,
        owner: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let id = task_id_param(&params)?;
        match self.find(&id, owner).await? {
            Found::Running(running) => running.cancel.cancel(),
            // The holder sees the store's flag at its next renewal, the bus's event at once.
            Found::Elsewhere(_) => {
                if self
                    .store()
                    .request_cancel(&id)
                    .await
                    .map_err(ErrorObject::internal)?
                {
                    self.signal(crate::events::Event::TaskCancelRequested {
                        task_id: id.clone(),
                    })
                    .await;
                }
            }
            Found::Stored(_) => {}
        }
        Ok(json!({}))
    }
}

/// How long a `tasks/update` taken by one replica waits for the replica running the task
/// to take the answers, so a `tasks/get` after the acknowledgement sees them taken.
pub(super) const REMOTE_ANSWER_WAIT: Duration = Duration::from_secs(2);
