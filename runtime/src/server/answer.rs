//! What a request's handler answers, before it is written as the JSON text of the response.
//!
//! Most results are built as trees. A tool's result stays typed until the era of the request
//! decides how it is written: a 2025-11-25 session writes it as it is, a 2026-07-28 request
//! writes `resultType` and `_meta.serverInfo` beside the tool's own members
//! ([`ToolJson`]). Either way the text is written once, straight from the tool's
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
            Answer::Tool(result) => result_text(&ToolJson::plain(&result)),
        }
    }
}

/// A tool's result as a response writes it. A 2025-11-25 session writes its members as
/// they are (the same text as its derived `Serialize`); a complete 2026-07-28 result
/// ([`ToolJson::completed`]) adds `resultType: "complete"` unless the tool set one, and
/// `serverInfo` to its `_meta`: the same members as [`CallToolResult`]'s tree with those
/// two added.
pub(crate) struct ToolJson<'a> {
    result: &'a CallToolResult,
    /// The member added to `_meta` of a complete result: its key, and the server's info.
    server_info: Option<(&'a str, &'a RawValue)>,
}

impl<'a> ToolJson<'a> {
    /// The result as a 2025-11-25 session writes it.
    pub(crate) fn plain(result: &'a CallToolResult) -> Self {
        ToolJson {
            result,
            server_info: None,
        }
    }

    /// The result as a complete 2026-07-28 result, `server_info` added to its `_meta`.
    pub(crate) fn completed(
        result: &'a CallToolResult,
        server_info: (&'a str, &'a RawValue),
    ) -> Self {
        ToolJson {
            result,
            server_info: Some(server_info),
        }
    }
}

/// The members a [`CallToolResult`] writes itself; `extra` may not repeat them.
const OWN: [&str; 4] = ["content", "structuredContent", "isError", "_meta"];

impl Serialize for ToolJson<'_> {
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
        match self.server_info {
            Some(added) => map.serialize_entry(
                "_meta",
                &MetaWith {
                    meta: r.meta.as_ref(),
                    added,
                },
            )?,
            None => {
                if let Some(meta) = &r.meta {
                    map.serialize_entry("_meta", meta)?;
                }
            }
        }
        for (key, value) in &r.extra {
            if !OWN.contains(&key.as_str()) {
                map.serialize_entry(key, value)?;
            }
        }
        if self.server_info.is_some() && !r.extra.contains_key("resultType") {
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
            let text = serde_json::to_string(&ToolJson::completed(
                &result,
                ("io.modelcontextprotocol/serverInfo", &info_text),
            ))
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
    fn tool_results_are_written_as_their_derive_writes_them() {
        let long = "plain text ".repeat(30);
        let mut annotated = crate::protocol::TextContent::new(long.clone());
        annotated.meta = json!({"m": 1}).as_object().cloned();
        let mut with_meta = CallToolResult::new(vec![
            ContentBlock::text(long.clone()),
            ContentBlock::Text(annotated),
            ContentBlock::text(format!("{long}\"q\"")),
            serde_json::from_value(
                json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
            )
            .expect("an image block"),
        ]);
        with_meta.meta = json!({"k": [1]}).as_object().cloned();
        with_meta.extra.insert("other".into(), json!({"x": null}));
        let sum = json!({"sum": 3}).as_object().cloned().expect("an object");
        for result in [
            CallToolResult::new(vec![]),
            CallToolResult::structured(sum),
            CallToolResult::error_text(long),
            with_meta,
        ] {
            let typed = Answer::Tool(result.clone()).into_text().expect("text");
            assert_eq!(
                typed.get(),
                serde_json::to_string(&result).expect("derived")
            );
            let tree = Answer::Tree(Value::from(result)).into_text().expect("text");
            assert_eq!(typed.get(), tree.get());
        }
    }
}
