//! Portable tool schemas: the rewriting that makes a schema derived from a Rust type (by
//! schemars) one that LLM clients accept, and the opt-in strict profile.
//!
//! Derived `inputSchema`s and `outputSchema`s (from `#[mcp_tool]`'s arguments and from
//! [`Json<T>`](crate::Json)) are rewritten once per tool:
//!
//! - `$defs` are inlined: no `$ref` is left, except to a recursive type (a type that
//!   contains itself cannot be inlined); those keep their `$ref` and their `$defs` entry;
//! - an optional property (`Option<T>`, not in `required`) loses its `null`: `["integer",
//!   "null"]` becomes `"integer"`, `anyOf: [T, {"type": "null"}]` becomes `T`. A client may
//!   leave the property out; an explicit `null` is still accepted when the call is checked;
//! - `format`s that JSON Schema 2020-12 does not define (`int32`, `uint8`, `double`, `ip`,
//!   ...) are dropped (the ranges of the numeric ones are already `minimum` / `maximum`);
//! - a schema that is not an object at the top (`oneOf` / `anyOf` / `allOf` from an enum, or
//!   a scalar / array type) is wrapped in an object with one required property: `input` for
//!   arguments (the tool receives the property's value), `result` for structured output (the
//!   result's `structuredContent` is `{"result": ...}`).
//!
//! Hand-written schemas (`Tool::new(name, schema)`, `ToolFn`) are never rewritten.
//!
//! The strict profile ([`strict_schema`], `ServerOptions::strict_schemas`) goes further for
//! OpenAI-style validators: every object lists all its properties in `required` (optional ones
//! become nullable instead) and forbids others (`additionalProperties: false`).

use crate::protocol::JsonObject;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The property a non-object input schema is wrapped in.
pub(crate) const INPUT_WRAPPER: &str = "input";
/// The property a non-object output schema is wrapped in.
pub(crate) const OUTPUT_WRAPPER: &str = "result";

/// The formats JSON Schema 2020-12 defines (section 7.3 of the validation vocabulary).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// A derived schema made portable; `wrapper` names the property it was wrapped in, if any.
#[derive(Debug, Clone)]
pub(crate) struct Portable {
    pub schema: JsonObject,
    pub wrapper: Option<&'static str>,
}

/// The portable form of a derived input schema (see the module docs).
pub(crate) fn portable_input(schema: JsonObject) -> Portable {
    portable(schema, INPUT_WRAPPER, true)
}

/// The portable form of a derived output schema (see the module docs).
///
/// Optional properties keep their `null` here: serde writes `None` as `null`, and a client
/// checks `structuredContent` against this schema.
pub(crate) fn portable_output(schema: JsonObject) -> Portable {
    portable(schema, OUTPUT_WRAPPER, false)
}

/// The portable form of a derived schema wrapped, when it must be, in `wrapper_name` (the
/// `value` of `sample_schema`'s `__schema__` tool).
pub(crate) fn portable_named(schema: JsonObject, wrapper_name: &'static str) -> Portable {
    portable(schema, wrapper_name, true)
}

fn portable(
    mut schema: JsonObject,
    wrapper_name: &'static str,
    optional_non_null: bool,
) -> Portable {
    inline_defs(&mut schema);
    let mut value = Value::Object(schema);
    tidy(&mut value, optional_non_null);
    let Value::Object(schema) = value else {
        unreachable_object()
    };
    let mut p = wrap(schema, wrapper_name);
    let no_properties = p
        .schema
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(JsonObject::is_empty);
    if p.wrapper.is_none()
        && optional_non_null
        && no_properties
        && !p.schema.contains_key("additionalProperties")
    {
        // An argument-less tool: exactly the empty object, which strict-mode converters
        // (OpenAI's) accept and adapters that read `properties` (LangChain's) can read.
        p.schema = JsonObject::from_iter([
            ("type".to_owned(), json!("object")),
            ("properties".to_owned(), json!({})),
            ("additionalProperties".to_owned(), json!(false)),
        ]);
    }
    p
}

/// `schema` as it is when it is an object at the top; else wrapped in an object with one
/// required property, `wrapper_name` (nothing else is rewritten: the raw profile's form).
pub(crate) fn wrap(mut schema: JsonObject, wrapper_name: &'static str) -> Portable {
    let object_at_top = schema.get("type").and_then(Value::as_str) == Some("object")
        && !["oneOf", "anyOf", "allOf"]
            .iter()
            .any(|k| schema.contains_key(*k));
    if object_at_top {
        return Portable {
            schema,
            wrapper: None,
        };
    }
    // `$schema` and `$defs` stay at the root (a kept `$ref` is `#/$defs/...`).
    let mut root = JsonObject::new();
    for key in ["$schema", "$defs"] {
        if let Some(v) = schema.remove(key) {
            root.insert(key.into(), v);
        }
    }
    root.insert("type".into(), json!("object"));
    root.insert(
        "properties".into(),
        json!({ wrapper_name: Value::Object(schema) }),
    );
    root.insert("required".into(), json!([wrapper_name]));
    Portable {
        schema: root,
        wrapper: Some(wrapper_name),
    }
}

#[cold]
fn unreachable_object() -> ! {
    // `tidy` keeps an object an object.
    unreachable!("a schema object stays an object")
}

/// Replaces every `$ref` to `#/$defs/X` by `X`'s schema, except where `X` is being inlined
/// already (a recursive type): that `$ref` stays, and so does `X` in `$defs`.
pub(super) fn inline_defs(schema: &mut JsonObject) {
    let Some(Value::Object(defs)) = schema.remove("$defs") else {
        return;
    };
    let mut kept = BTreeSet::new();
    let mut stack = Vec::new();
    for value in schema.values_mut() {
        inline_in(value, &defs, &mut stack, &mut kept);
    }
    // The kept (recursive) definitions, themselves inlined but for their own cycles; keeping
    // one may reveal another.
    let mut out = JsonObject::new();
    let mut done = BTreeSet::new();
    while let Some(name) = kept.iter().find(|n| !done.contains(*n)).cloned() {
        done.insert(name.clone());
        if let Some(def) = defs.get(&name) {
            let mut def = def.clone();
            let mut stack = vec![name.clone()];
            inline_in(&mut def, &defs, &mut stack, &mut kept);
            out.insert(name, def);
        }
    }
    if !out.is_empty() {
        schema.insert("$defs".into(), Value::Object(out));
    }
}

fn def_name(reference: &str) -> Option<&str> {
    reference.strip_prefix("#/$defs/")
}

fn inline_in(
    value: &mut Value,
    defs: &JsonObject,
    stack: &mut Vec<String>,
    kept: &mut BTreeSet<String>,
) {
    match value {
        Value::Object(map) => {
            let target = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(def_name)
                .map(str::to_owned);
            // The siblings first (a `$ref`'s description), then the inlined body, already
            // walked with its name on the stack (walking it again would unroll a cycle).
            for (key, v) in map.iter_mut() {
                // Literal data, not schemas.
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    inline_in(v, defs, stack, kept);
                }
            }
            if let Some(name) = target {
                if stack.contains(&name) {
                    kept.insert(name);
                } else if let Some(def) = defs.get(&name) {
                    let mut inlined = def.clone();
                    stack.push(name);
                    inline_in(&mut inlined, defs, stack, kept);
                    stack.pop();
                    map.remove("$ref");
                    // The `$ref`'s siblings (a field's description) win over the type's own.
                    if let Value::Object(body) = inlined {
                        for (k, v) in body {
                            map.entry(k).or_insert(v);
                        }
                    }
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| inline_in(v, defs, stack, kept)),
        _ => {}
    }
}

/// Walks every subschema: drops non-standard formats and the `null` of optional properties.
fn tidy(value: &mut Value, optional_non_null: bool) {
    let Value::Object(map) = value else { return };
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
    {
        map.remove("format");
    }
    let required: BTreeSet<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if optional_non_null && let Some(Value::Object(props)) = map.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) {
                drop_null(prop);
            }
        }
    }
    for (key, v) in map.iter_mut() {
        let key = key.as_str();
        if ONE.contains(&key) {
            tidy(v, optional_non_null);
        } else if MANY.contains(&key) {
            if let Value::Array(items) = v {
                items.iter_mut().for_each(|v| tidy(v, optional_non_null));
            }
        } else if MAP.contains(&key)
            && let Value::Object(entries) = v
        {
            entries
                .values_mut()
                .for_each(|v| tidy(v, optional_non_null));
        }
    }
}

/// `T | null` → `T`, in the shapes schemars writes it.
fn drop_null(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if map.get("default").is_some_and(Value::is_null) {
        map.remove("default");
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.get_mut(key) else {
            continue;
        };
        branches.retain(|b| b != &json!({"type": "null"}));
        if branches.len() == 1 {
            let only = branches.remove(0);
            map.remove(key);
            if let Value::Object(body) = only {
                for (k, v) in body {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
}

/// The strict profile of a schema, for validators in the style of OpenAI's structured
/// outputs: in every object schema, all properties are `required` (a property that was
/// optional becomes nullable: `["T", "null"]`, or `anyOf: [T, {"type": "null"}]`) and
/// `additionalProperties` is `false`. Anything else is left as it is.
///
/// ```
/// use serde_json::json;
/// let schema = json!({
///     "type": "object",
///     "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
///     "required": ["path"]
/// });
/// let strict = tracksuit::strict_schema(schema.as_object().unwrap());
/// assert_eq!(serde_json::Value::Object(strict), json!({
///     "type": "object",
///     "properties": {"path": {"type": "string"}, "limit": {"type": ["integer", "null"]}},
///     "required": ["path", "limit"],
///     "additionalProperties": false
/// }));
/// ```
pub fn strict_schema(schema: &JsonObject) -> JsonObject {
    let mut value = Value::Object(schema.clone());
    strict_in(&mut value);
    match value {
        Value::Object(map) => map,
        _ => unreachable_object(),
    }
}

fn strict_in(value: &mut Value) {
    let Value::Object(map) = value else { return };
    for (key, v) in map.iter_mut() {
        let key = key.as_str();
        if ONE.contains(&key) {
            strict_in(v);
        } else if MANY.contains(&key) {
            if let Value::Array(items) = v {
                items.iter_mut().for_each(strict_in);
            }
        } else if MAP.contains(&key)
            && let Value::Object(entries) = v
        {
            entries.values_mut().for_each(strict_in);
        }
    }
    let is_object =
        map.get("type").and_then(Value::as_str) == Some("object") || map.contains_key("properties");
    if !is_object {
        return;
    }
    let required: BTreeSet<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut all = Vec::new();
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) {
                make_nullable(prop);
            }
            all.push(Value::String(name.clone()));
        }
    }
    if map.contains_key("properties") {
        map.insert("required".into(), Value::Array(all));
    }
    map.insert("additionalProperties".into(), Value::Bool(false));
}

fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    match map.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            map.insert("type".into(), json!([t, "null"]));
            if let Some(Value::Array(values)) = map.get_mut("enum")
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
        }
        _ => {
            // No single type (a `$ref`, `anyOf`, `const`...): a union with `null`.
            let body = std::mem::take(map);
            let (annotations, rest): (JsonObject, JsonObject) = body
                .into_iter()
                .partition(|(k, _)| matches!(k.as_str(), "description" | "title"));
            map.extend(annotations);
            map.insert(
                "anyOf".into(),
                json!([Value::Object(rest), {"type": "null"}]),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authoring::schema_for;
    use schemars::JsonSchema;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Point {
        x: i32,
        y: i32,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Args {
        /// Where.
        at: Point,
        also: Option<Point>,
        limit: Option<u8>,
        id: std::net::IpAddr,
        when: Option<Vec<Point>>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Tree {
        label: String,
        children: Vec<Tree>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Forest {
        trees: Vec<Tree>,
        best: Point,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    #[serde(tag = "kind")]
    enum Shape {
        Circle { r: f64 },
        Square { side: f64 },
    }

    fn refs(v: &Value) -> Vec<String> {
        let mut out = Vec::new();
        fn walk(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                        out.push(r.to_owned());
                    }
                    m.values().for_each(|v| walk(v, out));
                }
                Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
                _ => {}
            }
        }
        walk(v, &mut out);
        out
    }

    #[test]
    fn an_argument_less_input_is_exactly_the_empty_object() {
        #[derive(schemars::JsonSchema)]
        struct Nothing {}
        let p = portable_input(schema_for::<Nothing>());
        assert_eq!(
            Value::Object(p.schema),
            json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
        // An output keeps what it was derived with; so does an open object.
        let out = portable_output(schema_for::<Nothing>()).schema;
        assert!(!out.contains_key("additionalProperties"), "{out:?}");
        let open = portable_input(schema_for::<serde_json::Map<String, Value>>()).schema;
        assert_ne!(
            open.get("additionalProperties"),
            Some(&json!(false)),
            "{open:?}"
        );
    }

    #[test]
    fn defs_are_inlined_options_lose_null_and_formats_go() {
        let p = portable_input(schema_for::<Args>());
        let s = Value::Object(p.schema);
        assert!(p.wrapper.is_none());
        assert!(refs(&s).is_empty(), "{s:#}");
        assert!(s.get("$defs").is_none(), "{s:#}");
        assert_eq!(s["properties"]["at"]["type"], "object");
        assert_eq!(s["properties"]["at"]["description"], "Where.");
        assert_eq!(s["properties"]["also"]["type"], "object", "{s:#}");
        assert_eq!(s["properties"]["limit"]["type"], "integer", "{s:#}");
        assert_eq!(s["properties"]["when"]["type"], "array", "{s:#}");
        assert!(!s.to_string().contains("null"), "{s:#}");
        assert!(!s.to_string().contains("\"format\""), "{s:#}");
        assert_eq!(s["required"], json!(["at", "id"]));
    }

    #[test]
    fn recursive_types_keep_their_ref() {
        let s = Value::Object(portable_input(schema_for::<Forest>()).schema);
        let found = refs(&s);
        assert!(!found.is_empty(), "{s:#}");
        assert!(found.iter().all(|r| r == "#/$defs/Tree"), "{s:#}");
        assert!(s["$defs"]["Tree"].is_object(), "{s:#}");
        assert!(s["$defs"].get("Point").is_none(), "{s:#}");
        assert_eq!(s["properties"]["trees"]["items"]["type"], "object", "{s:#}");
    }

    #[test]
    fn a_top_level_one_of_is_wrapped() {
        let p = portable_input(schema_for::<Shape>());
        assert_eq!(p.wrapper, Some("input"));
        let s = Value::Object(p.schema);
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], json!(["input"]));
        assert!(s["properties"]["input"]["oneOf"].is_array(), "{s:#}");
        let p = portable_output(schema_for::<Vec<Point>>());
        assert_eq!(p.wrapper, Some("result"));
        assert_eq!(p.schema["properties"]["result"]["type"], "array");
        assert_eq!(portable_output(schema_for::<u64>()).wrapper, Some("result"));
    }

    #[test]
    fn strict_profile_requires_everything_and_closes_objects() {
        let s = strict_schema(&portable_input(schema_for::<Args>()).schema);
        let s = Value::Object(s);
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], json!(["at", "also", "limit", "id", "when"]));
        assert_eq!(s["properties"]["at"]["additionalProperties"], false);
        assert_eq!(s["properties"]["limit"]["type"], json!(["integer", "null"]));
        assert_eq!(s["properties"]["also"]["type"], json!(["object", "null"]));
    }

    #[test]
    fn a_property_named_format_is_not_a_keyword() {
        let schema = json!({"type": "object", "properties": {"format": {"type": "string", "format": "int32"}}, "required": ["format"]});
        let p = portable_input(schema.as_object().cloned().unwrap_or_default());
        assert_eq!(
            Value::Object(p.schema),
            json!({"type": "object", "properties": {"format": {"type": "string"}}, "required": ["format"]})
        );
    }
}
