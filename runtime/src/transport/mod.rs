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
//!
//! ```
//! use tracksuit::transport::{MessageSink, MessageStream, Transport, memory};
//! use tracksuit::protocol::JsonRpcMessage;
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let (a, b) = memory::pair();
//! let ((_, mut a_sink), (mut b_stream, _)) = (a.split(), b.split());
//! a_sink.send(JsonRpcMessage::notification("notifications/initialized", None)).await?;
//! let JsonRpcMessage::Notification(n) = b_stream.next().await.unwrap().unwrap() else { panic!() };
//! assert_eq!(n.method, "notifications/initialized");
//! # Ok(())
//! # }
//! ```

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
///
/// ```
/// use tracksuit::transport::{MessageStream, Transport, io::LineTransport};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n";
/// let (mut stream, _sink) = LineTransport::new(input, tokio::io::sink()).split();
/// assert!(stream.next().await.unwrap().is_ok());
/// let rejected = stream.next().await.unwrap().unwrap_err(); // answered with a parse error
/// assert_eq!(rejected.error.code, tracksuit::protocol::PARSE_ERROR);
/// assert!(stream.next().await.is_none()); // end of input
/// # }
/// ```
pub trait MessageStream: Send + 'static {
    /// The next message.
    fn next(&mut self)
    -> impl Future<Output = Option<Result<JsonRpcMessage, JsonRpcError>>> + Send;
}

/// Outgoing messages.
///
/// ```
/// use tracksuit::transport::{MessageSink, Transport, io::LineTransport};
/// use tracksuit::protocol::{JsonRpcMessage, RequestId};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use tokio::io::AsyncBufReadExt;
/// let (ours, theirs) = tokio::io::duplex(1024);
/// let (_stream, mut sink) = LineTransport::new(tokio::io::empty(), ours).split();
/// sink.send(JsonRpcMessage::request(RequestId::from(1), "ping", None)).await?;
/// sink.flush().await?; // written once flushed
/// let mut line = String::new();
/// tokio::io::BufReader::new(theirs).read_line(&mut line).await?;
/// assert_eq!(line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
/// # Ok(())
/// # }
/// ```
pub trait MessageSink: Send + 'static {
    /// Queues or writes one message.
    fn send(&mut self, message: JsonRpcMessage)
    -> impl Future<Output = std::io::Result<()>> + Send;
    /// Flushes what was queued (called when no more messages are waiting).
    fn flush(&mut self) -> impl Future<Output = std::io::Result<()>> + Send;
}

/// A bidirectional message transport.
///
/// ```
/// use tracksuit::{Server, client::Client, transport::{Transport, memory}};
/// // Anything implementing `Transport` connects a client or serves a server.
/// async fn connect(t: impl Transport) -> Client {
///     Client::builder().connect(t).await.unwrap()
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let (server_end, client_end) = memory::pair();
/// let server = Server::new(tracksuit::crate_info!()).build()?;
/// tokio::spawn(server.serve(server_end));
/// connect(client_end).await.ping().await?;
/// # Ok(())
/// # }
/// ```
pub trait Transport: Send + 'static {
    /// The receiving half.
    type Stream: MessageStream;
    /// The sending half.
    type Sink: MessageSink;
    /// Splits into halves used concurrently.
    fn split(self) -> (Self::Stream, Self::Sink);
}
