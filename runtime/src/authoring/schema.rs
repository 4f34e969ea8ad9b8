//! JSON Schema generation (schemars, draft 2020-12) and validation (jsonschema) with errors
//! that name the offending field.

use crate::protocol::JsonObject;
use schemars::JsonSchema;
use serde_json::Value;
use std::sync::OnceLock;

/// The draft 2020-12 schema of `T`, as a JSON object.
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// struct Point { x: i32, y: i32 }
/// let s = tracksuit::schema_for::<Point>();
/// assert_eq!(s["type"], "object");
/// assert_eq!(s["required"], serde_json::json!(["x", "y"]));
/// ```
pub fn schema_for<T: JsonSchema + ?Sized>() -> JsonObject {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = schema.to_value();
    strip_numeric_formats(&mut value);
    match value {
        Value::Object(map) => map,
        // `true` / `false` schemas: anything / nothing.
        Value::Bool(true) => JsonObject::new(),
        _ => serde_json::json!({ "not": {} })
            .as_object()
            .cloned()
            .unwrap_or_default(),
    }
}

/// Drops schemars' non-standard numeric `format`s (`int32`, `uint8`, `double`, ...): JSON
/// Schema 2020-12 does not define them, and strict validators (ajv in the TypeScript SDK)
/// warn about every one. The ranges they imply are already `minimum` / `maximum`.
fn strip_numeric_formats(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let numeric = map.get("format").and_then(Value::as_str).is_some_and(|f| {
                f.starts_with("int") || f.starts_with("uint") || f == "float" || f == "double"
            });
            if numeric {
                map.remove("format");
            }
            map.values_mut().for_each(strip_numeric_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_numeric_formats),
        _ => {}
    }
}

/// A schema compiled once, on first use, for validating values against it.
///
/// ```
/// use tracksuit::__private::SchemaValidator;
/// static V: SchemaValidator = SchemaValidator::new();
/// let schema = serde_json::json!({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]});
/// let schema = schema.as_object().unwrap();
/// assert!(V.validate(schema, &serde_json::json!({"n": 1})).is_ok());
/// let err = V.validate(schema, &serde_json::json!({"n": "one"})).unwrap_err();
/// assert!(err.contains("`n`"), "{err}");
/// ```
#[derive(Debug)]
pub struct SchemaValidator {
    compiled: OnceLock<Result<(jsonschema::Validator, Value), String>>,
}

impl Default for SchemaValidator {
    fn default() -> Self {
        Self::new()
    }
}

impl SchemaValidator {
    /// An empty slot; the schema is compiled by the first [`SchemaValidator::validate`].
    pub const fn new() -> Self {
        SchemaValidator {
            compiled: OnceLock::new(),
        }
    }

    /// The validator of type `T`'s schema: one per type for the life of the process, so a
    /// form or a sampled type is compiled once, not on every answer (a modern call replays
    /// its answers every round).
    pub(crate) fn of_type<T: 'static>() -> &'static SchemaValidator {
        use std::any::TypeId;
        use std::collections::HashMap;
        use std::sync::RwLock;
        static BY_TYPE: RwLock<Option<HashMap<TypeId, &'static SchemaValidator>>> =
            RwLock::new(None);
        let id = TypeId::of::<T>();
        if let Some(found) = crate::peer::sync::read(&BY_TYPE)
            .as_ref()
            .and_then(|m| m.get(&id).copied())
        {
            return found;
        }
        // One leaked validator per type that is ever validated: bounded by the program.
        let mut by_type = crate::peer::sync::write(&BY_TYPE);
        let slot: &'static SchemaValidator = by_type
            .get_or_insert_with(HashMap::new)
            .entry(id)
            .or_insert_with(|| Box::leak(Box::new(SchemaValidator::new())));
        slot
    }

    /// Checks `value` against `schema` (compiled on the first call; later calls must pass
    /// the same schema). The error lists each violation with the field it concerns.
    pub fn validate(&self, schema: &JsonObject, value: &Value) -> Result<(), String> {
        self.validate_with(|| schema.clone(), value)
    }

    /// [`validate`](Self::validate) with the schema made only if it is not compiled yet.
    pub(crate) fn validate_with(
        &self,
        schema: impl FnOnce() -> JsonObject,
        value: &Value,
    ) -> Result<(), String> {
        let compiled = self.compiled.get_or_init(|| {
            // Formats are checked (a date is a date), so a bad one is reported here with
            // the format it must have, not later by whatever parses the value.
            let schema = Value::Object(schema());
            jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .map(|validator| (validator, schema))
                .map_err(|e| format!("invalid schema: {e}"))
        });
        let (validator, schema) = compiled.as_ref().map_err(Clone::clone)?;
        // The common case answers without collecting (or allocating) anything.
        if validator.is_valid(value) {
            return Ok(());
        }
        let problems: Vec<String> = validator
            .iter_errors(value)
            .map(|e| {
                let path = e.instance_path().to_string();
                let field = path.trim_start_matches('/').replace('/', ".");
                let problem = super::violation::describe(&e, schema);
                if field.is_empty() {
                    problem
                } else {
                    format!("`{field}`: {problem}")
                }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}
