//! Hosts: what runs a [`Server`](crate::Server) on a connection or an endpoint.
//!
//! - [`Server::serve`](crate::Server::serve) and [`Server::serve_stdio`](crate::Server::serve_stdio):
//!   one session over any line [`Transport`](crate::transport::Transport) (stdio, a child
//!   process, a socket, an in-memory pair);
//! - [`http`] (feature `http`): Streamable HTTP, many sessions on one axum endpoint, with
//!   their idle sweeper and the memory policy after bursts.
//!
//! A host owns sessions; transports below it only frame messages.
//!
//! ```
//! use tracksuit::{Server, client::Client, transport::io::LineTransport};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // One session per TCP connection, newline-delimited JSON (the stdio framing).
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! let server = Server::new(tracksuit::crate_info!()).build()?;
//! tokio::spawn(async move {
//!     while let Ok((socket, _)) = listener.accept().await {
//!         let (read, write) = socket.into_split();
//!         tokio::spawn(server.clone().serve(LineTransport::new(read, write)));
//!     }
//! });
//! let (read, write) = tokio::net::TcpStream::connect(addr).await?.into_split();
//! let client = Client::builder().connect(LineTransport::new(read, write)).await?;
//! client.ping().await?;
//! # Ok(())
//! # }
//! ```

mod line;

#[cfg(feature = "http")]
pub mod http;

pub use line::{connect_in_memory, connect_in_memory_as};
