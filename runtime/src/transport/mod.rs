//! Transports move framed JSON-RPC messages and nothing else.
//!
//! - [`stdio`] and [`io`]: newline-delimited JSON over a byte stream (stdin/stdout, a child
//!   process, a socket);
//! - [`memory`]: a linked pair of in-process channels, for tests;
//! - `http` (feature `http`): Streamable HTTP as an axum `Router`.
//!
//! Line transports implement [`Transport`]. Whatever the transport, a session's outbound
//! queue is drained by one driver into an outlet: a line sink or the SSE streams of an
//! HTTP session.

mod driver;
pub mod io;
pub mod memory;
pub mod stdio;

#[cfg(feature = "http")]
pub(crate) mod sse;

#[cfg(feature = "http")]
pub(crate) use driver::{Gone, Outlet};
pub(crate) use driver::{SinkOutlet, drive};

use crate::protocol::{JsonRpcError, JsonRpcMessage};
use std::future::Future;

/// Incoming messages: `Ok` for a decoded message, `Err` for input that must be rejected
/// with the given error response (its `id` is the input's when it could be read; the
/// connection goes on), `None` at end of stream.
pub trait MessageStream: Send + 'static {
    /// The next message.
    fn next(&mut self)
    -> impl Future<Output = Option<Result<JsonRpcMessage, JsonRpcError>>> + Send;
}

/// Outgoing messages.
pub trait MessageSink: Send + 'static {
    /// Queues or writes one message.
    fn send(&mut self, message: JsonRpcMessage)
    -> impl Future<Output = std::io::Result<()>> + Send;
    /// Flushes what was queued (called when no more messages are waiting).
    fn flush(&mut self) -> impl Future<Output = std::io::Result<()>> + Send;
}

/// A bidirectional message transport.
pub trait Transport: Send + 'static {
    /// The receiving half.
    type Stream: MessageStream;
    /// The sending half.
    type Sink: MessageSink;
    /// Splits into halves used concurrently.
    fn split(self) -> (Self::Stream, Self::Sink);
}
