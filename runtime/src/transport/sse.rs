//! The SSE streams of one HTTP session: which stream each outgoing message belongs to,
//! event ids, the replay buffers behind `Last-Event-ID` resumption, and live connections.
//!
//! Event ids are `{stream}-{seq}`: globally unique within the session and enough to find
//! the originating stream when a client resumes.

use crate::capacity::ReleaseSpare;
use crate::protocol::{JsonRpcMessage, RequestId};
use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use tokio::sync::mpsc;

/// The standalone (GET) stream's id.
pub(crate) const STANDALONE: u64 = 0;

/// A live SSE connection's sending side; each item is one encoded SSE event (or, in JSON
/// mode, the response body). Bounded: a connection the client does not read fills it and
/// the session's driver waits.
pub(crate) type LiveSender = mpsc::Sender<Bytes>;
/// The receiving side, drained by the HTTP response body.
pub(crate) type LiveReceiver = mpsc::Receiver<Bytes>;

/// Chunks queued on one live connection before the session's driver waits.
pub(crate) const LIVE_CAPACITY: usize = 32;

/// A live connection's channel.
pub(crate) fn live_channel() -> (LiveSender, LiveReceiver) {
    mpsc::channel(LIVE_CAPACITY)
}

/// An event to hand to a live connection once the streams' lock is released (sending may
/// wait for the client to read).
pub(crate) type Delivery = (LiveSender, Bytes);

/// How a POST's request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// An SSE stream carrying related messages and then the response.
    Sse,
    /// One JSON body with the response; related messages go to the standalone stream.
    Json,
}

struct Stream {
    request: Option<RequestId>,
    mode: Mode,
    events: VecDeque<(u64, Bytes)>,
    next_seq: u64,
    delivered: u64,
    live: Option<LiveSender>,
    done: bool,
}

impl Stream {
    fn new(request: Option<RequestId>, mode: Mode) -> Self {
        Stream {
            request,
            mode,
            events: VecDeque::new(),
            next_seq: 1,
            delivered: 0,
            live: None,
            done: false,
        }
    }
}

/// Every stream of one session.
pub(crate) struct Streams {
    next_stream: u64,
    by_request: HashMap<RequestId, u64>,
    streams: HashMap<u64, Stream>,
    finished: VecDeque<u64>,
    buffer: usize,
    keep_finished: usize,
}

/// Gives `bytes` to a live connection if its channel has room (the common case, under the
/// streams' lock, no clone); if it is full, returns the delivery to finish outside the lock.
/// `Err` if the connection is gone.
fn hand(live: &LiveSender, bytes: Bytes) -> Result<Option<Delivery>, ()> {
    match live.try_send(bytes) {
        Ok(()) => Ok(None),
        Err(mpsc::error::TrySendError::Full(bytes)) => Ok(Some((live.clone(), bytes))),
        Err(mpsc::error::TrySendError::Closed(_)) => Err(()),
    }
}

/// Encodes `message` as the SSE event `{stream}-{seq}`, serialising it straight into the
/// event's buffer (no intermediate copy of the JSON).
fn message_event(stream: u64, seq: u64, message: &JsonRpcMessage) -> Bytes {
    use std::io::Write as _;
    let mut out = Vec::with_capacity(message.encoded_len_hint(224) + 32);
    // Writes to a Vec cannot fail, and serialising a message cannot either.
    let _ = write!(out, "id: {stream}-{seq}\ndata: ");
    let _ = serde_json::to_writer(&mut out, message);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// The priming event (SEP-1699): an id and empty data, with the reconnection delay.
pub(crate) fn priming(stream: u64, retry_ms: u128) -> Bytes {
    Bytes::from(format!("id: {stream}-0\nretry: {retry_ms}\ndata: \n\n"))
}

/// Parses `{stream}-{seq}`.
pub(crate) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (s, q) = id.trim().split_once('-')?;
    Some((s.parse().ok()?, q.parse().ok()?))
}

impl Streams {
    pub(crate) fn new(buffer: usize) -> Self {
        let mut streams = HashMap::new();
        streams.insert(STANDALONE, Stream::new(None, Mode::Sse));
        Streams {
            next_stream: STANDALONE + 1,
            by_request: HashMap::new(),
            streams,
            finished: VecDeque::new(),
            buffer: buffer.max(1),
            keep_finished: 16,
        }
    }

    /// Opens the stream for a POSTed request, with the POST's connection attached. In JSON
    /// mode the connection receives just the response's JSON body. Returns the stream id, or
    /// `None` if the request id is already in flight.
    pub(crate) fn open(&mut self, request: RequestId, mode: Mode, live: LiveSender) -> Option<u64> {
        if self.by_request.contains_key(&request) {
            return None;
        }
        let id = self.next_stream;
        self.next_stream += 1;
        self.by_request.insert(request.clone(), id);
        let mut stream = Stream::new(Some(request), mode);
        stream.live = Some(live);
        self.streams.insert(id, stream);
        Some(id)
    }

    /// Attaches a live connection to `stream`. Returns what it has not seen, to send
    /// before anything that follows: events after `after` (from `Last-Event-ID`) or else
    /// everything not yet delivered; `None` if the stream is unknown. A finished stream is
    /// replayed and not attached (its connection ends after the replay).
    pub(crate) fn attach(
        &mut self,
        stream: u64,
        after: Option<u64>,
        live: LiveSender,
    ) -> Option<Vec<Bytes>> {
        let s = self.streams.get_mut(&stream)?;
        let from = after.unwrap_or(s.delivered);
        let replay = s
            .events
            .iter()
            .filter(|(seq, _)| *seq > from)
            .map(|(_, bytes)| bytes.clone())
            .collect();
        if let Some(last) = s.events.back() {
            s.delivered = s.delivered.max(last.0);
        }
        if !s.done {
            s.live = Some(live);
        }
        Some(replay)
    }

    /// Drops the live connection of `request`'s stream (the stream itself goes on).
    pub(crate) fn disconnect(&mut self, request: &RequestId) {
        if let Some(s) = self
            .by_request
            .get(request)
            .and_then(|id| self.streams.get_mut(id))
        {
            s.live = None;
        }
    }

    /// Ends `request`'s stream without a response (the request was cancelled): its live
    /// connection closes and the request id is free again.
    pub(crate) fn abandon(&mut self, request: &RequestId) {
        if let Some(id) = self.by_request.get(request).copied() {
            self.finish(id);
        }
    }

    /// Whether any live connection is attached.
    pub(crate) fn has_live(&self) -> bool {
        self.streams
            .values()
            .any(|s| s.live.as_ref().is_some_and(|l| !l.is_closed()))
    }

    /// Routes an outgoing message to its stream: records it for replay (the newest
    /// `buffer` events of each stream are kept) and gives it to the stream's live
    /// connection; if that connection's channel is full, returns the delivery for the
    /// caller to wait on outside the lock.
    pub(crate) fn route(
        &mut self,
        message: &JsonRpcMessage,
        related: Option<&RequestId>,
    ) -> Option<Delivery> {
        let response_to = match message {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        let mut target = related
            .and_then(|r| self.by_request.get(r).copied())
            .unwrap_or(STANDALONE);
        let json_mode = self
            .streams
            .get(&target)
            .is_some_and(|s| s.mode == Mode::Json);
        let completes = target != STANDALONE
            && response_to.is_some()
            && self.streams.get(&target).and_then(|s| s.request.as_ref()) == response_to;
        if json_mode {
            if completes {
                let live = self.streams.get_mut(&target).and_then(|s| s.live.take());
                self.finish(target);
                let body = Bytes::from(message.to_vec());
                return live.and_then(|live| hand(&live, body).ok().flatten());
            }
            target = STANDALONE;
        }
        let s = self.streams.get_mut(&target)?;
        let seq = s.next_seq;
        s.next_seq += 1;
        let bytes = message_event(target, seq, message);
        s.events.push_back((seq, bytes.clone()));
        if s.events.len() > self.buffer {
            s.events.pop_front();
        }
        let delivery = match &s.live {
            Some(live) => match hand(live, bytes) {
                Ok(delivery) => {
                    s.delivered = seq;
                    delivery
                }
                Err(()) => {
                    s.live = None;
                    None
                }
            },
            None => None,
        };
        if completes {
            self.finish(target);
        }
        delivery
    }

    fn finish(&mut self, stream: u64) {
        if let Some(s) = self.streams.get_mut(&stream) {
            s.done = true;
            s.live = None;
            if let Some(r) = s.request.take() {
                crate::capacity::remove(&mut self.by_request, &r);
            }
        }
        self.finished.push_back(stream);
        while self.finished.len() > self.keep_finished {
            if let Some(old) = self.finished.pop_front() {
                self.streams.remove(&old);
            }
        }
        self.streams.release_spare();
    }

    /// Closes every live connection.
    pub(crate) fn close_all(&mut self) {
        for s in self.streams.values_mut() {
            s.live = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Routes `message` and sends what it yields to the live connection, as the driver does.
    fn route_now(streams: &mut Streams, message: &JsonRpcMessage, related: &RequestId) {
        if let Some((live, bytes)) = streams.route(message, Some(related)) {
            live.try_send(bytes).unwrap();
        }
    }

    #[test]
    fn routes_related_messages_and_finishes_on_response() {
        let mut streams = Streams::new(8);
        let req = RequestId::Number(1);
        let (tx, mut rx) = live_channel();
        let id = streams.open(req.clone(), Mode::Sse, tx).unwrap();
        let note = JsonRpcMessage::notification("notifications/progress", Some(json!({})));
        route_now(&mut streams, &note, &req);
        route_now(
            &mut streams,
            &JsonRpcMessage::response(
                req.clone(),
                serde_json::value::to_raw_value(&json!({})).unwrap(),
            ),
            &req,
        );
        let first = rx.try_recv().unwrap();
        assert!(first.starts_with(format!("id: {id}-1\n").as_bytes()));
        assert!(rx.try_recv().is_ok());
        // The stream is finished: the live sender was dropped.
        assert!(matches!(
            rx.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
        // Resuming after event 1 replays only the response.
        let (tx, _rx) = live_channel();
        let replay = streams.attach(id, Some(1), tx).unwrap();
        assert_eq!(replay.len(), 1);
        assert!(replay[0].starts_with(format!("id: {id}-2\n").as_bytes()));
    }

    #[test]
    fn an_event_carries_its_id_and_the_message_as_data() {
        let message = JsonRpcMessage::response(
            RequestId::Number(3),
            serde_json::value::to_raw_value(&json!({"ok": true})).unwrap(),
        );
        let event = message_event(4, 9, &message);
        assert_eq!(
            &event[..],
            format!(
                "id: 4-9\ndata: {}\n\n",
                String::from_utf8_lossy(&message.to_vec())
            )
            .as_bytes()
        );
    }

    #[test]
    fn json_mode_diverts_related_messages_to_standalone() {
        let mut streams = Streams::new(8);
        let req = RequestId::Number(5);
        let (post, mut body) = live_channel();
        streams.open(req.clone(), Mode::Json, post).unwrap();
        let note = JsonRpcMessage::notification("notifications/message", None);
        route_now(&mut streams, &note, &req);
        assert!(body.try_recv().is_err());
        route_now(
            &mut streams,
            &JsonRpcMessage::response(
                req.clone(),
                serde_json::value::to_raw_value(&json!(1)).unwrap(),
            ),
            &req,
        );
        assert_eq!(
            &body.try_recv().unwrap()[..],
            br#"{"jsonrpc":"2.0","id":5,"result":1}"#
        );
        let (tx, _rx) = live_channel();
        assert_eq!(
            streams.attach(STANDALONE, None, tx).map(|r| r.len()),
            Some(1)
        );
        assert_eq!(parse_event_id("3-7"), Some((3, 7)));
        assert_eq!(parse_event_id("x"), None);
    }

    #[test]
    fn a_stream_without_a_reader_keeps_only_its_newest_events() {
        let mut streams = Streams::new(4);
        let req = RequestId::Number(9);
        let (tx, rx) = live_channel();
        let id = streams.open(req.clone(), Mode::Sse, tx).unwrap();
        drop(rx);
        for _ in 0..100 {
            let note = JsonRpcMessage::notification("notifications/message", None);
            assert!(streams.route(&note, Some(&req)).is_none());
        }
        let (tx, _rx) = live_channel();
        let replay = streams.attach(id, Some(0), tx).unwrap();
        assert_eq!(replay.len(), 4);
        assert!(replay[0].starts_with(format!("id: {id}-97\n").as_bytes()));
    }
}
