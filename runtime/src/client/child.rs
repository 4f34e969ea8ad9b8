//! A stdio MCP server run as a child process: its stdin and stdout carry newline-delimited
//! JSON-RPC, its stderr is inherited. The child is killed when the client is dropped.
//!
//! ```no_run
//! use tracksuit::client::{ChildTransport, Client};
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let mut command = tokio::process::Command::new("my-mcp-server");
//! command.arg("--stdio");
//! let client = Client::builder().connect(ChildTransport::spawn(command)?).await?;
//! # let _ = client; Ok(()) }
//! ```

use crate::protocol::{JsonRpcError, JsonRpcMessage};
use crate::transport::io::{LineSink, LineStream, LineTransport};
use crate::transport::{MessageStream, Transport};
use std::process::Stdio;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// A spawned stdio server.
///
/// ```no_run
/// use tracksuit::client::{ChildTransport, Client};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // `npx -y @modelcontextprotocol/server-everything` is any stdio MCP server.
/// let mut command = tokio::process::Command::new("npx");
/// command.args(["-y", "@modelcontextprotocol/server-everything"]);
/// let transport = ChildTransport::spawn(command)?;
/// assert!(transport.id().is_some()); // it runs
/// let client = Client::builder().connect(transport).await?;
/// assert!(!client.list_tools(None).await?.tools.is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ChildTransport {
    child: Child,
    lines: LineTransport<ChildStdout, ChildStdin>,
}

impl ChildTransport {
    /// Spawns `command` with piped stdin and stdout.
    pub fn spawn(mut command: Command) -> std::io::Result<Self> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(std::io::Error::other("the child's stdio was not piped"));
        };
        Ok(ChildTransport {
            child,
            lines: LineTransport::new(stdout, stdin),
        })
    }

    /// The child's process id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }
}

impl Transport for ChildTransport {
    type Stream = ChildStream;
    type Sink = LineSink<ChildStdin>;

    fn split(self) -> (ChildStream, LineSink<ChildStdin>) {
        let (lines, sink) = self.lines.split();
        (
            ChildStream {
                lines,
                _child: self.child,
            },
            sink,
        )
    }
}

/// The child's stdout; owns the child, which is killed when this is dropped (when the
/// client's reader ends).
///
/// ```
/// use tracksuit::client::ChildTransport;
/// use tracksuit::protocol::JsonRpcMessage;
/// use tracksuit::transport::{MessageSink, MessageStream, Transport};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// // `cat` answers every line with itself: enough to see the framing both ways.
/// let (mut from_child, mut to_child) = ChildTransport::spawn(tokio::process::Command::new("cat"))?.split();
/// let note = JsonRpcMessage::notification("notifications/initialized", None);
/// to_child.send(note.clone()).await?;
/// to_child.flush().await?;
/// assert_eq!(from_child.next().await.unwrap().unwrap(), note);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ChildStream {
    lines: LineStream<ChildStdout>,
    _child: Child,
}

impl MessageStream for ChildStream {
    async fn next(&mut self) -> Option<Result<JsonRpcMessage, JsonRpcError>> {
        self.lines.next().await
    }
}
