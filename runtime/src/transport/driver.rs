//! The one outbound driver: every host and mode (line transports, stateful and stateless
//! Streamable HTTP, the client) drains a peer's bounded queue with [`drive`] into an
//! [`Outlet`]. An outlet that cannot take a message yet (a full pipe, an SSE connection
//! the client is not reading) makes `drive` wait, the queue fills, and the peer's senders
//! wait in turn: that is the backpressure path from a slow reader to `ctx.log(..).await`.

use super::MessageSink;
use crate::peer::{ClosedFlag, Outbound, OutboundReceiver};
use std::future::Future;
use tokio::sync::mpsc::error::TryRecvError;

/// Where a driven queue's items go.
pub(crate) trait Outlet: Send + 'static {
    /// Delivers one item, waiting while the destination is full. `Err` ends the drive (the
    /// destination is gone).
    fn deliver(&mut self, out: Outbound) -> impl Future<Output = Result<(), Gone>> + Send;

    /// Called when the queue is momentarily empty (flush buffered writes).
    fn idle(&mut self) -> impl Future<Output = Result<(), Gone>> + Send {
        async { Ok(()) }
    }

    /// Called once when the drive ends.
    fn finish(&mut self) {}
}

/// The destination of an [`Outlet`] is gone (the connection closed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gone;

/// Drains `queue` into `outlet` until the peer closes (then writes what was already
/// queued and stops), every sender is gone, or the outlet is.
pub(crate) async fn drive<O: Outlet>(
    mut queue: OutboundReceiver,
    closed: ClosedFlag,
    mut outlet: O,
) {
    loop {
        let next = match queue.try_recv() {
            Ok(out) => Some(out),
            Err(TryRecvError::Disconnected) => None,
            Err(TryRecvError::Empty) => {
                // Nothing waiting: flush, then sleep until something comes (`close` queues a
                // `Shutdown` to wake an idle driver).
                if outlet.idle().await.is_err() {
                    break;
                }
                queue.recv().await
            }
        };
        match next {
            Some(Outbound::Shutdown) | None => {
                drain(&mut queue, &mut outlet).await;
                break;
            }
            Some(out) => {
                if outlet.deliver(out).await.is_err() {
                    break;
                }
                if closed.is_set() {
                    drain(&mut queue, &mut outlet).await;
                    break;
                }
            }
        }
    }
    outlet.finish();
}

/// The peer closed: what was queued before goes out, then the drive ends.
async fn drain<O: Outlet>(queue: &mut OutboundReceiver, outlet: &mut O) {
    while let Ok(out) = queue.try_recv() {
        if matches!(out, Outbound::Shutdown) {
            continue;
        }
        if outlet.deliver(out).await.is_err() {
            return;
        }
    }
    let _ = outlet.idle().await;
}

/// An [`Outlet`] writing messages to a line transport's [`MessageSink`]; stream-related
/// items (`CloseStream`, `Abandoned`) mean nothing there and are skipped.
#[derive(Debug)]
pub(crate) struct SinkOutlet<S>(S);

impl<S: MessageSink> SinkOutlet<S> {
    /// An outlet writing to `sink`.
    pub(crate) fn new(sink: S) -> Self {
        SinkOutlet(sink)
    }
}

impl<S: MessageSink> Outlet for SinkOutlet<S> {
    async fn deliver(&mut self, out: Outbound) -> Result<(), Gone> {
        match out {
            Outbound::Message { message, .. } => self.0.send(message).await.map_err(|_| Gone),
            Outbound::CloseStream(_) | Outbound::Abandoned(_) | Outbound::Shutdown => Ok(()),
        }
    }

    async fn idle(&mut self) -> Result<(), Gone> {
        self.0.flush().await.map_err(|_| Gone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peer::{Peer, outbound_queue};
    use crate::protocol::JsonRpcMessage;
    use crate::transport::{MessageStream, Transport, memory};

    #[tokio::test]
    async fn writes_what_was_queued_before_the_peer_closed_then_stops() {
        let (a, b) = memory::pair();
        let (_, sink) = a.split();
        let (mut received, _) = b.split();
        let (tx, rx) = outbound_queue(4);
        let peer = Peer::new(tx);
        for n in 0..3 {
            peer.notify(&format!("n{n}"), None, None).await;
        }
        peer.close();
        drive(rx, peer.closed_flag(), SinkOutlet::new(sink)).await;
        for n in 0..3 {
            match received.next().await {
                Some(Ok(JsonRpcMessage::Notification(note))) => {
                    assert_eq!(note.method, format!("n{n}"))
                }
                other => panic!("expected notification n{n}, got {other:?}"),
            }
        }
    }
}
