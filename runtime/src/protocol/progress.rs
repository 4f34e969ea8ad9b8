//! Progress (basic/utilities/progress.mdx).

use super::Meta;
use serde::{Deserialize, Serialize};

/// A progress token: chosen by the requester, echoed in notifications.
///
/// ```
/// use tracksuit::protocol::ProgressToken;
/// let t: ProgressToken = serde_json::from_value(serde_json::json!("job-1")).unwrap();
/// assert_eq!(t, ProgressToken::String("job-1".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// A numeric token.
    Number(i64),
    /// A string token.
    String(String),
}

/// `notifications/progress` params.
///
/// ```
/// use tracksuit::protocol::{ProgressNotificationParams, ProgressToken};
/// let p = ProgressNotificationParams {
///     progress_token: ProgressToken::Number(1),
///     progress: 3.0,
///     total: Some(10.0),
///     message: None,
///     meta: None,
/// };
/// assert_eq!(serde_json::to_value(&p).unwrap(), serde_json::json!({"progressToken": 1, "progress": 3.0, "total": 10.0}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The request's token.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with each notification.
    pub progress: f64,
    /// Total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl From<&str> for ProgressToken {
    /// ```
    /// use tracksuit::protocol::ProgressToken;
    /// assert_eq!(ProgressToken::from("copy-1"), ProgressToken::String("copy-1".into()));
    /// ```
    fn from(token: &str) -> Self {
        ProgressToken::String(token.to_owned())
    }
}

impl From<String> for ProgressToken {
    fn from(token: String) -> Self {
        ProgressToken::String(token)
    }
}

impl From<i64> for ProgressToken {
    /// ```
    /// use tracksuit::protocol::ProgressToken;
    /// assert_eq!(ProgressToken::from(7), ProgressToken::Number(7));
    /// ```
    fn from(token: i64) -> Self {
        ProgressToken::Number(token)
    }
}
