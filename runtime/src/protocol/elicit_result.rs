//! The `elicitation/create` result: what the user did, and the values submitted.

use super::{JsonObject, Meta};
use serde::{Deserialize, Serialize};

/// What the user did.
///
/// ```
/// use tracksuit::protocol::ElicitAction;
/// assert_eq!(serde_json::to_value(ElicitAction::Decline).unwrap(), "decline");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted.
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed.
    Cancel,
}

/// `elicitation/create` result.
///
/// ```
/// use tracksuit::protocol::{ElicitAction, ElicitResult};
/// let r: ElicitResult = serde_json::from_value(serde_json::json!({"action": "accept", "content": {"name": "Ada"}})).unwrap();
/// assert_eq!(r.action, ElicitAction::Accept);
/// assert_eq!(r.content.unwrap()["name"], "Ada");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode, accept only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// Answers a test's scripted client can give.
impl ElicitResult {
    /// The user submitted `content` (an object of the form's fields; anything else is
    /// submitted as `{"value": content}`).
    ///
    /// ```
    /// use tracksuit::protocol::{ElicitAction, ElicitResult};
    /// let r = ElicitResult::accept(serde_json::json!({"name": "Ada"}));
    /// assert_eq!(r.action, ElicitAction::Accept);
    /// assert_eq!(r.content.unwrap()["name"], "Ada");
    /// ```
    pub fn accept(content: serde_json::Value) -> Self {
        let content = match content {
            serde_json::Value::Object(map) => map,
            other => JsonObject::from_iter([("value".to_owned(), other)]),
        };
        Self::answer(ElicitAction::Accept, Some(content))
    }

    /// The user declined.
    ///
    /// ```
    /// use tracksuit::protocol::{ElicitAction, ElicitResult};
    /// assert_eq!(ElicitResult::decline().action, ElicitAction::Decline);
    /// ```
    pub fn decline() -> Self {
        Self::answer(ElicitAction::Decline, None)
    }

    /// The user dismissed the request.
    ///
    /// ```
    /// use tracksuit::protocol::{ElicitAction, ElicitResult};
    /// assert_eq!(ElicitResult::cancel().action, ElicitAction::Cancel);
    /// ```
    pub fn cancel() -> Self {
        Self::answer(ElicitAction::Cancel, None)
    }

    fn answer(action: ElicitAction, content: Option<JsonObject>) -> Self {
        ElicitResult {
            action,
            content,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}
