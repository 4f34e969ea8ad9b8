//! The Gemini-safe profile: a schema rewritten into the subset of OpenAPI 3.0 that Gemini's
//! function declarations accept in `parameters` (the `Schema` object of the Gemini API and
//! Vertex AI references), so a client can hand it to Gemini unchanged.
//!
//! Kept: `type` (one, not a list), `format` (strings: `date-time` and `enum` only), `title`,
//! `description`, `nullable`, `enum` (strings), `items`, `properties`, `required`,
//! `propertyOrdering`, `anyOf`, the size and range bounds (`minItems`, `maxItems`,
//! `minLength`, `maxLength`, `minProperties`, `maxProperties`, `minimum`, `maximum`),
//! `pattern`, `example`, and MCP's own `x-mcp-header` annotation (a client reads it; it is
//! not for the model). Everything else is rewritten or dropped:
//!
//! - `$ref`s are inlined; one to a recursive type (which cannot be) becomes that type's
//!   `type` with its description, and the recursion ends there;
//! - `["T", "null"]`, `anyOf: [T, {"type": "null"}]` and a `null` in `enum` become
//!   `nullable: true`; `oneOf` becomes `anyOf`; `allOf` is merged into its schema;
//! - `const: v` becomes `enum: [v]`; an `enum` of numbers or booleans is dropped, its values
//!   listed in the description instead;
//! - `additionalProperties`, `$schema`, `$id`, `$defs`, `default`, `examples`,
//!   `exclusiveMinimum` / `exclusiveMaximum`, `multipleOf`, `uniqueItems` and the other
//!   JSON Schema keywords Gemini rejects ("Unknown name ... Cannot find field") are dropped;
//!   so is an `anyOf` at the top (`parameters` is one object).

use super::portable::inline_defs;
use crate::protocol::JsonObject;
use serde_json::{Value, json};

/// What Gemini's `Schema` object has (besides `x-mcp-header`, MCP's).
const KEPT: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "propertyOrdering",
    "anyOf",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "pattern",
    "example",
    "x-mcp-header",
];

/// The string formats the Gemini API accepts.
const FORMATS: &[&str] = &["date-time", "enum"];

/// The Gemini-safe form of `schema` (see the module docs).
pub(crate) fn gemini_schema(schema: &JsonObject) -> JsonObject {
    let mut root = schema.clone();
    inline_defs(&mut root);
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => JsonObject::new(),
    };
    let mut value = Value::Object(root);
    rewrite(&mut value, &defs);
    let Value::Object(mut root) = value else {
        return JsonObject::new();
    };
    if !root.contains_key("type") {
        root.insert("type".into(), json!("object"));
    }
    // `parameters` is one object: alternatives at the top (a hand-written `anyOf` of
    // `required` lists) cannot be said; the server still checks them on every call.
    if root.get("type") == Some(&json!("object")) {
        root.remove("anyOf");
    }
    if root.get("type") == Some(&json!("object")) && !root.contains_key("properties") {
        root.insert("properties".into(), json!({}));
    }
    root
}

/// Rewrites one schema and everything below it.
fn rewrite(value: &mut Value, defs: &JsonObject) {
    if value.is_boolean() {
        // `true` (anything): no constraint Gemini can state. `false` cannot be said at all.
        *value = json!({});
        return;
    }
    let Value::Object(map) = value else { return };
    if let Some(reference) = map
        .remove("$ref")
        .and_then(|r| r.as_str().map(str::to_owned))
    {
        cut_recursion(map, &reference, defs);
    }
    merge_all_of(map);
    if let Some(one_of) = map.remove("oneOf") {
        map.entry("anyOf").or_insert(one_of);
    }
    if let Some(constant) = map.remove("const") {
        map.entry("enum").or_insert_with(|| json!([constant]));
    }
    nullable(map);
    enum_of_strings(map);
    single_type(map);
    keep_format(map);
    map.retain(|k, _| KEPT.contains(&k.as_str()));
    for key in ["items"] {
        if let Some(v) = map.get_mut(key) {
            if v.is_array() {
                // A tuple: OpenAPI 3.0 has none.
                map.remove(key);
            } else {
                rewrite(v, defs);
            }
        }
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.iter_mut().for_each(|b| rewrite(b, defs));
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.values_mut().for_each(|p| rewrite(p, defs));
    }
    let names: Vec<String> = match map.get("properties") {
        Some(Value::Object(props)) => props.keys().cloned().collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|r| r.as_str().is_some_and(|r| names.iter().any(|n| n == r)));
    }
}

/// A `$ref` left after inlining points at a recursive type: the type's own `type` and
/// description stand in for it (the structure ends at this depth).
fn cut_recursion(map: &mut JsonObject, reference: &str, defs: &JsonObject) {
    let target = reference
        .strip_prefix("#/$defs/")
        .and_then(|name| defs.get(name))
        .and_then(Value::as_object);
    let kind = target
        .and_then(|t| t.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("object");
    map.entry("type").or_insert_with(|| json!(kind));
    if let Some(description) = target.and_then(|t| t.get("description")) {
        map.entry("description")
            .or_insert_with(|| description.clone());
    }
}

/// `allOf: [A, B]` → A's and B's keywords on the schema itself (properties and `required`
/// united).
fn merge_all_of(map: &mut JsonObject) {
    let Some(Value::Array(branches)) = map.remove("allOf") else {
        return;
    };
    for branch in branches {
        let Value::Object(branch) = branch else {
            continue;
        };
        for (key, v) in branch {
            match (key.as_str(), map.get_mut(&key), v) {
                ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                    for (name, p) in theirs {
                        mine.entry(name).or_insert(p);
                    }
                }
                ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                    for name in theirs {
                        if !mine.contains(&name) {
                            mine.push(name);
                        }
                    }
                }
                (_, Some(_), _) => {}
                (_, None, v) => {
                    map.insert(key, v);
                }
            }
        }
    }
}

/// Every way of saying "or null" becomes `nullable: true`.
fn nullable(map: &mut JsonObject) {
    let mut null = false;
    if let Some(Value::Array(types)) = map.get_mut("type") {
        let before = types.len();
        types.retain(|t| t != "null");
        null |= types.len() < before;
    }
    if map.get("type") == Some(&json!("null")) {
        map.remove("type");
        null = true;
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        let before = values.len();
        values.retain(|v| !v.is_null());
        null |= values.len() < before;
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        let before = branches.len();
        branches.retain(|b| b.get("type") != Some(&json!("null")));
        null |= branches.len() < before;
        if branches.len() == 1 {
            let only = branches.remove(0);
            map.remove("anyOf");
            if let Value::Object(body) = only {
                for (k, v) in body {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
    if null {
        map.insert("nullable".into(), Value::Bool(true));
    }
}

/// Gemini's `enum` holds strings: another kind's values go to the description.
fn enum_of_strings(map: &mut JsonObject) {
    let Some(Value::Array(values)) = map.get("enum") else {
        return;
    };
    if values.iter().all(Value::is_string) {
        if map.get("type").is_none() {
            map.insert("type".into(), json!("string"));
        }
        return;
    }
    let listed: Vec<String> = values.iter().map(Value::to_string).collect();
    let note = format!("One of: {}.", listed.join(", "));
    map.remove("enum");
    let description = match map.get("description").and_then(Value::as_str) {
        Some(d) => format!("{d} {note}"),
        None => note,
    };
    map.insert("description".into(), Value::String(description));
}

/// `type: ["string", "integer"]` (no single type) → `anyOf` of each.
fn single_type(map: &mut JsonObject) {
    let Some(Value::Array(types)) = map.get_mut("type") else {
        return;
    };
    match types.len() {
        0 => {
            map.remove("type");
        }
        1 => {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
        _ => {
            let branches: Vec<Value> = types.iter().map(|t| json!({ "type": t })).collect();
            map.remove("type");
            map.entry("anyOf").or_insert(Value::Array(branches));
        }
    }
}

/// Only `date-time` and `enum`, on strings.
fn keep_format(map: &mut JsonObject) {
    let keep = map.get("type") == Some(&json!("string"))
        && map
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|f| FORMATS.contains(&f));
    if !keep {
        map.remove("format");
    }
}
