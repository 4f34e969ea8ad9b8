//! What a handler's parameters can be: arguments the model supplies (for a tool any type
//! with a JSON Schema that deserialises, for a prompt a string), or the request context,
//! told apart by type.
//!
//! The generated code of `#[mcp_tool]` reaches a parameter's schema and value only through
//! [`ToolParameter`] (and a borrowed parameter through [`FromCtx`]), so a type that falls
//! short is reported once, at the parameter's type, by the message of these traits.

use crate::context::Ctx;
use crate::protocol::{ErrorObject, JsonObject};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;

/// A parameter of a [`#[mcp_tool]`](macro@crate::mcp_tool) function passed by value: an
/// argument the model supplies, or the request context.
///
/// Every type with a JSON Schema (`schemars::JsonSchema`, from schemars **1**) that
/// deserialises (`serde::Deserialize`) is an argument: its schema is a property of the tool's
/// input schema, required unless the type is an `Option`. [`Ctx`] is the context, whatever
/// name it is imported under (`use tracksuit::Ctx as McpCtx`, or a type alias): the runtime
/// passes it in, and it is not part of the input schema.
///
/// There is nothing to implement: derive `serde::Deserialize` and `schemars::JsonSchema` on
/// your argument types. A type without them is refused where the parameter names it:
///
/// ```compile_fail
/// #[derive(serde::Deserialize)] // no `schemars::JsonSchema`
/// struct Point { x: i32, y: i32 }
///
/// #[tracksuit::mcp_tool]
/// async fn plot(point: Point) -> String { // error: `Point` cannot be a tool argument
///     format!("{},{}", point.x, point.y)
/// }
/// ```
///
/// What the generated code asks of a parameter's type:
///
/// ```
/// use tracksuit::{Ctx, ToolParameter};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Point { x: i32, y: i32 }
///
/// let mut generator = schemars::SchemaGenerator::default();
/// let (_schema, optional) = Point::input_property(&mut generator).unwrap();
/// assert!(!optional);
/// let (_, optional) = Option::<Point>::input_property(&mut generator).unwrap();
/// assert!(optional, "an `Option` may be left out");
/// assert!(<Ctx as ToolParameter>::input_property(&mut generator).is_none(), "the context is no argument");
/// assert!(<Ctx as ToolParameter>::CONTEXT);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: derive `schemars::JsonSchema` and `serde::Deserialize` for it",
    label = "add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to this type",
    note = "the derive must come from schemars 1 (the version tracksuit uses; a schemars 0.8 `JsonSchema` is another trait)"
)]
pub trait ToolParameter: Sized {
    /// `true` for the request context (which the runtime passes in), `false` for an
    /// argument.
    const CONTEXT: bool = false;

    /// The parameter's property in the tool's input schema: its schema (a `$ref` into
    /// `generator`'s definitions for a named type) and whether the model may leave it out
    /// (an `Option`). `None` for the context.
    fn input_property(generator: &mut SchemaGenerator) -> Option<(Schema, bool)>;

    /// The whole input schema, for a type that receives all the arguments at once
    /// (`#[params]`, a handoff tool's `before` parameter): the type's own schema. `None` for
    /// the context.
    fn params_schema() -> Option<JsonObject>;

    /// The parameter's value in one call: the argument deserialised from `value` (`None`
    /// when the model left it out, which only an `Option` accepts), or the context.
    fn from_call(ctx: &Ctx, value: Option<Value>) -> Result<Self, serde_json::Error>;
}

impl<T: JsonSchema + DeserializeOwned> ToolParameter for T {
    fn input_property(generator: &mut SchemaGenerator) -> Option<(Schema, bool)> {
        Some((
            generator.subschema_for::<T>(),
            T::deserialize(Missing).is_ok(),
        ))
    }

    fn params_schema() -> Option<JsonObject> {
        Some(super::schema_for::<T>())
    }

    fn from_call(_: &Ctx, value: Option<Value>) -> Result<Self, serde_json::Error> {
        match value {
            Some(value) => serde_json::from_value(value),
            None => T::deserialize(Missing),
        }
    }
}

impl<K> ToolParameter for Ctx<K> {
    const CONTEXT: bool = true;

    fn input_property(_: &mut SchemaGenerator) -> Option<(Schema, bool)> {
        None
    }

    fn params_schema() -> Option<JsonObject> {
        None
    }

    fn from_call(ctx: &Ctx, _: Option<Value>) -> Result<Self, serde_json::Error> {
        Ok(ctx.with_keys::<K>())
    }
}

/// An argument the model left out: an `Option` reads it as `None` (as a struct field
/// deriving `Deserialize` would), any other type refuses it.
struct Missing;

impl<'de> Deserializer<'de> for Missing {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("missing argument"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// What a borrowed parameter of a tool, prompt or resource can be: only the request
/// context (arguments are deserialised from the request, so they are owned), whatever name
/// it is imported under.
///
/// ```
/// use tracksuit::Ctx as McpCtx;
///
/// /// Greets; the context is imported under another name.
/// #[tracksuit::mcp_tool]
/// async fn greet(ctx: &McpCtx, name: String) -> String {
///     let _ = ctx;
///     format!("hello {name}")
/// }
/// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(greet);
/// ```
///
/// A borrowed argument is refused at its type:
///
/// ```compile_fail
/// #[tracksuit::mcp_tool]
/// async fn greet(name: &String) -> String { // error: neither the request context nor an argument
///     format!("hello {name}")
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "a parameter of type `&{Self}` is neither the request context nor an argument",
    label = "arguments are deserialised from the request, so they must be owned types",
    note = "take the argument by value (e.g. `String`, not `&str`); a borrowed parameter can only be the context, `&Ctx`"
)]
pub trait FromCtx {
    /// The context, typed as the parameter asks.
    fn from_ctx(ctx: &Ctx) -> Self;
}

impl<K> FromCtx for Ctx<K> {
    fn from_ctx(ctx: &Ctx) -> Self {
        ctx.with_keys::<K>()
    }
}

/// A parameter of a [`#[mcp_prompt]`](macro@crate::mcp_prompt) function passed by value: an
/// argument (prompt arguments are strings on the wire: `String`, or `Option<String>` for
/// an optional one), or the request context, whatever name it is imported under.
///
/// ```
/// use tracksuit::Ctx as McpCtx;
///
/// /// Summarises a topic.
/// #[tracksuit::mcp_prompt]
/// async fn summarise(topic: String, tone: Option<String>, ctx: McpCtx) -> String {
///     let _ = ctx;
///     format!("Summarise {topic} {}", tone.unwrap_or_default())
/// }
/// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).prompt(summarise);
/// ```
///
/// Typed arguments ([`FromPromptArgument`]: numbers, `bool`, `char`, or your own type)
/// are parsed before the body runs; a value that does not parse is answered `-32602`
/// naming the argument and what it must be:
///
/// ```
/// /// Reports on a month.
/// #[tracksuit::mcp_prompt]
/// async fn report(month: u8, detailed: Option<bool>) -> String {
///     format!("Report on month {month} (detailed: {})", detailed.unwrap_or(false))
/// }
/// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).prompt(report);
/// ```
///
/// Any other type is refused at the parameter:
///
/// ```compile_fail
/// #[tracksuit::mcp_prompt]
/// async fn repeat(times: Vec<u32>) -> String { // error: not a prompt argument
///     format!("{times:?}")
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt argument: prompt arguments are strings on the wire",
    label = "`{Self}` neither parses from a string (`FromPromptArgument`) nor is the request context",
    note = "use `String`, a number, `bool` or `char` (or `Option` of one), implement `FromPromptArgument` for your type, or take the context as `ctx: &Ctx`"
)]
pub trait PromptParameter: Sized {
    /// For an argument, whether the client must give it (`String`) or may leave it out
    /// (`Option<String>`); `None` for the context.
    fn required() -> Option<bool>;

    /// The parameter's value in one `prompts/get`: the argument `name`'s value (`None`
    /// when the client left it out), or the context. A value that does not parse is a
    /// `-32602` error naming the argument.
    fn from_prompt(ctx: &Ctx, name: &str, value: Option<String>) -> Result<Self, ErrorObject>;
}

/// A prompt argument's type: parsed from the string the client sends.
///
/// Implemented for `String`, `bool`, `char` and the integer and float types; implement it
/// for your own (an enum of report kinds, a date) to take it as a prompt argument.
///
/// ```
/// use tracksuit::FromPromptArgument;
///
/// enum Tone { Formal, Casual }
///
/// impl FromPromptArgument for Tone {
///     fn from_argument(text: &str) -> Result<Self, String> {
///         match text {
///             "formal" => Ok(Tone::Formal),
///             "casual" => Ok(Tone::Casual),
///             _ => Err("expected \"formal\" or \"casual\"".into()),
///         }
///     }
/// }
///
/// /// Writes a greeting.
/// #[tracksuit::mcp_prompt]
/// async fn greet(tone: Tone) -> String {
///     match tone { Tone::Formal => "Good day.".into(), Tone::Casual => "Hi!".into() }
/// }
/// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).prompt(greet);
/// assert!(<u8 as FromPromptArgument>::from_argument("300").is_err());
/// ```
pub trait FromPromptArgument: Sized {
    /// The value `text` stands for, or what the text should have been (`expected …`),
    /// which the client reads in the `-32602` error.
    fn from_argument(text: &str) -> Result<Self, String>;
}

impl FromPromptArgument for String {
    fn from_argument(text: &str) -> Result<Self, String> {
        Ok(text.to_owned())
    }
}

impl FromPromptArgument for bool {
    fn from_argument(text: &str) -> Result<Self, String> {
        text.parse().map_err(|_| "expected true or false".into())
    }
}

impl FromPromptArgument for char {
    fn from_argument(text: &str) -> Result<Self, String> {
        text.parse().map_err(|_| "expected one character".into())
    }
}

macro_rules! integer_arguments {
    ($($t:ty),*) => {$(
        impl FromPromptArgument for $t {
            fn from_argument(text: &str) -> Result<Self, String> {
                text.trim().parse().map_err(|_| {
                    format!("expected an integer from {} to {}", <$t>::MIN, <$t>::MAX)
                })
            }
        }
    )*};
}
integer_arguments!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

macro_rules! float_arguments {
    ($($t:ty),*) => {$(
        impl FromPromptArgument for $t {
            fn from_argument(text: &str) -> Result<Self, String> {
                text.trim().parse().map_err(|_| "expected a number".into())
            }
        }
    )*};
}
float_arguments!(f32, f64);

/// The `-32602` error of an argument whose text does not parse.
fn invalid_argument(name: &str, text: &str, expected: &str) -> ErrorObject {
    let quoted = Value::from(ErrorObject::quote(text).as_ref());
    ErrorObject::invalid_params(format!(
        "argument `{name}`: {quoted} is not valid ({expected})"
    ))
}

impl<T: FromPromptArgument> PromptParameter for T {
    fn required() -> Option<bool> {
        Some(true)
    }

    fn from_prompt(_: &Ctx, name: &str, value: Option<String>) -> Result<Self, ErrorObject> {
        // The server answers a missing required argument before the prompt runs.
        let text = value.unwrap_or_default();
        T::from_argument(&text).map_err(|expected| invalid_argument(name, &text, &expected))
    }
}

impl<T: FromPromptArgument> PromptParameter for Option<T> {
    fn required() -> Option<bool> {
        Some(false)
    }

    fn from_prompt(_: &Ctx, name: &str, value: Option<String>) -> Result<Self, ErrorObject> {
        match value {
            None => Ok(None),
            Some(text) => T::from_argument(&text)
                .map(Some)
                .map_err(|expected| invalid_argument(name, &text, &expected)),
        }
    }
}

impl<K> PromptParameter for Ctx<K> {
    fn required() -> Option<bool> {
        None
    }

    fn from_prompt(ctx: &Ctx, _: &str, _: Option<String>) -> Result<Self, ErrorObject> {
        Ok(ctx.with_keys::<K>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
    struct Point {
        x: i32,
    }

    #[test]
    fn a_missing_argument_is_none_only_for_an_option() {
        assert_eq!(Option::<Point>::deserialize(Missing).ok(), Some(None));
        assert!(Point::deserialize(Missing).is_err());
        assert!(String::deserialize(Missing).is_err());
        assert!(Value::deserialize(Missing).is_err());
    }

    #[test]
    fn a_property_is_optional_exactly_when_it_may_be_missing() {
        let mut generator = SchemaGenerator::default();
        let (schema, optional) = Point::input_property(&mut generator).expect("an argument");
        assert!(!optional);
        assert_eq!(schema.as_value()["$ref"], json!("#/$defs/Point"));
        let (_, optional) = Option::<u32>::input_property(&mut generator).expect("an argument");
        assert!(optional);
        assert!(Ctx::<()>::input_property(&mut generator).is_none());
        assert!(<Ctx<()> as ToolParameter>::params_schema().is_none());
        assert_eq!(String::required(), Some(true));
        assert_eq!(Option::<String>::required(), Some(false));
        assert_eq!(<Ctx<()> as PromptParameter>::required(), None);
        const { assert!(<Ctx<()> as ToolParameter>::CONTEXT && !<Point as ToolParameter>::CONTEXT) };
    }
}
