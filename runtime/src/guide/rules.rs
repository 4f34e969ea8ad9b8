//! What the macros refuse, each next to the form they accept. Every `compile_fail` block
//! here is compiled by `cargo test --doc` and must fail; every plain block must compile.
//! (The exact messages are pinned by the trybuild cases in `tests/ui/fail`.)
//!
//! The rules are about types, not names: the context is recognised by its type, so importing
//! it under another name still injects it (it is not an argument of the tool):
//!
//! ```
//! use tracksuit::{Ctx as McpCtx, mcp_tool};
//! /// Answers.
//! #[mcp_tool]
//! async fn answer(ctx: &McpCtx, question: String) -> String {
//!     let _ = ctx;
//!     format!("{question} 42")
//! }
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(answer).build()?;
//! let schema = server.tool_descriptor("answer").unwrap().input_schema;
//! assert_eq!(schema["required"], serde_json::json!(["question"]));
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! # `#[mcp_tool]`
//!
//! A tool is an `async fn`:
//!
//! ```
//! #[tracksuit::mcp_tool]
//! async fn hello() -> String { "hi".into() }
//! # fn main() {}
//! ```
//! ```compile_fail
//! #[tracksuit::mcp_tool]
//! fn hello() -> String { "hi".into() } // error: `#[mcp_tool]` functions must be `async`
//! # fn main() {}
//! ```
//!
//! It returns something that converts into a `tools/call` result
//! ([`IntoToolResult`](crate::IntoToolResult)):
//!
//! ```
//! #[tracksuit::mcp_tool]
//! async fn wait() -> String { format!("{:?}", std::time::Duration::from_secs(1)) }
//! # fn main() {}
//! ```
//! ```compile_fail
//! #[tracksuit::mcp_tool]
//! async fn wait() -> std::time::Duration { std::time::Duration::from_secs(1) }
//! // error: `Duration` cannot be returned from an MCP tool
//! # fn main() {}
//! ```
//!
//! Its arguments have a JSON Schema (`schemars::JsonSchema`, schemars **1**) and deserialise
//! ([`ToolParameter`](crate::ToolParameter)):
//!
//! ```
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Point { x: i32, y: i32 }
//! #[tracksuit::mcp_tool]
//! async fn show(at: Point) -> String { format!("{},{}", at.x, at.y) }
//! # fn main() {}
//! ```
//! ```compile_fail
//! #[derive(serde::Deserialize)]
//! struct Point { x: i32, y: i32 }
//! #[tracksuit::mcp_tool]
//! async fn show(at: Point) -> String { format!("{},{}", at.x, at.y) } // no `JsonSchema`
//! # fn main() {}
//! ```
//!
//! At most one `Ctx` parameter:
//!
//! ```
//! use tracksuit::Ctx;
//! #[tracksuit::mcp_tool]
//! async fn id(ctx: &Ctx) -> String { ctx.request_id().to_string() }
//! # fn main() {}
//! ```
//! ```compile_fail
//! use tracksuit::Ctx;
//! #[tracksuit::mcp_tool]
//! async fn id(ctx: &Ctx, again: &Ctx) -> String { ctx.request_id().to_string() }
//! # fn main() {}
//! ```
//!
//! Attributes are known keys: `#[mcp_tool(read_only)]`, not `#[mcp_tool(readonly)]`:
//!
//! ```
//! #[tracksuit::mcp_tool(read_only)]
//! async fn look() -> String { String::new() }
//! # fn main() {}
//! ```
//! ```compile_fail
//! #[tracksuit::mcp_tool(readonly)]
//! async fn look() -> String { String::new() }
//! # fn main() {}
//! ```
//!
//! A method is a tool only inside an `#[mcp_server]` impl block:
//!
//! ```
//! struct Api;
//! #[tracksuit::mcp_server]
//! impl Api {
//!     /// Pings.
//!     #[mcp_tool]
//!     async fn ping(&self) -> String { String::new() }
//! }
//! # fn main() {}
//! ```
//! ```compile_fail
//! struct Api;
//! impl Api {
//!     #[tracksuit::mcp_tool]
//!     async fn ping(&self) -> String { String::new() }
//! }
//! # fn main() {}
//! ```
//!
//! # `#[mcp_server]`
//!
//! Names are unique within the block:
//!
//! ```
//! struct Api;
//! #[tracksuit::mcp_server]
//! impl Api {
//!     #[mcp_tool(name = "fetch")]
//!     async fn fetch_one(&self) -> String { String::new() }
//!     #[mcp_tool(name = "fetch_all")]
//!     async fn fetch_two(&self) -> String { String::new() }
//! }
//! # fn main() {}
//! ```
//! ```compile_fail
//! struct Api;
//! #[tracksuit::mcp_server]
//! impl Api {
//!     #[mcp_tool(name = "fetch")]
//!     async fn fetch_one(&self) -> String { String::new() }
//!     #[mcp_tool(name = "fetch")]
//!     async fn fetch_two(&self) -> String { String::new() }
//! }
//! # fn main() {}
//! ```
//!
//! # `#[mcp_prompt]`
//!
//! Prompt arguments are strings on the wire: a parameter is a `String`, a type parsed from
//! one (`FromPromptArgument`: numbers, `bool`, `char`, your own), or an `Option` of one:
//!
//! ```
//! #[tracksuit::mcp_prompt]
//! async fn repeat(times: u32, word: Option<String>) -> String {
//!     word.unwrap_or_else(|| "again".into()).repeat(times as usize)
//! }
//! # fn main() {}
//! ```
//! ```compile_fail
//! #[tracksuit::mcp_prompt]
//! async fn repeat(times: Vec<u32>) -> String { format!("{times:?}") }
//! # fn main() {}
//! ```
//!
//! # `#[mcp_resource]`
//!
//! A resource has a `uri`, and each parameter of a templated one is a variable of its
//! template:
//!
//! ```
//! #[tracksuit::mcp_resource(uri = "mem://users/{user}/{page}")]
//! async fn user_page(user: String, page: u32) -> String { format!("{user} {page}") }
//! # fn main() {}
//! ```
//! ```compile_fail
//! #[tracksuit::mcp_resource(mime_type = "text/plain")]
//! async fn nowhere() -> String { String::new() }
//! # fn main() {}
//! ```
//! ```compile_fail
//! #[tracksuit::mcp_resource(uri = "mem://users/{user}")]
//! async fn user_page(user: String, page: u32) -> String { format!("{user} {page}") }
//! # fn main() {}
//! ```
//!
//! # `#[derive(Elicits)]` on a struct (a form)
//!
//! MCP forms are flat: strings, numbers, booleans, enums and lists of enum values.
//!
//! ```
//! #[derive(serde::Deserialize, tracksuit::Elicits)]
//! struct Signup { name: String, street: String }
//! # fn main() {}
//! ```
//! ```compile_fail
//! #[derive(serde::Deserialize)]
//! struct Address { street: String }
//! #[derive(serde::Deserialize, tracksuit::Elicits)]
//! struct Signup { name: String, address: Address } // a nested struct is not a form field
//! # fn main() {}
//! ```
//!
//! # Keyed elicitation (`#[derive(Elicits)]` on an enum, `#[mcp_tool(elicits = ..)]`)
//!
//! The working form, which the failures below each break in one place:
//!
//! ```
//! use tracksuit::{Ctx, Elicits, ToolError, mcp_tool};
//! #[derive(serde::Deserialize, Elicits)]
//! struct Yes { ok: bool }
//! #[derive(Elicits)]
//! enum GameKeys {
//!     /// Are you sure?
//!     #[elicit(response = Yes)]
//!     Confirm { question: String },
//! }
//! #[mcp_tool(elicits = GameKeys)]
//! async fn play(ctx: &Ctx<GameKeys>) -> Result<String, ToolError> {
//!     let _answer = ctx.elicit(GameKeys::confirm("sure?".into())).await?;
//!     Ok(String::new())
//! }
//! # fn main() {}
//! ```
//!
//! Every key names its response form:
//!
//! ```compile_fail
//! use tracksuit::Elicits;
//! #[derive(serde::Deserialize, Elicits)]
//! struct Yes { ok: bool }
//! #[derive(Elicits)]
//! enum GameKeys {
//!     #[elicit(response = Yes)]
//!     Confirm { question: String },
//!     Wipe { disk: String }, // no `#[elicit(response = ..)]`
//! }
//! # fn main() {}
//! ```
//!
//! The response is a form (`#[derive(Elicits)]` on a struct):
//!
//! ```compile_fail
//! use tracksuit::Elicits;
//! struct NotAForm;
//! #[derive(Elicits)]
//! enum GameKeys {
//!     #[elicit(response = NotAForm)]
//!     Confirm { question: String },
//! }
//! # fn main() {}
//! ```
//!
//! A tool elicits keys only from the set it declares:
//!
//! ```compile_fail
//! use tracksuit::{Ctx, Elicits, ToolError, mcp_tool};
//! #[derive(serde::Deserialize, Elicits)]
//! struct Yes { ok: bool }
//! #[derive(Elicits)]
//! enum GameKeys { #[elicit(response = Yes)] Confirm { question: String } }
//! #[mcp_tool] // no `elicits = GameKeys`
//! async fn play(ctx: &Ctx) -> Result<String, ToolError> {
//!     let _answer = ctx.elicit(GameKeys::confirm("sure?".into())).await?;
//!     Ok(String::new())
//! }
//! # fn main() {}
//! ```
//! ```compile_fail
//! use tracksuit::{Ctx, Elicits, ToolError, mcp_tool};
//! #[derive(serde::Deserialize, Elicits)]
//! struct Yes { ok: bool }
//! #[derive(Elicits)]
//! enum GameKeys { #[elicit(response = Yes)] Confirm { question: String } }
//! #[derive(Elicits)]
//! enum AdminKeys { #[elicit(response = Yes)] Wipe { disk: String } }
//! #[mcp_tool(elicits = GameKeys)]
//! async fn play(ctx: &Ctx<GameKeys>) -> Result<String, ToolError> {
//!     let _answer = ctx.elicit(AdminKeys::wipe("/".into())).await?; // another set's key
//!     Ok(String::new())
//! }
//! # fn main() {}
//! ```
//!
//! A tool that declares a set takes `Ctx<ThatSet>`:
//!
//! ```compile_fail
//! use tracksuit::{Ctx, Elicits, ToolError, mcp_tool};
//! #[derive(serde::Deserialize, Elicits)]
//! struct Yes { ok: bool }
//! #[derive(Elicits)]
//! enum GameKeys { #[elicit(response = Yes)] Confirm { question: String } }
//! #[mcp_tool(elicits = GameKeys)]
//! async fn play(ctx: &Ctx) -> Result<String, ToolError> { // not `&Ctx<GameKeys>`
//!     let _ = ctx;
//!     Ok(String::new())
//! }
//! # fn main() { let _ = GameKeys::Confirm { question: String::new() }; }
//! ```
//!
//! # Handoff tools (`#[mcp_tool]` on an `impl` block)
//!
//! A handoff tool has all three phases, `before`, `client` and `after` (see
//! [`macros`](super::macros) for the working form):
//!
//! ```compile_fail
//! use tracksuit::{Ctx, PhaseCtx, ToolError, mcp_tool};
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Start { n: u32 }
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct State { n: u32 }
//! struct Flow;
//! #[mcp_tool]
//! impl Flow {
//!     async fn before(start: Start, _ctx: &PhaseCtx) -> Result<State, ToolError> { Ok(State { n: start.n }) }
//!     async fn client(state: &State, _ctx: &Ctx) -> Result<u32, ToolError> { Ok(state.n) }
//!     // no `after`
//! }
//! # fn main() {}
//! ```
//!
//! # Branches
//!
//! A branch may sample but not ask the user (only the request itself may):
//!
//! ```
//! use tracksuit::{Ctx, Elicits, ToolError, mcp_tool};
//! #[derive(serde::Deserialize, Elicits)]
//! struct Name { name: String }
//! #[mcp_tool]
//! async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
//!     let _answer = ctx.elicit_form::<Name>("Who are you?").await?;
//!     Ok(String::new())
//! }
//! # fn main() {}
//! ```
//! ```compile_fail
//! use tracksuit::{Ctx, Elicits, ToolError, mcp_tool};
//! #[derive(serde::Deserialize, Elicits)]
//! struct Name { name: String }
//! #[mcp_tool]
//! async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
//!     let _answer = ctx
//!         .branch(|b| async move { b.elicit_form::<Name>("Who are you?").await })
//!         .await?;
//!     Ok(String::new())
//! }
//! # fn main() {}
//! ```
