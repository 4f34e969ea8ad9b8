//! A client request in a span of its own (feature `otel`): see
//! [`ClientBuilder::telemetry`](super::ClientBuilder::telemetry).

use super::Client;
use crate::peer::RequestError;
use crate::protocol::{ResultPayload, methods};
use crate::telemetry::Telemetry;
use crate::telemetry::client::{ClientOperation, Ended};
use opentelemetry::trace::FutureExt as _;
use serde_json::Value;

impl Client {
    /// Sends `method` in a `CLIENT` span whose context `params._meta` carries; every
    /// `input_required` round of a 2026-07-28 request goes in the same span (and the
    /// handlers answering them run in its context).
    pub(super) async fn traced_payload(
        &self,
        telemetry: &Telemetry,
        method: &str,
        mut params: Value,
    ) -> Result<ResultPayload, RequestError> {
        let version = self.protocol_version_in_use();
        let operation = ClientOperation::start(telemetry, method, &mut params, version.as_deref());
        let result = self
            .send_payload(method, params)
            .with_context(operation.context())
            .await;
        let ended = match &result {
            Ok(payload) => Ended::Result {
                tool_failed: method == methods::TOOLS_CALL
                    && super::middleware::tool_failed(payload),
            },
            Err(e) => Ended::Failed(e.error_type(), e.to_string()),
        };
        operation.end(ended);
        result
    }
}
