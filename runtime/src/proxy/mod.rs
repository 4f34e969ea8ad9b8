//! Serve a remote MCP server's tools, prompts, resources and templates as if they were
//! local (feature `proxy`).
//!
//! A [`Remote`] is a connection to another MCP server through [`crate::client`] (Streamable
//! HTTP or a stdio child process, either protocol era: the client negotiates).
//! [`Remote::attach`] registers what the remote lists (every page) on a running
//! [`ServerHandle`] and keeps it in step: the remote's `list_changed` notifications re-list
//! and re-register, which tells our own clients through the handle's usual broadcasts.
//!
//! A call of a proxied item is forwarded to the remote: its progress comes back to the
//! caller, the caller's cancellation reaches the remote (`notifications/cancelled` on a
//! 2025-11-25 remote, the request dropped on a 2026-07-28 one), and what the remote asks
//! while it runs (`elicitation/create`, `sampling/createMessage`) is asked of the caller and
//! the answer handed back — live on a 2025 session, through multi round-trip rounds for a
//! 2026-07-28 caller, while the remote call stays open. JSON-RPC errors keep their code and
//! message; an `isError` result stays one; a remote that is gone is a clear `-32603`.
//!
//! ```no_run
//! use tracksuit::proxy::{Attach, Remote};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
//! // A Streamable HTTP server (either era) ...
//! let weather = Remote::http("http://127.0.0.1:3000/mcp").await?;
//! weather.attach(&server, Attach::default().prefix("weather")).await?;
//! // ... and a stdio server, run as a child process.
//! let files = Remote::stdio("uv", ["run", "files_server.py"]).await?;
//! files.attach(&server, Attach::default()).await?;
//! server.serve_http("127.0.0.1:8000").await?;
//! # Ok(()) }
//! ```
//!
//! See docs/proxy.md for which era combinations relay what, and the reconnect story.

mod items;
mod pool;
mod relay;
mod sync;
#[cfg(test)]
mod tests;

pub use sync::{Attach, Attached};

use crate::client::{ChildTransport, Client, ClientBuilder, Era};
use crate::peer::RequestError;
use crate::protocol::ErrorObject;
use crate::server::{ServerError, ServerHandle};
use crate::transport::Transport;
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

/// How long a 2026-07-28 caller's proxied call may wait between rounds before its remote
/// call is abandoned (see [`Remote::round_ttl`]).
pub const DEFAULT_ROUND_TTL: Duration = Duration::from_secs(600);

/// How many proxied calls a 2025-11-25 remote reached over HTTP serves at once by default
/// (each on a session of its own, see [`Remote::max_connections`]). A stdio remote serves
/// one at a time unless told otherwise: each connection is a process of its own.
pub const DEFAULT_MAX_CONNECTIONS: usize = 8;

/// Why a [`Remote`] could not be connected or attached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// The transport could not be made (a bad URL, a command that does not start).
    #[error("cannot reach the remote MCP server: {0}")]
    Connect(String),
    /// The remote failed a request (`initialize`, `server/discover`, a list).
    #[error("the remote MCP server failed: {0}")]
    Request(#[from] RequestError),
    /// A remote item's name (after the prefix) is taken on this server.
    #[error("cannot register the remote's items: {0}")]
    Register(#[from] ServerError),
}

/// Opens one more connection to the remote, with the handlers the proxy installs.
type Connector =
    Arc<dyn Fn(ClientBuilder) -> BoxFuture<'static, Result<Client, ProxyError>> + Send + Sync>;

/// A [`Connector`] connecting over the transports `transport` makes.
fn connector<T, E, F>(transport: F) -> Connector
where
    T: Transport,
    E: std::fmt::Display,
    F: Fn() -> Result<T, E> + Send + Sync + 'static,
{
    Arc::new(move |builder: ClientBuilder| {
        let made = transport().map_err(|e| ProxyError::Connect(e.to_string()));
        Box::pin(async move { Ok(builder.connect(made?).await?) })
    })
}

/// A connection to a remote MCP server whose items a tracksuit server serves. Cheap to
/// clone (an `Arc`).
///
/// ```no_run
/// use tracksuit::client::{Client, Era, HttpTransport};
/// use tracksuit::proxy::Remote;
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// // Any client settings (identity, timeout, era); the proxy installs its own
/// // elicitation and sampling handlers, which relay to the caller.
/// let builder = Client::builder().era(Era::Negotiate).timeout(std::time::Duration::from_secs(300));
/// let remote = Remote::connect(builder, || HttpTransport::new("http://127.0.0.1:3000/mcp")).await?;
/// println!("proxying {}", remote.name());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Remote {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    pool: pool::Pool,
    calls: relay::Calls,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("name", &self.inner.name)
            .finish_non_exhaustive()
    }
}

impl Remote {
    /// Connects with `builder` over the transports `transport` makes: one now (the
    /// connection that lists and watches), and more later when a 2025-11-25 remote is asked
    /// several calls at once (each call has a connection to itself, so what the remote asks
    /// reaches the right caller) or the connection was lost.
    pub async fn connect<T, E, F>(
        builder: ClientBuilder,
        transport: F,
    ) -> Result<Remote, ProxyError>
    where
        T: Transport,
        E: std::fmt::Display,
        F: Fn() -> Result<T, E> + Send + Sync + 'static,
    {
        Self::with_connector(builder, connector(transport), DEFAULT_MAX_CONNECTIONS).await
    }

    /// A Streamable HTTP server at `url`, in whichever era it speaks ([`Era::Negotiate`]).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), tracksuit::proxy::ProxyError> {
    /// let remote = tracksuit::proxy::Remote::http("http://127.0.0.1:3000/mcp").await?;
    /// # let _ = remote; Ok(()) }
    /// ```
    #[cfg(feature = "http")]
    pub async fn http(url: &str) -> Result<Remote, ProxyError> {
        let url = url.to_owned();
        let builder = Client::builder().era(Era::Negotiate);
        Self::connect(builder, move || crate::client::HttpTransport::new(&url)).await
    }

    /// A stdio server: `program` with `args`, run as a child process (killed when its
    /// connection goes), in whichever era it speaks.
    ///
    /// A 2025-11-25 stdio remote serves one proxied call at a time: a question it asks names
    /// no call, so concurrent calls need connections of their own, and here each one would
    /// be another process, with state (counters, tools added at run time) of its own.
    /// [`max_connections`](Remote::max_connections) raises the limit for a server that
    /// keeps no state. A 2026-07-28 stdio remote serves every call at once on one process.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), tracksuit::proxy::ProxyError> {
    /// let remote = tracksuit::proxy::Remote::stdio("python3", ["server.py"]).await?;
    /// # let _ = remote; Ok(()) }
    /// ```
    pub async fn stdio<I, S>(program: &str, args: I) -> Result<Remote, ProxyError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let program = program.to_owned();
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        let builder = Client::builder().era(Era::Negotiate);
        let child = connector(move || {
            let mut command = tokio::process::Command::new(&program);
            command.args(&args);
            ChildTransport::spawn(command)
        });
        Self::with_connector(builder, child, 1).await
    }

    async fn with_connector(
        builder: ClientBuilder,
        connector: Connector,
        limit: usize,
    ) -> Result<Remote, ProxyError> {
        let pool = pool::Pool::open(builder, connector, limit).await?;
        let name = pool.server_name();
        Ok(Remote {
            inner: Arc::new(Inner {
                name,
                pool,
                calls: relay::Calls::new(DEFAULT_ROUND_TTL),
            }),
        })
    }

    /// The remote's name (its `serverInfo.name`), as error messages give it.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The connection that lists and watches the remote (also the first to serve calls).
    ///
    /// ```no_run
    /// # async fn demo(remote: tracksuit::proxy::Remote) -> Result<(), tracksuit::RequestError> {
    /// remote.client().ping().await?;
    /// println!("the remote speaks {:?}", remote.client().era());
    /// # Ok(()) }
    /// ```
    pub fn client(&self) -> &Client {
        self.inner.pool.primary()
    }

    /// At most `n` calls of a 2025-11-25 remote at once (each holds a connection: a session
    /// of its own over HTTP, a process of its own over stdio; default
    /// [`DEFAULT_MAX_CONNECTIONS`] over HTTP, 1 for [`Remote::stdio`]); later calls wait for
    /// one to finish. Calls that do not overlap all use the first connection. A 2026-07-28
    /// remote serves every call on one connection.
    pub fn max_connections(self, n: usize) -> Self {
        self.inner.pool.set_limit(n.max(1));
        self
    }

    /// How long a 2026-07-28 caller may take to send its next round before the remote call
    /// it keeps open is cancelled (default [`DEFAULT_ROUND_TTL`]).
    pub fn round_ttl(self, ttl: Duration) -> Self {
        self.inner.calls.set_ttl(ttl);
        self
    }

    /// Registers every tool, prompt, resource and template the remote lists on `server`
    /// (see [`Attach`] for a name prefix) and keeps them in step with the remote's
    /// `list_changed` notifications until the remote goes away.
    pub async fn attach(
        &self,
        server: &ServerHandle,
        options: Attach,
    ) -> Result<Attached, ProxyError> {
        sync::attach(self.clone(), server.clone(), options).await
    }
}

/// What a caller sees when the remote could not answer: the remote's own JSON-RPC error
/// as it is, anything else a `-32603` naming the remote.
pub(crate) fn remote_error(remote: &str, error: RequestError) -> ErrorObject {
    let message = match error {
        RequestError::Peer(e) => return e,
        RequestError::Closed => {
            format!("the remote MCP server `{remote}` went away (its connection closed)")
        }
        RequestError::Timeout(after) => {
            format!("the remote MCP server `{remote}` did not answer within {after:?}")
        }
        other => format!("the remote MCP server `{remote}` failed: {other}"),
    };
    ErrorObject::internal(message)
}
