//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout.
//!
//! Nothing but protocol messages is written to stdout; send logs to stderr.

use super::io::LineTransport;
use tokio::io::{Stdin, Stdout};

/// A line transport over the process's stdin and stdout.
pub fn stdio() -> LineTransport<Stdin, Stdout> {
    LineTransport::new(tokio::io::stdin(), tokio::io::stdout())
}
