//! Tools for models without native tool calls: the tools become one JSON Schema, an `anyOf`
//! of `{"tool": <name>, "arguments": <its input schema>}` (plus `{"text": ...}` when the
//! model may answer without a tool), sent as structured output; the answer is mapped back to
//! a `tool_use` block. A grammar-constrained server (llama.cpp) can then only produce a
//! well-formed call of an offered tool.

use serde_json::{Value, json};
use tracksuit::protocol::{JsonObject, SamplingMessageContentBlock, Tool, ToolUseContent};

/// The `anyOf` schema offering `tools` (and free text when `allow_text`). `$defs` of the
/// tools' schemas move to the root so their `#/$defs/...` references still resolve.
pub(crate) fn schema(tools: &[Tool], allow_text: bool) -> Value {
    let mut defs = JsonObject::new();
    let mut branches: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut arguments = tool.input_schema.clone();
            arguments.remove("$schema");
            if let Some(Value::Object(d)) = arguments.remove("$defs") {
                defs.extend(d);
            }
            let mut branch = json!({
                "type": "object",
                "properties": {
                    "tool": { "const": tool.name },
                    "arguments": Value::Object(arguments),
                },
                "required": ["tool", "arguments"],
                "additionalProperties": false,
            });
            if let (Some(d), Some(obj)) = (&tool.description, branch.as_object_mut()) {
                obj.insert("description".into(), Value::String(d.clone()));
            }
            branch
        })
        .collect();
    if allow_text {
        branches.push(json!({
            "type": "object",
            "properties": { "text": { "type": "string" } },
            "required": ["text"],
            "additionalProperties": false,
        }));
    }
    let mut schema = json!({ "anyOf": branches });
    if !defs.is_empty()
        && let Some(obj) = schema.as_object_mut()
    {
        obj.insert("$defs".into(), Value::Object(defs));
    }
    schema
}

/// The instruction added to the system prompt: which tools exist and how to call one.
pub(crate) fn instruction(tools: &[Tool], allow_text: bool) -> String {
    let mut s = String::from("You can call these tools:\n");
    for tool in tools {
        s.push_str(&format!(
            "- {}: {}\n",
            tool.name,
            tool.description.as_deref().unwrap_or("(no description)")
        ));
    }
    s.push_str("To call one, answer with JSON {\"tool\": <name>, \"arguments\": {...}}.");
    if allow_text {
        s.push_str(" To answer without a tool, answer with JSON {\"text\": <your answer>}.");
    }
    s
}

/// How an assistant's earlier call is shown to the model again (the same JSON it produced).
pub(crate) fn render_call(call: &ToolUseContent) -> String {
    json!({ "tool": call.name, "arguments": Value::Object(call.input.clone()) }).to_string()
}

/// Maps the model's JSON answer back: a call of an offered tool becomes `tool_use` (with
/// `id`), `{"text"}` becomes text; anything else is `None` (the caller keeps the raw text).
pub(crate) fn parse(text: &str, tools: &[Tool], id: String) -> Option<SamplingMessageContentBlock> {
    let value: Value = serde_json::from_str(text.trim()).ok()?;
    let obj = value.as_object()?;
    if let Some(name) = obj.get("tool").and_then(Value::as_str) {
        if !tools.iter().any(|t| t.name == name) {
            return None;
        }
        let input = match obj.get("arguments") {
            Some(Value::Object(a)) => a.clone(),
            None | Some(Value::Null) => JsonObject::new(),
            Some(_) => return None,
        };
        return Some(SamplingMessageContentBlock::ToolUse(ToolUseContent {
            id,
            name: name.to_owned(),
            input,
            meta: None,
        }));
    }
    obj.get("text")
        .and_then(Value::as_str)
        .map(SamplingMessageContentBlock::text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Value) -> Tool {
        let mut t = Tool::new(name, schema.as_object().cloned().unwrap_or_default());
        t.description = Some(format!("{name} it"));
        t
    }

    #[test]
    fn tools_become_an_any_of_of_tool_and_arguments() {
        let tools = [
            tool(
                "get_weather",
                json!({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}),
            ),
            tool(
                "get_events",
                json!({"type":"object","properties":{"day":{"$ref":"#/$defs/Day"}},"$defs":{"Day":{"type":"string"}}}),
            ),
        ];
        let s = schema(&tools, false);
        assert_eq!(s["anyOf"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            s["anyOf"][0]["properties"]["tool"],
            json!({"const": "get_weather"})
        );
        assert_eq!(
            s["anyOf"][0]["properties"]["arguments"]["required"],
            json!(["city"])
        );
        assert_eq!(s["anyOf"][0]["required"], json!(["tool", "arguments"]));
        assert_eq!(s["anyOf"][1]["description"], "get_events it");
        // $defs hoisted to the root, where `#/$defs/Day` resolves.
        assert_eq!(s["$defs"]["Day"], json!({"type":"string"}));
        assert!(
            s["anyOf"][1]["properties"]["arguments"]
                .get("$defs")
                .is_none()
        );
        let with_text = schema(&tools, true);
        assert_eq!(
            with_text["anyOf"][2]["properties"]["text"],
            json!({"type":"string"})
        );
    }

    #[test]
    fn answers_map_back_to_tool_use_or_text() {
        let tools = [tool("get_weather", json!({"type":"object"}))];
        let call = parse(
            r#" {"tool":"get_weather","arguments":{"city":"Oslo"}} "#,
            &tools,
            "c1".into(),
        );
        let Some(SamplingMessageContentBlock::ToolUse(u)) = call else {
            panic!("{call:?}")
        };
        assert_eq!((u.id.as_str(), u.name.as_str()), ("c1", "get_weather"));
        assert_eq!(u.input["city"], "Oslo");
        assert_eq!(
            parse(r#"{"text":"hello"}"#, &tools, "c2".into())
                .as_ref()
                .and_then(|b| b.as_text()),
            Some("hello")
        );
        // Unknown tools, bad arguments and non-JSON are left to the caller.
        assert!(parse(r#"{"tool":"rm_rf","arguments":{}}"#, &tools, "x".into()).is_none());
        assert!(
            parse(
                r#"{"tool":"get_weather","arguments":3}"#,
                &tools,
                "x".into()
            )
            .is_none()
        );
        assert!(parse("sunny", &tools, "x".into()).is_none());
        let rendered = render_call(&u);
        assert_eq!(
            serde_json::from_str::<Value>(&rendered).ok(),
            Some(json!({"tool":"get_weather","arguments":{"city":"Oslo"}}))
        );
    }
}
