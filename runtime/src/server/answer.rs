//! What a request's handler answers, before it is written as the JSON text of the response.
//!
//! Most results are built as trees. A tool's result stays typed until the era of the request
//! decides how it is written: a 2025-11-25 session writes it as it is, a 2026-07-28 request
//! writes `resultType` and `_meta.serverInfo` beside the tool's own members
//! ([`Completed`]). Either way the text is written once, straight from the tool's
//! [`CallToolResult`], with no tree built on the way.

use crate::protocol::{CallToolResult, ErrorObject, JsonObject, result_text};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A handler's result, not yet written.
#[derive(Debug)]
pub(crate) enum Answer {
    /// A result built as a tree (lists, prompts, resources, task records).
    Tree(Value),
    /// A tool's result.
    Tool(CallToolResult),
}

impl From<Value> for Answer {
    fn from(value: Value) -> Self {
        Answer::Tree(value)
    }
}

impl Answer {
    /// The result as a tree (for a task's stored result).
    pub(crate) fn into_value(self) -> Value {
        match self {
            Answer::Tree(value) => value,
            Answer::Tool(result) => Value::from(result),
        }
    }

    /// The result's text as a 2025-11-25 response carries it.
    pub(crate) fn into_text(self) -> Result<Box<RawValue>, ErrorObject> {
        match self {
            Answer::Tree(value) => result_text(&value),
            Answer::Tool(result) => result_text(&result),
        }
    }
}

/// A tool's result as a complete 2026-07-28 result: its own members, `resultType:
/// "complete"` unless it set one, and `serverInfo` added to its `_meta`. The same members,
/// in the same order, as [`CallToolResult`]'s tree with those two added.
pub(crate) struct Completed<'a> {
    /// The tool's result.
    pub(crate) result: &'a CallToolResult,
    /// The member added to `_meta`: its key, and the server's info as JSON text.
    pub(crate) server_info: (&'a str, &'a RawValue),
}

/// The members a [`CallToolResult`] writes itself; `extra` may not repeat them.
const OWN: [&str; 4] = ["content", "structuredContent", "isError", "_meta"];

impl Serialize for Completed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.result;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("content", &r.content)?;
        if let Some(structured) = &r.structured_content {
            map.serialize_entry("structuredContent", structured)?;
        }
        if let Some(is_error) = r.is_error {
            map.serialize_entry("isError", &is_error)?;
        }
        map.serialize_entry(
            "_meta",
            &MetaWith {
                meta: r.meta.as_ref(),
                added: self.server_info,
            },
        )?;
        for (key, value) in &r.extra {
            if !OWN.contains(&key.as_str()) {
                map.serialize_entry(key, value)?;
            }
        }
        if !r.extra.contains_key("resultType") {
            map.serialize_entry("resultType", "complete")?;
        }
        map.end()
    }
}

/// A `_meta` object with one member added (replacing one of the same key).
struct MetaWith<'a> {
    meta: Option<&'a JsonObject>,
    added: (&'a str, &'a RawValue),
}

impl Serialize for MetaWith<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (key, value) = self.added;
        let mut map = s.serialize_map(None)?;
        for (k, v) in self.meta.into_iter().flatten() {
            if k != key {
                map.serialize_entry(k, v)?;
            }
        }
        map.serialize_entry(key, value)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ContentBlock;
    use serde_json::json;

    /// The old route: the tool's tree, with `resultType` and `serverInfo` spliced in.
    fn spliced(result: CallToolResult, info: &Value) -> Value {
        let mut value = Value::from(result);
        let map = value.as_object_mut().expect("an object");
        map.entry("resultType").or_insert_with(|| "complete".into());
        let meta = map.entry("_meta").or_insert_with(|| json!({}));
        meta.as_object_mut()
            .expect("an object")
            .insert("io.modelcontextprotocol/serverInfo".into(), info.clone());
        value
    }

    #[test]
    fn completed_tool_results_read_as_the_spliced_tree() {
        let info = json!({"name": "s", "version": "1"});
        let info_text = serde_json::value::to_raw_value(&info).expect("text");
        let mut with_meta = CallToolResult::new(vec![ContentBlock::text("a")]);
        with_meta.meta = Some(
            json!({"k": 1, "io.modelcontextprotocol/serverInfo": "stale"})
                .as_object()
                .cloned()
                .expect("an object"),
        );
        let sum = json!({"sum": 3}).as_object().cloned().expect("an object");
        let mut own_type = CallToolResult::structured(sum.clone());
        own_type.extra.insert("resultType".into(), "custom".into());
        own_type.extra.insert("other".into(), json!([1, 2]));
        let mut failed = CallToolResult::error_text("no");
        failed.extra.insert("content".into(), json!("ignored"));
        for result in [
            CallToolResult::new(vec![]),
            CallToolResult::new(vec![ContentBlock::text("x\n\"y\"")]),
            with_meta,
            own_type,
            failed,
        ] {
            let text = serde_json::to_string(&Completed {
                result: &result,
                server_info: ("io.modelcontextprotocol/serverInfo", &info_text),
            })
            .expect("written");
            let read: Value = serde_json::from_str(&text).expect("valid JSON");
            let mut expected = spliced(result.clone(), &info);
            if result.extra.contains_key("content") {
                expected["content"] = serde_json::to_value(&result.content).expect("tree");
            }
            assert_eq!(read, expected, "{text}");
        }
    }

    #[test]
    fn answers_write_the_same_text_either_way() {
        let sum = json!({"sum": 3}).as_object().cloned().expect("an object");
        let result = CallToolResult::structured(sum);
        let typed = Answer::Tool(result.clone()).into_text().expect("text");
        let tree = Answer::Tree(Value::from(result)).into_text().expect("text");
        assert_eq!(typed.get(), tree.get());
    }
}
