//! What the authoring macros (`#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`) build on:
//! return-value conversion traits, JSON Schema generation (schemars, draft 2020-12) and
//! argument / structured-output validation (jsonschema).

mod error;
mod gemini;
mod parameter;
mod portable;
mod profile;
mod result;
mod schema;
mod violation;

pub use error::ToolError;
pub use parameter::{FromCtx, FromPromptArgument, PromptParameter, ToolParameter};
pub use portable::strict_schema;
pub(crate) use portable::{INPUT_WRAPPER, Portable, portable_input, wrap};
pub use result::{IntoPromptResult, IntoResourceResult, IntoToolResult, Json, JsonOutput};
pub use schema::{SchemaValidator, schema_for};
