//! Newline-delimited JSON-RPC over any `AsyncRead` + `AsyncWrite` (the stdio framing).
//!
//! Each message is one line of UTF-8 JSON without embedded newlines. Lines longer than the
//! size limit are discarded (without buffering them whole) and answered with `-32600`.

use super::{MessageSink, MessageStream, Transport};
use crate::protocol::{ErrorObject, JsonRpcMessage};
use futures::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};

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
        LineTransport { reader, writer, max_message_size: 4 * 1024 * 1024 }
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
        let codec = LinesCodec::new_with_max_length(self.max_message_size);
        (
            LineStream { lines: FramedRead::new(self.reader, codec), limit: self.max_message_size },
            LineSink { writer: BufWriter::new(self.writer), buf: Vec::with_capacity(1024) },
        )
    }
}

/// The reading half of a [`LineTransport`].
#[derive(Debug)]
pub struct LineStream<R> {
    lines: FramedRead<R, LinesCodec>,
    limit: usize,
}

impl<R: AsyncRead + Send + Unpin + 'static> MessageStream for LineStream<R> {
    async fn next(&mut self) -> Option<Result<JsonRpcMessage, ErrorObject>> {
        loop {
            return match self.lines.next().await? {
                Ok(line) if line.trim().is_empty() => continue,
                Ok(line) => Some(JsonRpcMessage::from_slice(line.as_bytes())),
                Err(LinesCodecError::MaxLineLengthExceeded) => Some(Err(ErrorObject::invalid_request(
                    format!("message exceeds the {} byte limit", self.limit),
                ))),
                Err(LinesCodecError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                    Some(Err(ErrorObject::parse_error("message is not valid UTF-8")))
                }
                Err(LinesCodecError::Io(_)) => None,
            };
        }
    }
}

/// The writing half of a [`LineTransport`].
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
