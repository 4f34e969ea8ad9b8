//! The JSON Schemas a tool publishes, and why they look the way they do.
//!
//! Schemas derived from Rust types (schemars, JSON Schema 2020-12) trip some LLM clients:
//! `$ref` / `$defs` (Gemini, Zed, some proxies), a top-level `oneOf` / `anyOf` (Claude
//! rejects one on a tool's input), `["integer", "null"]` for an `Option` (strict
//! validators), formats JSON Schema does not define (`int32`, `uint8`, ...). So the schemas
//! `#[mcp_tool]` derives (its arguments, and `Json<T>` outputs) are rewritten once per tool:
//!
//! | derived | published |
//! |---|---|
//! | `$ref` to `#/$defs/T` | `T`'s schema, inlined; a **recursive** type keeps its `$ref` and its `$defs` entry (it cannot be inlined) |
//! | `Option<T>` argument: `{"type": ["integer", "null"]}` | `{"type": "integer"}`, not in `required` (an explicit `null` is still accepted) |
//! | `"format": "int32"`, `"uint8"`, `"double"`, `"ip"`, ... | dropped (the ranges stay as `minimum` / `maximum`) |
//! | arguments that are not an object (a `#[params]` enum: `oneOf`) | `{"type": "object", "properties": {"input": <schema>}, "required": ["input"]}`; the tool gets `input`'s value |
//! | output that is not an object (`Json<Vec<T>>`, `Json<u64>`, an enum) | `{"type": "object", "properties": {"result": <schema>}, "required": ["result"]}`; `structuredContent` is `{"result": <value>}` in both eras |
//!
//! Output schemas keep the `null` of optional fields: serde writes `None` as `null`, and
//! clients check `structuredContent` against the schema. Hand-written schemas
//! (`Tool::new(name, schema)`, [`ToolFn`](crate::ToolFn)) are published as given.
//!
//! ```
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Point { x: i32, y: i32 }
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! #[serde(tag = "kind")]
//! enum Shape { Circle { center: Point, r: f64 }, Dot { at: Point } }
//!
//! /// Draws a shape.
//! #[tracksuit::mcp_tool]
//! async fn draw(#[params] shape: Shape) -> tracksuit::Json<Vec<u32>> {
//!     let _ = shape;
//!     tracksuit::Json(vec![1, 2])
//! }
//!
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).tool(draw).build()?;
//! let tool = server.tool_descriptor("draw").unwrap();
//! let input = serde_json::Value::Object(tool.input_schema);
//! assert_eq!(input["type"], "object");
//! assert_eq!(input["required"], serde_json::json!(["input"]));
//! assert!(!input.to_string().contains("$ref"));
//! assert!(!input.to_string().contains("int32"));
//! let output = tool.output_schema.unwrap();
//! assert_eq!(output["properties"]["result"]["type"], "array");
//! # Ok::<(), tracksuit::ServerError>(())
//! ```
//!
//! # The strict profile
//!
//! OpenAI-style strict validation wants every property `required` and
//! `additionalProperties: false` on every object. [`strict_schema`](crate::strict_schema)
//! does that to a schema (optional properties become nullable), and
//! [`ServerOptions::strict_schemas`](crate::ServerOptions::strict_schemas) (or the
//! environment variable `TRACKSUIT_STRICT_SCHEMAS=1`) publishes every tool's input schema
//! that way — hand-written ones too, since such a client requires it of every tool. It is
//! off by default.
//!
//! # Schema profiles
//!
//! The strict profile is one of four [`SchemaProfile`](crate::SchemaProfile)s a client can
//! be given: `Portable` (the default), `OpenAiStrict`, `GeminiSafe` (the OpenAPI 3.0 subset
//! of Gemini's function declarations) and `Raw` (schemars' output, unrewritten).
//! [`ServerOptions::schema_profile_by`](crate::ServerOptions::schema_profile_by) chooses one
//! per client from its `clientInfo` and capabilities:
//!
//! ```
//! use tracksuit::{SchemaProfile, Server, ServerOptions, client::Client, mcp_tool};
//! /// Reads a file.
//! #[mcp_tool]
//! async fn read(path: String, limit: Option<u32>) -> String { path }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let options = ServerOptions::default().schema_profile_by(|info, _| match info.name.as_str() {
//!     "my-gemini-host" => SchemaProfile::GeminiSafe,
//!     _ => SchemaProfile::OpenAiStrict,
//! });
//! let server = Server::with_options(tracksuit::crate_info!(), options).tool(read).build()?;
//! let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
//! let tools = client.list_tools(None).await?.tools;
//! assert_eq!(tools[0].input_schema["required"], serde_json::json!(["path", "limit"]));
//! # Ok(())
//! # }
//! ```
//!
//! `scripts/schemas.sh` (part of the test command) lists the tools of every example server
//! in every profile (`TRACKSUIT_SCHEMA_PROFILE`) and compiles each schema with ajv in strict
//! mode, checks OpenAI's strict rules on the strict profile and the Gemini subset on the
//! Gemini-safe one; then it converts every tool of the conformance server with the OpenAI
//! Agents SDK (strict mode) and LangChain's MCP adapters.
