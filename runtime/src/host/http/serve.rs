//! Serving on a socket: `Server::serve_http` / `ServerHandle::serve_http`, and [`serve`] /
//! [`serve_with`] for a router of your own, with connection limits and `TCP_NODELAY`.

use super::{HttpOptions, StreamableHttp, connections};
use crate::server::{Server, ServerHandle};
use axum::Router;

impl Server {
    /// Builds the server and serves Streamable HTTP at `http://{addr}/mcp` with default
    /// [`HttpOptions`], with `TCP_NODELAY` on every accepted connection. A duplicate name
    /// fails with [`std::io::ErrorKind::InvalidInput`].
    ///
    /// ```no_run
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     tracksuit::Server::new(tracksuit::crate_info!()).serve_http("127.0.0.1:8000").await
    /// }
    /// ```
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<()> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`Server::serve_http`] with options.
    ///
    /// ```no_run
    /// use tracksuit::host::http::HttpOptions;
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let options = HttpOptions::default().json_response(true);
    ///     tracksuit::Server::new(tracksuit::crate_info!()).serve_http_with("127.0.0.1:8000", options).await
    /// }
    /// ```
    pub async fn serve_http_with(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        options: HttpOptions,
    ) -> std::io::Result<()> {
        self.build()?.serve_http_with(addr, options).await
    }
}

impl ServerHandle {
    /// Serves Streamable HTTP at `http://{addr}/mcp` with default [`HttpOptions`].
    ///
    /// ```no_run
    /// #[tokio::main]
    /// async fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    ///     server.serve_http("127.0.0.1:8000").await?;
    ///     Ok(())
    /// }
    /// ```
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<()> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`ServerHandle::serve_http`] with options.
    ///
    /// ```no_run
    /// use tracksuit::host::http::HttpOptions;
    /// #[tokio::main]
    /// async fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     let server = tracksuit::Server::new(tracksuit::crate_info!()).build()?;
    ///     let options = HttpOptions::default().stateless(true);
    ///     server.serve_http_with("0.0.0.0:8000", options.allowed_hosts(None)).await?;
    ///     Ok(())
    /// }
    /// ```
    pub async fn serve_http_with(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        options: HttpOptions,
    ) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let app = StreamableHttp::new(self, options.clone()).router("/mcp");
        serve_with(listener, app, &options).await
    }
}

/// Serves `app` (e.g. a [`StreamableHttp::router`] merged with your own routes) on
/// `listener` with the default connection limits of [`HttpOptions`]: see [`serve_with`].
///
/// ```no_run
/// use tracksuit::host::http::{HttpOptions, StreamableHttp, serve};
/// # async fn run(server: tracksuit::ServerHandle) -> std::io::Result<()> {
/// let app = StreamableHttp::new(server, HttpOptions::default())
///     .router("/mcp")
///     .route("/health", axum::routing::get(|| async { "ok" }));
/// serve(tokio::net::TcpListener::bind("127.0.0.1:8000").await?, app).await
/// # }
/// ```
pub async fn serve(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    serve_with(listener, app, &HttpOptions::default()).await
}

/// Serves `app` on `listener` with the connection limits of `options`
/// ([`header_read_timeout`](HttpOptions::header_read_timeout),
/// [`max_connections`](HttpOptions::max_connections)), `TCP_NODELAY` on every connection.
///
/// Plain `axum::serve` has neither: a connection that sends its head one byte at a time
/// stays open for as long as it likes, and once the process is out of file descriptors no
/// one else gets in. Without `TCP_NODELAY`, a response written in two parts (SSE headers
/// first, the result once a slow call finishes) can wait ~40 ms for the client's delayed ACK.
///
/// ```no_run
/// use std::time::Duration;
/// use tracksuit::host::http::{HttpOptions, StreamableHttp, serve_with};
/// # async fn run(server: tracksuit::ServerHandle) -> std::io::Result<()> {
/// let options = HttpOptions::default()
///     .header_read_timeout(Duration::from_secs(5))
///     .max_connections(Some(900)); // below `ulimit -n`
/// let app = StreamableHttp::new(server, options.clone()).router("/mcp");
/// serve_with(tokio::net::TcpListener::bind("127.0.0.1:8000").await?, app, &options).await
/// # }
/// ```
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    app: Router,
    options: &HttpOptions,
) -> std::io::Result<()> {
    let limits = connections::Limits {
        header_read_timeout: options.header_read_timeout,
        max_connections: options.max_connections,
    };
    connections::serve(listener, app, limits).await
}
