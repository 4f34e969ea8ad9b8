//! Tools (server/tools.mdx).

use super::{ContentBlock, Icon, JsonObject, Meta, TaskMetadata};
use serde::{Deserialize, Serialize};

/// Hints about a tool's behaviour. Untrusted unless the server is.
///
/// ```
/// use tracksuit::protocol::{Tool, ToolAnnotations};
/// let mut tool = Tool::new("read_file", Default::default());
/// tool.annotations = Some(ToolAnnotations {
///     read_only_hint: Some(true),
///     ..Default::default()
/// });
/// assert_eq!(serde_json::to_value(&tool).unwrap()["annotations"]["readOnlyHint"], true);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// It does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// It may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it twice with the same arguments has no extra effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// It interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// Whether a tool may be called as a task.
///
/// ```
/// use tracksuit::protocol::TaskSupport;
/// assert_eq!(serde_json::to_value(TaskSupport::Optional).unwrap(), "optional");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Never as a task.
    Forbidden,
    /// Either way.
    Optional,
    /// Only as a task.
    Required,
}

/// How a tool executes.
///
/// ```
/// use tracksuit::protocol::{TaskSupport, Tool, ToolExecution};
/// let mut tool = Tool::new("render", Default::default());
/// tool.execution = Some(ToolExecution { task_support: Some(TaskSupport::Required) });
/// assert_eq!(serde_json::to_value(&tool).unwrap()["execution"]["taskSupport"], "required");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Task support (default forbidden).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

/// A tool's descriptor, as listed in `tools/list`.
///
/// ```
/// use tracksuit::protocol::Tool;
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}},
///     "required": ["city"],
/// });
/// let mut tool = Tool::new("weather", schema.as_object().unwrap().clone());
/// tool.description = Some("Current weather for a city".into());
/// let json = serde_json::to_value(&tool).unwrap();
/// assert_eq!(json["inputSchema"]["required"][0], "city");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name (SEP-986: 1–128 of `[A-Za-z0-9_.-]`).
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution properties (task support).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl Tool {
    /// A tool with a name and input schema. An empty schema becomes `{"type":"object"}`.
    ///
    /// ```
    /// let t = tracksuit::protocol::Tool::new("ping", Default::default());
    /// assert_eq!(t.input_schema["type"], "object");
    /// ```
    pub fn new(name: impl Into<String>, mut input_schema: JsonObject) -> Self {
        if !input_schema.contains_key("type") && !input_schema.contains_key("$ref") {
            input_schema.insert("type".into(), "object".into());
        }
        Tool {
            name: name.into(),
            input_schema,
            ..Default::default()
        }
    }
}

/// `tools/call` params.
///
/// ```
/// use tracksuit::protocol::CallToolRequestParams;
/// let params = CallToolRequestParams {
///     name: "add".into(),
///     arguments: serde_json::json!({"a": 1, "b": 2}).as_object().cloned(),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&params).unwrap()["arguments"]["b"], 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallToolRequestParams {
    /// The tool.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata (`progressToken`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `tools/call` result.
///
/// ```
/// use tracksuit::protocol::{CallToolResult, ContentBlock};
/// let result = CallToolResult::new(vec![ContentBlock::text("42")]);
/// assert_eq!(result.content[0].as_text(), Some("42"));
/// assert_eq!(result.is_error, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured content.
    pub content: Vec<ContentBlock>,
    /// Structured content, matching the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<JsonObject>,
    /// The tool failed (an execution error the model can see).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Unknown fields, kept.
    #[serde(flatten, default, skip_serializing_if = "JsonObject::is_empty")]
    pub extra: JsonObject,
}

impl CallToolResult {
    /// A result with these content blocks.
    ///
    /// ```
    /// use tracksuit::protocol::{CallToolResult, ContentBlock};
    /// let r = CallToolResult::new(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
    /// assert_eq!(r.content.len(), 2);
    /// ```
    pub fn new(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A result with one text block.
    ///
    /// ```
    /// let r = tracksuit::protocol::CallToolResult::text("ok");
    /// assert_eq!(r.content[0].as_text(), Some("ok"));
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// An execution error (`isError: true`) with a message for the model.
    ///
    /// ```
    /// let r = tracksuit::protocol::CallToolResult::error_text("city not found");
    /// assert_eq!(r.is_error, Some(true));
    /// assert_eq!(r.content[0].as_text(), Some("city not found"));
    /// ```
    pub fn error_text(text: impl Into<String>) -> Self {
        CallToolResult {
            is_error: Some(true),
            ..Self::text(text)
        }
    }

    /// Structured content plus its JSON text as a text block (for older clients).
    ///
    /// ```
    /// let value = serde_json::json!({"sum": 3});
    /// let r = tracksuit::protocol::CallToolResult::structured(value.as_object().unwrap().clone());
    /// assert_eq!(r.structured_content.as_ref().unwrap()["sum"], 3);
    /// assert_eq!(r.content[0].as_text(), Some(r#"{"sum":3}"#));
    /// ```
    pub fn structured(value: JsonObject) -> Self {
        // A map's `Serialize` cannot fail (string keys); the fallback is unreachable.
        let text = serde_json::to_string(&value).unwrap_or_default();
        CallToolResult {
            structured_content: Some(value),
            ..Self::text(text)
        }
    }
}

/// The same JSON as `serde_json::to_value(&result)`, built by moving the strings and maps
/// in instead of copying them (the per-call path of every `tools/call`).
///
/// ```
/// use tracksuit::protocol::CallToolResult;
/// let result = CallToolResult::error_text("no such file");
/// let expected = serde_json::to_value(&result).unwrap();
/// assert_eq!(serde_json::Value::from(result), expected);
/// ```
impl From<CallToolResult> for serde_json::Value {
    fn from(result: CallToolResult) -> Self {
        use serde_json::Value;
        let CallToolResult {
            content,
            structured_content,
            is_error,
            meta,
            extra,
        } = result;
        // Sized up front: a map that grows re-allocates (and re-hashes) on the way.
        let len = 1
            + usize::from(structured_content.is_some())
            + usize::from(is_error.is_some())
            + usize::from(meta.is_some())
            + extra.len();
        let mut map = JsonObject::with_capacity(len);
        map.insert(
            "content".into(),
            Value::Array(content.into_iter().map(Value::from).collect()),
        );
        if let Some(structured) = structured_content {
            map.insert("structuredContent".into(), Value::Object(structured));
        }
        if let Some(is_error) = is_error {
            map.insert("isError".into(), Value::Bool(is_error));
        }
        if let Some(meta) = meta {
            map.insert("_meta".into(), Value::Object(meta));
        }
        map.extend(extra);
        Value::Object(map)
    }
}

/// `tools/list` result.
///
/// ```
/// use tracksuit::protocol::{ListToolsResult, Tool};
/// let page = ListToolsResult {
///     tools: vec![Tool::new("ping", Default::default())],
///     next_cursor: Some("2".into()),
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_value(&page).unwrap()["nextCursor"], "2");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools on this page.
    pub tools: Vec<Tool>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn moving_conversion_matches_serde_for_every_shape() {
        let shapes = [
            json!({"content": []}),
            json!({"content": [{"type": "text", "text": "plain"}]}),
            json!({
                "content": [
                    {"type": "text", "text": "annotated", "annotations": {"priority": 0.5}},
                    {"type": "text", "text": "with meta", "_meta": {"k": 1}},
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    {"type": "resource_link", "uri": "file:///a", "name": "a"},
                ],
                "structuredContent": {"sum": 3, "nested": {"x": [1, 2]}},
                "isError": false,
                "_meta": {"progressToken": 1},
                "vendorField": {"kept": true},
            }),
            json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
        ];
        for shape in shapes {
            let result: CallToolResult = serde_json::from_value(shape.clone()).unwrap();
            let by_serde = serde_json::to_value(&result).unwrap();
            let moved = Value::from(result);
            assert_eq!(moved, by_serde);
            assert_eq!(moved, shape);
        }
    }

    #[test]
    fn structured_result_carries_the_same_json_as_text() {
        let mut map = JsonObject::new();
        map.insert("sum".into(), json!(3));
        let result = CallToolResult::structured(map);
        assert_eq!(result.content[0].as_text(), Some(r#"{"sum":3}"#));
        assert_eq!(
            result.structured_content,
            Some(json!({"sum": 3}).as_object().unwrap().clone())
        );
    }
}
