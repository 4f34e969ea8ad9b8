//! What a request's handler answers, before the era of the request shapes it.
//!
//! Most results are built as trees. A tool's result stays typed: a 2025-11-25 session sends
//! it as it is, a 2026-07-28 request as a complete result with `resultType` and
//! `_meta.serverInfo` added ([`ResultPayload`] writes both straight from the tool's
//! [`CallToolResult`] when the response is encoded; no tree is built on the way).

use crate::protocol::{CallToolResult, ErrorObject, ResultPayload};
use futures::future::BoxFuture;
use serde_json::Value;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A handler's result, not yet written.
#[derive(Debug)]
pub(crate) enum Answer {
    /// A result built as a tree (lists, prompts, resources, task records).
    Tree(Value),
    /// A tool's result (boxed: the answer moves through every future that carries it,
    /// and a response writes it from a box).
    Tool(Box<CallToolResult>),
    /// A 2026 `input_required` round, written whole (`resultType` and `_meta` included).
    /// Only the rounds make one, so what reads an answer knows its kind without parsing
    /// it (its text carries the sealed `requestState`: kilobytes).
    InputRequired(Box<serde_json::value::RawValue>),
}

impl Answer {
    /// The result as a tree (for a task's stored result).
    pub(crate) fn into_value(self) -> Value {
        match self {
            Answer::Tree(value) => value,
            Answer::Tool(result) => Value::from(*result),
            Answer::InputRequired(text) => serde_json::from_str(text.get()).unwrap_or(Value::Null),
        }
    }
}

/// The result as a 2025-11-25 response carries it (written when the response is).
impl From<Answer> for ResultPayload {
    fn from(answer: Answer) -> Self {
        match answer {
            Answer::Tree(value) => ResultPayload::from(value),
            Answer::Tool(result) => ResultPayload::tool(result, None),
            Answer::InputRequired(text) => ResultPayload::from(text),
        }
    }
}

/// A request's answer on its way, as the method table (or the server's layers) gives it:
/// ready at once (a list, `ping`, a refusal), or the handler's state, boxed where it was
/// made. One type for every method, so that what carries it (the span, the host's
/// `Served`) moves a few words and polls through no combinators.
pub(crate) enum Answering {
    /// Answered without waiting; `None` once taken.
    Ready(Option<Result<Answer, ErrorObject>>),
    /// A handler (or the layers around it) still to run.
    Running(BoxFuture<'static, Result<Answer, ErrorObject>>),
}

impl Answering {
    /// An answer given at once.
    pub(crate) fn ready(outcome: Result<Answer, ErrorObject>) -> Self {
        Answering::Ready(Some(outcome))
    }
}

impl Future for Answering {
    type Output = Result<Answer, ErrorObject>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Answering::Ready(outcome) => Poll::Ready(
                outcome
                    .take()
                    .expect("`Answering` polled after it answered"),
            ),
            Answering::Running(work) => work.as_mut().poll(cx),
        }
    }
}
