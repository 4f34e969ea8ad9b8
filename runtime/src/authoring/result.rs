//! Return-value conversion: what a tool, prompt or resource function may return.

use super::portable::{OUTPUT_WRAPPER, portable_output};
use super::schema::schema_for;
use crate::authoring::ToolError;
use crate::protocol::{
    CallToolResult, ContentBlock, ErrorObject, GetPromptResult, JsonObject, PromptMessage,
    ReadResourceResult, ResourceContents,
};
use schemars::JsonSchema;
use serde::Serialize;

/// Structured tool output: serialised into `structuredContent` (plus a JSON text block for
/// older clients), with `T`'s schema published as the tool's `outputSchema`.
///
/// ```
/// use tracksuit::{Json, IntoToolResult};
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum { sum: i64 }
/// let r = Json(Sum { sum: 3 }).into_tool_result().unwrap();
/// assert_eq!(r.structured_content.unwrap()["sum"], 3);
/// assert!(<Json<Sum> as IntoToolResult>::output_schema().is_some());
/// ```
///
/// `structuredContent` must be an object (MCP 2025-11-25), so a `T` whose schema is not an
/// object (`Vec<_>`, numbers, strings, enums written as `oneOf`) is wrapped: the
/// `outputSchema` is `{"type": "object", "properties": {"result": <T's schema>}, "required":
/// ["result"]}` and the result's `structuredContent` is `{"result": <value>}`, in both
/// eras. The text block carries the value itself.
///
/// ```
/// use tracksuit::{Json, IntoToolResult};
/// let r = Json(vec![1u64, 2, 3]).into_tool_result().unwrap();
/// assert_eq!(serde_json::Value::Object(r.structured_content.unwrap()), serde_json::json!({"result": [1, 2, 3]}));
/// assert_eq!(r.content[0].as_text(), Some("[1,2,3]"));
/// let schema = <Json<Vec<u64>> as IntoToolResult>::output_schema().unwrap();
/// assert_eq!(schema["properties"]["result"]["type"], "array");
/// let n = Json(7u64).into_tool_result().unwrap();
/// assert_eq!(n.structured_content.unwrap()["result"], 7);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// Converts a tool function's return value into a `tools/call` result.
///
/// Implemented for `String`, `&str`, `()`, [`ContentBlock`], `Vec<ContentBlock>`,
/// [`CallToolResult`], [`Json<T>`] and `Result<T, E>` where `T: IntoToolResult` and `E` is
/// [`ToolError`] or any `Display` error (an `Err` becomes an `isError` result the model can
/// read; `ToolError::Protocol` a JSON-RPC error).
///
/// ```
/// use tracksuit::{IntoToolResult, Json, ToolError};
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Forecast { celsius: f64 }
/// // `Json<T>` declares an `outputSchema` and returns `structuredContent`...
/// assert!(Json::<Forecast>::output_schema().is_some());
/// let result = Json(Forecast { celsius: 21.5 }).into_tool_result().unwrap();
/// assert_eq!(result.structured_content.unwrap()["celsius"], 21.5);
/// // ...an `Err` becomes an execution error, sent as an `isError` result the model reads.
/// let failed: Result<String, std::io::Error> = Err(std::io::Error::other("disk full"));
/// assert!(matches!(failed.into_tool_result(), Err(ToolError::Execution(m)) if m == "disk full"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP tool",
    label = "this return type does not implement `IntoToolResult`",
    note = "return `String`, `ContentBlock`, `Vec<ContentBlock>`, `CallToolResult`, `Json<T>` (T: Serialize + JsonSchema), or `Result<T, E>` of one of these with `E: Display`"
)]
pub trait IntoToolResult {
    /// The `outputSchema` this return type declares (only structured output has one).
    fn output_schema() -> Option<JsonObject> {
        None
    }

    /// The result, or an execution / protocol error.
    fn into_tool_result(self) -> Result<CallToolResult, ToolError>;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::new(Vec::new()))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::new(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::new(self))
    }
}

impl<T: JsonOutput> IntoToolResult for Json<T> {
    fn output_schema() -> Option<JsonObject> {
        Some(portable_output(schema_for::<T>()).schema)
    }

    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        let value = serde_json::to_value(&self.0)?;
        if !wraps_output::<T>() {
            return match value {
                serde_json::Value::Object(map) => Ok(CallToolResult::structured(map)),
                // The schema is an object's; a `Serialize` that disagrees is the type's bug.
                other => Err(ToolError::new(format!(
                    "structured output must serialise to a JSON object, got {other}"
                ))),
            };
        }
        let text = value.to_string();
        let mut map = JsonObject::new();
        map.insert(OUTPUT_WRAPPER.into(), value);
        Ok(CallToolResult {
            structured_content: Some(map),
            ..CallToolResult::text(text)
        })
    }
}

/// Whether `Json<T>`'s output is wrapped in `{"result": ...}`: decided by `T`'s schema, once
/// per type (keyed by schemars' `schema_id`, unique per type), not by each value, so the
/// value always matches the published `outputSchema`.
fn wraps_output<T: JsonSchema>() -> bool {
    use std::collections::HashMap;
    use std::sync::RwLock;
    static BY_TYPE: RwLock<Option<HashMap<String, bool>>> = RwLock::new(None);
    let id = T::schema_id();
    if let Some(found) = crate::peer::sync::read(&BY_TYPE)
        .as_ref()
        .and_then(|m| m.get(id.as_ref()).copied())
    {
        return found;
    }
    let wraps = portable_output(schema_for::<T>()).wrapper.is_some();
    crate::peer::sync::write(&BY_TYPE)
        .get_or_insert_with(HashMap::new)
        .insert(id.into_owned(), wraps);
    wraps
}

impl<T: IntoToolResult, E: std::fmt::Display + 'static> IntoToolResult for Result<T, E> {
    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        match self {
            Ok(t) => t.into_tool_result(),
            Err(e) => Err(tool_error_of(e)),
        }
    }
}

/// A tool's error as a [`ToolError`]: a `ToolError` passes through (protocol errors stay
/// protocol errors); any other `Display` error (`String`, `&str`, `anyhow::Error`, an
/// `std::error::Error`) becomes an execution error with its text.
fn tool_error_of<E: std::fmt::Display + 'static>(e: E) -> ToolError {
    let mut slot = Some(e);
    let any: &mut dyn std::any::Any = &mut slot;
    if let Some(tool_error) = any
        .downcast_mut::<Option<ToolError>>()
        .and_then(Option::take)
    {
        return tool_error;
    }
    ToolError::Execution(slot.map(|e| e.to_string()).unwrap_or_default())
}

/// The value in `slot` when its type `E` is `T` (the slot is then left empty), without
/// allocating; `None` (the slot untouched) for any other type.
fn take_as<T: 'static, E: 'static>(slot: &mut Option<E>) -> Option<T> {
    let any: &mut dyn std::any::Any = slot;
    any.downcast_mut::<Option<T>>().and_then(Option::take)
}

/// Converts a prompt function's return value into a `prompts/get` result.
///
/// ```
/// use tracksuit::IntoPromptResult;
/// let r = String::from("Summarise this").into_prompt_result().unwrap();
/// assert_eq!(r.messages.len(), 1);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP prompt",
    label = "this return type does not implement `IntoPromptResult`",
    note = "return `String` (one user message), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or `Result` of one of these"
)]
pub trait IntoPromptResult {
    /// The rendered prompt, or a JSON-RPC error.
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(self)
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult::new(vec![PromptMessage::user_text(self)]))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult::new(self))
    }
}

impl<T: IntoPromptResult, E: std::fmt::Display + 'static> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        self.map_err(error_object_of)?.into_prompt_result()
    }
}

/// A prompt's error as a JSON-RPC error: an [`ErrorObject`] passes through (so a prompt can
/// answer `-32602` for an argument it refuses); any other `Display` error is `-32603`.
fn error_object_of<E: std::fmt::Display + 'static>(e: E) -> ErrorObject {
    let mut slot = Some(e);
    if let Some(error) = take_as::<ErrorObject, E>(&mut slot) {
        return error;
    }
    match slot {
        Some(e) => ErrorObject::internal(e),
        None => ErrorObject::internal("the prompt failed"),
    }
}

/// Converts a resource function's return value into a `resources/read` result.
/// Text (`String`) and binary (`Vec<u8>`, base64-encoded for you) are given the resource's
/// URI and MIME type.
///
/// ```
/// use tracksuit::IntoResourceResult;
/// let r = vec![1u8, 2, 3].into_resource_result("mem://b", Some("application/octet-stream")).unwrap();
/// let json = serde_json::to_value(&r.contents[0]).unwrap();
/// assert_eq!(json["blob"], "AQID");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP resource",
    label = "this return type does not implement `IntoResourceResult`",
    note = "return `String` (text), `Vec<u8>` (binary), `ResourceContents`, `ReadResourceResult`, or `Result` of one of these"
)]
pub trait IntoResourceResult {
    /// The contents read from `uri`.
    fn into_resource_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject>;
}

impl IntoResourceResult for ReadResourceResult {
    fn into_resource_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        Ok(self)
    }
}

impl IntoResourceResult for ResourceContents {
    fn into_resource_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        Ok(ReadResourceResult::new(vec![self]))
    }
}

impl IntoResourceResult for String {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        let contents = match mime {
            Some(m) => ResourceContents::text_with_mime(uri, m, self),
            None => ResourceContents::text(uri, self),
        };
        Ok(ReadResourceResult::new(vec![contents]))
    }
}

impl IntoResourceResult for Vec<u8> {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(self);
        let contents = match mime {
            Some(m) => ResourceContents::blob_with_mime(uri, m, data),
            None => ResourceContents::blob(uri, data),
        };
        Ok(ReadResourceResult::new(vec![contents]))
    }
}

impl<T: IntoResourceResult, E: std::fmt::Display> IntoResourceResult for Result<T, E> {
    fn into_resource_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, ErrorObject> {
        self.map_err(|e| ErrorObject::internal(e))?
            .into_resource_result(uri, mime)
    }
}

/// What the `T` of a tool's [`Json<T>`] result must be: serialisable (`serde::Serialize`)
/// with a JSON Schema (`schemars::JsonSchema`, schemars **1**), which becomes the tool's
/// `outputSchema`. Implemented for every such type; there is nothing to implement.
///
/// ```
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum { sum: i64 }
///
/// #[tracksuit::mcp_tool]
/// async fn add(a: i64, b: i64) -> tracksuit::Json<Sum> {
///     tracksuit::Json(Sum { sum: a + b })
/// }
/// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(add);
/// ```
///
/// Without the derives, the tool is refused at its return type:
///
/// ```compile_fail
/// #[derive(serde::Serialize)] // no `schemars::JsonSchema`
/// struct Sum { sum: i64 }
///
/// #[tracksuit::mcp_tool]
/// async fn add(a: i64, b: i64) -> tracksuit::Json<Sum> { // error: `Sum` cannot be a tool's structured output
///     tracksuit::Json(Sum { sum: a + b })
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's structured output: derive `serde::Serialize` and `schemars::JsonSchema` for it",
    label = "`Json<T>` needs `T: Serialize + JsonSchema`: add `#[derive(serde::Serialize, schemars::JsonSchema)]` to `{Self}`",
    note = "the derive must come from schemars 1 (the version tracksuit uses; a schemars 0.8 `JsonSchema` is another trait)"
)]
pub trait JsonOutput: Serialize + JsonSchema {}

// Not recommended: a type that falls short is reported as not being a `JsonOutput` (this
// trait's message), not through this impl's bounds.
#[diagnostic::do_not_recommend]
impl<T: Serialize + JsonSchema + ?Sized> JsonOutput for T {}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of<E: std::fmt::Display + 'static>(e: E) -> ToolError {
        match Err::<String, E>(e).into_tool_result() {
            Err(e) => e,
            Ok(r) => panic!("an Err became a result: {r:?}"),
        }
    }

    #[test]
    fn a_returned_tool_error_keeps_its_kind() {
        let protocol = error_of(ToolError::protocol(ErrorObject::invalid_params("no city")));
        assert!(matches!(protocol, ToolError::Protocol(ref o) if o.code == -32602));
        let execution = error_of(ToolError::new("bad city"));
        assert!(matches!(execution, ToolError::Execution(ref m) if m == "bad city"));
    }

    #[test]
    fn any_other_display_error_becomes_an_execution_error_with_its_text() {
        let from_string = error_of(String::from("quota exceeded"));
        assert!(matches!(from_string, ToolError::Execution(ref m) if m == "quota exceeded"));
        let from_str = error_of("no such row");
        assert_eq!(from_str.to_string(), "no such row");
        let parse = error_of("4x".parse::<u8>().unwrap_err());
        assert_eq!(parse.to_string(), "invalid digit found in string");
    }
}
