//! Procedural macros for [tracksuit](https://docs.rs/tracksuit): `#[mcp_tool]`,
//! `#[mcp_prompt]`, `#[mcp_resource]`, `#[mcp_server]` and `#[derive(Elicits)]`.
//!
//! ```
//! use tracksuit::{Server, mcp_tool};
//!
//! /// Adds two numbers.
//! #[mcp_tool(read_only)]
//! async fn add(/** left operand */ a: i64, /** right operand */ b: i64) -> String {
//!     (a + b).to_string()
//! }
//!
//! let server = Server::new(tracksuit::crate_info!()).tool(add).build()?;
//! let tool = server.tool_descriptor("add").unwrap();
//! assert_eq!(tool.description.as_deref(), Some("Adds two numbers."));
//! assert_eq!(tool.input_schema["properties"]["a"]["description"], "left operand");
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! Use them through the `tracksuit` crate, which re-exports them; the generated code
//! reaches serde, serde_json and schemars through `tracksuit`'s re-exports, so your crate
//! needs no other dependency. Set `TRACKSUIT_MACROS_DEBUG=1` while building to print each
//! expansion to stderr.
//!
//! This crate holds entry points only: parsing and checks are in `internals`, expansion in
//! `tool`, `prompt`, `resource` and `server`.

use proc_macro::TokenStream;

mod common;
mod elicits;
mod handoff;
mod internals;
mod prompt;
mod resource;
mod server;
mod tool;

/// Turns an `async fn` into an MCP tool, registered by name: `Server::new(..).tool(name)`.
///
/// The function stays a function of the same name, callable as before (`name(args).await`)
/// and its name stays an ordinary identifier in the module (a `let name = ..` shadows it).
/// The tool's `ToolHandler` lives inside the function; the function returns a future that
/// also carries that handler's type, which is how `Server::tool` finds it.
///
/// - Parameters become the input schema (JSON Schema 2020-12 via schemars); `///` docs on
///   the function and on each parameter are the descriptions; `Option<T>` is not required.
/// - `&Ctx` / `Ctx` and `CancellationToken` parameters are injected, not part of the schema.
///   The context is recognised by its type, so it may be imported under another name or
///   through a type alias (`use tracksuit::Ctx as McpCtx;` then `ctx: McpCtx` or
///   `ctx: &McpCtx`). Every other parameter's type is an argument: it implements
///   `tracksuit::ToolParameter` (derive `serde::Deserialize` and `schemars::JsonSchema`).
/// - `#[params] p: MyArgs` takes the whole argument object as one struct.
/// - Attributes: `name`, `title`, `description`, `read_only`, `destructive`, `idempotent`,
///   `open_world`, `icons = [...]`, `meta = "{json}"`, `ui = "ui://..."` (links the tool
///   to an MCP App: `_meta.ui.resourceUri`, merged into `meta`), `task_support = "..."`,
///   `scopes = ["files:write"]` (OAuth scopes the caller's token must grant; checked before
///   the body runs, see `tracksuit::host::http::auth`; a `{name}` placeholder takes the
///   argument of that name), `scopes_with = path` (`fn(&T) -> Vec<String>`, more scopes
///   computed from the arguments read as `T`), `crate = path`. Names are checked
///   against SEP-986 at compile time.
/// - The return type implements `IntoToolResult`: `String`, `&str`, `ContentBlock`,
///   `Vec<ContentBlock>`, `CallToolResult`, `Json<T>` (structured output + `outputSchema`),
///   `Result<T, E: Display>` (`Err` → `isError`).
/// - Arguments are validated against the schema before the body runs; a violation is an
///   `isError` result naming the field. Structured output is validated against its schema.
/// - Shared state: a free function reads the app state given to `Server::state` with
///   `ctx.state::<T>()` (a missing one is an `isError` result naming the type); a method of
///   an `#[mcp_server]` block has `&self`.
///
/// ```
/// use tracksuit::{Ctx, Json, Server, mcp_tool, protocol::LoggingLevel};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum { sum: i64 }
///
/// /// Add two numbers.
/// #[mcp_tool(read_only, idempotent)]
/// async fn add(ctx: &Ctx, /** left operand */ a: i64, /** right operand */ b: Option<i64>) -> Json<Sum> {
///     ctx.log(LoggingLevel::Debug, "adding").await;
///     Json(Sum { sum: a + b.unwrap_or(0) })
/// }
///
/// let server = Server::new(tracksuit::crate_info!()).tool(add).build().expect("one tool");
/// assert_eq!(server.tool_names(), ["add"]);
/// ```
///
/// # MCP Apps
///
/// `ui = "ui://..."` links the tool to an App resource. In an `#[mcp_server]` block that
/// declares `#[mcp_resource(uri = "ui://...", app)]` resources, each tool's `ui` must name
/// one of them (otherwise `Server::build` checks the link against `Server::ui_resource`):
///
/// ```
/// use tracksuit::{Server, mcp_server};
///
/// struct Game;
///
/// #[mcp_server]
/// impl Game {
///     /// The board, rendered by the host next to `play`'s calls.
///     #[mcp_resource(uri = "ui://game/board.html", app)]
///     async fn board(&self) -> String {
///         "<p>board</p>".into()
///     }
///
///     /// Plays a move.
///     #[mcp_tool(ui = "ui://game/board.html")]
///     async fn play(&self, cell: u8) -> String {
///         format!("played {cell}")
///     }
/// }
///
/// let server = Server::new(tracksuit::crate_info!()).tools(Game).build().expect("linked");
/// assert_eq!(server.tool_names(), ["play"]);
/// ```
///
/// # Handoff tools
///
/// On an `impl` block with `async fn before`, `client` and `after`, `#[mcp_tool]` makes a
/// handoff tool (see `tracksuit::handoff`); each phase may take `&self`, the value
/// registered with `Server::tool(value)`. Inside an `#[mcp_server]` block, the annotated
/// method is the `before` phase and `client = method, after = method` name the other two
/// (`method` or `Self::method`, methods of the same block), so every phase can use the
/// server's fields through `&self` (or leave `&self` out). `&mut self` and `self` are
/// refused at the receiver: one value serves every call at once.
///
/// ```
/// use std::sync::Mutex;
/// use tracksuit::{Ctx, PhaseCtx, Server, ToolError, mcp_server};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Titles { titles: Vec<String> }
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Plan { duplicates: Vec<String> }
///
/// #[derive(serde::Deserialize, tracksuit::Elicits)]
/// struct Confirm { yes: bool }
///
/// struct Library { deleted: Mutex<Vec<String>> }
///
/// #[mcp_server]
/// impl Library {
///     /// Deletes the duplicate titles the user confirms.
///     #[mcp_tool(client = confirm_each, after = Self::delete)]
///     async fn dedupe(&self, args: Titles, _ctx: &PhaseCtx) -> Result<Plan, ToolError> {
///         let mut seen = std::collections::HashSet::new();
///         let duplicates = args.titles.into_iter().filter(|t| !seen.insert(t.clone())).collect();
///         Ok(Plan { duplicates })
///     }
///
///     // Replayed from the logged answers on a 2026-07-28 client: no side effects here.
///     async fn confirm_each(plan: &Plan, ctx: &Ctx) -> Result<Vec<String>, ToolError> {
///         let mut chosen = Vec::new();
///         for title in &plan.duplicates {
///             let answer = ctx.elicit_form::<Confirm>(format!("Delete {title}?")).await?;
///             if answer.accepted().is_some_and(|c| c.yes) {
///                 chosen.push(title.clone());
///             }
///         }
///         Ok(chosen)
///     }
///
///     // Runs once per call, in either era.
///     async fn delete(&self, _plan: Plan, chosen: Vec<String>, _ctx: &PhaseCtx) -> String {
///         let mut deleted = self.deleted.lock().unwrap_or_else(|e| e.into_inner());
///         deleted.extend(chosen.iter().cloned());
///         format!("deleted {}", chosen.len())
///     }
/// }
///
/// let library = Library { deleted: Mutex::new(Vec::new()) };
/// let server = Server::new(tracksuit::crate_info!()).tools(library).build()?;
/// let tool = server.tool_descriptor("dedupe").unwrap();
/// assert_eq!(tool.description.as_deref(), Some("Deletes the duplicate titles the user confirms."));
/// assert_eq!(tool.input_schema["required"], serde_json::json!(["titles"]));
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
///
/// A phase that takes `&mut self` does not compile:
///
/// ```compile_fail
/// use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_server};
///
/// struct Counter { n: u32 }
///
/// #[mcp_server]
/// impl Counter {
///     /// Counts.
///     #[mcp_tool(client = ask, after = finish)]
///     async fn count(&self, _ctx: &PhaseCtx) -> Result<u32, ToolError> { Ok(self.n) }
///     async fn ask(n: &u32, _ctx: &Ctx) -> Result<u32, ToolError> { Ok(*n) }
///     // error: a handoff phase takes `&self`, not `&mut self`
///     async fn finish(&mut self, n: u32, _out: u32, _ctx: &PhaseCtx) -> String {
///         self.n += n;
///         self.n.to_string()
///     }
/// }
/// ```
///
/// A link to an App the block does not declare does not compile:
///
/// ```compile_fail
/// use tracksuit::mcp_server;
///
/// struct Game;
///
/// #[mcp_server]
/// impl Game {
///     #[mcp_resource(uri = "ui://game/board.html", app)]
///     async fn board(&self) -> String {
///         "<p>board</p>".into()
///     }
///
///     #[mcp_tool(ui = "ui://game/bord.html")] // did you mean "ui://game/board.html"?
///     async fn play(&self) -> String {
///         "played".into()
///     }
/// }
/// ```
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    common::debug("mcp_tool", tool::expand(attr.into(), item.into())).into()
}

/// Turns an `async fn` into an MCP prompt, registered by name with `Server::prompt` (the
/// function stays a callable function, as with `#[mcp_tool]`).
///
/// Parameters are the prompt's arguments and must be `String` (required) or
/// `Option<String>` (optional); docs are descriptions; `&Ctx` is injected. The return type
/// implements `IntoPromptResult` (`String` = one user message, `PromptMessage`,
/// `Vec<PromptMessage>`, `GetPromptResult`, `Result`). `complete = path` names an
/// `async fn(argument: &str, value: &str) -> Vec<String>` answering `completion/complete`,
/// or an `async fn(ctx: &Ctx, argument: &str, value: &str) -> Vec<String>` that reaches the
/// app state (`ctx.state::<T>()`); in an `#[mcp_server]` block, a method of the block
/// (`complete = Self::languages` or `complete = languages`), which may take `&self`.
///
/// ```
/// use tracksuit::{Server, mcp_prompt};
///
/// /// Review some code.
/// #[mcp_prompt(title = "Code review", complete = languages)]
/// async fn review(/** the code */ code: String, /** its language */ language: Option<String>) -> String {
///     format!("Review this {} code:\n{code}", language.unwrap_or_default())
/// }
///
/// async fn languages(_argument: &str, typed: &str) -> Vec<String> {
///     ["rust", "ruby"].iter().filter(|l| l.starts_with(typed)).map(|l| l.to_string()).collect()
/// }
///
/// let server = Server::new(tracksuit::crate_info!()).prompt(review);
/// # let _ = server;
/// ```
///
/// A completer that reads app state takes the request's context first:
///
/// ```
/// use tracksuit::{Ctx, Server, mcp_prompt};
///
/// struct Languages(Vec<&'static str>);
///
/// /// Review some code.
/// #[mcp_prompt(complete = languages)]
/// async fn review(/** its language */ language: String) -> String {
///     format!("Review this {language} code.")
/// }
///
/// async fn languages(ctx: &Ctx, _argument: &str, typed: &str) -> Vec<String> {
///     let Ok(known) = ctx.state::<Languages>() else { return Vec::new() };
///     known.0.iter().filter(|l| l.starts_with(typed)).map(|l| l.to_string()).collect()
/// }
///
/// let server = Server::new(tracksuit::crate_info!())
///     .state(Languages(vec!["rust", "ruby"]))
///     .prompt(review)
///     .build()?;
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    common::debug("mcp_prompt", prompt::expand(attr.into(), item.into())).into()
}

/// Turns an `async fn` into an MCP resource (`uri` without variables: register it with
/// `Server::resource`) or resource template (`uri` with RFC 6570 variables:
/// `Server::resource_template`; each variable is a parameter of any `FromStr` type, checked
/// at compile time). Attributes: `uri`, `name`, `title`, `description`, `mime_type`, `app`
/// (an MCP App: a fixed `ui://` URI served as `text/html;profile=mcp-app`),
/// `complete = path` (templates; a completer as for `#[mcp_prompt]`), `crate = path`. The
/// return type implements
/// `IntoResourceResult`: `String` (text), `Vec<u8>` (binary, base64-encoded for you),
/// `ResourceContents`, `ReadResourceResult`, `Result`.
///
/// ```
/// use tracksuit::{Server, mcp_resource};
///
/// /// Today's motto.
/// #[mcp_resource(uri = "mem://motto", mime_type = "text/plain")]
/// async fn motto() -> String {
///     "Ship it.".into()
/// }
///
/// /// A user by numeric id.
/// #[mcp_resource(uri = "mem://users/{id}", mime_type = "application/json")]
/// async fn user(id: u64) -> Result<String, String> {
///     Ok(format!(r#"{{"id":{id}}}"#))
/// }
///
/// let server = Server::new(tracksuit::crate_info!()).resource(motto).resource_template(user);
/// # let _ = server;
/// ```
#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    common::debug("mcp_resource", resource::expand(attr.into(), item.into())).into()
}

/// On an `impl` block: every `#[mcp_tool]`, `#[mcp_prompt]` and `#[mcp_resource]` method
/// (fixed URI or template) becomes a handler sharing the server state (`&self`, held in an
/// `Arc`), all registered together with `Server::tools`. Duplicate tool names, prompt names
/// and resource URIs are rejected at compile time; other methods are left alone. The state
/// reaches everything the block declares: a handoff tool's phases
/// (`#[mcp_tool(client = .., after = ..)]` on its `before` method, see `#[mcp_tool]`) and
/// completers (`complete = Self::method`) take `&self` too.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use tracksuit::{Server, mcp_server};
///
/// struct Hits(AtomicU64);
///
/// #[mcp_server]
/// impl Hits {
///     /// Count a hit.
///     #[mcp_tool]
///     async fn hit(&self) -> String {
///         (self.0.fetch_add(1, Ordering::SeqCst) + 1).to_string()
///     }
/// }
///
/// let server = Server::new(tracksuit::crate_info!()).tools(Hits(AtomicU64::new(0))).build().expect("one tool");
/// assert_eq!(server.tool_names(), ["hit"]);
/// ```
///
/// A completer of the block takes `&self` (and optionally `ctx: &Ctx` before the two
/// strings):
///
/// ```
/// use tracksuit::{Server, mcp_server};
///
/// struct Catalogue { languages: Vec<&'static str> }
///
/// #[mcp_server]
/// impl Catalogue {
///     /// Review some code.
///     #[mcp_prompt(complete = Self::languages)]
///     async fn review(&self, /** its language */ language: String) -> String {
///         format!("Review this {language} code.")
///     }
///
///     async fn languages(&self, _argument: &str, typed: &str) -> Vec<String> {
///         self.languages.iter().filter(|l| l.starts_with(typed)).map(|l| l.to_string()).collect()
///     }
/// }
///
/// let server = Server::new(tracksuit::crate_info!())
///     .tools(Catalogue { languages: vec!["rust", "ruby"] })
///     .build()?;
/// # Ok::<(), tracksuit::ServerError>(())
/// ```
///
/// A completer that takes `&mut self` does not compile (one server answers every
/// completion at once):
///
/// ```compile_fail
/// use tracksuit::mcp_server;
///
/// struct Catalogue { asked: u32 }
///
/// #[mcp_server]
/// impl Catalogue {
///     /// Review some code.
///     #[mcp_prompt(complete = languages)]
///     async fn review(&self, language: String) -> String { language }
///
///     async fn languages(&mut self, _argument: &str, _typed: &str) -> Vec<String> {
///         self.asked += 1;
///         Vec::new()
///     }
/// }
/// ```
#[proc_macro_attribute]
pub fn mcp_server(attr: TokenStream, item: TokenStream) -> TokenStream {
    common::debug("mcp_server", server::expand(attr.into(), item.into())).into()
}

/// Derives elicitation support.
///
/// - On a struct with named fields: an elicitation form (`ElicitForm`). Fields are
///   `String`, integers, floats, `bool`, select enums, `Vec` of select enums, or `Option` of
///   these (not required). `///` docs are descriptions; `#[elicit(title = "...",
///   format = "email" | "uri" | "date" | "date-time", min_length = 1, max_length = 64,
///   min = 0, max = 10, min_items = 1, max_items = 3, default = ...)]` refine a field. Any
///   other field type is a compile error at that field.
/// - On an enum of unit variants: a select field (`#[elicit(title = "...")]` on variants
///   makes the titled `oneOf` form; `#[elicit(rename = "v")]` changes a value).
/// - On an enum whose variants carry `#[elicit(response = Form)]`: a keyed set. The derive
///   adds impls only: `ElicitKeySet`, and per key (variant) a constructor named after it in
///   snake case whose parameters are the variant's fields (the context) and which returns a
///   `Key<Set, Form>`; a tool declares the set with `#[mcp_tool(elicits = Set)]` and asks
///   with `ctx.elicit(Set::pick_move(..))`, answered with a `Form`. The message the client
///   shows is the key's doc comment, or `#[elicit(message = "Delete {count} files?")]`: a
///   template whose `{field}` placeholders (optionally `{field:spec}`) name the key's
///   context fields, filled with `Display` when asked (`{{` and `}}` are braces). A
///   placeholder naming no field is a compile error at the literal.
///
/// A form's fields are published in declaration order.
///
/// ```
/// use tracksuit::Elicits;
///
/// #[derive(serde::Deserialize, Elicits)]
/// enum Size { Small, Large }
///
/// #[derive(serde::Deserialize, Elicits)]
/// struct Order {
///     /// Your email
///     #[elicit(format = "email")]
///     email: String,
///     #[elicit(min = 1, max = 9, default = 1)]
///     quantity: u8,
///     size: Size,
///     gift: Option<bool>,
/// }
///
/// let schema = <Order as tracksuit::ElicitForm>::requested_schema();
/// assert_eq!(schema.properties.len(), 4);
/// assert_eq!(schema.required, Some(vec!["email".into(), "quantity".into(), "size".into()]));
/// let order: Vec<&str> = schema.properties.keys().map(String::as_str).collect();
/// assert_eq!(order, ["email", "quantity", "size", "gift"]);
/// ```
///
/// A keyed set with a message template:
///
/// ```
/// use tracksuit::Elicits;
/// use tracksuit::elicitation::ElicitKeySet;
///
/// #[derive(serde::Deserialize, Elicits)]
/// struct Confirm { sure: bool }
///
/// #[derive(Elicits)]
/// enum Keys {
///     /// Confirm deleting files.
///     #[elicit(response = Confirm, message = "Delete {count} files in {dir}?")]
///     DeleteFiles { dir: String, count: usize },
/// }
///
/// let key = Keys::DeleteFiles { dir: "/tmp".into(), count: 3 };
/// assert_eq!(key.message(), "Delete 3 files in /tmp?");
/// ```
///
/// A placeholder must name a context field:
///
/// ```compile_fail
/// use tracksuit::Elicits;
///
/// #[derive(serde::Deserialize, Elicits)]
/// struct Confirm { sure: bool }
///
/// #[derive(Elicits)]
/// enum Keys {
///     // error: `{cont}` is not a context field of the key `DeleteFiles`; did you mean `{count}`?
///     #[elicit(response = Confirm, message = "Delete {cont} files?")]
///     DeleteFiles { count: usize },
/// }
/// ```
#[proc_macro_derive(Elicits, attributes(elicit))]
pub fn derive_elicits(input: TokenStream) -> TokenStream {
    common::debug("derive(Elicits)", elicits::expand(input.into())).into()
}
