//! What leaves a peer: [`Outbound`] items on a bounded queue, drained by the transport
//! layer's one driver (`transport::drive`).
//!
//! The queue is bounded so that a client that reads slowly slows the server down instead
//! of growing its memory: [`Peer::send`](super::Peer::send) waits for room, so
//! `ctx.log(..).await` and `ctx.progress(..).await` wait too. Messages sent from
//! synchronous code (list-changed broadcasts, cancellation on drop) use
//! [`Peer::try_send`](super::Peer::try_send) and are dropped for a session whose queue is
//! full.

use crate::protocol::{JsonRpcMessage, RequestId};
use tokio::sync::mpsc;

/// A message leaving a peer, with the id of the incoming request it belongs to (if any).
///
/// Transports that multiplex streams (Streamable HTTP) route a message to the stream of
/// its related request; line transports ignore the relation.
#[derive(Debug)]
// Line transports read only the message: the rest is for the HTTP host.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub enum Outbound {
    /// A JSON-RPC message to deliver.
    Message {
        /// The message.
        message: JsonRpcMessage,
        /// The incoming request this message was produced while serving.
        related: Option<RequestId>,
    },
    /// Close the stream carrying the given request's messages, if the transport has one
    /// (the client then resumes it, SEP-1699). Line transports ignore this.
    CloseStream(RequestId),
    /// The request was cancelled and will never be answered: a transport that holds a
    /// stream open for its response ends it. Line transports ignore this.
    Abandoned(RequestId),
    /// The peer closed (a wake-up for an idle driver; a busy one sees the peer's shutdown
    /// token): what was queued before goes out, then the driver stops.
    Shutdown,
}

/// The sending half of a peer's outbound queue.
pub type OutboundSender = mpsc::Sender<Outbound>;
/// The receiving half of a peer's outbound queue, drained by the transport's driver.
pub type OutboundReceiver = mpsc::Receiver<Outbound>;

/// A bounded outbound queue holding at most `capacity` messages (at least one).
pub fn outbound_queue(capacity: usize) -> (OutboundSender, OutboundReceiver) {
    mpsc::channel(capacity.max(1))
}
