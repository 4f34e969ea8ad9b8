//! Form fields: which Rust types an elicitation form can hold, and their schemas.

use crate::protocol::*;
use serde_json::Value;

/// What `#[derive(Elicits)]` read from a field's attributes and docs.
///
/// ```
/// use tracksuit::elicitation::{FieldMeta, FormField};
/// // What `#[elicit(min = 1, max = 5)]` on a `u8` field produces:
/// let meta = FieldMeta { minimum: Some(1.0), maximum: Some(5.0), ..Default::default() };
/// let schema = serde_json::to_value(u8::field_schema(meta)).unwrap();
/// assert_eq!(schema, serde_json::json!({"type": "integer", "minimum": 1, "maximum": 5}));
/// ```
#[derive(Debug, Clone, Default)]
pub struct FieldMeta {
    /// Display name.
    pub title: Option<String>,
    /// Help text (doc comments).
    pub description: Option<String>,
    /// Strings: minimum length.
    pub min_length: Option<u64>,
    /// Strings: maximum length.
    pub max_length: Option<u64>,
    /// Strings: `email`, `uri`, `date` or `date-time`.
    pub format: Option<&'static str>,
    /// Numbers: minimum.
    pub minimum: Option<f64>,
    /// Numbers: maximum.
    pub maximum: Option<f64>,
    /// Multi-selects: fewest choices.
    pub min_items: Option<u64>,
    /// Multi-selects: most choices.
    pub max_items: Option<u64>,
    /// The default (SEP-1034), as JSON.
    pub default: Option<Value>,
}

/// A type an elicitation form field can have.
///
/// Forms are flat: strings, numbers, integers, booleans, single-select enums (unit-variant
/// enums deriving `Elicits`), multi-selects (`Vec` of such enums), and `Option` of any of
/// these (an optional field).
///
/// ```
/// use tracksuit::elicitation::{FieldMeta, FormField};
/// use tracksuit::{ElicitForm, Elicits, protocol::PrimitiveSchemaDefinition};
/// /// A percentage: an integer field from 0 to 100.
/// #[derive(serde::Deserialize)]
/// struct Percent(u8);
/// impl FormField for Percent {
///     fn field_schema(meta: FieldMeta) -> PrimitiveSchemaDefinition {
///         u8::field_schema(FieldMeta { minimum: Some(0.0), maximum: Some(100.0), ..meta })
///     }
/// }
/// #[derive(serde::Deserialize, Elicits)]
/// struct Volume { level: Percent }
/// let schema = serde_json::to_value(Volume::requested_schema()).unwrap();
/// assert_eq!(schema["properties"]["level"]["maximum"], 100);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a form field type",
    note = "MCP forms hold only flat primitive fields: `String`, integers, floats, `bool`, enums with unit variants that derive `Elicits`, `Vec` of such enums, and `Option` of any of these — no nested structs, maps, tuples or other lists"
)]
pub trait FormField {
    /// The field's schema.
    fn field_schema(meta: FieldMeta) -> PrimitiveSchemaDefinition;
}

/// A unit-variant enum usable as a single- or multi-select field (derived by `Elicits`).
///
/// ```
/// use tracksuit::{ElicitForm, Elicits, elicitation::ElicitEnum};
/// #[derive(serde::Deserialize, Elicits)]
/// enum Size {
///     #[elicit(title = "Small (25 cm)")]
///     Small,
///     Large,
/// }
/// assert_eq!(Size::options(), [("Small", Some("Small (25 cm)")), ("Large", None)]);
/// #[derive(serde::Deserialize, Elicits)]
/// struct Pizza { size: Size }
/// // A titled option makes the field a titled single select (`oneOf`).
/// let schema = serde_json::to_value(Pizza::requested_schema()).unwrap();
/// assert_eq!(schema["properties"]["size"]["oneOf"][0]["title"], "Small (25 cm)");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a select-field enum, so `Vec<{Self}>` cannot be a form field",
    label = "not a form field type",
    note = "a multi-select field is a `Vec` of an enum with unit variants deriving `Elicits`; forms cannot hold other lists"
)]
pub trait ElicitEnum {
    /// `(value, title)` of each option, in order.
    fn options() -> Vec<(&'static str, Option<&'static str>)>;

    /// Publish titles the deprecated way (`enum` + `enumNames`) for older clients.
    fn legacy_titles() -> bool {
        false
    }
}

fn format_of(f: Option<&str>) -> Option<StringFormat> {
    match f? {
        "email" => Some(StringFormat::Email),
        "uri" => Some(StringFormat::Uri),
        "date" => Some(StringFormat::Date),
        "date-time" => Some(StringFormat::DateTime),
        _ => None,
    }
}

impl FormField for String {
    fn field_schema(m: FieldMeta) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::String(StringSchema {
            kind: StringType::String,
            title: m.title,
            description: m.description,
            min_length: m.min_length,
            max_length: m.max_length,
            format: format_of(m.format),
            default: m.default.and_then(|v| v.as_str().map(str::to_owned)),
        })
    }
}

impl FormField for bool {
    fn field_schema(m: FieldMeta) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::Boolean(BooleanSchema {
            kind: BooleanType::Boolean,
            title: m.title,
            description: m.description,
            default: m.default.and_then(|v| v.as_bool()),
        })
    }
}

fn number(m: FieldMeta, kind: NumberType) -> PrimitiveSchemaDefinition {
    let num = |f: Option<f64>| {
        f.and_then(|f| {
            if kind == NumberType::Integer && f.fract() == 0.0 {
                Some(serde_json::Number::from(f as i64))
            } else {
                serde_json::Number::from_f64(f)
            }
        })
    };
    PrimitiveSchemaDefinition::Number(NumberSchema {
        kind,
        title: m.title,
        description: m.description,
        minimum: num(m.minimum),
        maximum: num(m.maximum),
        default: m.default.and_then(|v| match v {
            Value::Number(n) => Some(n),
            _ => None,
        }),
    })
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl FormField for $t {
            fn field_schema(m: FieldMeta) -> PrimitiveSchemaDefinition {
                number(m, NumberType::Integer)
            }
        }
    )*};
}
integers!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

impl FormField for f32 {
    fn field_schema(m: FieldMeta) -> PrimitiveSchemaDefinition {
        number(m, NumberType::Number)
    }
}

impl FormField for f64 {
    fn field_schema(m: FieldMeta) -> PrimitiveSchemaDefinition {
        number(m, NumberType::Number)
    }
}

impl<T: FormField> FormField for Option<T> {
    fn field_schema(m: FieldMeta) -> PrimitiveSchemaDefinition {
        T::field_schema(m)
    }
}

/// The single-select schema of an enum (titled `oneOf` when any option has a title).
pub fn single_select<E: ElicitEnum>(m: FieldMeta) -> PrimitiveSchemaDefinition {
    let options = E::options();
    let default = m.default.and_then(|v| v.as_str().map(str::to_owned));
    if E::legacy_titles() {
        return PrimitiveSchemaDefinition::LegacyTitledEnum(LegacyTitledEnumSchema {
            kind: StringType::String,
            title: m.title,
            description: m.description,
            values: options.iter().map(|(v, _)| (*v).into()).collect(),
            enum_names: options.iter().map(|(v, t)| t.unwrap_or(v).into()).collect(),
            default,
        });
    }
    if options.iter().any(|(_, t)| t.is_some()) {
        PrimitiveSchemaDefinition::TitledSingleSelect(TitledSingleSelectEnumSchema {
            kind: StringType::String,
            title: m.title,
            description: m.description,
            one_of: options
                .iter()
                .map(|(v, t)| TitledOption {
                    value: (*v).into(),
                    title: t.unwrap_or(v).into(),
                })
                .collect(),
            default,
        })
    } else {
        PrimitiveSchemaDefinition::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
            kind: StringType::String,
            title: m.title,
            description: m.description,
            values: options.iter().map(|(v, _)| (*v).into()).collect(),
            default,
        })
    }
}

impl<E: ElicitEnum> FormField for Vec<E> {
    fn field_schema(m: FieldMeta) -> PrimitiveSchemaDefinition {
        let options = E::options();
        let default = m
            .default
            .and_then(|v| serde_json::from_value::<Vec<String>>(v).ok());
        if options.iter().any(|(_, t)| t.is_some()) {
            PrimitiveSchemaDefinition::TitledMultiSelect(TitledMultiSelectEnumSchema {
                kind: ArrayType::Array,
                title: m.title,
                description: m.description,
                min_items: m.min_items,
                max_items: m.max_items,
                items: TitledItems {
                    any_of: options
                        .iter()
                        .map(|(v, t)| TitledOption {
                            value: (*v).into(),
                            title: t.unwrap_or(v).into(),
                        })
                        .collect(),
                },
                default,
            })
        } else {
            PrimitiveSchemaDefinition::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
                kind: ArrayType::Array,
                title: m.title,
                description: m.description,
                min_items: m.min_items,
                max_items: m.max_items,
                items: UntitledItems {
                    kind: StringType::String,
                    values: options.iter().map(|(v, _)| (*v).into()).collect(),
                },
                default,
            })
        }
    }
}
