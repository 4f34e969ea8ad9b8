//! Every attribute of the authoring macros, with an example each (all compiled and run by
//! `cargo test --doc`). What they refuse is in [`rules`](super::rules).
//!
//! At a glance — one of each, registered on one server:
//!
//! ```
//! use tracksuit::{Elicits, Server, mcp_prompt, mcp_resource, mcp_tool};
//! /// A tool.
//! #[mcp_tool]
//! async fn echo(text: String) -> String { text }
//! /// A prompt.
//! #[mcp_prompt]
//! async fn explain(topic: String) -> String { format!("Explain {topic} simply.") }
//! /// A resource.
//! #[mcp_resource(uri = "mem://motd")]
//! async fn motd() -> String { "Hello".into() }
//! /// A form, for `ctx.elicit_form::<Login>(..)`.
//! #[derive(serde::Deserialize, Elicits)]
//! struct Login { user: String }
//!
//! let server = Server::new(tracksuit::crate_info!()).tool(echo).prompt(explain).resource(motd);
//! assert_eq!(server.build()?.tool_names(), ["echo"]);
//! # let _ = Login { user: String::new() }.user;
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! # `#[mcp_tool]` on an `async fn`
//!
//! The function's name, doc comment, parameters and return type make the tool: `///` on a
//! parameter describes that property, an `Option<T>` parameter is optional, `&Ctx` (or
//! `Ctx`, or a `CancellationToken`) is injected and not in the schema, and `Json<T>`
//! publishes an `outputSchema`.
//!
//! ```
//! use tracksuit::{Ctx, Json, Server, mcp_tool};
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Sum { sum: i64 }
//!
//! /// Adds two numbers.
//! #[mcp_tool(
//!     name = "add",                   // default: the function's name (checked, SEP-986)
//!     title = "Adder",                // `title`
//!     read_only, idempotent,          // annotations.readOnlyHint / idempotentHint = true
//!     icons = ["https://example.com/add.png"],
//!     meta = r#"{"example.com/cost": 0}"#, // `_meta`, JSON checked at compile time
//! )]
//! async fn add(ctx: &Ctx, /** left */ a: i64, /** right */ b: Option<i64>) -> Json<Sum> {
//!     let _ = ctx;
//!     Json(Sum { sum: a + b.unwrap_or(0) })
//! }
//!
//! let server = Server::new(tracksuit::crate_info!()).tool(add).build()?;
//! let tool = server.tool_descriptor("add").unwrap();
//! assert_eq!(tool.title.as_deref(), Some("Adder"));
//! assert_eq!(tool.description.as_deref(), Some("Adds two numbers."));
//! assert_eq!(tool.input_schema["required"], serde_json::json!(["a"]));
//! assert_eq!(tool.input_schema["properties"]["a"]["description"], "left");
//! let hints = tool.annotations.as_ref().unwrap();
//! assert_eq!((hints.read_only_hint, hints.idempotent_hint), (Some(true), Some(true)));
//! assert_eq!(tool.output_schema.as_ref().unwrap()["properties"]["sum"]["type"], "integer");
//! assert_eq!(tool.meta.as_ref().unwrap()["example.com/cost"], 0);
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! `description = "..."` replaces the doc comment; `destructive` and `open_world` set
//! `destructiveHint` and `openWorldHint` (flags take no value);
//! `scopes = ["notes:write"]` (feature `auth`) refuses callers without those OAuth scopes
//! before the body runs; `crate = path` tells generated code where tracksuit is when you
//! re-export it.
//!
//! ## `#[params]`: one struct as the whole input
//!
//! ```
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Search { /** What to find. */ query: String, limit: Option<u32> }
//!
//! /// Searches.
//! #[tracksuit::mcp_tool]
//! async fn search(#[params] s: Search) -> String { format!("{}:{:?}", s.query, s.limit) }
//!
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(search).build()?;
//! let schema = server.tool_descriptor("search").unwrap().input_schema;
//! assert_eq!(schema["properties"]["query"]["description"], "What to find.");
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! A `#[params]` type that is not an object (a serde-tagged enum) is wrapped: see
//! [`schemas`](super::schemas).
//!
//! ## `task_support`: long jobs as MCP tasks
//!
//! `"optional"` (the client may run the call as a task), `"required"` or `"forbidden"`
//! (the default); published as `execution.taskSupport`:
//!
//! ```
//! /// Crunches numbers for a while.
//! #[tracksuit::mcp_tool(task_support = "optional")]
//! async fn crunch(n: u64) -> String { (0..n).sum::<u64>().to_string() }
//!
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(crunch).build()?;
//! let execution = server.tool_descriptor("crunch").unwrap().execution.unwrap();
//! assert_eq!(serde_json::to_value(execution).unwrap()["taskSupport"], "optional");
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! ## `elicits`: keyed elicitation
//!
//! `#[mcp_tool(elicits = Keys)]` declares the elicitations a tool may ask (an enum with
//! `#[derive(Elicits)]`, one variant per key, its fields the key's context, `#[elicit(response
//! = Form)]` the answer's type); the tool takes `Ctx<Keys>` and asks with the derive's
//! constructors. The keys are published in the tool's `_meta`:
//!
//! ```
//! use tracksuit::{Ctx, Elicited, Elicits, ToolError, mcp_tool};
//!
//! #[derive(serde::Deserialize, Elicits)]
//! struct Cell { #[elicit(min = 0, max = 2)] row: u8, #[elicit(min = 0, max = 2)] col: u8 }
//!
//! #[derive(Elicits)]
//! enum GameKeys {
//!     /// Pick your move.
//!     #[elicit(response = Cell)]
//!     PickMove { board: String },
//! }
//!
//! /// Plays one move.
//! #[mcp_tool(elicits = GameKeys)]
//! async fn play(ctx: &Ctx<GameKeys>) -> Result<String, ToolError> {
//!     match ctx.elicit(GameKeys::pick_move("...\n...\n...".into())).await? {
//!         Elicited::Accept { value, .. } => Ok(format!("{},{}", value.row, value.col)),
//!         _ => Ok("no move".into()),
//!     }
//! }
//!
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(play).build()?;
//! let meta = server.tool_descriptor("play").unwrap().meta.unwrap();
//! assert_eq!(meta["io.tracksuit/elicitation-keys"][0]["key"], "PickMove");
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! # `#[mcp_tool]` on an `impl` block: a handoff tool
//!
//! Three phases: `before` (server side, once: takes the arguments), `client` (may sample and
//! elicit; on a 2026-07-28 client it is replayed round by round from the sealed state) and
//! `after` (server side, once: shapes the result). The state between them is serde:
//!
//! ```
//! use tracksuit::{Ctx, Json, PhaseCtx, ToolError, mcp_tool};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Start { n: u32 }
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct State { n: u32 }
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Done { doubled: u32 }
//!
//! struct Double;
//!
//! /// Doubles a number in three phases.
//! #[mcp_tool(name = "double")]
//! impl Double {
//!     async fn before(start: Start, _ctx: &PhaseCtx) -> Result<State, ToolError> {
//!         Ok(State { n: start.n })
//!     }
//!     async fn client(state: &State, _ctx: &Ctx) -> Result<u32, ToolError> {
//!         Ok(state.n * 2)
//!     }
//!     async fn after(_state: State, out: u32, _ctx: &PhaseCtx) -> Json<Done> {
//!         Json(Done { doubled: out })
//!     }
//! }
//!
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(Double).build()?;
//! let tool = server.tool_descriptor("double").unwrap();
//! assert_eq!(tool.input_schema["required"], serde_json::json!(["n"]));
//! assert!(tool.output_schema.is_some());
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! # `#[mcp_server]`: tools, prompts and resources over shared state
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! struct Counter { n: AtomicU64 }
//!
//! #[tracksuit::mcp_server]
//! impl Counter {
//!     /// Adds one.
//!     #[mcp_tool]
//!     async fn bump(&self) -> String { (self.n.fetch_add(1, Ordering::SeqCst) + 1).to_string() }
//!     /// The count.
//!     #[mcp_resource(uri = "mem://count")]
//!     async fn count(&self) -> String { self.n.load(Ordering::SeqCst).to_string() }
//!     /// Asks about the count.
//!     #[mcp_prompt]
//!     async fn ask(&self) -> String { "What is the count?".into() }
//! }
//!
//! let server = tracksuit::Server::new(tracksuit::crate_info!())
//!     .tools(Counter { n: AtomicU64::new(0) })
//!     .build()?;
//! assert_eq!(server.tool_names(), ["bump"]);
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! # `#[mcp_prompt]`
//!
//! Arguments are strings on the wire: `String`, or a type parsed from one (numbers, `bool`,
//! `char`, any `FromPromptArgument`; a value that does not parse is `-32602` naming the
//! argument), `Option` of one for an optional argument; `name`, `title`, `description` as
//! for tools.
//!
//! ```
//! /// Summarises a text.
//! #[tracksuit::mcp_prompt(name = "summarise", title = "Summarise")]
//! async fn summarise(/** The text. */ text: String, style: Option<String>) -> String {
//!     format!("Summarise ({}): {text}", style.unwrap_or_default())
//! }
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).prompt(summarise).build()?;
//! # let _ = server;
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! # `#[mcp_resource]`
//!
//! A fixed `uri`, or a URI template whose variables are the parameters (parsed with
//! `FromStr`); `mime_type`, `name`, `title`, `description`:
//!
//! ```
//! /// The readme.
//! #[tracksuit::mcp_resource(uri = "mem://readme", mime_type = "text/markdown")]
//! async fn readme() -> String { "# Hello".into() }
//!
//! /// One user's page.
//! #[tracksuit::mcp_resource(uri = "mem://users/{user}/{page}")]
//! async fn user_page(user: String, page: u32) -> String { format!("{user} {page}") }
//!
//! let server = tracksuit::Server::new(tracksuit::crate_info!())
//!     .resource(readme)
//!     .resource_template(user_page)
//!     .build()?;
//! # let _ = server;
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! # `#[derive(Elicits)]` on a struct: a form
//!
//! Field attributes: `title`, `description` (or `///`), `default`, `min` / `max`,
//! `min_length` / `max_length`, `format` (`email`, `uri`, `date`, `date-time`),
//! `min_items` / `max_items` for multi-select lists of enum values.
//!
//! ```
//! use tracksuit::{ElicitForm, Elicits};
//! #[derive(serde::Deserialize, Elicits)]
//! struct Order {
//!     /// Your email.
//!     #[elicit(format = "email", max_length = 64)]
//!     email: String,
//!     #[elicit(min = 1, max = 5, default = 1)]
//!     pizzas: u8,
//! }
//! let schema = serde_json::to_value(Order::requested_schema()).unwrap();
//! assert_eq!(schema["properties"]["pizzas"]["maximum"], 5);
//! ```
