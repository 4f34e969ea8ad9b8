//! The accept loop behind [`serve_with`](super::serve_with): connections with a deadline for
//! their request headers, a cap on how many are open, and room made for new ones when the
//! cap or the process's file descriptors run out.
//!
//! A connection is *idle* while no request is in flight on it (before its first request,
//! and between keep-alive requests); a request stays in flight until its response body has
//! ended, so an open SSE stream keeps its connection busy. An idle connection is closed
//! once it has been idle for the header-read timeout, so the timeout bounds both a slow
//! head (slowloris) and an idle keep-alive connection. One sweeper per listener checks
//! every connection on a coarse tick (an eighth of the timeout, at most a second): a
//! request costs two atomic writes instead of arming and cancelling a timer each time it
//! waits for a head (which on a quiet connection is every request). When a new connection needs room (at
//! `max_connections`, or when `accept` fails for want of file descriptors), the connection
//! that has waited longest without a complete request is closed: one that never sent a
//! complete head first, then one stuck sending a body. A keep-alive connection between
//! requests is left to its timeout (its client may be sending on it at that instant).
//! With none to close, the new connection is closed at once.

use axum::Router;
use axum::body::Body;
use http_body_util::BodyExt;
use hyper::body::Body as _;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tower::ServiceExt;

use crate::capacity::ReleaseSpare;
use crate::peer::sync::lock;

/// The limits one listener applies to its connections.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub header_read_timeout: Duration,
    pub max_connections: Option<usize>,
}

/// What a connection is doing, in counters its requests keep.
#[derive(Default)]
struct Activity {
    /// Requests in flight (from their head until their response body ends).
    busy: AtomicUsize,
    /// Requests in flight whose body has not fully arrived.
    receiving: AtomicUsize,
    /// Requests it carried, ever.
    served: AtomicUsize,
    /// The sweeper's tick when it last became idle (opened, or a response ended).
    idle_since: AtomicU64,
}

impl Activity {
    /// Whether it may be closed to make room, and in which order: a connection that never
    /// sent a complete head goes first, then one stuck sending a body.
    fn idle_rank(&self) -> Option<u8> {
        let busy = self.busy.load(Ordering::Acquire);
        let receiving = self.receiving.load(Ordering::Acquire);
        if busy > receiving {
            None
        } else if self.served.load(Ordering::Acquire) == 0 {
            Some(0)
        } else if receiving > 0 {
            Some(1)
        } else {
            // An idle keep-alive connection of a client that was served: its client may be
            // sending its next request on it right now, and the header-read timeout ends it
            // soon enough. Not taken to make room.
            None
        }
    }
}

/// One open connection, as the table of open connections sees it.
struct Open {
    activity: Arc<Activity>,
    /// When it opened (oldest idle goes first).
    opened: Instant,
    /// Closes it.
    close: Arc<Notify>,
}

/// The open connections of one listener.
#[derive(Default)]
struct Table {
    open: Mutex<HashMap<u64, Open>>,
    next: AtomicUsize,
    /// The sweeper's clock: ticks since the listener started.
    tick: AtomicU64,
}

impl Table {
    /// Closes every connection idle for more than `ticks` ticks; the sweeper's work.
    fn sweep(&self, ticks: u64) {
        let now = self.tick.fetch_add(1, Ordering::AcqRel) + 1;
        let mut open = lock(&self.open);
        open.retain(|id, c| {
            let activity = &c.activity;
            let idle = activity.busy.load(Ordering::Acquire) == 0
                && now.saturating_sub(activity.idle_since.load(Ordering::Acquire)) > ticks;
            if idle {
                tracing::debug!(
                    connection = id,
                    "closing a connection idle past header_read_timeout"
                );
                c.close.notify_one();
            }
            !idle
        });
        open.release_spare();
    }

    /// Adds a connection; its id.
    fn register(&self, activity: Arc<Activity>, close: Arc<Notify>) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed) as u64;
        let opened = Instant::now();
        let entry = Open {
            activity,
            opened,
            close,
        };
        lock(&self.open).insert(id, entry);
        id
    }

    /// Forgets a connection (closed, or ended), giving back the room a burst of them took.
    fn remove(&self, id: u64) {
        crate::capacity::remove(&mut lock(&self.open), &id);
    }

    fn len(&self) -> usize {
        lock(&self.open).len()
    }

    /// Closes the idle connection that has waited longest (never-served ones first).
    /// Whether there was one.
    fn evict_one(&self) -> bool {
        let open = lock(&self.open);
        let victim = open
            .iter()
            .filter_map(|(id, c)| c.activity.idle_rank().map(|rank| (rank, c.opened, id, c)))
            .min_by_key(|(rank, opened, _, _)| (*rank, *opened))
            .map(|(_, _, id, c)| (*id, c.close.clone()));
        drop(open);
        match victim {
            Some((id, close)) => {
                tracing::debug!(connection = id, "closing an idle connection to make room");
                close.notify_one();
                self.remove(id);
                true
            }
            None => false,
        }
    }
}

/// Serves `app` on `listener` until accepting fails for good.
pub(super) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
) -> std::io::Result<()> {
    let table = Arc::new(Table::default());
    tokio::spawn(sweep(Arc::downgrade(&table), limits.header_read_timeout));
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(e) if out_of_descriptors(&e) => {
                // The backlog holds the connection until a descriptor is free: make one.
                if !table.evict_one() {
                    tracing::warn!(error = %e, "accept: out of file descriptors and no idle connection to close");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                tokio::task::yield_now().await;
                continue;
            }
            Err(e) if transient(&e) => continue,
            Err(e) => return Err(e),
        };
        if limits.max_connections.is_some_and(|max| table.len() >= max) && !table.evict_one() {
            tracing::warn!("at max_connections with every connection busy: refusing one");
            drop(tcp);
            continue;
        }
        let _ = tcp.set_nodelay(true);
        spawn_connection(&table, tcp, app.clone());
    }
}

/// Registers `tcp` in the table and serves it on a task of its own.
/// Closes the connections of `table` idle for `timeout`, on a tick of an eighth of it (at
/// most a second): one is closed between `timeout` and `timeout` plus a tick after it
/// became idle. Ends with the listener.
async fn sweep(table: Weak<Table>, timeout: Duration) {
    let period = (timeout / 8).clamp(Duration::from_millis(5), Duration::from_secs(1));
    let ticks = timeout.as_nanos().div_ceil(period.as_nanos().max(1));
    let ticks = u64::try_from(ticks).unwrap_or(u64::MAX);
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    interval.tick().await;
    loop {
        interval.tick().await;
        let Some(table) = table.upgrade() else {
            return;
        };
        table.sweep(ticks);
    }
}

fn spawn_connection(table: &Arc<Table>, tcp: TcpStream, app: Router) {
    let activity = Arc::new(Activity {
        idle_since: AtomicU64::new(table.tick.load(Ordering::Acquire)),
        ..Activity::default()
    });
    let close = Arc::new(Notify::new());
    let id = table.register(activity.clone(), close.clone());
    let table = table.clone();
    tokio::spawn(async move {
        let tick = Arc::downgrade(&table);
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let in_flight = InFlight::start(&activity, tick.clone());
            let request = request.map(|body| Body::new(Arriving::new(body, &activity)));
            let response = app.clone().oneshot(request);
            async move {
                let response = match response.await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                // The request stays in flight until its body ends (an SSE stream: while open).
                Ok::<_, Infallible>(response.map(|body| {
                    Body::new(body.map_frame(move |frame| {
                        let _ = &in_flight;
                        frame
                    }))
                }))
            }
        });
        let http = hyper::server::conn::http1::Builder::new();
        let connection = http.serve_connection(TokioIo::new(tcp), service);
        tokio::select! {
            result = connection => {
                if let Err(e) = result {
                    tracing::debug!(connection = id, error = %e, "connection ended");
                }
            }
            _ = close.notified() => {}
        }
        table.remove(id);
    });
}

/// One request in flight on a connection, until dropped.
struct InFlight(Arc<Activity>, Weak<Table>);

impl InFlight {
    fn start(activity: &Arc<Activity>, table: Weak<Table>) -> Self {
        activity.busy.fetch_add(1, Ordering::AcqRel);
        activity.served.fetch_add(1, Ordering::AcqRel);
        InFlight(activity.clone(), table)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        // Idle from now on (the sweeper reads `busy` after `idle_since`).
        if let Some(table) = self.1.upgrade() {
            let now = table.tick.load(Ordering::Acquire);
            self.0.idle_since.store(now, Ordering::Release);
        }
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A request body, counted as arriving on its connection until it has ended (or is
/// dropped unread).
struct Arriving {
    body: Incoming,
    activity: Option<Arc<Activity>>,
}

impl Arriving {
    fn new(body: Incoming, activity: &Arc<Activity>) -> Self {
        let activity = (!body.is_end_stream()).then(|| {
            activity.receiving.fetch_add(1, Ordering::AcqRel);
            activity.clone()
        });
        Arriving { body, activity }
    }

    fn arrived(&mut self) {
        if let Some(activity) = self.activity.take() {
            activity.receiving.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Drop for Arriving {
    fn drop(&mut self) {
        self.arrived();
    }
}

impl hyper::body::Body for Arriving {
    type Data = bytes::Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) || self.body.is_end_stream() {
            self.arrived();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// `EMFILE` / `ENFILE`: the process (or the system) is out of file descriptors.
fn out_of_descriptors(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(24 | 23))
}

/// Errors about the one connection being accepted (it went away first): try the next.
fn transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(table: &Table, n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| table.register(Arc::default(), Arc::default()))
            .collect()
    }

    #[test]
    fn the_table_gives_back_the_room_a_burst_of_connections_took() {
        let table = Table::default();
        let ids = fill(&table, 1_000);
        let peak = lock(&table.open).capacity();
        for id in &ids[..990] {
            table.remove(*id);
        }
        let after = lock(&table.open).capacity();
        assert!(after < peak / 10, "capacity {after} of a {peak} peak");
        assert_eq!(table.len(), 10);
    }

    #[test]
    fn the_sweeper_gives_back_the_room_of_the_connections_it_closes() {
        let table = Table::default();
        fill(&table, 1_000);
        let peak = lock(&table.open).capacity();
        // Every connection opened at tick 0 and has been idle since.
        table.sweep(0);
        assert_eq!(table.len(), 0);
        let after = lock(&table.open).capacity();
        assert!(after < peak / 10, "capacity {after} of a {peak} peak");
    }
}
