//! The remote's connections, and how a question the remote asks finds its caller.
//!
//! A 2026-07-28 remote asks inside its answer (`input_required`), which the client answers
//! in the task that sent the request: the proxied call's task, which carries its route in
//! a task-local ([`ROUTE`]). A 2025-11-25 remote sends a request on the session, which says
//! nothing of the call it belongs to: there each call leases a connection of its own, and
//! the connection's [`Slot`] names the call holding it.

use super::{Connector, ProxyError, relay::Event};
use crate::client::{Client, ClientBuilder, Era};
use crate::peer::sync::lock;
use crate::protocol::{ErrorObject, methods};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::{Arc, Mutex};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};

/// Where the questions and progress of one proxied call go.
pub(super) type Route = mpsc::UnboundedSender<Event>;

tokio::task_local! {
    /// The route of the proxied call this task runs.
    pub(super) static ROUTE: Route;
}

/// The call a connection is leased to, if any.
type Slot = Arc<Mutex<Option<Route>>>;

/// One client connection to the remote.
pub(super) struct Conn {
    pub(super) client: Client,
    slot: Slot,
}

impl Conn {
    async fn open(builder: &ClientBuilder, connector: &Connector) -> Result<Conn, ProxyError> {
        let slot: Slot = Arc::default();
        let client = connector(relaying(builder.clone(), &slot)).await?;
        Ok(Conn { client, slot })
    }
}

/// `builder` with elicitation and sampling handlers that hand the remote's questions to
/// the caller of the call they belong to.
fn relaying(builder: ClientBuilder, slot: &Slot) -> ClientBuilder {
    let (elicit, sample) = (slot.clone(), slot.clone());
    builder
        .on_elicitation(move |params| ask(elicit.clone(), methods::ELICITATION_CREATE, params))
        .on_sampling(move |params| ask(sample.clone(), methods::SAMPLING_CREATE_MESSAGE, params))
}

/// Relays one question to its call and waits for the caller's answer.
async fn ask<P: Serialize, R: DeserializeOwned>(
    slot: Slot,
    method: &'static str,
    params: P,
) -> Result<R, ErrorObject> {
    let route = ROUTE.try_with(Clone::clone).ok();
    let Some(route) = route.or_else(|| lock(&slot).clone()) else {
        return Err(ErrorObject::unavailable(format!(
            "`{method}` outside a proxied call: no caller to ask"
        )));
    };
    let params = serde_json::to_value(params).map_err(ErrorObject::internal)?;
    let (reply, answer) = oneshot::channel();
    let event = Event::Ask {
        method: method.to_owned(),
        params,
        reply,
    };
    if route.send(event).is_err() {
        return Err(ErrorObject::internal("the proxied call has ended"));
    }
    let answer = answer
        .await
        .map_err(|_| ErrorObject::internal("the caller went away before answering"))??;
    serde_json::from_value(answer).map_err(|e| {
        ErrorObject::internal(format!(
            "the caller's answer to `{method}` is malformed: {e}"
        ))
    })
}

/// The remote's connections: the first (lists, watches, serves calls), and for a
/// 2025-11-25 remote more as calls overlap.
pub(super) struct Pool {
    builder: ClientBuilder,
    connector: Connector,
    primary: Arc<Conn>,
    idle: Mutex<Vec<Arc<Conn>>>,
    permits: Mutex<Arc<Semaphore>>,
}

impl Pool {
    pub(super) async fn open(
        builder: ClientBuilder,
        connector: Connector,
        limit: usize,
    ) -> Result<Pool, ProxyError> {
        let primary = Arc::new(Conn::open(&builder, &connector).await?);
        Ok(Pool {
            builder,
            connector,
            idle: Mutex::new(vec![primary.clone()]),
            primary,
            permits: Mutex::new(Arc::new(Semaphore::new(limit))),
        })
    }

    pub(super) fn primary(&self) -> &Client {
        &self.primary.client
    }

    pub(super) fn server_name(&self) -> String {
        let client = &self.primary.client;
        let from_init = client.server_init().map(|i| i.server_info.name.clone());
        let from_discover = || client.discovered()?.server().map(|i| i.name);
        from_init
            .or_else(from_discover)
            .unwrap_or_else(|| "remote".to_owned())
    }

    pub(super) fn set_limit(&self, n: usize) {
        *lock(&self.permits) = Arc::new(Semaphore::new(n));
    }

    /// A connection for one call whose questions go to `route`.
    pub(super) async fn lease(&self, route: Route) -> Result<Lease<'_>, ProxyError> {
        if self.primary.client.era() == Era::Stateless {
            // Questions come back inside the call's own answers: any number of calls
            // share the connection, each asked through its task's ROUTE.
            return Ok(Lease {
                conn: self.primary.clone(),
                pool: self,
                _permit: None,
            });
        }
        let permits = lock(&self.permits).clone();
        let permit = permits
            .acquire_owned()
            .await
            .map_err(|_| ProxyError::Connect("the proxy is shutting down".into()))?;
        let conn = loop {
            let next = self.idle_conn();
            match next {
                Some(conn) if conn.client.is_closed() => continue,
                Some(conn) => break conn,
                None => break Arc::new(Conn::open(&self.builder, &self.connector).await?),
            }
        };
        *lock(&conn.slot) = Some(route);
        Ok(Lease {
            conn,
            pool: self,
            _permit: Some(permit),
        })
    }
}

impl Pool {
    /// An idle connection, the first one when it is idle: calls that do not overlap all
    /// reach the remote on the session (or process) that lists and watches it.
    fn idle_conn(&self) -> Option<Arc<Conn>> {
        let mut idle = lock(&self.idle);
        match idle.iter().position(|c| Arc::ptr_eq(c, &self.primary)) {
            Some(first) => Some(idle.swap_remove(first)),
            None => idle.pop(),
        }
    }
}

/// A connection held by one call; given back when the call ends.
pub(super) struct Lease<'p> {
    conn: Arc<Conn>,
    pool: &'p Pool,
    _permit: Option<OwnedSemaphorePermit>,
}

impl Lease<'_> {
    pub(super) fn client(&self) -> &Client {
        &self.conn.client
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if self._permit.is_none() {
            return;
        }
        *lock(&self.conn.slot) = None;
        if !self.conn.client.is_closed() {
            lock(&self.pool.idle).push(self.conn.clone());
        }
    }
}
