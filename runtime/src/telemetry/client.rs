//! The client's side of a request: a `CLIENT` span named as the conventions say, child of
//! the caller's current context, whose context the request carries in `params._meta`; and
//! `mcp.client.operation.duration` when the answer arrives.

use super::{TOOL_ERROR, Telemetry, keys};
use opentelemetry::trace::{SpanBuilder, SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;
use std::time::Instant;

/// One request of the client in flight (every round of a 2026-07-28 multi round-trip
/// request included: they share its span).
pub(crate) struct ClientOperation {
    cx: Context,
    telemetry: Telemetry,
    attributes: Vec<KeyValue>,
    started: Instant,
}

/// How a client request ended, for its span and its metric.
pub(crate) enum Ended {
    /// A result (`tool_failed`: a `tools/call` result with `isError: true`).
    Result {
        /// The tool reported an error.
        tool_failed: bool,
    },
    /// A failure: its `error.type` and message.
    Failed(String, String),
}

impl ClientOperation {
    /// Opens the span of `method` with `params` and writes its context into
    /// `params._meta`.
    pub(crate) fn start(
        telemetry: &Telemetry,
        method: &str,
        params: &mut Value,
        protocol_version: Option<&str>,
    ) -> ClientOperation {
        let mut attributes = vec![KeyValue::new(keys::METHOD, super::method_value(method))];
        super::target_attributes(method, Some(params), true, &mut attributes);
        if let Some(version) = protocol_version {
            attributes.push(KeyValue::new(keys::PROTOCOL_VERSION, version.to_owned()));
        }
        let current = Context::current();
        let span = telemetry.0.tracer.build_with_context(
            SpanBuilder::from_name(super::span_name(method, Some(params)))
                .with_kind(SpanKind::Client)
                .with_attributes(attributes.clone()),
            &current,
        );
        let cx = current.with_span(span);
        super::inject(&cx, params);
        ClientOperation {
            cx,
            telemetry: telemetry.clone(),
            attributes,
            started: Instant::now(),
        }
    }

    /// The context of the request's span (for what runs on its behalf).
    pub(crate) fn context(&self) -> Context {
        self.cx.clone()
    }

    /// Ends the span and records the request's duration.
    pub(crate) fn end(mut self, ended: Ended) {
        let span = self.cx.span();
        match ended {
            Ended::Result { tool_failed: false } => {}
            Ended::Result { tool_failed: true } => {
                span.set_attribute(KeyValue::new(keys::ERROR_TYPE, TOOL_ERROR));
                span.set_status(Status::error(""));
                self.attributes
                    .push(KeyValue::new(keys::ERROR_TYPE, TOOL_ERROR));
            }
            Ended::Failed(error_type, message) => {
                span.set_attribute(KeyValue::new(keys::ERROR_TYPE, error_type.clone()));
                if error_type.parse::<i64>().is_ok() {
                    span.set_attribute(KeyValue::new(keys::STATUS_CODE, error_type.clone()));
                    self.attributes
                        .push(KeyValue::new(keys::STATUS_CODE, error_type.clone()));
                }
                span.set_status(Status::error(message));
                self.attributes
                    .push(KeyValue::new(keys::ERROR_TYPE, error_type));
            }
        }
        span.end();
        let elapsed = self.started.elapsed().as_secs_f64();
        // The metric's attributes: the span's, less the high-cardinality resource URI.
        self.attributes
            .retain(|kv| kv.key.as_str() != keys::RESOURCE_URI);
        self.telemetry
            .0
            .client_operation
            .record(elapsed, &self.attributes);
    }
}
