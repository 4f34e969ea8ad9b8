//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout.
//!
//! Nothing but protocol messages is written to stdout; send logs to stderr.
//!
//! When stdin and stdout are pipes (how MCP clients launch servers) they are reopened
//! through `/proc/self/fd` as non-blocking pipes driven by the reactor, like sockets.
//! `tokio::io::stdin()`/`stdout()` instead hand every read and write to a blocking thread;
//! on a ping-pong workload that thread hop cost more CPU than the MCP work itself. Reopening
//! gives the server its own open file description, so the `O_NONBLOCK` flag does not leak
//! to the parent's end or to other processes sharing the inherited descriptor. Anything
//! else (a terminal, a regular file, no `/proc`) falls back to tokio's blocking handles.
//!
//! ```no_run
//! // A stdio server's `main`: protocol on stdout, logs on stderr.
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
//!     server.serve(tracksuit::transport::stdio::stdio()).await
//! }
//! ```

use super::io::LineTransport;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A line transport over the process's stdin and stdout.
///
/// ```no_run
/// # async fn run(server: tracksuit::Server) -> std::io::Result<()> {
/// server.serve(tracksuit::transport::stdio::stdio()).await
/// # }
/// ```
pub fn stdio() -> LineTransport<StdinStream, StdoutStream> {
    LineTransport::new(StdinStream::open(), StdoutStream::open())
}

/// The process's standard input: a non-blocking pipe when it is one.
///
/// ```no_run
/// use tracksuit::transport::{MessageStream, Transport, io::LineTransport, stdio::StdinStream};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// // Read JSON-RPC lines from stdin without a server (e.g. a proxy or a recorder).
/// let (mut messages, _) = LineTransport::new(StdinStream::open(), tokio::io::sink()).split();
/// while let Some(message) = messages.next().await {
///     eprintln!("{message:?}");
/// }
/// # }
/// ```
#[derive(Debug)]
pub enum StdinStream {
    /// stdin is a pipe, reopened non-blocking on the reactor.
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Receiver),
    /// Anything else: tokio's stdin (reads on a blocking thread).
    Blocking(tokio::io::Stdin),
}

/// The process's standard output: a non-blocking pipe when it is one.
///
/// ```no_run
/// use tracksuit::protocol::JsonRpcMessage;
/// use tracksuit::transport::{MessageSink, Transport, io::LineTransport, stdio::StdoutStream};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let (_, mut out) = LineTransport::new(tokio::io::empty(), StdoutStream::open()).split();
/// out.send(JsonRpcMessage::notification("notifications/initialized", None)).await?;
/// out.flush().await // one line on stdout
/// # }
/// ```
#[derive(Debug)]
pub enum StdoutStream {
    /// stdout is a pipe, reopened non-blocking on the reactor.
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Sender),
    /// Anything else: tokio's stdout (writes on a blocking thread).
    Blocking(tokio::io::Stdout),
}

#[cfg(unix)]
fn reopen(fd: u8, write: bool) -> io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .open(format!("/proc/self/fd/{fd}"))
}

impl StdinStream {
    /// Opens stdin, as a non-blocking pipe if it is a pipe (`from_file` checks the type).
    pub fn open() -> StdinStream {
        #[cfg(unix)]
        if let Ok(pipe) = reopen(0, false).and_then(tokio::net::unix::pipe::Receiver::from_file) {
            return StdinStream::Pipe(pipe);
        }
        StdinStream::Blocking(tokio::io::stdin())
    }
}

impl StdoutStream {
    /// Opens stdout, as a non-blocking pipe if possible.
    pub fn open() -> StdoutStream {
        #[cfg(unix)]
        if let Ok(pipe) = reopen(1, true).and_then(tokio::net::unix::pipe::Sender::from_file) {
            return StdoutStream::Pipe(pipe);
        }
        StdoutStream::Blocking(tokio::io::stdout())
    }
}

impl AsyncRead for StdinStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            StdinStream::Pipe(p) => Pin::new(p).poll_read(cx, buf),
            StdinStream::Blocking(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for StdoutStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            #[cfg(unix)]
            StdoutStream::Pipe(p) => Pin::new(p).poll_write(cx, buf),
            StdoutStream::Blocking(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            StdoutStream::Pipe(p) => Pin::new(p).poll_flush(cx),
            StdoutStream::Blocking(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            StdoutStream::Pipe(p) => Pin::new(p).poll_shutdown(cx),
            StdoutStream::Blocking(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}
