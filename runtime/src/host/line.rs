//! The line host: one session of a server over a line [`Transport`].

use crate::caller::{Caller, Principal};
use crate::client::{Client, ClientBuilder};
use crate::peer::{RequestError, outbound_queue};
use crate::protocol::JsonRpcMessage;
use crate::server::{Scope, Server, ServerHandle, ServerSession, is_modern, serve};
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
    ///
    /// ```no_run
    /// #[tracksuit::mcp_tool]
    /// /// Says pong.
    /// async fn ping() -> String { "pong".into() }
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     tracksuit::Server::new(tracksuit::crate_info!()).tool(ping).serve_stdio().await
    /// }
    /// ```
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
        self.serve_line(transport, Caller::default()).await
    }

    /// [`serve`](Self::serve), every request made by `principal`: a line connection has no
    /// token, so this is how a local user (stdio) or a test reaches tools with `scopes`,
    /// task binding and [`Ctx::principal`](crate::Ctx::principal).
    ///
    /// ```no_run
    /// # async fn run(server: tracksuit::ServerHandle) -> std::io::Result<()> {
    /// let me = tracksuit::Principal::new("local-user").with_scopes(["files:write"]);
    /// server.serve_as(tracksuit::transport::stdio::stdio(), me).await
    /// # }
    /// ```
    pub async fn serve_as<T: Transport>(
        self,
        transport: T,
        principal: Principal,
    ) -> std::io::Result<()> {
        self.serve_line(transport, Caller::of(principal)).await
    }

    /// Serves the connection on a task of its own, aborted if this future is dropped.
    ///
    /// The caller is often `main`'s `block_on`, which is not one of the runtime's workers:
    /// a reader there hands every request to a worker and every answer back, two thread
    /// wake-ups per message. On a worker, a request spawned by the reader waits in that
    /// worker's next-task slot and runs there when the reader waits for the next line
    /// (measured on stdio: four context switches per request became one, and a third to
    /// a half of the server's CPU per call went with them).
    async fn serve_line<T: Transport>(self, transport: T, caller: Caller) -> std::io::Result<()> {
        let reading = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(
            self.read_line(transport, caller),
        ));
        match reading.await {
            Ok(done) => done,
            // The reader panicked: so does `serve`, as when the reader ran on its task.
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            // Cancelled by the runtime shutting down (only dropping this aborts it).
            Err(error) => Err(std::io::Error::other(error)),
        }
    }

    /// Reads the connection's messages and serves each until the input ends.
    async fn read_line<T: Transport>(self, transport: T, caller: Caller) -> std::io::Result<()> {
        let (tx, rx) = outbound_queue(self.inner.options.outbound_queue);
        let session = ServerSession::new(self.clone(), tx.clone());
        let (mut stream, sink) = transport.split();
        let writer = tokio::spawn(drive(
            rx,
            session.peer().closed_flag(),
            SinkOutlet::new(sink),
        ));
        // The first message picks the era: a modern (2026-07-28) request makes this a
        // connection of independent modern requests; anything else, a 2025 session.
        let mut modern = false;
        let mut first = true;
        while let Some(message) = stream.next().await {
            let message = match message {
                Ok(message) => message,
                Err(error) => {
                    session.reject(error).await;
                    continue;
                }
            };
            if std::mem::take(&mut first)
                && let JsonRpcMessage::Request(r) = &message
                && is_modern(&r.method, r.params.as_ref())
            {
                modern = true;
            }
            let scope = match modern {
                true => Scope::Line(&session),
                false => Scope::Session(&session),
            };
            // Each request on a task of its own: the reader goes on with the next.
            if let Some(work) = serve(&self, message, scope, caller.clone())
                .on_engine()
                .await
            {
                work.spawn();
            }
        }
        // The input ended: every request received is answered (one waiting on the client
        // fails at once, as nothing can answer it any more), then the session closes and
        // what was queued is written before the writer stops.
        session.peer().finish_incoming().await;
        session.close();
        drop(session);
        drop(tx);
        let _ = writer.await;
        Ok(())
    }

    /// Serves over stdin/stdout until stdin closes, with the options' message size limit.
    ///
    /// ```no_run
    /// # fn main() {}
    /// async fn run(server: tracksuit::ServerHandle) -> std::io::Result<()> {
    ///     // A built handle can also add tools at run time while it serves.
    ///     server.serve_stdio().await
    /// }
    /// ```
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        let limit = self.inner.options.max_message_size;
        self.serve(crate::transport::stdio::stdio().max_message_size(limit))
            .await
    }
}

/// Connects a client to `server` over an in-memory link (the server side runs on a task).
///
/// ```
/// use tracksuit::{Server, client::Client, mcp_tool};
/// /// Adds two numbers.
/// #[mcp_tool]
/// async fn add(a: i64, b: i64) -> String { (a + b).to_string() }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).tool(add).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await?;
/// assert_eq!(result.content[0].as_text(), Some("5"));
/// # Ok(())
/// # }
/// ```
pub async fn connect_in_memory(
    server: ServerHandle,
    builder: ClientBuilder,
) -> Result<Client, RequestError> {
    let (server_end, client_end) = memory::pair();
    tokio::spawn(server.serve(server_end));
    builder.connect(client_end).await
}

/// [`connect_in_memory`], every request made by `principal`: how a test reaches a tool
/// with `scopes` (or the principal's tasks) in process.
///
/// ```
/// use tracksuit::{Principal, Server, client::Client, mcp_tool};
/// /// Writes a file.
/// #[mcp_tool(scopes = ["files:write"])]
/// async fn write(path: String) -> String { format!("wrote {path}") }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).tool(write).build()?;
/// let writer = Principal::new("alice").with_scopes(["files:write"]);
/// let client = tracksuit::host::connect_in_memory_as(server.clone(), Client::builder(), writer).await?;
/// let result = client.call_tool("write", serde_json::json!({"path": "/a"})).await?;
/// assert_eq!(result.content[0].as_text(), Some("wrote /a"));
/// // Without the scope, refused before it runs.
/// let reader = Principal::new("bob");
/// let client = tracksuit::host::connect_in_memory_as(server, Client::builder(), reader).await?;
/// assert!(client.call_tool("write", serde_json::json!({"path": "/a"})).await.is_err());
/// # Ok(())
/// # }
/// ```
pub async fn connect_in_memory_as(
    server: ServerHandle,
    builder: ClientBuilder,
    principal: Principal,
) -> Result<Client, RequestError> {
    let (server_end, client_end) = memory::pair();
    tokio::spawn(server.serve_as(server_end, principal));
    builder.connect(client_end).await
}

#[cfg(test)]
mod tests {
    use crate::protocol::{JsonRpcError, JsonRpcMessage, RequestId};
    use crate::server::Server;
    use crate::transport::memory::{self, MemoryStream};
    use crate::transport::{MessageSink, MessageStream, Transport};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// A stream that notes the name of each thread it is read on.
    struct Noting(MemoryStream, Arc<Mutex<Vec<Option<String>>>>);

    impl MessageStream for Noting {
        async fn next(&mut self) -> Option<Result<JsonRpcMessage, JsonRpcError>> {
            let thread = std::thread::current().name().map(str::to_owned);
            self.1.lock().expect("not poisoned").push(thread);
            self.0.next().await
        }
    }

    /// The pair's halves as a transport with a noting stream.
    struct Split(Noting, crate::transport::memory::MemorySink);

    impl Transport for Split {
        type Stream = Noting;
        type Sink = crate::transport::memory::MemorySink;
        fn split(self) -> (Noting, Self::Sink) {
            (self.0, self.1)
        }
    }

    fn ping(id: i64) -> JsonRpcMessage {
        JsonRpcMessage::request(RequestId::Number(id), "ping", None)
    }

    #[test]
    fn the_reader_runs_on_a_worker_not_on_the_callers_thread() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("worker")
            .enable_all()
            .build()
            .expect("a runtime");
        let threads = Arc::new(Mutex::new(Vec::new()));
        let (server_end, client_end) = memory::pair();
        let (stream, sink) = server_end.split();
        let transport = Split(Noting(stream, threads.clone()), sink);
        let server = Server::new(crate::crate_info!()).build().expect("a server");
        let (mut from_server, mut to_server) = client_end.split();
        // `block_on` runs `serve` on this thread, as `#[tokio::main]` runs `main`.
        std::thread::Builder::new()
            .name("caller".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let serving = server.serve(transport);
                    let talking = async move {
                        to_server.send(ping(1)).await.expect("sent");
                        let answer = from_server.next().await;
                        assert!(matches!(answer, Some(Ok(JsonRpcMessage::Response(_)))));
                    };
                    tokio::select! {
                        _ = serving => panic!("the connection ended before the answer"),
                        () = talking => {}
                    }
                });
            })
            .expect("a thread")
            .join()
            .expect("the ping was answered");
        let threads = threads.lock().expect("not poisoned");
        assert!(!threads.is_empty(), "the stream was read");
        assert!(
            threads.iter().all(|t| t.as_deref() == Some("worker")),
            "read on {threads:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn dropping_serve_stops_reading() {
        let server = Server::new(crate::crate_info!()).build().expect("a server");
        let (server_end, client_end) = memory::pair();
        let (mut from_server, mut to_server) = client_end.split();
        let serving = tokio::spawn(server.serve(server_end));
        to_server.send(ping(1)).await.expect("sent");
        assert!(matches!(from_server.next().await, Some(Ok(_))), "answered");
        serving.abort();
        // The reader's task is aborted with it: the server's end goes, and sending fails
        // within a few turns of the runtime. A reader left running reads on until its
        // answers fill the unread link, and then the sending waits (the paused clock then
        // runs out the minute).
        let gone = tokio::time::timeout(Duration::from_secs(60), async {
            let mut sent = 0;
            while sent < 1_000 && to_server.send(ping(2 + sent)).await.is_ok() {
                sent += 1;
                tokio::task::yield_now().await;
            }
            sent
        })
        .await;
        assert!(
            matches!(gone, Ok(sent) if sent < 1_000),
            "the connection is still read after `serve` was dropped"
        );
    }
}
