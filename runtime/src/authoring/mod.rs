//! What the authoring macros (`#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`) build on:
//! return-value conversion traits, JSON Schema generation (schemars, draft 2020-12) and
//! argument / structured-output validation (jsonschema).

mod error;
mod parameter;
mod portable;
mod result;
mod schema;
mod violation;

pub use error::ToolError;
pub use parameter::{FromCtx, FromPromptArgument, PromptParameter, ToolParameter};
pub use portable::strict_schema;
pub(crate) use portable::{Portable, portable_input};
pub use result::{IntoPromptResult, IntoResourceResult, IntoToolResult, Json, JsonOutput};
pub use schema::{SchemaValidator, schema_for};
