//! `subscriptions/listen`: the notifications a client opted in to, delivered on the
//! listen request's stream until either side ends it.

use super::TASK_STATUS_NOTIFICATION;
use crate::peer::Peer;
use crate::peer::sync::lock;
use crate::protocol::{ErrorObject, JsonObject, RequestId, methods};
use crate::server::ServerHandle;
use crate::server::request_scope::RequestScope;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::{Arc, Weak};

/// What a `subscriptions/listen` request opted in to.
#[derive(Debug, Clone)]
pub(crate) struct Listen {
    /// The listen request's id: every notification on its stream carries it.
    id: RequestId,
    tools: bool,
    prompts: bool,
    resources: bool,
}

/// An open `subscriptions/listen` stream, registered with its server while the request
/// lasts: what it listens for, the resources it subscribed to, and the engine its
/// notifications go out on (the request's own stream).
pub(crate) struct Listener {
    listen: Listen,
    uris: HashSet<String>,
    peer: Arc<Peer>,
}

impl ServerHandle {
    /// Registers `listener` for the server's broadcasts until it is dropped.
    fn register_listener(&self, listener: &Arc<Listener>) {
        self.start_pump();
        let mut listeners = lock(&self.inner.listeners);
        listeners.retain(|w| w.strong_count() > 0);
        listeners.push(Arc::downgrade(listener));
    }

    /// The open listen streams whose client is still there.
    fn live_listeners(&self) -> Vec<Arc<Listener>> {
        let mut listeners = lock(&self.inner.listeners);
        listeners.retain(|w| w.strong_count() > 0);
        listeners
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|l| !l.peer.is_closed())
            .collect()
    }

    /// A list change (`method`) to every listen stream that asked for it.
    pub(in crate::server) fn tell_listeners(&self, method: &str, params: Option<Value>) {
        for listener in self.live_listeners() {
            if listener.listen.wants(method) {
                let params = listener.listen.tag(params.clone());
                listener.peer.try_notify(method, params, None);
            }
        }
    }

    /// `notifications/resources/updated` of `uri` to every listen stream subscribed to it.
    pub(in crate::server) fn tell_listeners_updated(&self, uri: &str, params: Option<Value>) {
        for listener in self.live_listeners() {
            if listener.uris.contains(uri) {
                let params = listener.listen.tag(params.clone());
                listener
                    .peer
                    .try_notify(methods::RESOURCES_UPDATED, params, None);
            }
        }
    }
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

impl RequestScope {
    /// `subscriptions/listen`: acknowledges the filter, then stays open (its notifications
    /// arrive through the server's broadcasts) until the client closes the stream, or the
    /// server ends it ([`ServerHandle::end_subscriptions`](crate::ServerHandle::end_subscriptions), answered by the caller).
    pub(in crate::server) async fn listen(
        &self,
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
            let tasks = &self.server().inner.tasks;
            if !tasks.extension_foreign(&task_id, owner.as_deref()).await {
                visible.push(task_id);
            }
        }
        let task_ids = visible;
        // Subscribed before the acknowledgement: no change after it is missed.
        let statuses = (!task_ids.is_empty()).then(|| self.server().inner.tasks.task_statuses());
        let honoured = honoured(&listen, &uris, &task_ids);
        // A resource the caller may not see is acknowledged like an unknown one, and never
        // updated on this stream.
        let uris = uris
            .into_iter()
            .filter(|uri| !self.hides_uri(uri, caller))
            .collect();
        let ack = listen.tag(Some(json!({ "notifications": honoured })));
        self.peer()
            .notify("notifications/subscriptions/acknowledged", ack, None)
            .await;
        let listener = Arc::new(Listener {
            listen,
            uris,
            peer: self.peer().clone(),
        });
        self.server().register_listener(&listener);
        match statuses {
            None => std::future::pending().await,
            Some(statuses) => {
                let tag = |detail: Value| listener.listen.tag(Some(detail));
                self.send_task_statuses(&task_ids, owner, statuses, tag)
                    .await
            }
        }
    }

    /// `notifications/tasks` on the listen stream: each task's state now, then every
    /// change, until the server stops; never returns.
    async fn send_task_statuses(
        &self,
        task_ids: &[String],
        owner: Option<String>,
        mut statuses: tokio::sync::broadcast::Receiver<(String, Value)>,
        tag: impl Fn(Value) -> Option<Value>,
    ) -> Result<Value, ErrorObject> {
        // The last state sent per task: a change heard twice (the bus brings the state as it
        // is when the event is read) is sent once.
        let mut sent: std::collections::HashMap<String, Value> = Default::default();
        for id in task_ids {
            let tasks = &self.server().inner.tasks;
            if let Some(detail) = tasks.extension_detail(id, owner.as_deref()).await {
                sent.insert(id.clone(), detail.clone());
                self.peer()
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
                    self.peer()
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
