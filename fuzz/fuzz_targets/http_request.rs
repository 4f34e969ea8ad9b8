//! Streamable HTTP, driven through the axum `Router` as a tower service (no sockets).
//!
//! The input is text, so seeds stay readable and mutations stay meaningful:
//!
//! ```text
//! !json stateless anyhost raw nohost optional first line: options and harness switches
//! POST /mcp                          method and optional path
//! accept: application/json, text/event-stream
//! mcp-session-id: $SESSION           headers, `name: value`, up to a blank line
//!
//! {"jsonrpc":"2.0","id":1,...}       the body: everything up to the next separator
//! ===                                separator line; then the next request
//! ```
//!
//! A request without a `host` header gets `host: localhost:8000`, as any HTTP/1.1 client
//! sends one (`nohost` leaves it out, to reach the missing-Host refusal). In header values
//! and bodies, `$SESSION` is the session the harness opened (it sends a
//! valid `initialize` and `notifications/initialized` first, unless `raw`), `$NEW` the last
//! session id any response assigned, `$EVENT` the last SSE event id seen, `$TASK` the
//! last task id the server announced, and `$STATE` / `$KEY` the `requestState` and the
//! first `inputRequests` key of the last `input_required` result (a genuine sealed state,
//! so inputs reach the code after it is opened: answers, replay, once blocks, round claims). SSE bodies are
//! kept open and drained after every request, so later requests can answer the server's
//! requests and resume streams.
//!
//! The server must not panic, every JSON or SSE payload it sends must be a well-formed
//! JSON-RPC message, no request may hang, and afterwards a fresh `initialize` and `ping`
//! must still be answered.

#![no_main]

use axum::body::{Body, BodyDataStream};
use futures::StreamExt;
use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use libfuzzer_sys::fuzz_target;
use std::time::Duration;
use tower::ServiceExt;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::JsonRpcMessage;
use tracksuit_fuzz::{
    INITIALIZE, INITIALIZED, PING, assert_valid_message, is_ping_answer, request_state_of,
    task_id_of,
};

/// Requests per input, headers per request, and SSE events read per input.
const MAX_REQUESTS: usize = 8;
const MAX_HEADERS: usize = 16;
const MAX_EVENTS: usize = 256;
/// A small body limit, so the fuzzer reaches the 413 path.
const MAX_BODY: usize = 2048;
/// Virtual time (the clock is paused) any one exchange may take: far above every timeout
/// the server sets, so reaching it means a request hangs.
const DEADLINE: Duration = Duration::from_secs(24 * 3600);
/// How long a stream must stay silent to count as drained (virtual time: it only passes
/// once nothing else can run).
const QUIET: Duration = Duration::from_millis(10);

const SESSION_HEADER: &str = "mcp-session-id";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";

fuzz_target!(|data: &[u8]| {
    tracksuit_fuzz::runtime().block_on(run(data));
});

#[derive(Default)]
struct Flags {
    json: bool,
    stateless: bool,
    any_host: bool,
    raw: bool,
    no_host: bool,
}

/// What the harness learned from responses so far.
#[derive(Default)]
struct Seen {
    session: String,
    new: String,
    event: String,
    task: String,
    state: String,
    key: String,
    events: usize,
    open: Vec<BodyDataStream>,
}

impl Seen {
    fn note(&mut self, message: &JsonRpcMessage) {
        if let Some(id) = task_id_of(message) {
            self.task = id;
        }
        if let Some((state, key)) = request_state_of(message) {
            self.state = state;
            self.key = key;
        }
    }
}

async fn run(data: &[u8]) {
    let (flags, rest) = parse_flags(data);
    let mut options = HttpOptions::default()
        .json_response(flags.json)
        .stateless(flags.stateless)
        .max_body_size(MAX_BODY);
    if flags.any_host {
        options = options.allowed_hosts(None);
    }
    let http = StreamableHttp::new(tracksuit_fuzz::server(), options);
    let app = http.router("/mcp");
    let mut seen = Seen::default();

    if !flags.raw {
        let response = send(&app, post(INITIALIZE, None)).await;
        assert_eq!(
            response.status(),
            StatusCode::OK,
            "the harness initialize failed"
        );
        if let Some(id) = session_id(&response) {
            seen.session = id;
        }
        settle(response, &mut seen).await;
        let session = (!seen.session.is_empty()).then(|| seen.session.clone());
        let response = send(&app, post(INITIALIZED, session.as_deref())).await;
        settle(response, &mut seen).await;
    }

    for block in split_blocks(rest).take(MAX_REQUESTS) {
        if let Some(request) = build(block, &seen, !flags.no_host) {
            let response = send(&app, request).await;
            if let Some(id) = session_id(&response) {
                seen.new = id;
            }
            settle(response, &mut seen).await;
        }
        drain(&mut seen).await;
    }

    // Whatever happened, a new client must still get through.
    let session = if flags.stateless {
        None
    } else {
        let response = send(&app, post(INITIALIZE, None)).await;
        assert_eq!(
            response.status(),
            StatusCode::OK,
            "a fresh initialize failed"
        );
        let id = session_id(&response).expect("a fresh initialize assigns a session");
        read_answers(response).await;
        Some(id)
    };
    let response = send(&app, post(PING, session.as_deref())).await;
    assert_eq!(response.status(), StatusCode::OK, "a ping was refused");
    assert!(
        read_answers(response).await.iter().any(is_ping_answer),
        "the ping was not answered"
    );
    drop(seen);
    // Sessions end with the endpoint; nothing may panic on the way out.
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
}

fn parse_flags(data: &[u8]) -> (Flags, &[u8]) {
    let mut flags = Flags::default();
    let Some(rest) = data.strip_prefix(b"!") else {
        return (flags, data);
    };
    let end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
    for word in rest[..end].split(|b| b.is_ascii_whitespace() || *b == b',') {
        match word {
            b"json" => flags.json = true,
            b"stateless" => flags.stateless = true,
            b"anyhost" => flags.any_host = true,
            b"raw" => flags.raw = true,
            b"nohost" => flags.no_host = true,
            _ => {}
        }
    }
    (flags, rest.get(end + 1..).unwrap_or_default())
}

/// Splits the input at `===` lines.
fn split_blocks(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(data);
    std::iter::from_fn(move || {
        let current = rest?;
        match find(current, b"\n===\n") {
            Some(i) => {
                rest = Some(&current[i + 5..]);
                Some(&current[..i])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Replaces the placeholders.
fn expand(bytes: &[u8], seen: &Seen) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        let hit = [
            (&b"$SESSION"[..], &seen.session),
            (&b"$NEW"[..], &seen.new),
            (&b"$EVENT"[..], &seen.event),
            (&b"$TASK"[..], &seen.task),
            (&b"$STATE"[..], &seen.state),
            (&b"$KEY"[..], &seen.key),
        ]
        .into_iter()
        .find(|(key, _)| rest.starts_with(key));
        match hit {
            Some((key, value)) => {
                out.extend_from_slice(value.as_bytes());
                rest = &rest[key.len()..];
            }
            None => {
                out.push(rest[0]);
                rest = &rest[1..];
            }
        }
    }
    out
}

/// One block as a request; `None` if its method or a header cannot be put on the wire at
/// all (hyper would refuse it before any server code ran).
fn build(block: &[u8], seen: &Seen, default_host: bool) -> Option<Request<Body>> {
    let (head, body) = match find(block, b"\n\n") {
        Some(i) => (&block[..i], &block[i + 2..]),
        None => (block, &b""[..]),
    };
    let mut lines = head.split(|b| *b == b'\n');
    let first = lines.next().unwrap_or_default();
    let mut words = first.splitn(2, |b| *b == b' ');
    let method = Method::from_bytes(words.next().unwrap_or_default()).ok()?;
    let uri = words
        .next()
        .and_then(|p| http::Uri::try_from(p).ok())
        .unwrap_or_else(|| http::Uri::from_static("/mcp"));
    let mut request = Request::builder().method(method).uri(uri);
    let mut host = false;
    for line in lines.take(MAX_HEADERS) {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let name = HeaderName::from_bytes(line[..colon].trim_ascii()).ok()?;
        let value = HeaderValue::from_bytes(&expand(line[colon + 1..].trim_ascii(), seen)).ok()?;
        host |= name == http::header::HOST;
        request = request.header(name, value);
    }
    if default_host && !host {
        request = request.header(http::header::HOST, "localhost:8000");
    }
    request.body(Body::from(expand(body, seen))).ok()
}

fn post(body: &str, session: Option<&str>) -> Request<Body> {
    let mut request = Request::post("/mcp")
        .header("host", "localhost:8000")
        .header("accept", ACCEPT_BOTH)
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(id) = session {
        request = request.header(SESSION_HEADER, id);
    }
    request
        .body(Body::from(body.to_owned()))
        .expect("a valid request")
}

async fn send(app: &axum::Router, request: Request<Body>) -> Response<Body> {
    match tokio::time::timeout(DEADLINE, app.clone().oneshot(request)).await {
        Ok(Ok(response)) => response,
        Ok(Err(never)) => match never {},
        Err(_) => panic!("a request got no response"),
    }
}

fn session_id(response: &Response<Body>) -> Option<String> {
    let id = response.headers().get(SESSION_HEADER)?.to_str().ok()?;
    Some(id.to_owned())
}

fn is_sse(response: &Response<Body>) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
}

/// Checks a response body: SSE streams are kept open (and read by [`drain`]), any other
/// non-empty body must be one JSON-RPC message.
async fn settle(response: Response<Body>, seen: &mut Seen) {
    if is_sse(&response) {
        seen.open.push(response.into_body().into_data_stream());
        drain(seen).await;
        return;
    }
    let bytes = tokio::time::timeout(
        DEADLINE,
        axum::body::to_bytes(response.into_body(), 1 << 20),
    )
    .await
    .expect("a JSON body never ended");
    if let Ok(bytes) = bytes
        && !bytes.is_empty()
    {
        seen.note(&assert_valid_message(&bytes));
    }
}

/// Reads every open SSE stream until it goes quiet or ends.
async fn drain(seen: &mut Seen) {
    let open = std::mem::take(&mut seen.open);
    let mut kept = Vec::new();
    for mut stream in open {
        let mut ended = false;
        while seen.events < MAX_EVENTS {
            match tokio::time::timeout(QUIET, stream.next()).await {
                Ok(Some(Ok(frame))) => {
                    seen.events += 1;
                    for (id, data) in parse_events(&frame) {
                        if let Some(id) = id {
                            seen.event = id;
                        }
                        if let Some(data) = data {
                            seen.note(&assert_valid_message(&data));
                        }
                    }
                }
                Ok(Some(Err(_)) | None) => {
                    ended = true;
                    break;
                }
                Err(_) => break,
            }
        }
        if !ended && seen.events < MAX_EVENTS {
            kept.push(stream);
        }
    }
    seen.open = kept;
}

/// The `(id, data)` of each SSE event in a chunk; empty data (the priming event) is `None`.
fn parse_events(chunk: &[u8]) -> Vec<(Option<String>, Option<Vec<u8>>)> {
    let text = String::from_utf8_lossy(chunk);
    text.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|event| {
            let mut id = None;
            let mut data = Vec::new();
            for line in event.lines() {
                if let Some(v) = line.strip_prefix("id:") {
                    id = Some(v.trim().to_owned());
                } else if let Some(v) = line.strip_prefix("data:") {
                    if !data.is_empty() {
                        data.push(b'\n');
                    }
                    data.extend_from_slice(v.strip_prefix(' ').unwrap_or(v).as_bytes());
                }
            }
            (id, (!data.is_empty()).then_some(data))
        })
        .collect()
}

/// Every message of a response that the harness itself sent: a JSON body, or an SSE
/// stream read until it ends (its request's answer closes it).
async fn read_answers(response: Response<Body>) -> Vec<JsonRpcMessage> {
    if !is_sse(&response) {
        let bytes = tokio::time::timeout(
            DEADLINE,
            axum::body::to_bytes(response.into_body(), 1 << 20),
        )
        .await
        .expect("a JSON body never ended")
        .expect("a readable body");
        return vec![assert_valid_message(&bytes)];
    }
    let mut stream = response.into_body().into_data_stream();
    let mut messages = Vec::new();
    while let Some(frame) = tokio::time::timeout(DEADLINE, stream.next())
        .await
        .expect("an SSE stream stayed open after its response")
    {
        let frame = frame.expect("a readable SSE frame");
        for (_, data) in parse_events(&frame) {
            if let Some(data) = data {
                messages.push(assert_valid_message(&data));
            }
        }
    }
    messages
}
