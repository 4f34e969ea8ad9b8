//! Elicitation: form mode with the restricted schema (SEP-1330 enums, SEP-1034 defaults)
//! and URL mode (client/elicitation.mdx).

use super::{Meta, TaskMetadata};
/// The ordered map of a form's fields ([`ElicitationSchema::properties`]): insertion order is
/// the order a client shows the fields in.
///
/// ```
/// use tracksuit::protocol::{ElicitationSchema, IndexMap, PrimitiveSchemaDefinition, StringSchema};
/// let mut properties = IndexMap::new();
/// properties.insert("zip".to_string(), PrimitiveSchemaDefinition::String(StringSchema::default()));
/// properties.insert("city".to_string(), PrimitiveSchemaDefinition::String(StringSchema::default()));
/// let schema = ElicitationSchema { properties, ..Default::default() };
/// let json = serde_json::to_string(&schema).unwrap();
/// assert!(json.find("zip").unwrap() < json.find("city").unwrap()); // not sorted
/// ```
pub use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// A string field.
///
/// ```
/// use tracksuit::protocol::{StringFormat, StringSchema};
/// let email = StringSchema { format: Some(StringFormat::Email), ..Default::default() };
/// assert_eq!(serde_json::to_value(&email).unwrap(), serde_json::json!({"type": "string", "format": "email"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Default (SEP-1034).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `"string"` type tag.
///
/// ```
/// use tracksuit::protocol::StringType;
/// assert_eq!(serde_json::to_value(StringType::String).unwrap(), "string");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StringType {
    /// `"string"`
    #[default]
    #[serde(rename = "string")]
    String,
}

/// String formats forms support.
///
/// ```
/// assert_eq!(serde_json::to_value(tracksuit::protocol::StringFormat::DateTime).unwrap(), "date-time");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StringFormat {
    /// `email`
    #[serde(rename = "email")]
    Email,
    /// `uri`
    #[serde(rename = "uri")]
    Uri,
    /// `date`
    #[serde(rename = "date")]
    Date,
    /// `date-time`
    #[serde(rename = "date-time")]
    DateTime,
}

/// `number` or `integer`.
///
/// ```
/// use tracksuit::protocol::NumberType;
/// assert_eq!(serde_json::to_value(NumberType::Integer).unwrap(), "integer");
/// assert_eq!(NumberType::default(), NumberType::Number);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// Integers only.
    Integer,
}

/// A number field.
///
/// ```
/// use tracksuit::protocol::{NumberSchema, NumberType};
/// let age = NumberSchema { kind: NumberType::Integer, minimum: Some(0.into()), ..Default::default() };
/// assert_eq!(serde_json::to_value(&age).unwrap(), serde_json::json!({"type": "integer", "minimum": 0}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// `number` or `integer`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<serde_json::Number>,
    /// Maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<serde_json::Number>,
    /// Default (SEP-1034); integers stay integers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Number>,
}

/// The `"boolean"` type tag.
///
/// ```
/// use tracksuit::protocol::BooleanType;
/// assert_eq!(serde_json::to_value(BooleanType::Boolean).unwrap(), "boolean");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BooleanType {
    /// `"boolean"`
    #[default]
    #[serde(rename = "boolean")]
    Boolean,
}

/// A boolean field.
///
/// ```
/// use tracksuit::protocol::BooleanSchema;
/// let ok = BooleanSchema { default: Some(true), ..Default::default() };
/// assert_eq!(serde_json::to_value(&ok).unwrap(), serde_json::json!({"type": "boolean", "default": true}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default (SEP-1034).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A `const` + `title` option of a titled enum.
///
/// ```
/// use tracksuit::protocol::TitledOption;
/// let opt = TitledOption { value: "s".into(), title: "Small".into() };
/// assert_eq!(serde_json::to_value(&opt).unwrap(), serde_json::json!({"const": "s", "title": "Small"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TitledOption {
    /// The value.
    #[serde(rename = "const")]
    pub value: String,
    /// Its label.
    pub title: String,
}

/// Single select without titles: `{"type":"string","enum":[...]}`.
///
/// ```
/// use tracksuit::protocol::UntitledSingleSelectEnumSchema;
/// let size = UntitledSingleSelectEnumSchema { values: vec!["s".into(), "m".into()], ..Default::default() };
/// assert_eq!(serde_json::to_value(&size).unwrap(), serde_json::json!({"type": "string", "enum": ["s", "m"]}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Single select with titles: `{"type":"string","oneOf":[{"const","title"}...]}`.
///
/// ```
/// use tracksuit::protocol::{TitledOption, TitledSingleSelectEnumSchema};
/// let size = TitledSingleSelectEnumSchema {
///     one_of: vec![TitledOption { value: "s".into(), title: "Small".into() }],
///     ..Default::default()
/// };
/// let json = serde_json::to_value(&size).unwrap();
/// assert_eq!(json["oneOf"][0], serde_json::json!({"const": "s", "title": "Small"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    pub one_of: Vec<TitledOption>,
    /// Default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Deprecated titled single select: `enum` + `enumNames`.
///
/// ```
/// use tracksuit::protocol::{EnumSchema, LegacyTitledEnumSchema};
/// let json = serde_json::json!({"type": "string", "enum": ["s"], "enumNames": ["Small"]});
/// let field: EnumSchema = serde_json::from_value(json).unwrap();
/// let EnumSchema::LegacyTitledEnum(LegacyTitledEnumSchema { enum_names, .. }) = field else { panic!() };
/// assert_eq!(enum_names, ["Small"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Their labels (required here: without them this is an untitled enum).
    pub enum_names: Vec<String>,
    /// Default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `"array"` type tag.
///
/// ```
/// use tracksuit::protocol::ArrayType;
/// assert_eq!(serde_json::to_value(ArrayType::Array).unwrap(), "array");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArrayType {
    /// `"array"`
    #[default]
    #[serde(rename = "array")]
    Array,
}

/// Items of an untitled multi-select.
///
/// ```
/// use tracksuit::protocol::UntitledItems;
/// let items = UntitledItems { values: vec!["red".into(), "blue".into()], ..Default::default() };
/// assert_eq!(serde_json::to_value(&items).unwrap(), serde_json::json!({"type": "string", "enum": ["red", "blue"]}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// Items of a titled multi-select.
///
/// ```
/// use tracksuit::protocol::{TitledItems, TitledOption};
/// let items = TitledItems { any_of: vec![TitledOption { value: "r".into(), title: "Red".into() }] };
/// assert_eq!(serde_json::to_value(&items).unwrap()["anyOf"][0]["title"], "Red");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledItems {
    /// The options.
    pub any_of: Vec<TitledOption>,
}

/// Multi select without titles.
///
/// ```
/// use tracksuit::protocol::{UntitledItems, UntitledMultiSelectEnumSchema};
/// let colours = UntitledMultiSelectEnumSchema {
///     items: UntitledItems { values: vec!["red".into(), "blue".into()], ..Default::default() },
///     max_items: Some(2),
///     ..Default::default()
/// };
/// let json = serde_json::to_value(&colours).unwrap();
/// assert_eq!((json["type"].as_str(), json["maxItems"].as_u64()), (Some("array"), Some(2)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: UntitledItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Multi select with titles.
///
/// ```
/// use tracksuit::protocol::{TitledItems, TitledMultiSelectEnumSchema, TitledOption};
/// let colours = TitledMultiSelectEnumSchema {
///     items: TitledItems { any_of: vec![TitledOption { value: "r".into(), title: "Red".into() }] },
///     default: Some(vec!["r".into()]),
///     ..Default::default()
/// };
/// let json = serde_json::to_value(&colours).unwrap();
/// assert_eq!(json["items"]["anyOf"][0]["const"], "r");
/// assert_eq!(json["default"], serde_json::json!(["r"]));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// A field of an elicitation form: primitives and enums only.
///
/// ```
/// use tracksuit::protocol::PrimitiveSchemaDefinition;
/// let field: PrimitiveSchemaDefinition = serde_json::from_value(serde_json::json!({"type": "boolean"})).unwrap();
/// assert!(matches!(field, PrimitiveSchemaDefinition::Boolean(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// Titled single select (`oneOf`).
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Legacy titled enum (`enumNames`).
    LegacyTitledEnum(LegacyTitledEnumSchema),
    /// Untitled single select (`enum`).
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// Titled multi select.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// Untitled multi select.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// String.
    String(StringSchema),
    /// Number or integer.
    Number(NumberSchema),
    /// Boolean.
    Boolean(BooleanSchema),
}

/// `SingleSelectEnumSchema`: a single-select enum, with or without titles (SEP-1330).
///
/// ```
/// use tracksuit::protocol::SingleSelectEnumSchema;
/// let json = serde_json::json!({"type": "string", "oneOf": [{"const": "s", "title": "Small"}]});
/// let field: SingleSelectEnumSchema = serde_json::from_value(json).unwrap();
/// assert!(matches!(field, SingleSelectEnumSchema::Titled(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SingleSelectEnumSchema {
    /// Titled (`oneOf` of `const`/`title`).
    Titled(TitledSingleSelectEnumSchema),
    /// Untitled (`enum`).
    Untitled(UntitledSingleSelectEnumSchema),
}

/// `MultiSelectEnumSchema`: a multi-select enum, with or without titles (SEP-1330).
///
/// ```
/// use tracksuit::protocol::MultiSelectEnumSchema;
/// let json = serde_json::json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}});
/// let field: MultiSelectEnumSchema = serde_json::from_value(json).unwrap();
/// assert!(matches!(field, MultiSelectEnumSchema::Untitled(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MultiSelectEnumSchema {
    /// Titled (`items.anyOf`).
    Titled(TitledMultiSelectEnumSchema),
    /// Untitled (`items.enum`).
    Untitled(UntitledMultiSelectEnumSchema),
}

/// `EnumSchema`: every enum shape a form field may take (SEP-1330).
///
/// ```
/// use tracksuit::protocol::{EnumSchema, PrimitiveSchemaDefinition};
/// let json = serde_json::json!({"type": "string", "enum": ["s", "m", "l"]});
/// let field: EnumSchema = serde_json::from_value(json).unwrap();
/// assert!(matches!(field, EnumSchema::UntitledSingleSelect(_)));
/// // Every enum shape is also a form field.
/// let field: PrimitiveSchemaDefinition = field.into();
/// assert!(matches!(field, PrimitiveSchemaDefinition::UntitledSingleSelect(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EnumSchema {
    /// Titled single select (`oneOf`).
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Legacy titled enum (`enumNames`); tried before the untitled shape it extends.
    LegacyTitledEnum(LegacyTitledEnumSchema),
    /// Untitled single select (`enum`).
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// Titled multi select.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// Untitled multi select.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
}

impl From<SingleSelectEnumSchema> for EnumSchema {
    fn from(s: SingleSelectEnumSchema) -> Self {
        match s {
            SingleSelectEnumSchema::Titled(t) => EnumSchema::TitledSingleSelect(t),
            SingleSelectEnumSchema::Untitled(u) => EnumSchema::UntitledSingleSelect(u),
        }
    }
}

impl From<MultiSelectEnumSchema> for EnumSchema {
    fn from(m: MultiSelectEnumSchema) -> Self {
        match m {
            MultiSelectEnumSchema::Titled(t) => EnumSchema::TitledMultiSelect(t),
            MultiSelectEnumSchema::Untitled(u) => EnumSchema::UntitledMultiSelect(u),
        }
    }
}

impl From<EnumSchema> for PrimitiveSchemaDefinition {
    fn from(e: EnumSchema) -> Self {
        match e {
            EnumSchema::TitledSingleSelect(t) => PrimitiveSchemaDefinition::TitledSingleSelect(t),
            EnumSchema::LegacyTitledEnum(l) => PrimitiveSchemaDefinition::LegacyTitledEnum(l),
            EnumSchema::UntitledSingleSelect(u) => {
                PrimitiveSchemaDefinition::UntitledSingleSelect(u)
            }
            EnumSchema::TitledMultiSelect(t) => PrimitiveSchemaDefinition::TitledMultiSelect(t),
            EnumSchema::UntitledMultiSelect(u) => PrimitiveSchemaDefinition::UntitledMultiSelect(u),
        }
    }
}

/// The object type tag.
///
/// ```
/// use tracksuit::protocol::{ElicitationSchema, ObjectType};
/// assert_eq!(ElicitationSchema::default().kind, ObjectType::Object);
/// assert_eq!(serde_json::to_value(ObjectType::Object).unwrap(), "object");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObjectType {
    /// `"object"`
    #[default]
    #[serde(rename = "object")]
    Object,
}

/// A form's `requestedSchema`: a flat object of primitive fields.
///
/// ```
/// use tracksuit::protocol::{ElicitationSchema, PrimitiveSchemaDefinition, StringSchema};
/// let mut schema = ElicitationSchema::default();
/// schema.properties.insert("name".into(), PrimitiveSchemaDefinition::String(StringSchema::default()));
/// schema.required = Some(vec!["name".into()]);
/// assert_eq!(
///     serde_json::to_value(&schema).unwrap(),
///     serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationSchema {
    /// The JSON Schema dialect, if stated.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: ObjectType,
    /// The fields, in the order the form shows them (declaration order for derived forms).
    pub properties: IndexMap<String, PrimitiveSchemaDefinition>,
    /// Fields that must be filled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

/// Form-mode `elicitation/create` params.
///
/// ```
/// use tracksuit::protocol::{ElicitRequestFormParams, ElicitRequestParams};
/// let ask = ElicitRequestParams::Form(ElicitRequestFormParams { message: "Your name?".into(), ..Default::default() });
/// let json = serde_json::to_value(&ask).unwrap();
/// assert_eq!((json["mode"].as_str(), json["message"].as_str()), (Some("form"), Some("Your name?")));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// What to ask.
    pub message: String,
    /// The form.
    pub requested_schema: ElicitationSchema,
    /// Run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The `"url"` mode tag.
///
/// ```
/// use tracksuit::protocol::UrlMode;
/// assert_eq!(serde_json::to_value(UrlMode::Url).unwrap(), "url");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlMode {
    /// `"url"`
    #[default]
    #[serde(rename = "url")]
    Url,
}

/// URL-mode `elicitation/create` params.
///
/// ```
/// use tracksuit::protocol::{ElicitRequestParams, ElicitRequestURLParams};
/// let ask = ElicitRequestParams::Url(ElicitRequestURLParams {
///     message: "Sign in to continue".into(),
///     url: "https://auth.example/login".into(),
///     elicitation_id: "e-1".into(),
///     ..Default::default()
/// });
/// assert_eq!(serde_json::to_value(&ask).unwrap()["mode"], "url");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestURLParams {
    /// Always `url`.
    #[serde(default)]
    pub mode: UrlMode,
    /// Why the user should open the URL.
    pub message: String,
    /// The URL.
    pub url: String,
    /// Correlates `notifications/elicitation/complete`.
    pub elicitation_id: String,
    /// Run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `elicitation/create` params: form (the default when `mode` is absent) or URL.
///
/// ```
/// use tracksuit::protocol::ElicitRequestParams;
/// // No `mode` means form mode.
/// let p: ElicitRequestParams = serde_json::from_value(serde_json::json!({
///     "message": "Pick a size",
///     "requestedSchema": {"type": "object", "properties": {}},
/// })).unwrap();
/// assert!(matches!(p, ElicitRequestParams::Form(_)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode.
    Url(ElicitRequestURLParams),
}

/// Form params as they go out (what [`ElicitRequestParams::Form`] serialises to): the
/// struct's fields, then `"mode": "form"`.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FormOut<'a> {
    message: &'a str,
    requested_schema: SchemaOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task: Option<&'a TaskMetadata>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Meta>,
    mode: &'static str,
}

impl ElicitRequestFormParams {
    /// Form-mode `elicitation/create` params from borrowed parts: written exactly as
    /// `ElicitRequestParams::Form` with these fields is.
    pub(crate) fn borrowed<'a>(
        message: &'a str,
        requested_schema: &'a ElicitationSchema,
        task: Option<&'a TaskMetadata>,
        meta: Option<&'a Meta>,
    ) -> FormOut<'a> {
        FormOut {
            message,
            requested_schema: SchemaOut::Tree(requested_schema),
            task,
            meta,
            mode: "form",
        }
    }
}

impl<'a> FormOut<'a> {
    /// The same params with the schema written as `text`: the schema's own JSON, written
    /// once for a form whose schema is fixed (`ElicitForm::requested_schema_text`).
    pub(crate) fn with_schema_text(mut self, text: &'a serde_json::value::RawValue) -> Self {
        self.requested_schema = SchemaOut::Text(text);
        self
    }
}

/// A form's `requestedSchema` as it goes out: the schema, or its JSON text written before.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SchemaOut<'a> {
    Tree(&'a ElicitationSchema),
    Text(&'a serde_json::value::RawValue),
}

impl Serialize for SchemaOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SchemaOut::Tree(schema) => schema.serialize(s),
            SchemaOut::Text(text) => text.serialize(s),
        }
    }
}

/// Written straight to the serializer (no value tree in between): a form's fields followed
/// by `"mode": "form"`; URL params as they are (their `mode` field is always `"url"`).
impl Serialize for ElicitRequestParams {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ElicitRequestParams::Form(f) => ElicitRequestFormParams::borrowed(
                &f.message,
                &f.requested_schema,
                f.task.as_ref(),
                f.meta.as_ref(),
            )
            .serialize(s),
            ElicitRequestParams::Url(u) => u.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut value = serde_json::Value::deserialize(d)?;
        let mode = value
            .get("mode")
            .and_then(|m| m.as_str())
            .map(str::to_owned);
        match mode.as_deref() {
            None | Some("form") => {
                if let Some(map) = value.as_object_mut() {
                    map.remove("mode");
                }
                serde_json::from_value(value).map(ElicitRequestParams::Form)
            }
            Some("url") => serde_json::from_value(value).map(ElicitRequestParams::Url),
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "unknown elicitation mode {other:?}"
                )));
            }
        }
        .map_err(D::Error::custom)
    }
}

/// `notifications/elicitation/complete` params.
///
/// ```
/// use tracksuit::protocol::ElicitationCompleteNotificationParams;
/// let p = ElicitationCompleteNotificationParams { elicitation_id: "e-1".into() };
/// assert_eq!(serde_json::to_value(&p).unwrap(), serde_json::json!({"elicitationId": "e-1"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The URL elicitation that completed.
    pub elicitation_id: String,
}

/// `data` of the `-32042` URL-elicitation-required error.
///
/// ```
/// use tracksuit::protocol::{ElicitRequestURLParams, UrlElicitationRequiredData};
/// let data = UrlElicitationRequiredData {
///     elicitations: vec![ElicitRequestURLParams {
///         message: "Sign in".into(),
///         url: "https://auth.example/login".into(),
///         elicitation_id: "e-1".into(),
///         ..Default::default()
///     }],
/// };
/// let json = serde_json::to_value(&data).unwrap();
/// assert_eq!(json["elicitations"][0]["mode"], "url");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The URL elicitations the user must complete.
    pub elicitations: Vec<ElicitRequestURLParams>,
}

#[cfg(test)]
mod tests;
