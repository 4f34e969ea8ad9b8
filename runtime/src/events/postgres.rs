//! [`PgEventBus`]: events between processes through PostgreSQL `LISTEN`/`NOTIFY`.

use super::{Event, EventBus, EventBusError, SUBSCRIBER_BACKLOG};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use futures::StreamExt;
use futures::future::BoxFuture;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_postgres::{AsyncMessage, Config, NoTls};
use tokio_util::sync::{CancellationToken, DropGuard};

/// The channel used unless [`PgEventBus::connect_channel`] names another.
///
/// ```
/// use tracksuit::events::{DEFAULT_CHANNEL, PgEventBus};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// assert_eq!(DEFAULT_CHANNEL, "tracksuit_events");
/// // Another channel separates servers sharing a database; it must be a lower-case
/// // identifier, checked before anything is sent.
/// let refused = PgEventBus::connect_channel("postgres://localhost/app", "Staging-Events").await;
/// assert!(refused.is_err());
/// # }
/// ```
pub const DEFAULT_CHANNEL: &str = "tracksuit_events";

/// PostgreSQL refuses `NOTIFY` payloads of 8000 bytes or more.
const MAX_PAYLOAD: usize = 7999;

/// At most this many events go out in one round trip.
const MAX_BATCH: usize = 256;

/// An event waiting to go out, and who waits for it.
type Outgoing = (String, oneshot::Sender<Result<(), EventBusError>>);

/// An [`EventBus`] on PostgreSQL: `publish` is `pg_notify(channel, json)`, and one
/// dedicated connection per process `LISTEN`s on the channel and hands what arrives to the
/// subscribers. Events published while a round trip is under way go out together in the
/// next one (a single statement), so a busy process sends many events per round trip
/// instead of queueing one round trip per event; `publish` returns once its event is sent. Every process on the same database and channel hears every event (its own
/// included). If the listening connection drops, it reconnects (backing off up to five
/// seconds); events sent meanwhile are missed.
///
/// ```no_run
/// use tracksuit::events::{Event, EventBus, PgEventBus};
/// # async fn demo() -> Result<(), tracksuit::events::EventBusError> {
/// let bus = PgEventBus::connect("postgres://tracksuit@127.0.0.1:5432/tracksuit").await?;
/// let mut events = bus.subscribe();
/// bus.publish(Event::ToolsListChanged).await?;
/// assert_eq!(events.recv().await.ok(), Some(Event::ToolsListChanged));
/// # Ok(()) }
/// ```
pub struct PgEventBus {
    /// To the loop that sends events (it ends when the bus is dropped).
    outgoing: mpsc::Sender<Outgoing>,
    channel: String,
    tx: broadcast::Sender<Event>,
    /// Stops the listening loop when the bus is dropped.
    _listening: DropGuard,
}

impl std::fmt::Debug for PgEventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgEventBus")
            .field("channel", &self.channel)
            .finish_non_exhaustive()
    }
}

fn backend(e: impl std::fmt::Display) -> EventBusError {
    EventBusError::Backend(e.to_string())
}

/// Whether `name` is a plain lower-case SQL identifier (so it can be written unquoted).
fn valid_channel(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= 63
}

impl PgEventBus {
    /// Connects to the database at `url` (`postgres://user:pass@host:port/db` or
    /// `host=… port=… user=…`) on the [`DEFAULT_CHANNEL`]. Returns once this process
    /// listens, so an event published after it returns is heard.
    pub async fn connect(url: &str) -> Result<Self, EventBusError> {
        Self::connect_channel(url, DEFAULT_CHANNEL).await
    }

    /// Like [`connect`](Self::connect) on another channel (a lower-case identifier of at
    /// most 63 characters): servers on one database but different channels do not hear
    /// each other.
    pub async fn connect_channel(url: &str, channel: &str) -> Result<Self, EventBusError> {
        if !valid_channel(channel) {
            return Err(EventBusError::Backend(format!(
                "invalid channel name {channel:?}: use lower-case letters, digits and _"
            )));
        }
        let config: Config = url.parse().map_err(backend)?;
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(1)
            .build()
            .map_err(backend)?;
        let tx = broadcast::channel(SUBSCRIBER_BACKLOG).0;
        let stop = CancellationToken::new();
        let (ready_tx, ready_rx) = oneshot::channel();
        tokio::spawn(listen_loop(
            config,
            channel.to_owned(),
            tx.clone(),
            stop.clone(),
            ready_tx,
        ));
        match ready_rx.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                stop.cancel();
                return Err(e);
            }
            Err(_) => return Err(backend("the listening task ended")),
        }
        let (outgoing, queue) = mpsc::channel(4 * MAX_BATCH);
        tokio::spawn(publish_loop(pool, channel.to_owned(), queue));
        Ok(PgEventBus {
            outgoing,
            channel: channel.to_owned(),
            tx,
            _listening: stop.drop_guard(),
        })
    }
}

impl EventBus for PgEventBus {
    fn publish(&self, event: Event) -> BoxFuture<'_, Result<(), EventBusError>> {
        Box::pin(async move {
            let payload = serde_json::to_string(&event).map_err(backend)?;
            if payload.len() > MAX_PAYLOAD {
                return Err(EventBusError::TooLarge(payload.len()));
            }
            let (sent, outcome) = oneshot::channel();
            self.outgoing
                .send((payload, sent))
                .await
                .map_err(|_| backend("the publishing task ended"))?;
            outcome
                .await
                .map_err(|_| backend("the publishing task ended"))?
        })
    }

    fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.tx.subscribe()
    }
}

/// Sends what `queue` brings, each batch (what queued up during the previous round trip)
/// in one statement, and tells each publisher the outcome. Ends when the bus is dropped.
async fn publish_loop(pool: Pool, channel: String, mut queue: mpsc::Receiver<Outgoing>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while queue.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let (payloads, waiting): (Vec<String>, Vec<_>) = batch.drain(..).unzip();
        let outcome = send_batch(&pool, &channel, &payloads).await;
        for publisher in waiting {
            let _ = publisher.send(outcome.clone());
        }
    }
}

/// `pg_notify` for each of `payloads`, in order, in one statement (one transaction:
/// PostgreSQL delivers them together, and an identical event twice in it only once —
/// harmless, events are hints to look again).
async fn send_batch(pool: &Pool, channel: &str, payloads: &[String]) -> Result<(), EventBusError> {
    let client = pool.get().await.map_err(backend)?;
    let result = match payloads {
        [one] => {
            client
                .execute("SELECT pg_notify($1, $2)", &[&channel, one])
                .await
        }
        many => {
            client
                .execute(
                    "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p",
                    &[&channel, &many],
                )
                .await
        }
    };
    result.map(drop).map_err(backend)
}

/// Listens on `channel` until `stop`, reconnecting when the connection drops. The first
/// attempt's outcome goes to `ready`.
async fn listen_loop(
    config: Config,
    channel: String,
    tx: broadcast::Sender<Event>,
    stop: CancellationToken,
    ready: oneshot::Sender<Result<(), EventBusError>>,
) {
    let mut ready = Some(ready);
    let mut backoff = Duration::from_millis(100);
    loop {
        let attempt = listen_once(&config, &channel, &tx, &stop, &mut ready);
        let outcome = tokio::select! {
            _ = stop.cancelled() => return,
            outcome = attempt => outcome,
        };
        match outcome {
            Ok(()) => return,
            Err(e) => {
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Err(e));
                    return;
                }
                tracing::warn!(error = %e, channel, "event bus connection lost; reconnecting");
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

/// One connection's life: `LISTEN`, then forward notifications until it fails.
async fn listen_once(
    config: &Config,
    channel: &str,
    tx: &broadcast::Sender<Event>,
    stop: &CancellationToken,
    ready: &mut Option<oneshot::Sender<Result<(), EventBusError>>>,
) -> Result<(), EventBusError> {
    let (client, mut connection) = config.connect(NoTls).await.map_err(backend)?;
    let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
    let statement = format!("LISTEN {channel}");
    let listen = client.batch_execute(&statement);
    let mut listen = std::pin::pin!(listen);
    // The connection must be polled for LISTEN to complete.
    loop {
        tokio::select! {
            done = &mut listen => {
                done.map_err(backend)?;
                break;
            }
            message = messages.next() => match message {
                Some(Ok(m)) => forward(m, tx),
                Some(Err(e)) => return Err(backend(e)),
                None => return Err(backend("connection closed")),
            }
        }
    }
    if let Some(ready) = ready.take() {
        let _ = ready.send(Ok(()));
    }
    loop {
        tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            message = messages.next() => match message {
                Some(Ok(m)) => forward(m, tx),
                Some(Err(e)) => return Err(backend(e)),
                None => return Err(backend("connection closed")),
            }
        }
    }
}

fn forward(message: AsyncMessage, tx: &broadcast::Sender<Event>) {
    let AsyncMessage::Notification(n) = message else {
        return;
    };
    match serde_json::from_str::<Event>(n.payload()) {
        Ok(event) => {
            let _ = tx.send(event);
        }
        Err(e) => {
            tracing::warn!(error = %e, channel = n.channel(), "ignoring an event the bus could not read");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_names_are_checked() {
        assert!(valid_channel("tracksuit_events"));
        assert!(valid_channel("_a1"));
        assert!(!valid_channel(""));
        assert!(!valid_channel("1a"));
        assert!(!valid_channel("a; DROP TABLE x"));
        assert!(!valid_channel("Upper"));
        assert!(!valid_channel(&"a".repeat(64)));
    }

    #[tokio::test]
    async fn an_unreachable_database_is_an_error_not_a_hang() {
        // Port 1 on loopback: refused at once.
        let e = PgEventBus::connect("postgres://u@127.0.0.1:1/db")
            .await
            .expect_err("no server");
        assert!(matches!(e, EventBusError::Backend(_)), "{e}");
    }
}
