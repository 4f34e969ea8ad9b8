//! MCP 2025-11-25 wire types: serde only, no behaviour.
//!
//! Every request, result, notification and content type of the
//! [2025-11-25 schema](https://modelcontextprotocol.io/specification/2025-11-25/schema),
//! one module per spec page. Names follow the schema's definition names.

mod cancellation;
mod codec;
mod completion;
mod content;
mod elicitation;
mod jsonrpc;
mod lifecycle;
mod logging;
mod meta;
mod progress;
mod prompts;
mod resources;
mod roots;
mod sampling;
mod tasks;
mod tools;

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
