//! A server on an [`EventBus`]: its broadcasts go out on the bus, and what the bus brings
//! back (from this replica or any other) reaches its sessions and `subscriptions/listen`
//! streams. Without a bus, broadcasts are delivered in-process directly.

use super::{ServerHandle, ServerInner};
use crate::events::{Event, EventBus};
use crate::protocol::methods;
use crate::task::TaskNotice;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::broadcast;

/// The bus a server publishes on, and the subscription its pump drains.
pub(crate) struct Bus {
    pub(crate) bus: Arc<dyn EventBus>,
    /// Subscribed when the server was built, so nothing published after `build` is missed;
    /// taken by the pump when it starts (the first time a runtime is at hand).
    pending: Mutex<Option<broadcast::Receiver<Event>>>,
}

impl Bus {
    pub(crate) fn new(bus: Arc<dyn EventBus>) -> Self {
        let rx = bus.subscribe();
        Bus {
            bus,
            pending: Mutex::new(Some(rx)),
        }
    }
}

/// The event a list-changed broadcast of `method` travels as.
fn list_event(method: &str) -> Option<Event> {
    match method {
        methods::TOOLS_LIST_CHANGED => Some(Event::ToolsListChanged),
        methods::PROMPTS_LIST_CHANGED => Some(Event::PromptsListChanged),
        methods::RESOURCES_LIST_CHANGED => Some(Event::ResourcesListChanged),
        _ => None,
    }
}

impl ServerHandle {
    /// Sends `event` on the server's bus, for every replica (this one included) to deliver.
    /// Returns `false` if there is no bus or no runtime to publish from: the caller then
    /// delivers in-process.
    pub(super) fn publish(&self, event: Event) -> bool {
        let Some(bus) = &self.inner.bus else {
            return false;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return false;
        };
        self.start_pump();
        let bus = bus.bus.clone();
        let this = self.clone();
        rt.spawn(async move {
            if let Err(e) = bus.publish(event.clone()).await {
                // The bus is down: this replica's own clients still hear it.
                tracing::warn!(error = %e, ?event, "could not publish an event; delivering it locally only");
                this.deliver(&event);
            }
        });
        true
    }

    /// Broadcasts a list change: on the bus if the server has one, else directly.
    pub(super) fn broadcast_list_changed(&self, method: &str) {
        let published = list_event(method).is_some_and(|event| self.publish(event));
        if !published {
            self.broadcast(method, None);
        }
    }

    /// Starts draining the bus into this server's sessions, and the task store's remote
    /// cancellations into its task engine, once each (a no-op without a runtime; tried
    /// again at the next broadcast or session).
    pub(super) fn start_pump(&self) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if let Some(rx) = self
            .inner
            .bus
            .as_ref()
            .and_then(|bus| crate::peer::sync::lock(&bus.pending).take())
        {
            rt.spawn(pump(Arc::downgrade(&self.inner), rx));
        }
        if let Some(rx) = crate::peer::sync::lock(&self.inner.task_notices).take() {
            rt.spawn(notice_pump(Arc::downgrade(&self.inner), rx));
        }
        self.inner.tasks.start_adopter();
    }

    /// Cancels `task_id` if it runs in this process (a request that came from another
    /// replica; a task running elsewhere, finished, or unknown is left alone).
    fn cancel_here(&self, task_id: &str) {
        if self.inner.tasks.cancel_extension_here(task_id) {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        // The replica that took the request checked its caller: the task's own owner
        // cancels it here.
        let Some(owner) = self.inner.tasks.live_owner(task_id) else {
            return;
        };
        let tasks = self.inner.tasks.clone();
        let params = serde_json::json!({ "taskId": task_id });
        rt.spawn(async move {
            if let Err(e) = tasks.cancel(Some(params), owner.as_deref()).await {
                // It finished meanwhile.
                tracing::debug!(error = %e.message, "a remote cancellation found nothing to cancel");
            }
        });
    }

    /// Delivers an event that came off the bus to this process's sessions.
    fn deliver(&self, event: &Event) {
        match event {
            Event::ToolsListChanged => self.broadcast(methods::TOOLS_LIST_CHANGED, None),
            Event::PromptsListChanged => self.broadcast(methods::PROMPTS_LIST_CHANGED, None),
            Event::ResourcesListChanged => self.broadcast(methods::RESOURCES_LIST_CHANGED, None),
            Event::ResourceUpdated { uri } => self.deliver_resource_updated(uri),
            Event::TaskCancelRequested { task_id } => self.cancel_here(task_id),
            Event::TaskInputPosted { task_id } => self.collect_input_here(task_id),
            // Listen streams on this replica hear it; waiting requests look again.
            Event::TaskStatus { task_id, .. } => {
                if let Ok(rt) = tokio::runtime::Handle::try_current() {
                    let (tasks, id) = (self.inner.tasks.clone(), task_id.clone());
                    rt.spawn(async move { tasks.on_task_status(&id).await });
                }
            }
        }
    }

    /// Collects the input another replica posted for `task_id`, if it runs here.
    fn collect_input_here(&self, task_id: &str) {
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let (tasks, id) = (self.inner.tasks.clone(), task_id.to_owned());
            rt.spawn(async move { tasks.collect_input(&id).await });
        }
    }
}

/// Hands each event off the bus to the server while it exists.
async fn pump(server: Weak<ServerInner>, mut rx: broadcast::Receiver<Event>) {
    loop {
        let event = match rx.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "the server fell behind its event bus");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(inner) = server.upgrade() else {
            return;
        };
        ServerHandle { inner }.deliver(&event);
    }
}

/// Acts on what the task store reports (seen at a lease renewal) while the server exists:
/// cancels the tasks whose cancellation was requested, collects the input posted for them,
/// stops the tasks whose lease this process lost.
async fn notice_pump(server: Weak<ServerInner>, mut rx: broadcast::Receiver<TaskNotice>) {
    loop {
        let notice = match rx.recv().await {
            Ok(notice) => notice,
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(
                    missed = n,
                    "the server fell behind its task store's notices"
                );
                // A missed lease loss must still stop its task.
                if let Some(inner) = server.upgrade() {
                    inner.tasks.recheck_leases();
                }
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(inner) = server.upgrade() else {
            return;
        };
        match notice {
            TaskNotice::CancelRequested(id) => ServerHandle { inner }.cancel_here(&id),
            // For a task of the extension running here (the 2025 task API has no input).
            TaskNotice::InputPosted(id) => ServerHandle { inner }.collect_input_here(&id),
            // This process can no longer count on the task's lease: stop its run here.
            TaskNotice::LeaseLost(id) => inner.tasks.lease_lost(&id),
        }
    }
}
