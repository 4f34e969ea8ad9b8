//! Cancellation (basic/utilities/cancellation.mdx).

use super::{Meta, RequestId};
use serde::{Deserialize, Serialize};

/// `notifications/cancelled` params.
///
/// ```
/// use tracksuit::protocol::{CancelledNotificationParams, RequestId};
/// let p = CancelledNotificationParams {
///     request_id: Some(RequestId::from(4)),
///     reason: Some("user pressed stop".into()),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&p).unwrap()["requestId"], 4);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The request to cancel (absent only for tasks, which use `tasks/cancel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
