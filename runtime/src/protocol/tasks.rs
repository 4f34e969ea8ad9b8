//! Tasks (basic/utilities/tasks.mdx; experimental in 2025-11-25).

use super::{JsonObject, Meta};
use serde::{Deserialize, Serialize};

/// A task's state.
///
/// ```
/// use tracksuit::protocol::TaskStatus;
/// assert_eq!(serde_json::to_value(TaskStatus::InputRequired).unwrap(), "input_required");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the requester (sampling, elicitation).
    InputRequired,
    /// Finished with a result.
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled.
    Cancelled,
}

/// Asks for a request to run as a task.
///
/// ```
/// use tracksuit::protocol::{CallToolRequestParams, TaskMetadata};
/// let params = CallToolRequestParams {
///     name: "render".into(),
///     task: Some(TaskMetadata { ttl: Some(60_000) }),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&params).unwrap()["task"]["ttl"], 60_000);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// How long to keep the task after creation, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// Ties a message to a task (`_meta["io.modelcontextprotocol/related-task"]`).
///
/// ```
/// use tracksuit::protocol::RelatedTaskMetadata;
/// let related = RelatedTaskMetadata { task_id: "t-1".into() };
/// assert_eq!(serde_json::to_value(&related).unwrap(), serde_json::json!({"taskId": "t-1"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task.
    pub task_id: String,
}

/// A task.
///
/// ```
/// use tracksuit::protocol::{Task, TaskStatus};
/// let task: Task = serde_json::from_value(serde_json::json!({
///     "taskId": "t-1", "status": "working", "ttl": null,
///     "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
/// }))
/// .unwrap();
/// assert_eq!(task.status, TaskStatus::Working);
/// assert_eq!(task.ttl, None);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Its id.
    pub task_id: String,
    /// Its state.
    pub status: TaskStatus,
    /// A message about the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last status change.
    pub last_updated_at: String,
    /// Retention in milliseconds from creation; `null` = unlimited.
    pub ttl: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
}

/// The result of a task-augmented request: the task, created.
///
/// ```
/// use tracksuit::protocol::{CreateTaskResult, Task};
/// # let task: Task = serde_json::from_value(serde_json::json!({"taskId": "t-1", "status": "working",
/// #     "ttl": null, "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z"})).unwrap();
/// let result = CreateTaskResult::new(task);
/// let json = serde_json::to_value(&result).unwrap();
/// assert_eq!(json["task"]["taskId"], "t-1");
/// assert_eq!(json["task"]["status"], "working");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The task.
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl CreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: Task) -> Self {
        CreateTaskResult {
            task,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// Params of `tasks/get`, `tasks/result`, `tasks/cancel`.
///
/// ```
/// use tracksuit::protocol::TaskIdParams;
/// let params: TaskIdParams = serde_json::from_value(serde_json::json!({"taskId": "t-1"})).unwrap();
/// assert_eq!(params.task_id, "t-1");
/// assert_eq!(params.meta, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `tasks/get` params.
///
/// ```
/// use tracksuit::protocol::GetTaskRequestParams;
/// let params = GetTaskRequestParams { task_id: "t-1".into(), meta: None };
/// assert_eq!(serde_json::to_value(&params).unwrap(), serde_json::json!({"taskId": "t-1"}));
/// ```
pub type GetTaskRequestParams = TaskIdParams;
/// `tasks/result` params.
///
/// ```
/// use tracksuit::protocol::GetTaskPayloadRequestParams;
/// let params = GetTaskPayloadRequestParams { task_id: "t-1".into(), meta: None };
/// assert_eq!(serde_json::to_value(&params).unwrap()["taskId"], "t-1");
/// ```
pub type GetTaskPayloadRequestParams = TaskIdParams;
/// `tasks/cancel` params.
///
/// ```
/// use tracksuit::protocol::CancelTaskRequestParams;
/// let params: CancelTaskRequestParams =
///     serde_json::from_value(serde_json::json!({"taskId": "t-1"})).unwrap();
/// assert_eq!(params.task_id, "t-1");
/// ```
pub type CancelTaskRequestParams = TaskIdParams;

/// `tasks/get` and `tasks/cancel` results: the task, with result metadata.
///
/// ```
/// use tracksuit::protocol::{GetTaskResult, Task};
/// # let task: Task = serde_json::from_value(serde_json::json!({"taskId": "t-1", "status": "completed",
/// #     "ttl": 60000, "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:05Z"})).unwrap();
/// // The task's fields sit at the top level of the result, not under `task`.
/// let json = serde_json::to_value(GetTaskResult::new(task)).unwrap();
/// assert_eq!(json["status"], "completed");
/// assert_eq!(json["ttl"], 60000);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetTaskResult {
    /// The task's fields.
    #[serde(flatten)]
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl GetTaskResult {
    /// The result carrying `task`.
    pub fn new(task: Task) -> Self {
        GetTaskResult {
            task,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `tasks/cancel` result.
///
/// ```
/// use tracksuit::protocol::{CancelTaskResult, TaskStatus};
/// let result: CancelTaskResult = serde_json::from_value(serde_json::json!({
///     "taskId": "t-1", "status": "cancelled", "ttl": null,
///     "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:01Z",
/// }))
/// .unwrap();
/// assert_eq!(result.task.status, TaskStatus::Cancelled);
/// ```
pub type CancelTaskResult = GetTaskResult;

/// `tasks/result` result: the underlying request's result, whatever its shape.
///
/// ```
/// use tracksuit::protocol::{CallToolResult, GetTaskPayloadResult};
/// // For a task-augmented `tools/call`, the payload is the tool's `CallToolResult`.
/// let payload: GetTaskPayloadResult = serde_json::from_value(CallToolResult::text("done").into()).unwrap();
/// let result: CallToolResult = serde_json::from_value(payload.into()).unwrap();
/// assert_eq!(result.content[0].as_text(), Some("done"));
/// ```
pub type GetTaskPayloadResult = JsonObject;

/// `tasks/list` result.
///
/// ```
/// use tracksuit::protocol::ListTasksResult;
/// let page: ListTasksResult =
///     serde_json::from_value(serde_json::json!({"tasks": [], "nextCursor": "2"})).unwrap();
/// assert!(page.tasks.is_empty());
/// assert_eq!(page.next_cursor.as_deref(), Some("2"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// The tasks on this page.
    pub tasks: Vec<Task>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

/// `notifications/tasks/status` params: the task as it now is.
///
/// ```
/// use tracksuit::protocol::{TaskStatus, TaskStatusNotificationParams};
/// let params: TaskStatusNotificationParams = serde_json::from_value(serde_json::json!({
///     "taskId": "t-1", "status": "input_required", "ttl": null,
///     "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:02Z",
/// }))
/// .unwrap();
/// assert_eq!(params.task.status, TaskStatus::InputRequired);
/// ```
pub type TaskStatusNotificationParams = GetTaskResult;
