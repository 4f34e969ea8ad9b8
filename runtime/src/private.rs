//! Runtime support the macro-generated code calls through `tracksuit::__private`.

use crate::authoring::{
    INPUT_WRAPPER, IntoToolResult, Portable, SchemaValidator, ToolError, portable_input,
    schema_for, wrap,
};
use crate::protocol::{CallToolResult, JsonObject};
use futures::future::BoxFuture;
use schemars::{JsonSchema, Schema};
use serde_json::Value;
use std::future::Future;
use std::sync::OnceLock;

/// The name of the arguments struct `#[mcp_tool]` generates (its schema title is dropped).
const GENERATED_ARGS: &str = "__TracksuitArgs";

/// A tool's schemas and validators, computed once per tool (a `static` in generated code).
#[derive(Debug)]
pub struct ToolSchemas {
    input: OnceLock<Portable>,
    output: OnceLock<Option<JsonObject>>,
    input_validator: SchemaValidator,
    output_validator: SchemaValidator,
}

impl Default for ToolSchemas {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolSchemas {
    /// Empty; filled on first use.
    pub const fn new() -> Self {
        ToolSchemas {
            input: OnceLock::new(),
            output: OnceLock::new(),
            input_validator: SchemaValidator::new(),
            output_validator: SchemaValidator::new(),
        }
    }

    /// The published input schema: the `derived` one made portable (`$defs` inlined,
    /// optional properties without `null`, standard formats only, an object at the top;
    /// see `authoring::portable`).
    pub fn input(&self, derived: fn() -> JsonObject) -> &JsonObject {
        &self.portable_input(derived).schema
    }

    /// The input schema as derived, wrapped like the published one when that one is (what
    /// `SchemaProfile::Raw` clients see).
    pub fn raw_input(&self, derived: fn() -> JsonObject) -> JsonObject {
        wrap(derived(), INPUT_WRAPPER).schema
    }

    fn portable_input(&self, derived: fn() -> JsonObject) -> &Portable {
        self.input.get_or_init(|| portable_input(derived()))
    }

    /// Validates the call's arguments and returns them, to be deserialised: a failure is
    /// an execution error naming the field, so the model can correct itself (SEP-1303).
    ///
    /// The check is against the derived schema itself, which accepts a little more than the
    /// published one (an explicit `null` for an optional property). When the published schema
    /// wraps a non-object type, the value is the wrapper property's.
    pub fn arguments(
        &self,
        tool: &str,
        mut arguments: JsonObject,
        derived: fn() -> JsonObject,
    ) -> Result<Value, ToolError> {
        let value = match self.portable_input(derived).wrapper {
            None => Value::Object(arguments),
            Some(wrapper) => arguments.remove(wrapper).ok_or_else(|| {
                ToolError::new(format!(
                    "Invalid arguments for tool `{tool}`: missing property `{wrapper}`"
                ))
            })?,
        };
        self.input_validator
            .validate_with(derived, &value)
            .map_err(|e| ToolError::new(format!("Invalid arguments for tool `{tool}`: {e}")))?;
        Ok(value)
    }

    fn output(&self, schema: fn() -> Option<JsonObject>) -> Option<&JsonObject> {
        self.output.get_or_init(schema).as_ref()
    }
}

/// The validated arguments as an object (the input schema of separate arguments is one).
pub fn into_object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

/// The error for an argument that does not deserialise (`argument` is `None` for a
/// `#[params]` type, which receives them all).
pub fn invalid_argument(tool: &str, argument: Option<&str>, e: serde_json::Error) -> ToolError {
    match argument {
        Some(name) => ToolError::new(format!(
            "Invalid arguments for tool `{tool}`: `{name}`: {e}"
        )),
        None => ToolError::new(format!("Invalid arguments for tool `{tool}`: {e}")),
    }
}

/// The schema schemars derives for a tool's separate arguments (the generated type's title
/// dropped).
pub fn derived_input<A: JsonSchema>() -> JsonObject {
    let mut schema = schema_for::<A>();
    if schema.get("title").and_then(Value::as_str) == Some(GENERATED_ARGS) {
        schema.remove("title");
    }
    schema
}

/// Adds an argument's property to the object schema of a tool's separate arguments, as
/// deriving `JsonSchema` on a struct of them would: its `title` and `description` from the
/// parameter's docs, `required` unless it may be left out. The context (`None`) adds
/// nothing.
pub fn add_property(
    object: &mut Schema,
    name: &str,
    title: &str,
    description: &str,
    property: Option<(Schema, bool)>,
) {
    let Some((mut schema, optional)) = property else {
        return;
    };
    for (key, value) in [("title", title), ("description", description)] {
        if !value.is_empty() {
            schema.insert(key.to_owned(), value.into());
        }
    }
    let object = object.ensure_object();
    if let Some(properties) = object
        .entry("properties")
        .or_insert_with(|| Value::Object(JsonObject::new()))
        .as_object_mut()
    {
        properties.insert(name.to_owned(), schema.into());
    }
    if !optional
        && let Some(required) = object
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
    {
        required.push(name.into());
    }
}

/// An empty object schema, to which [`add_property`] adds the arguments.
pub fn object_schema() -> Schema {
    schemars::json_schema!({ "type": "object" })
}

/// Checks a tool's converted result: structured output against `outputSchema`.
pub fn finish_tool(
    schemas: &ToolSchemas,
    result: Result<CallToolResult, ToolError>,
    output_schema: fn() -> Option<JsonObject>,
) -> Result<CallToolResult, ToolError> {
    let mut result = result?;
    if let (Some(schema), Some(structured)) = (
        schemas.output(output_schema),
        result.structured_content.take(),
    ) {
        // Validated as a `Value` without copying the map: moved in and back out.
        let value = Value::Object(structured);
        let checked = schemas.output_validator.validate(schema, &value);
        if let Value::Object(structured) = value {
            result.structured_content = Some(structured);
        }
        checked.map_err(|e| {
            ToolError::new(format!(
                "the tool's structured output does not match its outputSchema: {e}"
            ))
        })?;
    }
    Ok(result)
}

/// Boxes a handler future, requiring it to be `Send` (the error points at the function).
pub fn box_send_future<'a, F: Future + Send + 'a>(future: F) -> BoxFuture<'a, F::Output> {
    Box::pin(future)
}

/// A completer of the `(argument, value)` form: `async fn(&str, &str) -> Vec<String>`.
pub trait CompleteArgs<'a> {
    /// The completer's future.
    type Future: Future<Output = Vec<String>> + Send + 'a;
    /// Calls it.
    fn call(&self, argument: &'a str, value: &'a str) -> Self::Future;
}

impl<'a, F, Fut> CompleteArgs<'a> for F
where
    F: Fn(&'a str, &'a str) -> Fut,
    Fut: Future<Output = Vec<String>> + Send + 'a,
{
    type Future = Fut;
    fn call(&self, argument: &'a str, value: &'a str) -> Fut {
        self(argument, value)
    }
}

/// A completer of the `(ctx, argument, value)` form:
/// `async fn(&Ctx, &str, &str) -> Vec<String>`.
pub trait CompleteCtx<'a> {
    /// The completer's future.
    type Future: Future<Output = Vec<String>> + Send + 'a;
    /// Calls it.
    fn call(&self, ctx: &'a crate::context::Ctx, argument: &'a str, value: &'a str)
    -> Self::Future;
}

impl<'a, F, Fut> CompleteCtx<'a> for F
where
    F: Fn(&'a crate::context::Ctx, &'a str, &'a str) -> Fut,
    Fut: Future<Output = Vec<String>> + Send + 'a,
{
    type Future = Fut;
    fn call(&self, ctx: &'a crate::context::Ctx, argument: &'a str, value: &'a str) -> Fut {
        self(ctx, argument, value)
    }
}

/// Marks the `(argument, value)` form of [`Completer`].
pub enum ArgsForm {}
/// Marks the `(ctx, argument, value)` form of [`Completer`].
pub enum CtxForm {}

/// What `complete = path` names: an `async fn` taking what the user typed, and optionally
/// the request's context first. `M` is the form, inferred from the function's signature.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a completer",
    label = "`complete = ..` names this",
    note = "a completer is an `async fn(argument: &str, value: &str) -> Vec<String>`, or `async fn(ctx: &Ctx, argument: &str, value: &str) -> Vec<String>` to reach the app state (`ctx.state::<T>()`)"
)]
pub trait Completer<M> {
    /// Calls the completer with the arguments its form takes.
    fn complete<'a>(
        self,
        ctx: &'a crate::context::Ctx,
        argument: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Vec<String>>;
}

impl<F: for<'a> CompleteArgs<'a>> Completer<ArgsForm> for F {
    fn complete<'a>(
        self,
        _ctx: &'a crate::context::Ctx,
        argument: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Vec<String>> {
        Box::pin(CompleteArgs::call(&self, argument, value))
    }
}

impl<F: for<'a> CompleteCtx<'a>> Completer<CtxForm> for F {
    fn complete<'a>(
        self,
        ctx: &'a crate::context::Ctx,
        argument: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Vec<String>> {
        Box::pin(CompleteCtx::call(&self, ctx, argument, value))
    }
}

/// Calls a `complete = path` completer of either form.
pub fn complete_with<'a, M, F: Completer<M>>(
    completer: F,
    ctx: &'a crate::context::Ctx,
    argument: &'a str,
    value: &'a str,
) -> BoxFuture<'a, Vec<String>> {
    completer.complete(ctx, argument, value)
}

/// Parses a URI template the macro already checked at compile time.
pub fn checked_template(template: &str) -> crate::server::UriTemplate {
    crate::server::UriTemplate::parse(template)
        .unwrap_or_else(|_| crate::server::UriTemplate::literal(template))
}

/// Names a tool's return type so its `outputSchema` can be looked up without a second
/// trait-bound error when the type does not implement [`IntoToolResult`] (the call that
/// converts the value reports that, once).
pub struct ReturnOf<R>(std::marker::PhantomData<R>);

impl<R> Default for ReturnOf<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R> ReturnOf<R> {
    /// The marker.
    pub const fn new() -> Self {
        ReturnOf(std::marker::PhantomData)
    }
}

/// Picked when the return type implements [`IntoToolResult`].
pub trait OutputSchemaOf {
    /// The type's `outputSchema`.
    fn output_schema(&self) -> Option<JsonObject>;
}

impl<R: IntoToolResult> OutputSchemaOf for &ReturnOf<R> {
    fn output_schema(&self) -> Option<JsonObject> {
        R::output_schema()
    }
}

/// The fallback when it does not (compilation fails elsewhere anyway).
pub trait NoOutputSchema {
    /// No schema.
    fn output_schema(&self) -> Option<JsonObject> {
        None
    }
}

impl<R> NoOutputSchema for ReturnOf<R> {}

/// `Ctx` → the `PhaseCtx` of a handoff tool's `before` and `after`.
pub fn phase_ctx<K>(ctx: &crate::context::Ctx<K>) -> crate::handoff::PhaseCtx {
    crate::handoff::PhaseCtx::new(ctx)
}

/// A keyed elicitation's key, typed with its response (the derive's constructors).
pub fn key<K, R>(key: K) -> crate::elicitation::Key<K, R> {
    crate::elicitation::Key::new(key)
}

/// Describes a key for `ElicitKeySet::keys`, given its response's `requestedSchema`.
pub fn describe_key(
    key: &str,
    description: Option<&str>,
    response_schema: crate::protocol::ElicitationSchema,
    context_schema: JsonObject,
) -> Value {
    crate::elicitation::describe_key(key, description, response_schema, context_schema)
}

/// The single-select schema of an enum (titled `oneOf` when any option has a title).
pub fn single_select<E: crate::elicitation::ElicitEnum>(
    meta: crate::elicitation::FieldMeta,
) -> crate::protocol::PrimitiveSchemaDefinition {
    crate::elicitation::single_select::<E>(meta)
}

/// Runs one phase's fallible output, naming the phase in the error.
pub fn phase<T, E: Into<ToolError>>(name: &str, r: Result<T, E>) -> Result<T, ToolError> {
    r.map_err(|e| match e.into() {
        ToolError::Execution(m) => ToolError::Execution(format!("{name} phase failed: {m}")),
        other => other,
    })
}

/// How a handoff tool's state is kept between rounds: the `HandoffState` functions of the
/// state type, named where the state type is (so a state that is not
/// `Serialize + DeserializeOwned` is one error, there).
pub struct Sealing<S> {
    keep: fn(&S) -> serde_json::Result<Value>,
    restore: fn(Value) -> serde_json::Result<S>,
}

impl<S> Sealing<S> {
    /// `<S as HandoffState>::keep` and `::restore`.
    pub fn new(
        keep: fn(&S) -> serde_json::Result<Value>,
        restore: fn(Value) -> serde_json::Result<S>,
    ) -> Self {
        Sealing { keep, restore }
    }
}

/// Runs a handoff tool's `before` phase once per call. On a modern (2026-07-28) request
/// that takes several rounds, the first round runs it and keeps its state, sealed with the
/// call's `requestState`; later rounds restore that state instead of running it again.
pub async fn before_once<S, E, F>(
    ctx: &crate::context::Ctx,
    before: F,
    sealing: Sealing<S>,
) -> Result<S, ToolError>
where
    E: Into<ToolError>,
    F: Future<Output = Result<S, E>>,
{
    let Some(rounds) = ctx.rounds() else {
        return phase("before", before.await);
    };
    if let Some(kept) = rounds.kept() {
        return (sealing.restore)(kept).map_err(|e| {
            ToolError::Execution(format!(
                "the before phase's state could not be restored: {e}"
            ))
        });
    }
    let state = phase("before", before.await)?;
    let kept = (sealing.keep)(&state).map_err(|e| {
        ToolError::Execution(format!("the before phase's state could not be kept: {e}"))
    })?;
    rounds.keep(kept);
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A return type that claims one output schema and produces something else.
    struct Liar;

    impl IntoToolResult for Liar {
        fn output_schema() -> Option<JsonObject> {
            json!({"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]})
                .as_object()
                .cloned()
        }

        fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
            Ok(CallToolResult::structured(
                json!({"sum": "three"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ))
        }
    }

    #[test]
    fn the_version_marker_is_named_after_the_package_version() {
        let name = format!(
            "pub const expects_tracksuit_{}: ()",
            env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_")
        );
        assert!(
            include_str!("lib.rs").contains(&name),
            "lib.rs lacks `{name}`"
        );
    }

    #[test]
    fn structured_output_is_validated_against_the_output_schema() {
        let schemas = ToolSchemas::new();
        let err = finish_tool(&schemas, Liar.into_tool_result(), Liar::output_schema)
            .expect_err("mismatch is refused");
        assert!(
            err.message().contains("outputSchema") && err.message().contains("`sum`"),
            "{err:?}"
        );
        type Object = crate::authoring::Json<JsonObject>;
        let sum =
            crate::authoring::Json(json!({"sum": 3}).as_object().cloned().unwrap_or_default());
        let ok = finish_tool(
            &ToolSchemas::new(),
            sum.into_tool_result(),
            Object::output_schema,
        );
        assert!(ok.is_ok());
    }

    #[test]
    fn properties_are_added_as_a_derived_struct_would_add_them() {
        let mut object = object_schema();
        let mut generator = schemars::SchemaGenerator::default();
        add_property(&mut object, "ctx", "", "", None);
        add_property(
            &mut object,
            "n",
            "Count",
            "How many.",
            Some((generator.subschema_for::<u32>(), false)),
        );
        add_property(
            &mut object,
            "tag",
            "",
            "",
            Some((generator.subschema_for::<Option<String>>(), true)),
        );
        let object = object.as_value();
        assert_eq!(object["required"], json!(["n"]));
        let keys: Vec<_> = object["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["n", "tag"], "the context is no property");
        assert_eq!(object["properties"]["n"]["title"], "Count");
        assert_eq!(object["properties"]["n"]["description"], "How many.");
        assert!(object["properties"]["tag"].get("title").is_none());
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn output_schema_lookup_prefers_the_real_impl() {
        #[allow(unused_imports)]
        use super::{NoOutputSchema as _, OutputSchemaOf as _};
        assert!((&&ReturnOf::<Liar>::new()).output_schema().is_some());
        assert!((&&ReturnOf::<String>::new()).output_schema().is_none());
        assert!(
            (&&ReturnOf::<std::time::Duration>::new())
                .output_schema()
                .is_none()
        );
    }
}
