//! Resource and list-change subscriptions, the same API in both eras: 2025-11-25
//! `resources/subscribe` (list changes arrive on the session anyway), 2026-07-28
//! `subscriptions/listen` (a long-lived request whose stream carries what it asked for).

use crate::protocol::*;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

/// `notifications/subscriptions/acknowledged` (2026-07-28).
///
/// ```
/// assert_eq!(
///     tracksuit::client::SUBSCRIPTIONS_ACKNOWLEDGED,
///     "notifications/subscriptions/acknowledged"
/// );
/// ```
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// What a [`Subscription`] asks for (the `notifications` filter of `subscriptions/listen`).
///
/// ```
/// let filter = tracksuit::client::SubscriptionFilter::default()
///     .tools_list_changed()
///     .resource("file:///config.json");
/// assert_eq!(
///     serde_json::to_value(&filter).unwrap(),
///     serde_json::json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///config.json"]})
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    tools_list_changed: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    prompts_list_changed: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    resources_list_changed: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resource_subscriptions: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    task_ids: Vec<String>,
}

impl SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    pub fn tools_list_changed(mut self) -> Self {
        self.tools_list_changed = true;
        self
    }

    /// `notifications/prompts/list_changed`.
    pub fn prompts_list_changed(mut self) -> Self {
        self.prompts_list_changed = true;
        self
    }

    /// `notifications/resources/list_changed`.
    pub fn resources_list_changed(mut self) -> Self {
        self.resources_list_changed = true;
        self
    }

    /// `notifications/resources/updated` for `uri`.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource_subscriptions.push(uri.into());
        self
    }

    /// `notifications/tasks` for task `task_id` (tasks extension; on a 2025 session,
    /// `notifications/tasks/status` arrive without asking).
    pub fn task(mut self, task_id: impl Into<String>) -> Self {
        self.task_ids.push(task_id.into());
        self
    }

    /// The resource URIs subscribed to.
    pub fn resources(&self) -> &[String] {
        &self.resource_subscriptions
    }

    /// Whether `notification` is one this filter asked for.
    pub fn wants(&self, notification: &JsonRpcNotification) -> bool {
        match notification.method.as_str() {
            methods::TOOLS_LIST_CHANGED => self.tools_list_changed,
            methods::PROMPTS_LIST_CHANGED => self.prompts_list_changed,
            methods::RESOURCES_LIST_CHANGED => self.resources_list_changed,
            methods::RESOURCES_UPDATED => {
                let uri = notification
                    .params
                    .as_ref()
                    .and_then(|p| p.get("uri"))
                    .and_then(Value::as_str);
                uri.is_some_and(|u| self.resource_subscriptions.iter().any(|r| r == u))
            }
            "notifications/tasks" | methods::TASKS_STATUS => {
                let id = notification
                    .params
                    .as_ref()
                    .and_then(|p| p.get("taskId"))
                    .and_then(Value::as_str);
                id.is_some_and(|i| self.task_ids.iter().any(|t| t == i))
            }
            _ => false,
        }
    }
}

/// A live subscription: [`next`](Subscription::next) yields what its filter asked for.
/// Dropping it ends it (the listen request is cancelled; 2025 resource subscriptions are
/// unsubscribed).
///
/// ```
/// use tracksuit::{Server, client::{Client, Era, SubscriptionFilter}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).build()?;
/// let builder = Client::builder().era(Era::Stateless);
/// let client = tracksuit::host::connect_in_memory(server.clone(), builder).await?;
/// let mut changes = client.subscribe_to(SubscriptionFilter::default().tools_list_changed()).await?;
/// assert!(changes.acknowledged().is_some()); // the server confirmed the `subscriptions/listen`
/// server.notify_tools_list_changed();
/// assert_eq!(changes.next().await.unwrap().method, "notifications/tools/list_changed");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Subscription {
    pub(crate) filter: SubscriptionFilter,
    pub(crate) notifications: broadcast::Receiver<JsonRpcNotification>,
    /// The params of `notifications/subscriptions/acknowledged` (2026-07-28).
    pub(crate) acknowledged: Option<Value>,
    /// Ends the subscription when dropped.
    pub(crate) _end: Option<tokio_util::sync::DropGuard>,
}

impl Subscription {
    /// The next wanted notification; `None` once the connection is closed.
    pub async fn next(&mut self) -> Option<JsonRpcNotification> {
        loop {
            match self.notifications.recv().await {
                Ok(n) if self.filter.wants(&n) => return Some(n),
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// What this subscription asked for.
    pub fn filter(&self) -> &SubscriptionFilter {
        &self.filter
    }

    /// What the server said it honours (the `notifications` of its
    /// `notifications/subscriptions/acknowledged`, 2026-07-28); `None` on a 2025 session.
    pub fn acknowledged(&self) -> Option<&JsonObject> {
        self.acknowledged
            .as_ref()?
            .get("notifications")?
            .as_object()
    }

    /// Whether the server acknowledged `notifications/tasks` for `task_id`.
    pub fn honours_task(&self, task_id: &str) -> bool {
        let ids = self.acknowledged().and_then(|a| a.get("taskIds"));
        ids.and_then(Value::as_array)
            .is_some_and(|ids| ids.iter().any(|i| i.as_str() == Some(task_id)))
    }
}
