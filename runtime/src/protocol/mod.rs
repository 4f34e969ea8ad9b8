//! MCP 2025-11-25 wire types: serde only, no behaviour.
//!
//! Every request, result, notification and content type of the
//! [2025-11-25 schema](https://modelcontextprotocol.io/specification/2025-11-25/schema),
//! one module per spec page. Names follow the schema's definition names.

pub mod cancellation;
mod codec;
pub mod completion;
pub mod content;
pub mod elicitation;
pub mod jsonrpc;
pub mod lifecycle;
pub mod logging;
pub mod meta;
pub mod progress;
pub mod prompts;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod tasks;
pub mod tools;

pub use cancellation::*;
pub(crate) use codec::{decode, decode_or_default, encode};
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use jsonrpc::*;
pub use lifecycle::*;
pub use logging::*;
pub use meta::*;
pub use progress::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use tasks::*;
pub use tools::*;
