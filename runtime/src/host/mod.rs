//! Hosts: what runs a [`Server`](crate::Server) on a connection or an endpoint.
//!
//! - [`Server::serve`](crate::Server::serve) and [`Server::serve_stdio`](crate::Server::serve_stdio):
//!   one session over any line [`Transport`](crate::transport::Transport) (stdio, a child
//!   process, a socket, an in-memory pair);
//! - [`http`] (feature `http`): Streamable HTTP, many sessions on one axum endpoint, with
//!   their idle sweeper and the memory policy after bursts.
//!
//! A host owns sessions; transports below it only frame messages.

mod line;

#[cfg(feature = "http")]
pub mod http;

pub use line::connect_in_memory;
