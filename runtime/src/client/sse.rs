//! Reading a `text/event-stream` body incrementally: the client side of SSE
//! (`id`, `retry`, `data`; events are dispatched on a blank line).

/// One dispatched event.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// The `data` lines joined with `\n` (empty for a priming event).
    pub(crate) data: String,
}

/// An incremental parser: feed it chunks, take events out. It remembers the stream's last
/// event id and `retry` hint, which outlive the events that carried them.
#[derive(Debug, Default)]
pub(crate) struct Parser {
    buffer: Vec<u8>,
    data: Option<String>,
    /// The last `id` field seen (sent back as `Last-Event-ID` when resuming).
    pub(crate) last_event_id: Option<String>,
    /// The last `retry` field seen, in milliseconds.
    pub(crate) retry_ms: Option<u64>,
}

impl Parser {
    /// Feeds a chunk; returns the events it completes.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<Event> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
            let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                if let Some(data) = self.data.take() {
                    events.push(Event { data });
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (&*line, ""),
            };
            match field {
                "data" => match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some(value.to_owned()),
                },
                "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
                "retry" => {
                    if let Ok(ms) = value.parse() {
                        self.retry_ms = Some(ms);
                    }
                }
                _ => {}
            }
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_ids_and_retry_across_chunks() {
        let mut p = Parser::default();
        assert!(p.feed(b"id: e-1\r\nretry: 500\r\ndata: \r\n").is_empty());
        let events = p.feed(b"\r\nevent: message\ndata: {\"a\":\ndata: 1}\n\n: comment\n");
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].data, "");
        assert_eq!(events[1].data, "{\"a\":\n1}");
        assert_eq!(p.last_event_id.as_deref(), Some("e-1"));
        assert_eq!(p.retry_ms, Some(500));
        assert!(p.feed(b"retry: soon\n\n").is_empty());
        assert_eq!(p.retry_ms, Some(500));
    }
}
