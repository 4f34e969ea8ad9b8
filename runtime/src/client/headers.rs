//! SEP-2243 (2026-07-28 Streamable HTTP): the headers a client mirrors from the body —
//! `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-{Name}` for tool parameters annotated with
//! `x-mcp-header` — and the rules that make such an annotation invalid.

// Without the `http` feature only the validation is used (by `Client::list_tools`).
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use base64::Engine as _;
use serde_json::Value;

/// The annotation keyword.
const KEYWORD: &str = "x-mcp-header";

/// One tool parameter mirrored into a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderParam {
    /// The chain of `properties` keys from the schema root to the parameter.
    pub(crate) path: Vec<String>,
    /// The name part of `Mcp-Param-{name}`.
    pub(crate) name: String,
}

/// The parameters of a tool's `inputSchema` that must be mirrored, or why the tool
/// definition is invalid (the client then leaves the tool out of `tools/list`).
pub(crate) fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    collect(input_schema, &mut Vec::new(), &mut found)?;
    let mut seen = std::collections::HashSet::new();
    for param in &found {
        if !seen.insert(param.name.to_ascii_lowercase()) {
            return Err(format!("`{KEYWORD}` `{}` is not unique", param.name));
        }
    }
    Ok(found)
}

fn collect(
    value: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    match value {
        Value::Object(map) => {
            if let Some(name) = map.get(KEYWORD) {
                out.push(check(map, name, path)?);
            }
            for (key, child) in map {
                path.push(key.clone());
                collect(child, path, out)?;
                path.pop();
            }
            Ok(())
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(i.to_string());
                collect(child, path, out)?;
                path.pop();
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Validates one annotation found at `path` (the JSON path of the annotated schema).
fn check(
    schema: &serde_json::Map<String, Value>,
    name: &Value,
    path: &[String],
) -> Result<HeaderParam, String> {
    let reachable = !path.is_empty()
        && path.len().is_multiple_of(2)
        && path.chunks(2).all(|step| step[0] == "properties");
    if !reachable {
        return Err(format!(
            "`{KEYWORD}` at /{} is not reachable through `properties` alone",
            path.join("/")
        ));
    }
    let Some(name) = name.as_str() else {
        return Err(format!("`{KEYWORD}` must be a string"));
    };
    if name.is_empty() || !name.bytes().all(is_tchar) {
        return Err(format!("`{KEYWORD}` {name:?} is not an HTTP token"));
    }
    let primitive = |t: &str| matches!(t, "string" | "integer" | "boolean");
    let typed = match schema.get("type") {
        Some(Value::String(t)) => primitive(t),
        Some(Value::Array(ts)) => {
            let named: Vec<_> = ts.iter().filter_map(Value::as_str).collect();
            named.len() == ts.len()
                && named.iter().any(|t| primitive(t))
                && named.iter().all(|t| primitive(t) || *t == "null")
        }
        _ => false,
    };
    if !typed {
        return Err(format!(
            "`{KEYWORD}` {name:?} is on a parameter that is not a string, integer or boolean"
        ));
    }
    Ok(HeaderParam {
        path: path.chunks(2).map(|step| step[1].clone()).collect(),
        name: name.to_owned(),
    })
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A value as a header: plain when it is safe visible ASCII, otherwise
/// `=?base64?{UTF-8 as Base64}?=`.
pub(crate) fn encode_value(value: &str) -> String {
    let safe = value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && value.trim_matches([' ', '\t']) == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if safe {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

/// The header text of an argument value, or `None` to omit the header (absent, null, or
/// not a primitive).
pub(crate) fn param_value(arguments: &Value, path: &[String]) -> Option<String> {
    let mut at = arguments;
    for key in path {
        at = at.get(key)?;
    }
    match at {
        Value::String(s) => Some(encode_value(s)),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The body field `Mcp-Name` mirrors for `method`, if any.
pub(crate) fn name_of<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        // SEP-2663: requests about a task are routed by its id.
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    params?.get(field)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_annotations_give_paths() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "q": {"type": "string"}
        }});
        let params = header_params(&schema).unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params[1].path, vec!["opts".to_owned(), "n".to_owned()]);
        let args = json!({"region": " x", "opts": {"n": 42}});
        assert_eq!(
            param_value(&args, &params[0].path).unwrap(),
            "=?base64?IHg=?="
        );
        assert_eq!(param_value(&args, &params[1].path).unwrap(), "42");
    }

    #[test]
    fn invalid_annotations_are_refused() {
        for bad in [
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A b"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Ré"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"},
                                  "b": {"type": "string", "x-mcp-header": "x"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
        ] {
            assert!(header_params(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn encoding() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    }
}
