//! What the authoring macros (`#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`) build on:
//! return-value conversion traits, JSON Schema generation (schemars, draft 2020-12) and
//! argument / structured-output validation (jsonschema).

#[doc(hidden)]
pub mod macro_support;
mod result;
mod schema;

pub use result::{IntoPromptResult, IntoResourceResult, IntoToolResult, Json};
pub use schema::{SchemaValidator, schema_for};
