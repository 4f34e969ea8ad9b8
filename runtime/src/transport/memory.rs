//! A linked pair of in-process transports: what one end sends, the other receives, as
//! decoded messages (no serialisation). For tests and embedding.

use super::{MessageSink, MessageStream, Transport};
use crate::protocol::{JsonRpcError, JsonRpcMessage};
use tokio::sync::mpsc;

/// Messages in flight each way before the sender waits (like a pipe's buffer).
const CAPACITY: usize = 64;

/// One end of an in-memory link.
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
#[derive(Debug)]
pub struct MemoryStream(mpsc::Receiver<JsonRpcMessage>);

/// The sending half of a [`MemoryTransport`].
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
