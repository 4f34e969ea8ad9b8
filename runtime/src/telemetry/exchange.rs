//! A request a handler sends the client (`sampling/createMessage`, `elicitation/create`,
//! `roots/list`, `ping`) as a span of its own: a `CLIENT` span, child of the request the
//! handler serves, whose context goes to the client in the request's `params._meta`.
//!
//! Only under an [`OtelLayer`](crate::otel::OtelLayer): the layer runs the handler in an
//! OpenTelemetry context that carries a [`Scope`], and a handler without one sends its
//! requests as before.

use super::{Telemetry, keys};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;
use std::time::Instant;

/// Marks the OpenTelemetry context a handler runs in under an `OtelLayer`: where the
/// spans of the requests it sends go.
pub(crate) struct Scope(pub(crate) Telemetry);

/// One request to the client in flight, its span open. Dropped without [`Exchange::end`]
/// (the handler was cancelled), its span ends with the drop.
pub(crate) struct Exchange {
    cx: Context,
    telemetry: Telemetry,
    method: opentelemetry::Value,
    started: Instant,
}

impl Exchange {
    /// Opens the span of a `method` request with `params`, a child of the current context,
    /// and writes its context into `params._meta`; `None` outside an `OtelLayer`.
    pub(crate) fn start(method: &str, params: &mut Value) -> Option<Exchange> {
        let current = Context::current();
        let telemetry = current.get::<Scope>()?.0.clone();
        let method = super::method_value(method);
        let span = telemetry.0.tracer.build_with_context(
            opentelemetry::trace::SpanBuilder::from_name(method.as_str().into_owned())
                .with_kind(SpanKind::Client)
                .with_attributes([KeyValue::new(keys::METHOD, method.clone())]),
            &current,
        );
        let cx = current.with_span(span);
        super::inject(&cx, params);
        Some(Exchange {
            cx,
            telemetry,
            method,
            started: Instant::now(),
        })
    }

    /// Ends the span (with `error.type` and an error status when `failure` is one: its
    /// type and message) and records `mcp.client.operation.duration`.
    pub(crate) fn end(self, failure: Option<(String, String)>) {
        let span = self.cx.span();
        let mut attributes = vec![KeyValue::new(keys::METHOD, self.method)];
        if let Some((error_type, message)) = failure {
            span.set_attribute(KeyValue::new(keys::ERROR_TYPE, error_type.clone()));
            if error_type.parse::<i64>().is_ok() {
                span.set_attribute(KeyValue::new(keys::STATUS_CODE, error_type.clone()));
            }
            span.set_status(Status::error(message));
            attributes.push(KeyValue::new(keys::ERROR_TYPE, error_type));
        }
        span.end();
        let elapsed = self.started.elapsed().as_secs_f64();
        self.telemetry
            .0
            .client_operation
            .record(elapsed, &attributes);
    }
}
