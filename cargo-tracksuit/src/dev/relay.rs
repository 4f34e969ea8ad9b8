//! The stable endpoint: a JSON-RPC relay, message by message, between the client (on this
//! process's stdio) and the current server child (a `ChildTransport`).
//!
//! Nothing is translated except what a restart needs: the server's requests to the client
//! get ids of their own (`dev-<generation>-<id>`, so an answer meant for a previous server
//! never reaches the next one), the capabilities the server announces gain
//! `listChanged: true` (this endpoint sends list changes on every restart), and the session
//! state a restart must carry over is remembered: the `initialize` params, whether
//! `notifications/initialized` was sent, the log level, resource subscriptions (2025), and
//! open `subscriptions/listen` requests (2026). The restart itself is in `restart.rs`.

use super::build::{self, Package};
use crate::Error;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tracksuit::client::ChildTransport;
use tracksuit::protocol::*;
use tracksuit::transport::io::LineSink;
use tracksuit::transport::{MessageSink, MessageStream, Transport};

/// Where the subscription's id goes in a 2026 notification's `_meta`.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `notifications/subscriptions/acknowledged`.
pub const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// The code of the errors this endpoint answers itself (JSON-RPC internal error).
pub const RELAY_ERROR: i64 = -32603;

/// What a child's reader reports.
pub enum Event {
    /// A message from the server.
    Message(JsonRpcMessage),
    /// Its stdout closed: it exited.
    Exited,
}

/// One running server.
pub struct Child {
    pub generation: u64,
    sink: LineSink<tokio::process::ChildStdin>,
    /// Owns the child's stdout and the process: aborting it kills the server.
    reader: JoinHandle<()>,
    /// The copy of the build it runs from.
    staged: PathBuf,
}

impl Drop for Child {
    fn drop(&mut self) {
        self.reader.abort();
        // A running program's file can be unlinked; its process keeps it until it exits.
        let _ = std::fs::remove_file(&self.staged);
    }
}

/// A client request the current server has not answered yet.
pub struct InFlight {
    pub method: String,
    /// Kept for what a restart sends again: `initialize` not yet answered and
    /// `subscriptions/listen`.
    pub params: Option<Value>,
}

/// How to start the server.
#[derive(Clone)]
pub struct Launch {
    pub package: Package,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub init_timeout: Duration,
}

pub struct Relay<S> {
    pub client: S,
    pub child: Option<Child>,
    pub events_tx: mpsc::Sender<(u64, Event)>,
    pub events_rx: mpsc::Receiver<(u64, Event)>,
    pub next_generation: u64,
    pub launch: Launch,
    /// The client's `initialize` params (2025 sessions).
    pub init: Option<Value>,
    pub initialized: bool,
    /// The capabilities the server last answered `initialize` with.
    pub capabilities: Option<Value>,
    pub level: Option<Value>,
    pub subscribed: BTreeSet<String>,
    pub in_flight: HashMap<RequestId, InFlight>,
    /// Open `subscriptions/listen` requests and their params (2026).
    pub listens: HashMap<RequestId, Value>,
    /// The server's requests to the client: our id → (generation, the server's id).
    pub server_requests: HashMap<RequestId, (u64, RequestId)>,
    /// Requests this endpoint sent itself (a restart's replay): their answers stop here.
    pub ours: HashSet<RequestId>,
    /// Subscriptions sent again to a new server, whose second acknowledgment stops here.
    pub swallow_acks: HashSet<String>,
}

fn is_replayed(method: &str) -> bool {
    method == methods::INITIALIZE || method == "subscriptions/listen"
}

impl<S: MessageSink> Relay<S> {
    pub fn new(client: S, launch: Launch) -> Self {
        let (events_tx, events_rx) = mpsc::channel(64);
        Relay {
            client,
            child: None,
            events_tx,
            events_rx,
            next_generation: 1,
            launch,
            init: None,
            initialized: false,
            capabilities: None,
            level: None,
            subscribed: BTreeSet::new(),
            in_flight: HashMap::new(),
            listens: HashMap::new(),
            server_requests: HashMap::new(),
            ours: HashSet::new(),
            swallow_acks: HashSet::new(),
        }
    }

    /// Relays until the client goes (its input ends). The server is started from the
    /// current good build, and restarted on each new one.
    pub async fn run<C: MessageStream>(
        mut self,
        mut from_client: C,
        mut builds: watch::Receiver<PathBuf>,
    ) -> Result<(), Error> {
        let first = builds.borrow_and_update().clone();
        let child = self.spawn(&first)?;
        self.child = Some(child);
        loop {
            tokio::select! {
                message = from_client.next() => match message {
                    None => return Ok(()),
                    Some(Ok(message)) => self.on_client(message).await?,
                    // A line that is not JSON-RPC: the error response the engine made for it.
                    Some(Err(bad)) => self.send_client(JsonRpcMessage::Error(bad)).await?,
                },
                Some((generation, event)) = self.events_rx.recv() => {
                    self.on_child(generation, event).await?;
                }
                Ok(()) = builds.changed() => {
                    let executable = builds.borrow_and_update().clone();
                    self.restart(&executable).await?;
                }
            }
        }
    }

    /// Starts a server from a private copy of `executable`.
    pub fn spawn(&mut self, executable: &Path) -> Result<Child, Error> {
        let generation = self.next_generation;
        self.next_generation += 1;
        let (staged, transport) = build::exclusive(|| -> Result<_, Error> {
            let staged = self.launch.package.stage(executable)?;
            let mut command = tokio::process::Command::new(&staged);
            command.kill_on_drop(true);
            command
                .args(&self.launch.args)
                .envs(self.launch.env.iter().cloned());
            let transport = ChildTransport::spawn(command).inspect_err(|_| {
                let _ = std::fs::remove_file(&staged);
            })?;
            Ok((staged, transport))
        })?;
        let (mut stream, sink) = transport.split();
        let events = self.events_tx.clone();
        let reader = tokio::spawn(async move {
            while let Some(message) = stream.next().await {
                match message {
                    Ok(message) => {
                        if events
                            .send((generation, Event::Message(message)))
                            .await
                            .is_err()
                        {
                            return;
                        }
                    }
                    Err(bad) => eprintln!(
                        "[tracksuit dev] the server wrote a line that is not JSON-RPC ({}); stdout is for protocol messages only",
                        bad.error.message
                    ),
                }
            }
            let _ = events.send((generation, Event::Exited)).await;
        });
        Ok(Child {
            generation,
            sink,
            reader,
            staged,
        })
    }

    pub fn generation(&self) -> Option<u64> {
        self.child.as_ref().map(|c| c.generation)
    }

    pub async fn send_client(&mut self, message: JsonRpcMessage) -> Result<(), Error> {
        self.client.send(message).await?;
        self.client.flush().await?;
        Ok(())
    }

    /// Sends to the current server; `false` when there is none or it is gone.
    pub async fn send_child(&mut self, message: JsonRpcMessage) -> bool {
        match &mut self.child {
            Some(child) => send_to(child, message).await,
            None => false,
        }
    }

    async fn on_client(&mut self, message: JsonRpcMessage) -> Result<(), Error> {
        match message {
            JsonRpcMessage::Request(request) => self.client_request(request).await,
            JsonRpcMessage::Notification(note) => {
                self.client_notification(&note);
                self.send_child(JsonRpcMessage::Notification(note)).await;
                Ok(())
            }
            JsonRpcMessage::Response(response) => {
                let id = response.id.clone();
                self.client_answer(&id, JsonRpcMessage::Response(response))
                    .await;
                Ok(())
            }
            JsonRpcMessage::Error(error) => {
                if let Some(id) = error.id.clone() {
                    self.client_answer(&id, JsonRpcMessage::Error(error)).await;
                }
                Ok(())
            }
        }
    }

    async fn client_request(&mut self, request: JsonRpcRequest) -> Result<(), Error> {
        let params = request.params.clone();
        match request.method.as_str() {
            methods::INITIALIZE => self.init = Some(params.clone().unwrap_or_else(|| json!({}))),
            "subscriptions/listen" => {
                self.listens.insert(
                    request.id.clone(),
                    params.clone().unwrap_or_else(|| json!({})),
                );
            }
            "logging/setLevel" => self.level = params.clone(),
            "resources/subscribe" | "resources/unsubscribe" => {
                let uri = params
                    .as_ref()
                    .and_then(|p| p.get("uri"))
                    .and_then(Value::as_str);
                if let Some(uri) = uri {
                    if request.method == "resources/subscribe" {
                        self.subscribed.insert(uri.to_owned());
                    } else {
                        self.subscribed.remove(uri);
                    }
                }
            }
            _ => {}
        }
        let kept = is_replayed(&request.method)
            .then(|| params.clone())
            .flatten();
        let flight = InFlight {
            method: request.method.clone(),
            params: kept,
        };
        self.in_flight.insert(request.id.clone(), flight);
        let id = request.id.clone();
        if !self.send_child(JsonRpcMessage::Request(request)).await {
            self.in_flight.remove(&id);
            self.listens.remove(&id);
            let error = ErrorObject::new(
                RELAY_ERROR,
                "no server is running (cargo tracksuit dev: it exited; it starts again after the next successful build)",
            );
            self.send_client(JsonRpcMessage::error(Some(id), error))
                .await?;
        }
        Ok(())
    }

    fn client_notification(&mut self, note: &JsonRpcNotification) {
        if note.method == methods::INITIALIZED {
            self.initialized = true;
        }
        if note.method == methods::CANCELLED {
            let id = note.params.as_ref().and_then(|p| p.get("requestId"));
            if let Some(id) = id.and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
            {
                self.in_flight.remove(&id);
                self.listens.remove(&id);
            }
        }
    }

    /// The client's answer to a server request: to the server that asked, under its id.
    async fn client_answer(&mut self, id: &RequestId, mut message: JsonRpcMessage) {
        let Some((generation, original)) = self.server_requests.remove(id) else {
            return;
        };
        if self.generation() != Some(generation) {
            return;
        }
        match &mut message {
            JsonRpcMessage::Response(r) => r.id = original,
            JsonRpcMessage::Error(e) => e.id = Some(original),
            _ => return,
        }
        self.send_child(message).await;
    }

    pub async fn on_child(&mut self, generation: u64, event: Event) -> Result<(), Error> {
        if self.generation() != Some(generation) {
            return Ok(()); // a server already replaced
        }
        match event {
            Event::Exited => self.child_exited().await,
            Event::Message(message) => self.child_message(generation, message).await,
        }
    }

    async fn child_exited(&mut self) -> Result<(), Error> {
        self.child = None;
        eprintln!(
            "[tracksuit dev] the server exited; it starts again after the next successful build"
        );
        self.fail_in_flight("the server exited (cargo tracksuit dev)", false)
            .await
    }

    async fn child_message(
        &mut self,
        generation: u64,
        message: JsonRpcMessage,
    ) -> Result<(), Error> {
        match message {
            JsonRpcMessage::Response(mut response) => {
                if self.ours.remove(&response.id) {
                    return Ok(());
                }
                self.listens.remove(&response.id);
                let flight = self.in_flight.remove(&response.id);
                let method = flight.map(|f| f.method).unwrap_or_default();
                if method == methods::INITIALIZE || method == "server/discover" {
                    let mut result: Value = response.result.decode()?;
                    announce_list_changes(&mut result);
                    if method == methods::INITIALIZE {
                        self.capabilities = result.get("capabilities").cloned();
                    }
                    response.result = ResultPayload::new(&result)?;
                }
                self.send_client(JsonRpcMessage::Response(response)).await
            }
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    if self.ours.remove(id) {
                        eprintln!(
                            "[tracksuit dev] replaying session state: {}",
                            error.error.message
                        );
                        return Ok(());
                    }
                    self.in_flight.remove(id);
                    self.listens.remove(id);
                }
                self.send_client(JsonRpcMessage::Error(error)).await
            }
            JsonRpcMessage::Request(mut request) => {
                let ours = RequestId::String(format!("dev-{generation}-{}", request.id));
                let original = std::mem::replace(&mut request.id, ours.clone());
                self.server_requests.insert(ours, (generation, original));
                self.send_client(JsonRpcMessage::Request(request)).await
            }
            JsonRpcMessage::Notification(mut note) => {
                if note.method == ACKNOWLEDGED
                    && let Some(key) = subscription_key(note.params.as_ref())
                    && self.swallow_acks.remove(&key)
                {
                    return Ok(());
                }
                if note.method == methods::CANCELLED {
                    self.rename_cancelled(generation, &mut note);
                }
                self.send_client(JsonRpcMessage::Notification(note)).await
            }
        }
    }

    /// A server cancelling its own request names it by its id; the client knows ours.
    fn rename_cancelled(&self, generation: u64, note: &mut JsonRpcNotification) {
        let Some(params) = note.params.as_mut().and_then(Value::as_object_mut) else {
            return;
        };
        let Some(id) = params
            .get("requestId")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
        else {
            return;
        };
        let ours = self
            .server_requests
            .iter()
            .find(|(_, (g, original))| *g == generation && *original == id);
        if let Some((ours, _)) = ours {
            params.insert("requestId".into(), json!(ours));
        }
    }

    /// Answers every request the server was working on with an error (those a restart
    /// sends again excepted, when `keep_replayed`), and cancels its requests to the client.
    pub async fn fail_in_flight(&mut self, why: &str, keep_replayed: bool) -> Result<(), Error> {
        let pending: Vec<(RequestId, InFlight)> = self.in_flight.drain().collect();
        for (id, flight) in pending {
            if keep_replayed && is_replayed(&flight.method) {
                self.in_flight.insert(id, flight);
                continue;
            }
            self.listens.remove(&id);
            let message = format!("{why} while this request ran; send it again");
            let error = ErrorObject::new(RELAY_ERROR, message);
            self.send_client(JsonRpcMessage::error(Some(id), error))
                .await?;
        }
        let asked: Vec<RequestId> = self.server_requests.drain().map(|(ours, _)| ours).collect();
        for id in asked {
            let params = json!({ "requestId": id, "reason": why });
            let note = JsonRpcMessage::notification(methods::CANCELLED, Some(params));
            self.send_client(note).await?;
        }
        Ok(())
    }
}

/// Sends to one server; `false` when it is gone.
pub async fn send_to(child: &mut Child, message: JsonRpcMessage) -> bool {
    child.sink.send(message).await.is_ok() && child.sink.flush().await.is_ok()
}

/// `listChanged: true` on the tools, prompts and resources capabilities of an `initialize`
/// or `server/discover` result: this endpoint sends those notifications on each restart.
fn announce_list_changes(result: &mut Value) {
    let Some(capabilities) = result
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for key in ["tools", "prompts", "resources"] {
        if let Some(Value::Object(capability)) = capabilities.get_mut(key) {
            capability.insert("listChanged".into(), Value::Bool(true));
        }
    }
}

/// A subscription's id, as JSON text, from a notification's `_meta`.
pub fn subscription_key(params: Option<&Value>) -> Option<String> {
    let id = params?.get("_meta")?.get(SUBSCRIPTION_ID)?;
    serde_json::to_string(id).ok()
}
