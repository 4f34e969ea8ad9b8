//! Applying a [`SchemaProfile`] to a schema: the published (portable) form in, the form a
//! client of that profile is given out.

use super::gemini::gemini_schema;
use super::portable::{inline_defs, portable_named, strict_schema, wrap};
use crate::context::SchemaProfile;
use crate::protocol::JsonObject;

impl SchemaProfile {
    /// `schema` (a tool's published `inputSchema`: the portable form of a derived one, or a
    /// hand-written one) in this profile: [`Portable`](SchemaProfile::Portable) and
    /// [`Raw`](SchemaProfile::Raw) leave it as it is (a derived tool's raw schema is its own,
    /// not this one rewritten back), [`OpenAiStrict`](SchemaProfile::OpenAiStrict) is
    /// [`strict_schema`](crate::strict_schema) without the composition strict mode rejects
    /// at the top (`if` / `then` / `else`, `not`, alternatives beside `properties`),
    /// [`GeminiSafe`](SchemaProfile::GeminiSafe) the OpenAPI 3.0 subset Gemini accepts.
    ///
    /// ```
    /// use serde_json::json;
    /// use tracksuit::SchemaProfile;
    /// let schema = json!({
    ///     "type": "object",
    ///     "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
    ///     "required": ["city"],
    ///     "additionalProperties": false
    /// });
    /// let schema = schema.as_object().unwrap();
    /// assert_eq!(serde_json::Value::Object(SchemaProfile::GeminiSafe.apply(schema)), json!({
    ///     "type": "object",
    ///     "properties": {"city": {"type": "string"}, "days": {"type": "integer", "nullable": true}},
    ///     "required": ["city"]
    /// }));
    /// assert_eq!(SchemaProfile::OpenAiStrict.apply(schema)["required"], json!(["city", "days"]));
    /// assert_eq!(&SchemaProfile::Portable.apply(schema), schema);
    /// ```
    pub fn apply(self, schema: &JsonObject) -> JsonObject {
        match self {
            SchemaProfile::Portable | SchemaProfile::Raw => schema.clone(),
            SchemaProfile::OpenAiStrict => openai_strict(schema),
            SchemaProfile::GeminiSafe => gemini_schema(schema),
        }
    }

    /// A derived schema (as schemars made it) published in this profile, wrapped in
    /// `wrapper` when it is not an object at the top; and whether it was wrapped.
    pub(crate) fn derived(self, derived: JsonObject, wrapper: &'static str) -> (JsonObject, bool) {
        if self == SchemaProfile::Raw {
            let raw = wrap(derived, wrapper);
            return (raw.schema, raw.wrapper.is_some());
        }
        let portable = portable_named(derived, wrapper);
        (self.apply(&portable.schema), portable.wrapper.is_some())
    }
}

/// Keywords OpenAI's strict mode does not support (composition it cannot express); the
/// server still checks them on every call.
const NOT_STRICT: &[&str] = &[
    "if",
    "then",
    "else",
    "not",
    "dependentRequired",
    "dependentSchemas",
];

/// [`strict_schema`] of the schema with its `$defs` inlined, without what strict mode
/// rejects: the keywords of [`NOT_STRICT`] at
/// the top, and alternatives there (`allOf` / `anyOf` / `oneOf` of a schema with
/// `properties`: "the root of a strict JSON schema must not use anyOf").
fn openai_strict(schema: &JsonObject) -> JsonObject {
    // References inlined first (a recursive type's stay): the Agents SDK refuses a `$ref`
    // whose target it has not walked yet.
    let mut inlined = schema.clone();
    inline_defs(&mut inlined);
    let mut strict = strict_schema(&inlined);
    strict.retain(|k, _| !NOT_STRICT.contains(&k.as_str()));
    if strict.contains_key("properties") {
        for key in ["allOf", "anyOf", "oneOf"] {
            strict.remove(key);
        }
    }
    strict
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authoring::schema_for;
    use schemars::JsonSchema;
    use serde_json::{Value, json};

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Inner {
        n: Option<u8>,
        tag: Option<String>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Size {
        Small,
        Large,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Tree {
        label: String,
        children: Vec<Tree>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Args {
        inner: Option<Inner>,
        size: Size,
        tree: Option<Tree>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    #[serde(tag = "kind")]
    enum Shape {
        Circle { r: f64 },
        Square { side: f64 },
    }

    fn show(profile: SchemaProfile, schema: JsonObject) -> Value {
        let (mut s, _) = profile.derived(schema, "input");
        s.remove("$schema");
        s.remove("title");
        Value::Object(s)
    }

    fn tree(items: Value) -> Value {
        json!({"type": "object", "properties": {"label": {"type": "string"},
            "children": {"type": "array", "items": items}}, "required": ["label", "children"]})
    }

    #[test]
    fn gemini_safe_nests_options_cuts_recursion_and_has_no_json_schema_keywords() {
        let inner = json!({"type": "object", "properties": {
            "n": {"type": "integer", "maximum": 255, "minimum": 0}, "tag": {"type": "string"}}});
        assert_eq!(
            show(SchemaProfile::GeminiSafe, schema_for::<Args>()),
            json!({"type": "object", "properties": {
                "inner": inner,
                "size": {"type": "string", "enum": ["small", "large"]},
                "tree": tree(tree(json!({"type": "object"}))),
            }, "required": ["size"]})
        );
        let circle = json!({"type": "object", "properties": {
            "kind": {"type": "string", "enum": ["Circle"]}, "r": {"type": "number"}},
            "required": ["kind", "r"]});
        let shape = show(SchemaProfile::GeminiSafe, schema_for::<Shape>());
        assert_eq!(shape["properties"]["input"]["anyOf"][0], circle);
        assert_eq!(shape["required"], json!(["input"]));
    }

    #[test]
    fn gemini_safe_turns_nulls_into_nullable_and_lists_other_enums() {
        let schema = json!({"type": "object", "additionalProperties": false, "properties": {
            "a": {"type": ["string", "null"], "format": "email", "default": null},
            "b": {"anyOf": [{"type": "integer", "format": "int32"}, {"type": "null"}]},
            "c": {"type": "integer", "enum": [1, 2], "description": "Level."},
            "d": {"type": "string", "format": "date-time", "x-mcp-header": "When"},
            "e": {"allOf": [{"type": "object", "properties": {"x": {"type": "number"}}}]},
        }, "required": ["d", "gone"]});
        let out = SchemaProfile::GeminiSafe.apply(schema.as_object().unwrap_or(&JsonObject::new()));
        assert_eq!(
            Value::Object(out),
            json!({"type": "object", "properties": {
                "a": {"type": "string", "nullable": true},
                "b": {"type": "integer", "nullable": true},
                "c": {"type": "integer", "description": "Level. One of: 1, 2."},
                "d": {"type": "string", "format": "date-time", "x-mcp-header": "When"},
                "e": {"type": "object", "properties": {"x": {"type": "number"}}},
            }, "required": ["d"]})
        );
    }

    #[test]
    fn openai_strict_requires_every_property_at_every_depth() {
        let s = show(SchemaProfile::OpenAiStrict, schema_for::<Args>());
        assert_eq!(
            s["properties"]["inner"],
            json!({"type": ["object", "null"], "properties": {
                "n": {"type": ["integer", "null"], "maximum": 255, "minimum": 0},
                "tag": {"type": ["string", "null"]}},
                "required": ["n", "tag"], "additionalProperties": false})
        );
        assert_eq!(s["required"], json!(["inner", "size", "tree"]));
        assert_eq!(
            s["properties"]["size"],
            json!({"type": "string", "enum": ["small", "large"]})
        );
        let mut closed = tree(json!({"$ref": "#/$defs/Tree"}));
        closed["additionalProperties"] = json!(false);
        assert_eq!(s["$defs"]["Tree"], closed);
    }

    #[test]
    fn portable_inlines_all_but_the_recursive_type_and_raw_rewrites_nothing() {
        let s = show(SchemaProfile::Portable, schema_for::<Args>());
        assert_eq!(
            s["properties"]["inner"]["properties"]["n"]["type"],
            "integer"
        );
        assert_eq!(
            s["properties"]["tree"],
            tree(json!({"$ref": "#/$defs/Tree"}))
        );
        assert_eq!(s["$defs"].as_object().map(|d| d.len()), Some(1));
        let raw = show(SchemaProfile::Raw, schema_for::<Args>());
        let mut derived = schema_for::<Args>();
        derived.remove("$schema");
        derived.remove("title");
        assert_eq!(raw, Value::Object(derived));
        assert_eq!(
            raw["properties"]["inner"]["anyOf"][1],
            json!({"type": "null"})
        );
        // A non-object type is wrapped in every profile, raw too.
        for p in SchemaProfile::ALL {
            let (s, wrapped) = p.derived(schema_for::<Shape>(), "input");
            assert!(wrapped, "{p}");
            assert_eq!(s["required"], json!(["input"]), "{p}");
        }
    }
}
