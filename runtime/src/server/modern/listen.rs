//! `subscriptions/listen`: the notifications a client opted in to, delivered on the
//! listen request's stream until either side ends it.

use super::TASK_STATUS_NOTIFICATION;
use crate::protocol::{ErrorObject, JsonObject, RequestId, methods};
use crate::server::ServerSession;
use serde_json::{Value, json};
use std::sync::Arc;

/// What a `subscriptions/listen` request opted in to.
#[derive(Debug, Clone)]
pub(crate) struct Listen {
    /// The listen request's id: every notification on its stream carries it.
    id: RequestId,
    tools: bool,
    prompts: bool,
    resources: bool,
}

/// `_meta` key tagging notifications with their subscription.
pub(super) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

impl Listen {
    /// Whether the stream asked for `method` (resource updates are filtered by URI).
    pub(crate) fn wants(&self, method: &str) -> bool {
        match method {
            methods::TOOLS_LIST_CHANGED => self.tools,
            methods::PROMPTS_LIST_CHANGED => self.prompts,
            methods::RESOURCES_LIST_CHANGED => self.resources,
            _ => false,
        }
    }

    /// `params` with the subscription's id in `_meta`.
    pub(crate) fn tag(&self, params: Option<Value>) -> Option<Value> {
        let mut params = params.unwrap_or_else(|| Value::Object(JsonObject::new()));
        if let Value::Object(map) = &mut params {
            let meta = map
                .entry("_meta")
                .or_insert_with(|| Value::Object(JsonObject::new()));
            if let Value::Object(meta) = meta {
                meta.insert(
                    SUBSCRIPTION_ID.into(),
                    serde_json::to_value(&self.id).unwrap_or(Value::Null),
                );
            }
        }
        Some(params)
    }
}

/// The result a `subscriptions/listen` the server ends itself gets (the spec's "Graceful
/// Closure"): complete, its subscription id in `_meta`.
pub(in crate::server) fn listen_ended(id: &RequestId) -> Value {
    json!({ "_meta": { SUBSCRIPTION_ID: id } })
}

impl ServerSession {
    /// `subscriptions/listen`: acknowledges the filter, then stays open (its notifications
    /// arrive through the server's broadcasts) until the client closes the stream, or the
    /// server ends it ([`ServerHandle::end_subscriptions`](crate::ServerHandle::end_subscriptions), answered by the caller).
    pub(in crate::server) async fn listen(
        self: &Arc<Self>,
        id: RequestId,
        params: Option<Value>,
        caller: &crate::caller::Caller,
    ) -> Result<Value, ErrorObject> {
        let owner = caller.owner();
        let (listen, uris, task_ids) = read_filter(id, params.as_ref())?;
        if !task_ids.is_empty() && !self.declares_tasks_extension() {
            return Err(crate::task::missing_extension("notifications/tasks"));
        }
        // Another principal's tasks are not found: their ids are left out of the stream.
        let mut visible = Vec::with_capacity(task_ids.len());
        for task_id in task_ids {
            let tasks = &self.server.inner.tasks;
            if !tasks.extension_foreign(&task_id, owner.as_deref()).await {
                visible.push(task_id);
            }
        }
        let task_ids = visible;
        // Subscribed before the acknowledgement: no change after it is missed.
        let statuses = (!task_ids.is_empty()).then(|| self.server.inner.tasks.task_statuses());
        let honoured = honoured(&listen, &uris, &task_ids);
        // A resource the caller may not see is acknowledged like an unknown one, and never
        // updated on this stream.
        for uri in uris {
            if !self.hides_uri(&uri, caller) {
                self.subscribe_uri(uri);
            }
        }
        let ack = listen.tag(Some(json!({ "notifications": honoured })));
        let _ = self.listen.set(listen);
        self.peer
            .notify("notifications/subscriptions/acknowledged", ack, None)
            .await;
        self.server.register_session(self);
        match statuses {
            None => std::future::pending().await,
            Some(statuses) => self.send_task_statuses(&task_ids, owner, statuses).await,
        }
    }

    /// `notifications/tasks` on the listen stream: each task's state now, then every
    /// change, until the server stops; never returns.
    async fn send_task_statuses(
        &self,
        task_ids: &[String],
        owner: Option<String>,
        mut statuses: tokio::sync::broadcast::Receiver<(String, Value)>,
    ) -> Result<Value, ErrorObject> {
        let tag = |detail: Value| self.listen.get().and_then(|l| l.tag(Some(detail)));
        // The last state sent per task: a change heard twice (the bus brings the state as it
        // is when the event is read) is sent once.
        let mut sent: std::collections::HashMap<String, Value> = Default::default();
        for id in task_ids {
            let tasks = &self.server.inner.tasks;
            if let Some(detail) = tasks.extension_detail(id, owner.as_deref()).await {
                sent.insert(id.clone(), detail.clone());
                self.peer
                    .notify(TASK_STATUS_NOTIFICATION, tag(detail), None)
                    .await;
            }
        }
        loop {
            match statuses.recv().await {
                Ok((id, detail)) if task_ids.contains(&id) => {
                    if sent.get(&id) == Some(&detail) {
                        continue;
                    }
                    sent.insert(id, detail.clone());
                    self.peer
                        .notify(TASK_STATUS_NOTIFICATION, tag(detail), None)
                        .await;
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                    return std::future::pending().await;
                }
            }
        }
    }
}

/// A listen request's filter: what it listens for, the resources it subscribes to, and the
/// tasks whose statuses it wants.
fn read_filter(
    id: RequestId,
    params: Option<&Value>,
) -> Result<(Listen, Vec<String>, Vec<String>), ErrorObject> {
    let filter = params
        .and_then(|p| p.get("notifications"))
        .and_then(Value::as_object)
        .ok_or_else(|| ErrorObject::invalid_params("`notifications` (an object) is required"))?;
    let flag = |name: &str| filter.get(name).and_then(Value::as_bool).unwrap_or(false);
    let listen = Listen {
        id,
        tools: flag("toolsListChanged"),
        prompts: flag("promptsListChanged"),
        resources: flag("resourcesListChanged"),
    };
    let uris: Vec<String> = match filter.get("resourceSubscriptions") {
        None => Vec::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
            ErrorObject::invalid_params("`resourceSubscriptions` must be an array of URIs")
        })?,
    };
    let task_ids: Vec<String> = match filter.get("taskIds") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|_| ErrorObject::invalid_params("`taskIds` must be an array of task ids"))?,
    };
    Ok((listen, uris, task_ids))
}

/// What the acknowledgement says the stream will carry.
fn honoured(listen: &Listen, uris: &[String], task_ids: &[String]) -> JsonObject {
    let mut honoured = JsonObject::new();
    for (name, on) in [
        ("toolsListChanged", listen.tools),
        ("promptsListChanged", listen.prompts),
        ("resourcesListChanged", listen.resources),
    ] {
        if on {
            honoured.insert(name.into(), true.into());
        }
    }
    if !uris.is_empty() {
        honoured.insert("resourceSubscriptions".into(), json!(uris));
    }
    if !task_ids.is_empty() {
        honoured.insert("taskIds".into(), json!(task_ids));
    }
    honoured
}
