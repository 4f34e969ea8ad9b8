//! Pieces both providers share: the `__schema__` check, tool-result text, usage, and the
//! result assembly.

use serde_json::{Value, json};
use tracksuit::protocol::{
    ContentBlock, CreateMessageRequestParams, CreateMessageResult, JsonObject, OneOrMany,
    ResourceContents, Role, SamplingMessageContentBlock, StopReason, Tool, ToolChoiceMode,
};
use tracksuit::sampling::SCHEMA_TOOL;

/// The `__schema__` tool when it is the only tool offered (what `sample_schema` sends): the
/// request is for structured output, not for a tool call.
pub(crate) fn schema_only(params: &CreateMessageRequestParams) -> Option<&Tool> {
    match params.tools.as_deref() {
        Some([tool]) if tool.name == SCHEMA_TOOL => Some(tool),
        _ => None,
    }
}

/// The requested tool choice mode (default auto).
pub(crate) fn choice_mode(params: &CreateMessageRequestParams) -> ToolChoiceMode {
    params
        .tool_choice
        .as_ref()
        .and_then(|c| c.mode)
        .unwrap_or(ToolChoiceMode::Auto)
}

/// A tool result's content as one text (for APIs whose tool messages are text): text blocks
/// joined, resource links and embedded text resources by their text, structured content
/// as JSON when nothing else was given.
pub(crate) fn tool_result_text(
    content: &[ContentBlock],
    structured: Option<&JsonObject>,
) -> String {
    let mut parts: Vec<String> = content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(t) => t.text.clone(),
            ContentBlock::ResourceLink(l) => format!("[{}]({})", l.name, l.uri),
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::Text(t) => t.text.clone(),
                ResourceContents::Blob(b) => format!("[binary resource {}]", b.uri),
            },
            ContentBlock::Image(i) => format!("[image {}]", i.mime_type),
            ContentBlock::Audio(a) => format!("[audio {}]", a.mime_type),
        })
        .collect();
    if parts.is_empty()
        && let Some(s) = structured
    {
        parts.push(Value::Object(s.clone()).to_string());
    }
    parts.join("\n")
}

/// MCP usage as the runtime's token budget reads it.
pub(crate) fn usage(input: Option<u64>, output: Option<u64>) -> Option<Value> {
    match (input, output) {
        (None, None) => None,
        (i, o) => Some(json!({ "inputTokens": i.unwrap_or(0), "outputTokens": o.unwrap_or(0) })),
    }
}

/// Assembles the result: one block stays one block, several become an array.
pub(crate) fn result(
    mut content: Vec<SamplingMessageContentBlock>,
    model: String,
    stop_reason: Option<StopReason>,
    usage: Option<Value>,
) -> CreateMessageResult {
    let content = match content.len() {
        0 => OneOrMany::One(SamplingMessageContentBlock::text("")),
        1 => OneOrMany::One(content.remove(0)),
        _ => OneOrMany::Many(content),
    };
    let mut extra = JsonObject::new();
    if let Some(u) = usage {
        extra.insert("usage".into(), u);
    }
    CreateMessageResult {
        role: Role::Assistant,
        content,
        model,
        stop_reason,
        meta: None,
        extra,
    }
}

/// A data URL of base64 content.
pub(crate) fn data_url(mime: &str, data: &str) -> String {
    format!("data:{mime};base64,{data}")
}
