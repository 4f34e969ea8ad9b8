//! What a request's handler answers, before the era of the request shapes it.
//!
//! Most results are built as trees. A tool's result stays typed: a 2025-11-25 session sends
//! it as it is, a 2026-07-28 request as a complete result with `resultType` and
//! `_meta.serverInfo` added ([`ResultPayload`] writes both straight from the tool's
//! [`CallToolResult`] when the response is encoded; no tree is built on the way).

use crate::protocol::{CallToolResult, ResultPayload};
use serde_json::Value;

/// A handler's result, not yet written.
#[derive(Debug)]
pub(crate) enum Answer {
    /// A result built as a tree (lists, prompts, resources, task records).
    Tree(Value),
    /// A tool's result.
    Tool(CallToolResult),
    /// A modern result written whole, `resultType` and `_meta` included (an
    /// `input_required` round).
    Shaped(Box<serde_json::value::RawValue>),
}

impl Answer {
    /// The result as a tree (for a task's stored result).
    pub(crate) fn into_value(self) -> Value {
        match self {
            Answer::Tree(value) => value,
            Answer::Tool(result) => Value::from(result),
            Answer::Shaped(text) => serde_json::from_str(text.get()).unwrap_or(Value::Null),
        }
    }

    /// The result as a 2025-11-25 response carries it (written when the response is).
    pub(crate) fn into_payload(self) -> ResultPayload {
        match self {
            Answer::Tree(value) => ResultPayload::from(value),
            Answer::Tool(result) => ResultPayload::tool(result, None),
            Answer::Shaped(text) => ResultPayload::from(text),
        }
    }
}
