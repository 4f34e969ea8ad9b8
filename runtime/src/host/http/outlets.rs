//! Where a session's (or a stateless request's) outbound messages go: into its SSE
//! streams, then to the live connection reading them.

use super::HttpSession;
use crate::peer::Outbound;
use crate::peer::sync::lock;
use crate::transport::sse::{Delivery, Streams};
use crate::transport::{Gone, Outlet};
use std::sync::Weak;
use tokio_util::sync::CancellationToken;

/// The [`Outlet`] of a stateful session: routes its messages into the session's streams,
/// then hands each to its live connection outside the lock (waiting while the client does
/// not read it, until the session closes).
pub(super) struct SessionOutlet {
    pub(super) session: Weak<HttpSession>,
    pub(super) shutdown: CancellationToken,
}

impl Outlet for SessionOutlet {
    async fn deliver(&mut self, out: Outbound) -> Result<(), Gone> {
        let delivery = {
            let session = self.session.upgrade().ok_or(Gone)?;
            let mut streams = lock(&session.streams);
            route(&mut streams, out)
        };
        hand_over(delivery, &self.shutdown).await;
        Ok(())
    }

    fn finish(&mut self) {
        if let Some(session) = self.session.upgrade() {
            lock(&session.streams).close_all();
        }
    }
}

/// Applies one outbound item to a session's streams; returns what to send, if anything.
pub(super) fn route(streams: &mut Streams, out: Outbound) -> Option<Delivery> {
    match out {
        Outbound::Message { message, related } => streams.route(&message, related.as_ref()),
        Outbound::CloseStream(request) => {
            streams.disconnect(&request);
            None
        }
        Outbound::Abandoned(request) => {
            streams.abandon(&request);
            None
        }
        Outbound::Shutdown => None,
    }
}

/// Finishes a delivery the streams could not make at once: waits while the client has not
/// read the events before it (the connection's channel is full) unless the session ends
/// meanwhile. If the connection is gone the event stays in the stream's replay buffer.
pub(super) async fn hand_over(delivery: Option<Delivery>, shutdown: &CancellationToken) {
    if let Some((live, bytes)) = delivery {
        tokio::select! {
            biased;
            _ = live.send(bytes) => {}
            _ = shutdown.cancelled() => {}
        }
    }
}
