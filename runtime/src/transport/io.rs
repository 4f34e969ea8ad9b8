//! Newline-delimited JSON-RPC over any `AsyncRead` + `AsyncWrite` (the stdio framing).
//!
//! Each message is one line of UTF-8 JSON without embedded newlines. Lines longer than the
//! size limit are discarded (without buffering them whole) and answered with `-32600` and
//! `"id": null` (the id is in the part never read).
//!
//! ```
//! use tracksuit::{Server, client::Client, transport::io::LineTransport};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A server and a client talking newline-delimited JSON over an in-process byte pipe.
//! let (a, b) = tokio::io::duplex(64 * 1024);
//! let ((a_read, a_write), (b_read, b_write)) = (tokio::io::split(a), tokio::io::split(b));
//! let server = Server::new(tracksuit::crate_info!()).build()?;
//! tokio::spawn(server.serve(LineTransport::new(a_read, a_write)));
//! let client = Client::builder().connect(LineTransport::new(b_read, b_write)).await?;
//! client.ping().await?;
//! # Ok(())
//! # }
//! ```

use super::{MessageSink, MessageStream, Transport};
use crate::protocol::{ErrorObject, JsonRpcError, JsonRpcMessage};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};

/// A line transport over a reader and a writer.
///
/// ```
/// # async fn demo() {
/// let (client_end, server_end) = tokio::io::duplex(4096);
/// let (r, w) = tokio::io::split(server_end);
/// let transport = tracksuit::transport::io::LineTransport::new(r, w);
/// # let _ = (transport, client_end);
/// # }
/// ```
#[derive(Debug)]
pub struct LineTransport<R, W> {
    reader: R,
    writer: W,
    max_message_size: usize,
}

impl<R, W> LineTransport<R, W> {
    /// A transport reading lines from `reader` and writing lines to `writer`, with a 4 MiB
    /// message limit.
    pub fn new(reader: R, writer: W) -> Self {
        LineTransport {
            reader,
            writer,
            max_message_size: 4 * 1024 * 1024,
        }
    }

    /// Sets the largest accepted message, in bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}

impl<R, W> Transport for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Stream = LineStream<R>;
    type Sink = LineSink<W>;

    fn split(self) -> (Self::Stream, Self::Sink) {
        (
            LineStream {
                reader: BufReader::with_capacity(64 * 1024, self.reader),
                line: Vec::with_capacity(1024),
                limit: self.max_message_size,
                discarding: false,
            },
            LineSink {
                writer: BufWriter::new(self.writer),
                buf: Vec::with_capacity(1024),
            },
        )
    }
}

/// The reading half of a [`LineTransport`].
///
/// ```
/// use tracksuit::transport::{MessageStream, Transport, io::LineTransport};
/// use tracksuit::protocol::{INVALID_REQUEST, JsonRpcMessage};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n\
///                      {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":\"xxxxxxxx\"}\n";
/// let (mut lines, _) = LineTransport::new(input, tokio::io::sink()).max_message_size(64).split();
/// assert!(matches!(lines.next().await, Some(Ok(JsonRpcMessage::Notification(_)))));
/// // The second line is over the 64-byte limit: rejected, not buffered.
/// assert_eq!(lines.next().await.unwrap().unwrap_err().error.code, INVALID_REQUEST);
/// # }
/// ```
#[derive(Debug)]
pub struct LineStream<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
    limit: usize,
    /// Inside an over-long line: skip to its end.
    discarding: bool,
}

/// One framed line, or the news that a line was too long.
enum Frame {
    Line,
    TooLong,
}

impl<R: AsyncRead + Send + Unpin + 'static> LineStream<R> {
    /// Reads up to the next newline into `self.line`, never holding more than the limit.
    async fn frame(&mut self) -> Option<Frame> {
        self.line.clear();
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(bytes) => bytes,
                Err(_) => return None,
            };
            if available.is_empty() {
                // End of input: a final unterminated line still counts.
                return (!self.discarding && !self.line.is_empty()).then_some(Frame::Line);
            }
            let (chunk, found) = match available.iter().position(|b| *b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !self.discarding {
                if self.line.len() + chunk.len() > self.limit {
                    self.discarding = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            let used = found.unwrap_or(available.len());
            self.reader.consume(used);
            if found.is_some() {
                if std::mem::take(&mut self.discarding) {
                    return Some(Frame::TooLong);
                }
                return Some(Frame::Line);
            }
        }
    }
}

impl<R: AsyncRead + Send + Unpin + 'static> MessageStream for LineStream<R> {
    async fn next(&mut self) -> Option<Result<JsonRpcMessage, JsonRpcError>> {
        loop {
            match self.frame().await? {
                Frame::TooLong => {
                    return Some(Err(JsonRpcError {
                        id: None,
                        error: ErrorObject::invalid_request(format!(
                            "message exceeds the {} byte limit",
                            self.limit
                        )),
                    }));
                }
                Frame::Line => {
                    let line = self.line.trim_ascii();
                    if line.is_empty() {
                        continue;
                    }
                    return Some(JsonRpcMessage::from_slice(line));
                }
            }
        }
    }
}

/// The writing half of a [`LineTransport`].
///
/// ```
/// use tokio::io::AsyncReadExt;
/// use tracksuit::transport::{MessageSink, Transport, io::LineTransport};
/// use tracksuit::protocol::JsonRpcMessage;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let (ours, mut theirs) = tokio::io::duplex(1024);
/// let (_, mut sink) = LineTransport::new(tokio::io::empty(), ours).split();
/// sink.send(JsonRpcMessage::notification("notifications/initialized", None)).await?;
/// sink.flush().await?;
/// drop(sink);
/// let mut written = String::new();
/// theirs.read_to_string(&mut written).await?;
/// assert_eq!(written, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct LineSink<W> {
    writer: BufWriter<W>,
    buf: Vec<u8>,
}

impl<W: AsyncWrite + Send + Unpin + 'static> MessageSink for LineSink<W> {
    async fn send(&mut self, message: JsonRpcMessage) -> std::io::Result<()> {
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, &message)?;
        self.buf.push(b'\n');
        self.writer.write_all(&self.buf).await
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush().await
    }
}
