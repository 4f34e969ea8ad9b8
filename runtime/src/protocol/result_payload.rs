//! A successful response's result, in whichever form it has: JSON text as a transport
//! received it, a tree, or a tool's typed result not yet written.
//!
//! A server's result is written once, straight into the transport's buffer, from the form
//! its handler made: no intermediate text is built and copied. A result read from a
//! transport stays text until a reader decodes it into the type it expects. Over the
//! in-memory transport the form goes across as it is, and a tool's result is moved out,
//! not written and parsed.

use super::{CallToolResult, JsonObject};
use serde::de::DeserializeOwned;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::Arc;

/// A response's result.
///
/// ```
/// use tracksuit::protocol::{ListToolsResult, ResultPayload};
/// let text = serde_json::value::RawValue::from_string(r#"{"tools":[]}"#.into()).unwrap();
/// let result = ResultPayload::from(text);
/// let page: ListToolsResult = result.decode().unwrap();
/// assert!(page.tools.is_empty());
/// assert_eq!(serde_json::to_string(&result).unwrap(), r#"{"tools":[]}"#);
/// ```
#[derive(Clone)]
pub struct ResultPayload(Repr);

#[derive(Clone)]
enum Repr {
    /// JSON text, as received.
    Text(Box<RawValue>),
    /// A tree.
    Tree(Value),
    /// A tool's result, with the member a complete 2026-07-28 result adds to `_meta`.
    Tool(Box<CallToolResult>, Option<ServerInfo>),
}

/// The `_meta` member a complete 2026-07-28 result carries: its key and the server's info.
#[derive(Clone)]
pub(crate) struct ServerInfo {
    pub(crate) key: &'static str,
    pub(crate) info: Arc<RawValue>,
}

impl ResultPayload {
    /// A result serialised from `value` (kept as text).
    ///
    /// ```
    /// let r = tracksuit::protocol::ResultPayload::new(&serde_json::json!({"ok": true})).unwrap();
    /// assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"ok":true}"#);
    /// ```
    pub fn new(value: &impl Serialize) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(|text| ResultPayload(Repr::Text(text)))
    }

    /// A tool's result as a 2025-11-25 response carries it (`server_info: None`), or as a
    /// complete 2026-07-28 result with `resultType` and `_meta` `server_info` added.
    pub(crate) fn tool(result: Box<CallToolResult>, server_info: Option<ServerInfo>) -> Self {
        ResultPayload(Repr::Tool(result, server_info))
    }

    /// The result decoded as `T`.
    ///
    /// ```
    /// use tracksuit::protocol::ResultPayload;
    /// let r = ResultPayload::from(serde_json::json!({"n": 3}));
    /// let v: serde_json::Value = r.decode().unwrap();
    /// assert_eq!(v["n"], 3);
    /// ```
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match &self.0 {
            Repr::Text(text) => serde_json::from_str(text.get()),
            Repr::Tree(value) => T::deserialize(value),
            Repr::Tool(..) => serde_json::from_value(self.to_value()?),
        }
    }

    /// The result decoded as `T`, moving out what it holds: a tool's result read as a
    /// [`CallToolResult`] (over the in-memory transport) is neither written nor parsed.
    ///
    /// ```
    /// use tracksuit::protocol::{CallToolResult, ResultPayload};
    /// let r = ResultPayload::new(&CallToolResult::text("4")).unwrap();
    /// let result: CallToolResult = r.into_decoded().unwrap();
    /// assert_eq!(result.content[0].as_text(), Some("4"));
    /// ```
    pub fn into_decoded<T: DeserializeOwned + 'static>(self) -> Result<T, serde_json::Error> {
        let moved = std::any::TypeId::of::<T>() == std::any::TypeId::of::<CallToolResult>();
        match self.0 {
            Repr::Text(text) => serde_json::from_str(text.get()),
            Repr::Tree(value) => serde_json::from_value(value),
            Repr::Tool(result, server_info) if moved => {
                let mut result = *result;
                if let Some(info) = &server_info {
                    complete(&mut result, info)?;
                }
                let mut slot = Some(result);
                (&mut slot as &mut dyn std::any::Any)
                    .downcast_mut::<Option<T>>()
                    .and_then(Option::take)
                    .ok_or_else(|| serde::de::Error::custom("a tool result, not moved"))
            }
            Repr::Tool(..) => self.decode(),
        }
    }

    /// The result as a tree.
    ///
    /// ```
    /// let r = tracksuit::protocol::ResultPayload::new(&serde_json::json!([1, 2])).unwrap();
    /// assert_eq!(r.to_value().unwrap(), serde_json::json!([1, 2]));
    /// ```
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        match &self.0 {
            Repr::Tree(value) => Ok(value.clone()),
            _ => serde_json::to_value(self),
        }
    }

    /// The result as JSON text.
    ///
    /// ```
    /// let r = tracksuit::protocol::ResultPayload::from(serde_json::json!({"a": 1}));
    /// assert_eq!(r.to_text().unwrap().get(), r#"{"a":1}"#);
    /// ```
    pub fn to_text(&self) -> Result<Box<RawValue>, serde_json::Error> {
        match &self.0 {
            Repr::Text(text) => Ok(text.clone()),
            _ => serde_json::value::to_raw_value(self),
        }
    }

    /// The result's `resultType` (2026-07-28), read without decoding the rest.
    pub(crate) fn result_type(&self) -> Option<String> {
        match &self.0 {
            Repr::Text(text) => {
                #[derive(Deserialize)]
                struct Kind {
                    #[serde(rename = "resultType")]
                    result_type: Option<String>,
                }
                serde_json::from_str::<Kind>(text.get()).ok()?.result_type
            }
            Repr::Tree(value) => value.get("resultType")?.as_str().map(str::to_owned),
            Repr::Tool(result, info) => match result.extra.get("resultType") {
                Some(kind) => kind.as_str().map(str::to_owned),
                None => info.is_some().then(|| "complete".to_owned()),
            },
        }
    }

    /// Whether the result has a member `key` (read without decoding the rest).
    pub(crate) fn has_member(&self, key: &str) -> bool {
        match &self.0 {
            Repr::Text(text) => serde_json::from_str::<JsonObject>(text.get())
                .is_ok_and(|map| map.contains_key(key)),
            Repr::Tree(value) => value.get(key).is_some(),
            Repr::Tool(..) => self.to_value().is_ok_and(|v| v.get(key).is_some()),
        }
    }

    /// A size that holds the result written, most of the time.
    pub(crate) fn encoded_len_hint(&self) -> usize {
        match &self.0 {
            Repr::Text(text) => text.get().len(),
            Repr::Tree(_) => 256,
            Repr::Tool(result, _) => {
                let texts: usize = result
                    .content
                    .iter()
                    .map(|block| block.as_text().map_or(128, str::len))
                    .sum();
                texts + 256
            }
        }
    }
}

/// `resultType` and `serverInfo` added to a tool's result, as a complete 2026-07-28 result
/// has them (for a reader that takes the typed result as it is).
fn complete(result: &mut CallToolResult, info: &ServerInfo) -> Result<(), serde_json::Error> {
    result
        .extra
        .entry("resultType")
        .or_insert_with(|| "complete".into());
    let info_value: Value = serde_json::from_str(info.info.get())?;
    result
        .meta
        .get_or_insert_with(JsonObject::new)
        .insert(info.key.to_owned(), info_value);
    Ok(())
}

impl From<Box<RawValue>> for ResultPayload {
    fn from(text: Box<RawValue>) -> Self {
        ResultPayload(Repr::Text(text))
    }
}

impl From<Value> for ResultPayload {
    fn from(value: Value) -> Self {
        ResultPayload(Repr::Tree(value))
    }
}

impl std::fmt::Debug for ResultPayload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Text(text) => text.fmt(f),
            Repr::Tree(value) => value.fmt(f),
            Repr::Tool(result, _) => result.fmt(f),
        }
    }
}

/// Equal when both are the same JSON, whatever their form.
impl PartialEq for ResultPayload {
    fn eq(&self, other: &Self) -> bool {
        if let (Repr::Text(a), Repr::Text(b)) = (&self.0, &other.0)
            && a.get() == b.get()
        {
            return true;
        }
        match (self.to_value(), other.to_value()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

impl Serialize for ResultPayload {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Text(text) => text.serialize(s),
            Repr::Tree(value) => value.serialize(s),
            Repr::Tool(result, server_info) => ToolJson {
                result,
                server_info: server_info.as_ref(),
            }
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ResultPayload {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(|text| ResultPayload(Repr::Text(text)))
    }
}

/// A tool's result as a response writes it: its members as the derived `Serialize` writes
/// them, and for a complete 2026-07-28 result `resultType: "complete"` (unless the tool set
/// one) and `serverInfo` in its `_meta` — the members of its tree with those two added.
struct ToolJson<'a> {
    result: &'a CallToolResult,
    server_info: Option<&'a ServerInfo>,
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

/// A `_meta` object with the server's info added (replacing a member of the same key).
struct MetaWith<'a> {
    meta: Option<&'a JsonObject>,
    added: &'a ServerInfo,
}

impl Serialize for MetaWith<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (k, v) in self.meta.into_iter().flatten() {
            if k != self.added.key {
                map.serialize_entry(k, v)?;
            }
        }
        map.serialize_entry(self.added.key, &*self.added.info)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ContentBlock;
    use serde_json::json;

    const KEY: &str = "io.modelcontextprotocol/serverInfo";

    fn info() -> ServerInfo {
        let text =
            serde_json::value::to_raw_value(&json!({"name": "s", "version": "1"})).expect("text");
        ServerInfo {
            key: KEY,
            info: Arc::from(text),
        }
    }

    /// The old route: the tool's tree, with `resultType` and `serverInfo` spliced in.
    fn spliced(result: CallToolResult) -> Value {
        let mut value = Value::from(result);
        let map = value.as_object_mut().expect("an object");
        map.entry("resultType").or_insert_with(|| "complete".into());
        let meta = map.entry("_meta").or_insert_with(|| json!({}));
        meta.as_object_mut()
            .expect("an object")
            .insert(KEY.into(), json!({"name": "s", "version": "1"}));
        value
    }

    fn results() -> Vec<CallToolResult> {
        let mut with_meta = CallToolResult::new(vec![
            ContentBlock::text("a \"quoted\"\n text"),
            serde_json::from_value(
                json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
            )
            .expect("an image block"),
        ]);
        with_meta.meta = json!({"k": 1, KEY: "stale"}).as_object().cloned();
        let sum = json!({"sum": 3}).as_object().cloned().expect("an object");
        let mut own_type = CallToolResult::structured(sum);
        own_type.extra.insert("resultType".into(), "custom".into());
        own_type.extra.insert("other".into(), json!([1, 2]));
        vec![
            CallToolResult::new(vec![]),
            CallToolResult::error_text("no"),
            with_meta,
            own_type,
        ]
    }

    #[test]
    fn a_tool_result_is_written_as_its_tree_and_as_a_completed_tree() {
        for result in results() {
            let plain = ResultPayload::tool(Box::new(result.clone()), None);
            assert_eq!(
                serde_json::to_string(&plain).expect("written"),
                serde_json::to_string(&result).expect("derived")
            );
            let completed = ResultPayload::tool(Box::new(result.clone()), Some(info()));
            let read: Value =
                serde_json::from_str(&serde_json::to_string(&completed).expect("written"))
                    .expect("JSON");
            assert_eq!(read, spliced(result.clone()));
            // Moved out typed, it is what the text decodes to.
            let moved: CallToolResult = completed.clone().into_decoded().expect("moved");
            let parsed: CallToolResult = completed.decode().expect("decoded");
            assert_eq!(moved, parsed);
            assert_eq!(
                completed.result_type(),
                parsed.extra["resultType"].as_str().map(str::to_owned)
            );
            let moved: CallToolResult = plain.into_decoded().expect("moved");
            assert_eq!(moved, result);
        }
    }

    #[test]
    fn every_form_reads_the_same() {
        let value = json!({"resultType": "input_required", "a": [1, {"b": null}]});
        let text = ResultPayload::new(&value).expect("text");
        let tree = ResultPayload::from(value.clone());
        let read: ResultPayload =
            serde_json::from_str(r#"{"resultType": "input_required", "a": [1, {"b": null}]}"#)
                .expect("read");
        for form in [&text, &tree, &read] {
            assert_eq!(form.decode::<Value>().expect("decoded"), value);
            assert_eq!(form.to_value().expect("tree"), value);
            assert_eq!(form.result_type().as_deref(), Some("input_required"));
            assert!(form.has_member("a") && !form.has_member("b"));
            assert_eq!(form.clone().into_decoded::<Value>().expect("moved"), value);
        }
        assert_eq!(text, tree);
        assert_eq!(read, tree);
        assert_ne!(text, ResultPayload::from(json!({})));
        // Read from a tree, too (a message deserialised from a `Value`).
        let from_tree: ResultPayload = serde_json::from_value(value.clone()).expect("read");
        assert_eq!(from_tree, tree);
    }
}

/// The two top-level members of a result that middleware asks about without decoding the
/// rest: `resultType` (`input_required` for a 2026 round) and `isError` (a tool failed).
#[derive(Deserialize, Default)]
pub(crate) struct ResultMarkers {
    #[serde(rename = "resultType")]
    pub(crate) result_type: Option<String>,
    #[serde(rename = "isError")]
    pub(crate) is_error: Option<bool>,
}

impl ResultMarkers {
    /// The markers of `result` (none if it is not an object).
    pub(crate) fn of(result: &ResultPayload) -> Self {
        result.decode().unwrap_or_default()
    }
}
