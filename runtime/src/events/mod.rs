//! Events every replica of a server must hear: list changes, resource updates and task
//! status. An [`EventBus`] carries them between processes; a server given one
//! ([`Server::event_bus`](crate::Server::event_bus)) publishes its
//! `notify_*_list_changed` / `notify_resource_updated` broadcasts on it and delivers what
//! the bus brings back — its own events and every other replica's — to its sessions and
//! `subscriptions/listen` streams.
//!
//! [`InProcessEventBus`] links servers in one process (what a server without a bus does on
//! its own); `PgEventBus` (feature `postgres`) links processes through PostgreSQL
//! `LISTEN`/`NOTIFY`.
//!
//! Events are hints to look again, not the data: a task status event names the task and
//! its status, and the store has the rest. A replica that is cut off from the bus for a
//! moment (its connection to the database drops) misses the events of that moment.
//!
//! ```
//! use tracksuit::events::{Event, EventBus, InProcessEventBus};
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let bus = InProcessEventBus::new();
//! let mut events = bus.subscribe();
//! bus.publish(Event::ToolsListChanged).await.unwrap();
//! assert_eq!(events.recv().await.unwrap(), Event::ToolsListChanged);
//! # });
//! ```

#[cfg(feature = "postgres")]
mod postgres;

#[cfg(feature = "postgres")]
pub use postgres::{DEFAULT_CHANNEL, PgEventBus};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

/// One event, as it travels between replicas (JSON, tagged by `kind`).
///
/// ```
/// use tracksuit::events::Event;
/// let e = Event::ResourceUpdated { uri: "file:///a".into() };
/// let json = serde_json::to_string(&e).unwrap();
/// assert_eq!(json, r#"{"kind":"resource_updated","uri":"file:///a"}"#);
/// assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), e);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated` for `uri`.
    ResourceUpdated {
        /// The resource that changed.
        uri: String,
    },
    /// A task reached `status` (`working`, `input_required`, `completed`, `failed`,
    /// `cancelled`); its record is in the task store.
    TaskStatus {
        /// The task.
        task_id: String,
        /// Its new status.
        status: String,
    },
    /// Someone asked to cancel a task: the replica running it stops it.
    TaskCancelRequested {
        /// The task.
        task_id: String,
    },
    /// Someone posted `inputResponses` for a task (in the task store): the replica running
    /// it collects them.
    TaskInputPosted {
        /// The task.
        task_id: String,
    },
}

/// Why an event could not be published.
///
/// ```
/// use tracksuit::events::EventBusError;
/// let e = EventBusError::TooLarge(9000);
/// assert_eq!(e.to_string(), "event too large for the bus (9000 bytes)");
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum EventBusError {
    /// The event does not fit the bus's message limit (PostgreSQL: 8000 bytes).
    #[error("event too large for the bus ({0} bytes)")]
    TooLarge(usize),
    /// The backend failed (connection, database).
    #[error("event bus: {0}")]
    Backend(String),
}

/// How many events a slow subscriber may fall behind before it misses some.
pub(crate) const SUBSCRIBER_BACKLOG: usize = 1024;

/// Carries [`Event`]s to every subscriber on every process attached to the bus, the
/// publishing one included. Methods return boxed futures so the trait can be used as
/// `Arc<dyn EventBus>`.
///
/// ```
/// use tracksuit::events::{Event, EventBus, InProcessEventBus};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let bus = InProcessEventBus::new();
/// let mut events = bus.subscribe();
/// bus.publish(Event::ToolsListChanged).await?;
/// assert_eq!(events.recv().await?, Event::ToolsListChanged);
/// # Ok(())
/// # }
/// ```
pub trait EventBus: Send + Sync + 'static {
    /// Sends `event` to every subscriber of the bus, in this process and the others.
    fn publish(&self, event: Event) -> BoxFuture<'_, Result<(), EventBusError>>;

    /// The events published on the bus from now on. A subscriber that falls more than a
    /// thousand events behind misses the oldest (`RecvError::Lagged`).
    fn subscribe(&self) -> broadcast::Receiver<Event>;
}

/// The bus of one process: events reach the subscribers of this bus only. Share one
/// between several servers in a process (tests, several endpoints) so they hear each
/// other.
///
/// ```
/// use std::sync::Arc;
/// use tracksuit::{Server, events::{Event, EventBus, InProcessEventBus}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // Two servers in one process sharing a bus hear each other's changes.
/// let bus = Arc::new(InProcessEventBus::new());
/// let mut heard = bus.subscribe();
/// let a = Server::new(tracksuit::crate_info!()).event_bus(bus.clone()).build()?;
/// let _b = Server::new(tracksuit::crate_info!()).event_bus(bus.clone()).build()?;
/// a.notify_resource_updated("mem://shared");
/// assert_eq!(heard.recv().await?, Event::ResourceUpdated { uri: "mem://shared".into() });
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct InProcessEventBus {
    tx: broadcast::Sender<Event>,
}

impl Default for InProcessEventBus {
    fn default() -> Self {
        InProcessEventBus {
            tx: broadcast::channel(SUBSCRIBER_BACKLOG).0,
        }
    }
}

impl InProcessEventBus {
    /// A bus with no subscribers yet.
    ///
    /// ```
    /// use tracksuit::events::{EventBus, InProcessEventBus};
    /// let bus = InProcessEventBus::new();
    /// let _events = bus.subscribe(); // from now on
    /// ```
    pub fn new() -> Self {
        Self::default()
    }
}

impl EventBus for InProcessEventBus {
    fn publish(&self, event: Event) -> BoxFuture<'_, Result<(), EventBusError>> {
        // No subscriber is not an error: nobody is listening.
        let _ = self.tx.send(event);
        Box::pin(async { Ok(()) })
    }

    fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_subscriber_hears_every_event_in_order() {
        let bus = InProcessEventBus::new();
        let (mut a, mut b) = (bus.subscribe(), bus.subscribe());
        bus.publish(Event::PromptsListChanged)
            .await
            .expect("publish");
        bus.publish(Event::TaskCancelRequested {
            task_id: "t".into(),
        })
        .await
        .expect("publish");
        for rx in [&mut a, &mut b] {
            assert_eq!(rx.recv().await.ok(), Some(Event::PromptsListChanged));
            assert_eq!(
                rx.recv().await.ok(),
                Some(Event::TaskCancelRequested {
                    task_id: "t".into()
                })
            );
        }
    }

    #[test]
    fn unknown_kinds_are_refused_not_guessed() {
        assert!(serde_json::from_str::<Event>(r#"{"kind":"nope"}"#).is_err());
        assert!(serde_json::from_str::<Event>(r#"{"kind":"resource_updated"}"#).is_err());
    }
}
