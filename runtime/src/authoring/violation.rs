//! Model-facing texts for schema violations: what a model needs to correct its arguments
//! (every allowed value, the shape a format expects, the whole allowed range), where the
//! validator's own text says only what went wrong.

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::Value;

/// How many allowed values a model-facing error lists before it says how many more there are.
const MAX_LISTED: usize = 25;

/// A violation of `root` (the whole schema) as a model should read it: every allowed value
/// of an enum (up to [`MAX_LISTED`], then how many more), the shape a format expects, and
/// the whole range a bound belongs to.
pub(super) fn describe(e: &ValidationError<'_>, root: &Value) -> String {
    match e.kind() {
        Kind::Enum { options } => one_of(e.instance(), options),
        Kind::Format { format } => {
            format!(
                "{} is not a valid {format}{}",
                e.instance(),
                format_shape(format)
            )
        }
        Kind::Minimum { .. }
        | Kind::Maximum { .. }
        | Kind::ExclusiveMinimum { .. }
        | Kind::ExclusiveMaximum { .. } => bounded(e, root, "is out of range", number_range),
        Kind::MinLength { .. } | Kind::MaxLength { .. } => {
            bounded(e, root, "has the wrong length", |s| {
                count_range(s, "minLength", "maxLength", "characters")
            })
        }
        Kind::MinItems { .. } | Kind::MaxItems { .. } => {
            bounded(e, root, "has the wrong number of items", |s| {
                count_range(s, "minItems", "maxItems", "items")
            })
        }
        _ => e.to_string(),
    }
}

/// `value is not allowed: use one of …` with the allowed values.
fn one_of(value: &Value, options: &Value) -> String {
    let all = options.as_array().map(Vec::as_slice).unwrap_or_default();
    let listed: Vec<String> = all.iter().take(MAX_LISTED).map(Value::to_string).collect();
    let more = match all.len().saturating_sub(MAX_LISTED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "{value} is not allowed: use one of {}{more}",
        listed.join(", ")
    )
}

/// The shape a string of `format` must have, as an example.
fn format_shape(format: &str) -> &'static str {
    match format {
        "date" => " (expected YYYY-MM-DD, e.g. 2026-07-28)",
        "date-time" => " (expected RFC 3339, e.g. 2026-07-28T14:30:00Z)",
        "time" => " (expected HH:MM:SS with an offset, e.g. 14:30:00Z)",
        "email" => " (expected an address such as name@example.com)",
        "uri" => " (expected an absolute URI, e.g. https://example.com/a)",
        "uuid" => " (expected 8-4-4-4-12 hexadecimal digits)",
        "ipv4" => " (expected four dot-separated numbers, e.g. 192.0.2.1)",
        "ipv6" => " (expected an IPv6 address, e.g. 2001:db8::1)",
        "duration" => " (expected an ISO 8601 duration, e.g. P3DT4H)",
        _ => "",
    }
}

/// `value <what> (expected <range>)`, the range read from the subschema holding the
/// violated keyword; the validator's text when that subschema cannot be found.
fn bounded(
    e: &ValidationError<'_>,
    root: &Value,
    what: &str,
    range: impl Fn(&serde_json::Map<String, Value>) -> Option<String>,
) -> String {
    let keyword_path = e.schema_path().to_string();
    let parent = keyword_path
        .rsplit_once('/')
        .map_or("", |(parent, _)| parent);
    match root
        .pointer(parent)
        .and_then(Value::as_object)
        .and_then(range)
    {
        Some(expected) => format!("{} {what} (expected {expected})", e.instance()),
        None => e.to_string(),
    }
}

/// `an integer from 1 to 12`, `a number greater than 0`, … from a subschema's bounds.
fn number_range(schema: &serde_json::Map<String, Value>) -> Option<String> {
    let kind = match schema.get("type").and_then(Value::as_str) {
        Some("integer") => "an integer",
        _ => "a number",
    };
    let low = match (schema.get("minimum"), schema.get("exclusiveMinimum")) {
        (_, Some(x)) => Some(format!("greater than {x}")),
        (Some(x), None) => Some(format!("at least {x}")),
        (None, None) => None,
    };
    let high = match (schema.get("maximum"), schema.get("exclusiveMaximum")) {
        (_, Some(x)) => Some(format!("less than {x}")),
        (Some(x), None) => Some(format!("at most {x}")),
        (None, None) => None,
    };
    match (schema.get("minimum"), schema.get("maximum"), low, high) {
        (Some(lo), Some(hi), _, _)
            if !schema.contains_key("exclusiveMinimum")
                && !schema.contains_key("exclusiveMaximum") =>
        {
            Some(format!("{kind} from {lo} to {hi}"))
        }
        (_, _, Some(low), Some(high)) => Some(format!("{kind} {low} and {high}")),
        (_, _, Some(one), None) | (_, _, None, Some(one)) => Some(format!("{kind} {one}")),
        (_, _, None, None) => None,
    }
}

/// `from 2 to 5 characters`, `at most 3 items`, … from a subschema's count bounds.
fn count_range(
    schema: &serde_json::Map<String, Value>,
    min: &str,
    max: &str,
    unit: &str,
) -> Option<String> {
    match (schema.get(min), schema.get(max)) {
        (Some(lo), Some(hi)) if lo == hi => Some(format!("exactly {lo} {unit}")),
        (Some(lo), Some(hi)) => Some(format!("from {lo} to {hi} {unit}")),
        (Some(lo), None) => Some(format!("at least {lo} {unit}")),
        (None, Some(hi)) => Some(format!("at most {hi} {unit}")),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::authoring::SchemaValidator;
    use serde_json::{Value, json};

    fn problem(schema: Value, value: Value) -> String {
        let schema = schema.as_object().cloned().unwrap_or_default();
        SchemaValidator::new()
            .validate(&schema, &value)
            .expect_err("invalid")
    }

    #[test]
    fn an_enum_error_lists_every_allowed_value() {
        let kinds: Vec<String> = (1..=9).map(|i| format!("k{i}")).collect();
        let schema = json!({"type": "object", "properties": {"kind": {"enum": kinds}}});
        assert_eq!(
            problem(schema, json!({"kind": "snacks"})),
            r#"`kind`: "snacks" is not allowed: use one of "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9""#
        );
        let many: Vec<u32> = (0..30).collect();
        let listed: Vec<String> = (0..25).map(|i| i.to_string()).collect();
        assert_eq!(
            problem(json!({"enum": many}), json!(99)),
            format!(
                "99 is not allowed: use one of {} and 5 more",
                listed.join(", ")
            )
        );
    }

    #[test]
    fn a_format_error_names_the_expected_shape() {
        let schema =
            json!({"type": "object", "properties": {"on": {"type": "string", "format": "date"}}});
        assert_eq!(
            problem(schema, json!({"on": "28/11/2026"})),
            r#"`on`: "28/11/2026" is not a valid date (expected YYYY-MM-DD, e.g. 2026-07-28)"#
        );
        let schema = json!({"type": "string", "format": "date-time"});
        assert_eq!(
            problem(schema, json!("tomorrow")),
            r#""tomorrow" is not a valid date-time (expected RFC 3339, e.g. 2026-07-28T14:30:00Z)"#
        );
    }

    #[test]
    fn a_bound_error_names_the_whole_range() {
        let month = json!({"type": "object", "properties": {
            "month": {"type": "integer", "minimum": 1, "maximum": 12}
        }});
        assert_eq!(
            problem(month.clone(), json!({"month": 13})),
            "`month`: 13 is out of range (expected an integer from 1 to 12)"
        );
        assert_eq!(
            problem(month, json!({"month": 0})),
            "`month`: 0 is out of range (expected an integer from 1 to 12)"
        );
        let share = json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1});
        assert_eq!(
            problem(share, json!(0)),
            "0 is out of range (expected a number greater than 0 and at most 1)"
        );
        let at_least = json!({"type": "number", "minimum": 0.5});
        assert_eq!(
            problem(at_least, json!(0.1)),
            "0.1 is out of range (expected a number at least 0.5)"
        );
    }

    #[test]
    fn a_length_error_names_the_allowed_lengths() {
        let code = json!({"type": "object", "properties": {
            "code": {"type": "string", "minLength": 3, "maxLength": 3},
            "tags": {"type": "array", "maxItems": 2}
        }});
        assert_eq!(
            problem(code.clone(), json!({"code": "ABCD"})),
            r#"`code`: "ABCD" has the wrong length (expected exactly 3 characters)"#
        );
        assert_eq!(
            problem(code, json!({"tags": ["a", "b", "c"]})),
            r#"`tags`: ["a","b","c"] has the wrong number of items (expected at most 2 items)"#
        );
    }
}
