//! A linked pair of in-process transports: what one end sends, the other receives, as
//! decoded messages (no serialisation). For tests and embedding.
//!
//! ```
//! use tracksuit::{Server, client::Client, transport::memory};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (server_end, client_end) = memory::pair();
//! let server = Server::new(tracksuit::crate_info!()).build()?;
//! tokio::spawn(server.serve(server_end));
//! let client = Client::builder().connect(client_end).await?;
//! assert_eq!(client.server_init().unwrap().server_info.name, env!("CARGO_PKG_NAME"));
//! # Ok(())
//! # }
//! ```

use super::{MessageSink, MessageStream, Transport};
use crate::protocol::{JsonRpcError, JsonRpcMessage};
use tokio::sync::mpsc;

/// Messages in flight each way before the sender waits (like a pipe's buffer).
const CAPACITY: usize = 64;

/// One end of an in-memory link.
///
/// ```
/// use tracksuit::{Server, client::Client, transport::memory::{self, MemoryTransport}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let (server_end, client_end): (MemoryTransport, _) = memory::pair();
/// tokio::spawn(Server::new(tracksuit::crate_info!()).build()?.serve(server_end));
/// let client = Client::builder().connect(client_end).await?;
/// assert!(client.list_tools(None).await?.tools.is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct MemoryTransport {
    tx: mpsc::Sender<JsonRpcMessage>,
    rx: mpsc::Receiver<JsonRpcMessage>,
}

/// Two linked ends.
///
/// ```
/// let (server_end, client_end) = tracksuit::transport::memory::pair();
/// # let _ = (server_end, client_end);
/// ```
pub fn pair() -> (MemoryTransport, MemoryTransport) {
    let (a_tx, a_rx) = mpsc::channel(CAPACITY);
    let (b_tx, b_rx) = mpsc::channel(CAPACITY);
    (
        MemoryTransport { tx: a_tx, rx: b_rx },
        MemoryTransport { tx: b_tx, rx: a_rx },
    )
}

/// The receiving half of a [`MemoryTransport`].
///
/// ```
/// use tracksuit::protocol::JsonRpcMessage;
/// use tracksuit::transport::{MessageSink, MessageStream, Transport, memory};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let (a, b) = memory::pair();
/// let ((_, mut sink), (mut stream, _)) = (a.split(), b.split());
/// sink.send(JsonRpcMessage::notification("notifications/initialized", None)).await?;
/// drop(sink);
/// assert!(matches!(stream.next().await, Some(Ok(JsonRpcMessage::Notification(_)))));
/// assert!(stream.next().await.is_none()); // the other end is gone
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct MemoryStream(mpsc::Receiver<JsonRpcMessage>);

/// The sending half of a [`MemoryTransport`].
///
/// ```
/// use tracksuit::protocol::{JsonRpcMessage, RequestId};
/// use tracksuit::transport::{MessageSink, MessageStream, Transport, memory};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let (a, b) = memory::pair();
/// let ((_, mut sink), (mut stream, _)) = (a.split(), b.split());
/// let ping = JsonRpcMessage::request(RequestId::from(1), "ping", None);
/// sink.send(ping.clone()).await?; // no serialisation: the message itself crosses
/// assert_eq!(stream.next().await.unwrap().unwrap(), ping);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct MemorySink(mpsc::Sender<JsonRpcMessage>);

impl Transport for MemoryTransport {
    type Stream = MemoryStream;
    type Sink = MemorySink;

    fn split(self) -> (MemoryStream, MemorySink) {
        (MemoryStream(self.rx), MemorySink(self.tx))
    }
}

impl MessageStream for MemoryStream {
    async fn next(&mut self) -> Option<Result<JsonRpcMessage, JsonRpcError>> {
        self.0.recv().await.map(Ok)
    }
}

impl MessageSink for MemorySink {
    async fn send(&mut self, message: JsonRpcMessage) -> std::io::Result<()> {
        let message = match self.0.try_send(message) {
            Ok(()) => return Ok(()),
            Err(mpsc::error::TrySendError::Full(message)) => message,
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(closed()),
        };
        self.0.send(message).await.map_err(|_| closed())
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::BrokenPipe, "peer closed")
}
