//! Logging (server/utilities/logging.mdx).

use super::Meta;
use serde::{Deserialize, Serialize};

/// Syslog severities, least to most severe (so `Debug < Emergency`).
///
/// ```
/// use tracksuit::protocol::LoggingLevel;
/// assert_eq!(serde_json::to_value(LoggingLevel::Warning).unwrap(), "warning");
/// assert!(LoggingLevel::Error > LoggingLevel::Info); // ordered by severity
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debugging detail.
    Debug,
    /// Informational.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// `logging/setLevel` params.
///
/// ```
/// use tracksuit::protocol::{LoggingLevel, SetLevelRequestParams};
/// let p: SetLevelRequestParams = serde_json::from_value(serde_json::json!({"level": "debug"})).unwrap();
/// assert_eq!(p.level, LoggingLevel::Debug);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// The least severe level to send.
    pub level: LoggingLevel,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `notifications/message` params.
///
/// ```
/// use tracksuit::protocol::{LoggingLevel, LoggingMessageNotificationParams};
/// let p = LoggingMessageNotificationParams {
///     level: LoggingLevel::Info,
///     logger: Some("db".into()),
///     data: serde_json::json!("connected"),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&p).unwrap()["logger"], "db");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// Severity.
    pub level: LoggingLevel,
    /// Logger name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON.
    pub data: serde_json::Value,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Default for LoggingMessageNotificationParams {
    fn default() -> Self {
        LoggingMessageNotificationParams {
            level: LoggingLevel::Info,
            logger: None,
            data: serde_json::Value::Null,
            meta: None,
        }
    }
}
