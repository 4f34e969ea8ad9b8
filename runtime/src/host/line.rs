//! The line host: one session of a server over a line [`Transport`].

use crate::client::{Client, ClientBuilder};
use crate::peer::RequestError;
use crate::peer::outbound_queue;
use crate::server::{Server, ServerHandle, ServerSession};
use crate::transport::{MessageStream, SinkOutlet, Transport, drive, memory};

impl Server {
    /// Builds the server and serves one connection over `transport` until the peer closes
    /// it. A duplicate name fails with [`std::io::ErrorKind::InvalidInput`].
    ///
    /// ```no_run
    /// # async fn run(server: tracksuit::Server) -> std::io::Result<()> {
    /// server.serve(tracksuit::transport::stdio::stdio()).await
    /// # }
    /// ```
    pub async fn serve<T: Transport>(self, transport: T) -> std::io::Result<()> {
        self.build()?.serve(transport).await
    }

    /// Builds the server and serves it over stdin/stdout until stdin closes.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        self.build()?.serve_stdio().await
    }
}

impl ServerHandle {
    /// Serves one connection over `transport` until the peer closes it (clone the handle to
    /// serve several).
    ///
    /// ```no_run
    /// # async fn run(server: tracksuit::ServerHandle) -> std::io::Result<()> {
    /// server.serve(tracksuit::transport::stdio::stdio()).await
    /// # }
    /// ```
    pub async fn serve<T: Transport>(self, transport: T) -> std::io::Result<()> {
        let (tx, rx) = outbound_queue(self.inner.options.outbound_queue);
        let session = ServerSession::new(self, tx);
        let (mut stream, sink) = transport.split();
        let writer = tokio::spawn(drive(
            rx,
            session.peer().closed_flag(),
            SinkOutlet::new(sink),
        ));
        while let Some(message) = stream.next().await {
            match message {
                Ok(message) => session.handle(message).await,
                Err(error) => session.reject(error).await,
            }
        }
        // Handlers are cancelled; what was already queued is written before the writer stops.
        session.close();
        drop(session);
        let _ = writer.await;
        Ok(())
    }

    /// Serves over stdin/stdout until stdin closes, with the options' message size limit.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        let limit = self.inner.options.max_message_size;
        self.serve(crate::transport::stdio::stdio().max_message_size(limit))
            .await
    }
}

/// Connects a client to `server` over an in-memory link (the server side runs on a task).
pub async fn connect_in_memory(
    server: ServerHandle,
    builder: ClientBuilder,
) -> Result<Client, RequestError> {
    let (server_end, client_end) = memory::pair();
    tokio::spawn(server.serve(server_end));
    builder.connect(client_end).await
}
