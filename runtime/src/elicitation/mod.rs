//! Elicitation: typed forms (`#[derive(Elicits)]` on a struct), keyed elicitations
//! (`#[derive(Elicits)]` on an enum, declared by a tool with `#[mcp_tool(elicits = Keys)]`),
//! [`ElicitExchange`] for conversation history, and URL mode.
//!
//! ```
//! use serde_json::json;
//! use tracksuit::{Ctx, Elicited, Elicits, Server, ToolError, client::Client, mcp_tool};
//! #[derive(serde::Deserialize, Elicits)]
//! struct Name {
//!     /// Your name.
//!     name: String,
//! }
//! /// Greets the user by name.
//! #[mcp_tool]
//! async fn greet(ctx: &Ctx) -> Result<String, ToolError> {
//!     match ctx.elicit_form::<Name>("Who are you?").await? {
//!         Elicited::Accept { value, .. } => Ok(format!("Hello, {}!", value.name)),
//!         Elicited::Decline | Elicited::Cancel => Ok("Hello, stranger!".into()),
//!     }
//! }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let server = Server::new(tracksuit::crate_info!()).tool(greet).build()?;
//! let client = Client::builder().on_elicitation(|_params| async {
//!     Ok(serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}})).unwrap())
//! });
//! # let client = tracksuit::host::connect_in_memory(server, client).await?;
//! let result = client.call_tool("greet", json!({})).await?;
//! assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
//! # Ok(())
//! # }
//! ```

mod form;

pub(crate) use form::single_select;
pub use form::{ElicitEnum, FieldMeta, FormField};

use crate::authoring::SchemaValidator;
use crate::context::Ctx;
use crate::peer::RequestError;
use crate::protocol::*;
use crate::sampling::tool_results;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The `_meta` key under which a tool publishes its elicitation keys in `tools/list`.
///
/// ```
/// use tracksuit::{Ctx, Elicits, Server, ToolError, elicitation::KEYS_META, mcp_tool};
/// #[derive(serde::Deserialize, Elicits)]
/// struct Confirm { sure: bool }
/// #[derive(Elicits)]
/// enum Keys {
///     /// Delete the file?
///     #[elicit(response = Confirm)]
///     Delete { path: String },
/// }
/// /// Deletes a file after asking.
/// #[mcp_tool(elicits = Keys)]
/// async fn delete(ctx: &Ctx<Keys>, path: String) -> Result<String, ToolError> {
///     let sure = ctx.elicit(Keys::delete(path)).await?.accepted().is_some_and(|c| c.sure);
///     Ok(if sure { "deleted" } else { "kept" }.into())
/// }
/// let server = Server::new(tracksuit::crate_info!()).tool(delete).build()?;
/// let meta = server.tool_descriptor("delete").unwrap().meta.unwrap();
/// assert_eq!(meta[KEYS_META][0]["key"], "Delete");
/// assert_eq!(meta[KEYS_META][0]["responseSchema"]["properties"]["sure"]["type"], "boolean");
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
pub const KEYS_META: &str = "io.tracksuit/elicitation-keys";
/// The `_meta` key under which an elicitation request carries its key and context.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Elicits, Server, ToolError, client::Client, mcp_tool};
/// use tracksuit::{elicitation::REQUEST_META, protocol::ElicitRequestParams};
/// #[derive(serde::Deserialize, Elicits)]
/// struct Confirm { sure: bool }
/// #[derive(Elicits)]
/// enum Keys {
///     #[elicit(response = Confirm, message = "Delete {count} files?")]
///     DeleteFiles { count: u32 },
/// }
/// /// Cleans up after asking.
/// #[mcp_tool(elicits = Keys)]
/// async fn clean(ctx: &Ctx<Keys>) -> Result<String, ToolError> {
///     let sure = ctx.elicit(Keys::delete_files(3)).await?.accepted().is_some_and(|c| c.sure);
///     Ok(sure.to_string())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(clean).build()?;
/// // A client with a custom widget per key reads the key and its context.
/// let client = Client::builder().on_elicitation(|params| async move {
///     let ElicitRequestParams::Form(form) = params else { unreachable!() };
///     let asked = &form.meta.unwrap()[REQUEST_META];
///     assert_eq!((asked["key"].as_str(), &asked["context"]), (Some("DeleteFiles"), &json!({"count": 3})));
///     assert_eq!(form.message, "Delete 3 files?");
///     Ok(serde_json::from_value(json!({"action": "accept", "content": {"sure": true}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// assert_eq!(client.call_tool("clean", json!({})).await?.content[0].as_text(), Some("true"));
/// # Ok(())
/// # }
/// ```
pub const REQUEST_META: &str = crate::context::KEYED_ELICITATION_META;

/// A struct that is an elicitation form (derive it with `#[derive(Elicits)]`).
///
/// ```
/// use tracksuit::{ElicitForm, Elicits};
/// #[derive(serde::Deserialize, Elicits)]
/// struct Booking {
///     /// Arrival date.
///     #[elicit(format = "date")]
///     arrival: String,
///     #[elicit(min = 1, max = 14)]
///     nights: u8,
/// }
/// let schema = serde_json::to_value(Booking::requested_schema()).unwrap();
/// assert_eq!(schema["properties"]["arrival"]["format"], "date");
/// assert_eq!(schema["required"], serde_json::json!(["arrival", "nights"]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation form",
    label = "derive `Elicits` (and `Deserialize`) on this struct",
    note = "`#[derive(serde::Deserialize, tracksuit::Elicits)]` on a struct of form fields makes it a form"
)]
pub trait ElicitForm: DeserializeOwned + 'static {
    /// The form's `requestedSchema`.
    fn requested_schema() -> ElicitationSchema;

    /// [`ElicitForm::requested_schema`] as each question asks it: made afresh by default;
    /// the derive, whose schema is fixed, makes it once and lends it.
    #[doc(hidden)]
    fn requested_schema_cached() -> std::borrow::Cow<'static, ElicitationSchema> {
        std::borrow::Cow::Owned(Self::requested_schema())
    }

    /// [`ElicitForm::requested_schema`] as JSON text, for a form whose schema is fixed: the
    /// derive writes it once, and each question takes the text instead of writing the
    /// schema again. `None` (the default): written with each question.
    #[doc(hidden)]
    fn requested_schema_text() -> Option<&'static serde_json::value::RawValue> {
        None
    }
}

/// A keyed elicitation set: the enum deriving `Elicits` whose variants carry
/// `#[elicit(response = Form)]`. Each variant is a key; its fields are the context.
///
/// The derive adds one constructor per key to the enum (`Keys::pick_move(board, you)` for
/// the variant `PickMove { board, you }`), which returns a [`Key`] typed with the key's
/// response, so [`Ctx::elicit`] returns that type.
///
/// ```
/// use tracksuit::{Elicits, elicitation::ElicitKeySet};
/// #[derive(serde::Deserialize, Elicits)]
/// struct Cell { row: u8, col: u8 }
/// #[derive(Elicits)]
/// enum GameKeys {
///     /// Pick your move.
///     #[elicit(response = Cell)]
///     PickMove { board: String },
/// }
/// let key = GameKeys::PickMove { board: "X..|.O.|...".into() };
/// assert_eq!((key.key(), key.message()), ("PickMove", "Pick your move.".to_string()));
/// assert_eq!(key.context(), serde_json::json!({"board": "X..|.O.|..."}));
/// assert_eq!(GameKeys::keys()[0]["responseSchema"]["required"], serde_json::json!(["row", "col"]));
/// ```
pub trait ElicitKeySet: Send + Sync + 'static {
    /// The keys, for the tool's `_meta`.
    fn keys() -> Vec<Value>;
    /// This key's name (the variant's).
    fn key(&self) -> &'static str;
    /// The message shown to the user.
    fn message(&self) -> String;
    /// The context: the variant's fields as a JSON object.
    fn context(&self) -> Value;
}

impl ElicitKeySet for () {
    fn keys() -> Vec<Value> {
        Vec::new()
    }

    fn key(&self) -> &'static str {
        ""
    }

    fn message(&self) -> String {
        String::new()
    }

    fn context(&self) -> Value {
        Value::Null
    }
}

/// A key of the set `K` whose answer is the form `R`, ready for [`Ctx::elicit`]. Made by
/// the constructors `#[derive(Elicits)]` adds to the set (`Keys::pick_move(..)`).
///
/// ```
/// use tracksuit::{Elicits, elicitation::{ElicitKeySet, Key}};
/// #[derive(serde::Deserialize, Elicits)]
/// struct Cell { row: u8, col: u8 }
/// #[derive(Elicits)]
/// enum GameKeys {
///     /// Pick your move.
///     #[elicit(response = Cell)]
///     PickMove { board: String },
/// }
/// // The derive's constructor ties the key to its response type: `ctx.elicit(key)` yields a `Cell`.
/// let key: Key<GameKeys, Cell> = GameKeys::pick_move("...".into());
/// assert_eq!(key.get().key(), "PickMove");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Key<K, R> {
    key: K,
    response: std::marker::PhantomData<fn() -> R>,
}

impl<K, R> Key<K, R> {
    pub(crate) fn new(key: K) -> Self {
        Key {
            key,
            response: std::marker::PhantomData,
        }
    }

    /// The key (the set's variant).
    pub fn get(&self) -> &K {
        &self.key
    }
}

/// Describes a key for [`ElicitKeySet::keys`], given its response's `requestedSchema`.
pub(crate) fn describe_key(
    key: &str,
    description: Option<&str>,
    response_schema: ElicitationSchema,
    context_schema: JsonObject,
) -> Value {
    json!({
        "key": key,
        "description": description,
        "responseSchema": response_schema,
        "contextSchema": context_schema,
    })
}

/// The user's answer.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Elicited, Elicits, Server, ToolError, client::Client, mcp_tool};
/// #[derive(serde::Deserialize, Elicits)]
/// struct Age { years: u8 }
/// /// Asks for the user's age.
/// #[mcp_tool]
/// async fn age(ctx: &Ctx) -> Result<String, ToolError> {
///     Ok(match ctx.elicit_form::<Age>("How old are you?").await? {
///         Elicited::Accept { value, .. } => value.years.to_string(),
///         Elicited::Decline => "declined".into(),
///         Elicited::Cancel => "dismissed".into(),
///     })
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(age).build()?;
/// let client = Client::builder().on_elicitation(|_params| async {
///     Ok(serde_json::from_value(json!({"action": "decline"})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// assert_eq!(client.call_tool("age", json!({})).await?.content[0].as_text(), Some("declined"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited<T, C = ()> {
    /// Submitted: the validated, typed content and the exchange for history.
    Accept {
        /// The content.
        value: T,
        /// The interaction as MCP messages.
        exchange: ElicitExchange<C>,
    },
    /// Explicitly declined.
    Decline,
    /// Dismissed.
    Cancel,
}

impl<T, C> Elicited<T, C> {
    /// The value, if accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicited::Accept { value, .. } => Some(value),
            _ => None,
        }
    }
}

/// An accepted elicitation as conversation history:
/// `[assistant tool_use{name: key, input}, user tool_result{content}]`. `input` is empty
/// unless the author opts in with [`ElicitExchange::with_arguments`], so context never
/// leaks into a model's history by accident.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Elicited, Elicits, Server, ToolError, client::Client, mcp_tool};
/// #[derive(serde::Deserialize, Elicits)]
/// struct Topic { topic: String }
/// /// Asks the user for a topic, then shows the model what was asked and answered.
/// #[mcp_tool]
/// async fn history(ctx: &Ctx) -> Result<String, ToolError> {
///     let Elicited::Accept { exchange, .. } = ctx.elicit_form::<Topic>("Topic?").await? else {
///         return Ok("no topic".into());
///     };
///     let messages = exchange.messages(); // [assistant tool_use, user tool_result]
///     let json = serde_json::to_value(&messages)?;
///     Ok(format!("{} {}", json[0]["content"][0]["name"], json[1]["content"]["structuredContent"]))
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(history).build()?;
/// let client = Client::builder().on_elicitation(|_params| async {
///     Ok(serde_json::from_value(json!({"action": "accept", "content": {"topic": "rust"}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// let result = client.call_tool("history", json!({})).await?;
/// assert_eq!(result.content[0].as_text(), Some(r#""Topic" {"topic":"rust"}"#));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitExchange<C = ()> {
    /// The key (or form name).
    pub key: String,
    /// The `tool_use` id pairing the two messages.
    pub id: String,
    /// The context the elicitation was asked with.
    pub context: C,
    /// The content the user submitted.
    pub content: JsonObject,
    /// What enters the `tool_use` input.
    pub arguments: JsonObject,
}

impl<C> ElicitExchange<C> {
    /// Chooses what of the context enters the `tool_use` input (an object; other values
    /// are put under `"value"`).
    pub fn with_arguments(mut self, f: impl FnOnce(&C) -> Value) -> Self {
        self.arguments = match f(&self.context) {
            Value::Object(map) => map,
            Value::Null => JsonObject::new(),
            other => {
                let mut map = JsonObject::new();
                map.insert("value".into(), other);
                map
            }
        };
        self
    }

    /// The two messages, ready for `ctx.sample().history(...)`.
    pub fn messages(&self) -> Vec<SamplingMessage> {
        let call = SamplingMessage {
            role: Role::Assistant,
            content: OneOrMany::Many(vec![SamplingMessageContentBlock::ToolUse(ToolUseContent {
                id: self.id.clone(),
                name: self.key.clone(),
                input: self.arguments.clone(),
                meta: None,
            })]),
            meta: None,
        };
        let result = tool_results(vec![SamplingMessageContentBlock::ToolResult(
            ToolResultContent {
                tool_use_id: self.id.clone(),
                content: vec![ContentBlock::text(
                    Value::Object(self.content.clone()).to_string(),
                )],
                structured_content: Some(self.content.clone()),
                ..Default::default()
            },
        )]);
        vec![call, result]
    }
}

/// Why an elicitation failed.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Elicits, Server, ToolError, client::Client, elicitation::ElicitError, mcp_tool};
/// #[derive(serde::Deserialize, Elicits)]
/// struct Age { #[elicit(max = 150)] years: u8 }
/// /// Asks for an age; reports what went wrong.
/// #[mcp_tool]
/// async fn age(ctx: &Ctx) -> Result<String, ToolError> {
///     Ok(match ctx.elicit_form::<Age>("Age?").await {
///         Ok(_) => "ok".into(),
///         Err(ElicitError::InvalidContent(_)) => "invalid".into(),
///         Err(ElicitError::Request(e)) => format!("request failed: {e}"),
///         Err(e) => e.to_string(),
///     })
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(age).build()?;
/// // The client accepts with a value outside the form's range: checked before it is used.
/// let client = Client::builder().on_elicitation(|_params| async {
///     Ok(serde_json::from_value(json!({"action": "accept", "content": {"years": 200}})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// assert_eq!(client.call_tool("age", json!({})).await?.content[0].as_text(), Some("invalid"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ElicitError {
    /// The request could not be made (capability missing, timeout, client error).
    #[error(transparent)]
    Request(#[from] RequestError),
    /// The client accepted with content that does not match the form.
    #[error("the client returned content that does not match the form: {0}")]
    InvalidContent(String),
}

/// What the user did with a URL elicitation.
///
/// ```
/// use serde_json::json;
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool, protocol::ElicitAction};
/// /// Sends the user to a sign-in page.
/// #[mcp_tool]
/// async fn sign_in(ctx: &Ctx) -> Result<String, ToolError> {
///     let asked = ctx.elicit_url("Sign in to continue", "https://auth.example/login").await?;
///     if asked.action == ElicitAction::Accept {
///         // ... once the sign-in is done:
///         ctx.notify_elicitation_complete(&asked.elicitation_id).await;
///     }
///     Ok(format!("{:?}", asked.action))
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::new(tracksuit::crate_info!()).tool(sign_in).build()?;
/// let client = Client::builder().on_elicitation(|_params| async {
///     Ok(serde_json::from_value(json!({"action": "accept"})).unwrap())
/// });
/// # let client = tracksuit::host::connect_in_memory(server, client).await?;
/// assert_eq!(client.call_tool("sign_in", json!({})).await?.content[0].as_text(), Some("Accept"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UrlElicitation {
    /// Accept (they will open it), decline or cancel.
    pub action: ElicitAction,
    /// The id to complete with [`Ctx::notify_elicitation_complete`].
    pub elicitation_id: String,
}

fn fresh_id(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix}-{n}-{nanos:08x}")
}

impl<K> Ctx<K> {
    /// Asks the user to fill in the form `T`. Accepted content is validated against the
    /// form's schema before it is deserialised.
    pub async fn elicit_form<T: ElicitForm>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, ElicitError> {
        let name = std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or("form")
            .to_owned();
        self.elicit_with(name, message.into(), (), None).await
    }

    async fn elicit_with<T: ElicitForm, C>(
        &self,
        key: String,
        message: String,
        context: C,
        meta: Option<Meta>,
    ) -> Result<Elicited<T, C>, ElicitError> {
        // The request `create_elicitation` sends for these form params, with the schema
        // borrowed: a derived form's is made once, not per question.
        let schema = T::requested_schema_cached();
        let mut params = ElicitRequestFormParams::borrowed(&message, &schema, None, meta.as_ref());
        if let Some(text) = T::requested_schema_text() {
            params = params.with_schema_text(text);
        }
        let result = self.create_form_elicitation(params).await?;
        match result.action {
            ElicitAction::Decline => Ok(Elicited::Decline),
            ElicitAction::Cancel => Ok(Elicited::Cancel),
            ElicitAction::Accept => {
                // Validated and deserialised in place, then taken back out: no copies.
                let content = Value::Object(result.content.unwrap_or_default());
                SchemaValidator::of_type::<T>()
                    // The schema is made again only the first time (to compile it).
                    .validate_with(
                        || match serde_json::to_value(&*schema) {
                            Ok(Value::Object(map)) => map,
                            _ => JsonObject::new(),
                        },
                        &content,
                    )
                    .map_err(ElicitError::InvalidContent)?;
                let value = <T as serde::Deserialize>::deserialize(&content)
                    .map_err(|e| ElicitError::InvalidContent(e.to_string()))?;
                let content = match content {
                    Value::Object(map) => map,
                    _ => JsonObject::new(),
                };
                let exchange = ElicitExchange {
                    key,
                    id: self.exchange_id("elicit"),
                    context,
                    content,
                    arguments: JsonObject::new(),
                };
                Ok(Elicited::Accept { value, exchange })
            }
        }
    }

    /// Opens a URL for the user (URL-mode elicitation). Needs the client's
    /// `elicitation.url` capability (a typed error otherwise, nothing sent).
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<UrlElicitation, ElicitError> {
        let elicitation_id = fresh_id("url");
        let params = ElicitRequestParams::Url(ElicitRequestURLParams {
            mode: UrlMode::Url,
            message: message.into(),
            url: url.into(),
            elicitation_id: elicitation_id.clone(),
            task: None,
            meta: None,
        });
        let result = self.create_elicitation(params).await?;
        Ok(UrlElicitation {
            action: result.action,
            elicitation_id,
        })
    }

    /// Tells the client a URL elicitation finished (`notifications/elicitation/complete`).
    /// On a 2026-07-28 request this does nothing: that revision has no such notification
    /// (the client learns the outcome by retrying the call).
    pub async fn notify_elicitation_complete(&self, elicitation_id: &str) {
        if self.rounds().is_some() {
            return;
        }
        self.notify(
            methods::ELICITATION_COMPLETE,
            ElicitationCompleteNotificationParams {
                elicitation_id: elicitation_id.into(),
            },
        )
        .await;
    }
}

impl<K: ElicitKeySet> Ctx<K> {
    /// Asks the user for a key of the tool's declared set (`ctx.elicit(Keys::pick_move(..))`);
    /// the key's fields are the context (sent in the request's `_meta` so a UI can show a
    /// custom widget), and the answer is the key's typed response. A key of another set
    /// does not compile.
    pub async fn elicit<R>(&self, key: Key<K, R>) -> Result<Elicited<R, K>, ElicitError>
    where
        R: ElicitForm,
    {
        let key = key.key;
        let message = key.message();
        let mut meta = Meta::new();
        meta.insert(
            REQUEST_META.into(),
            json!({ "key": key.key(), "context": key.context() }),
        );
        self.elicit_with(key.key().to_owned(), message, key, Some(meta))
            .await
    }
}

/// `ToolError` for a call that needs the user to complete URL elicitations first
/// (`-32042`, the elicitations in `data`).
///
/// ```
/// let e = tracksuit::elicitation::url_elicitation_required(vec![("Sign in", "https://example.com/login")]);
/// assert!(matches!(e, tracksuit::ToolError::Protocol(ref o) if o.code == -32042));
/// ```
pub fn url_elicitation_required(elicitations: Vec<(&str, &str)>) -> crate::authoring::ToolError {
    let data = UrlElicitationRequiredData {
        elicitations: elicitations
            .into_iter()
            .map(|(message, url)| ElicitRequestURLParams {
                mode: UrlMode::Url,
                message: message.into(),
                url: url.into(),
                elicitation_id: fresh_id("url"),
                task: None,
                meta: None,
            })
            .collect(),
    };
    crate::authoring::ToolError::Protocol(ErrorObject::url_elicitation_required(
        serde_json::to_value(data).unwrap_or(Value::Null),
    ))
}
