//! MCP 2025-11-25 wire types: serde only, no behaviour.
//!
//! Every request, result, notification and content type of the
//! [2025-11-25 schema](https://modelcontextprotocol.io/specification/2025-11-25/schema),
//! one module per spec page. Names follow the schema's definition names.
//!
//! ```
//! use tracksuit::protocol::{CallToolResult, JsonRpcMessage, JsonRpcResponse, RequestId};
//! let reply = JsonRpcResponse::new(RequestId::from(7), &CallToolResult::text("4")).unwrap();
//! let reply = JsonRpcMessage::Response(reply);
//! assert_eq!(
//!     String::from_utf8(reply.to_vec()).unwrap(),
//!     r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"4"}]}}"#
//! );
//! ```

mod cancellation;
mod client_meta;
mod codec;
mod completion;
mod content;
mod elicit_result;
mod elicitation;
mod error;
mod jsonrpc;
mod lifecycle;
mod logging;
mod meta;
mod open;
mod progress;
mod prompts;
mod resources;
mod result_payload;
mod roots;
mod sampling;
#[cfg(feature = "skills")]
pub(crate) mod skills;
mod tasks;
mod tools;

pub use cancellation::*;
#[cfg(feature = "http")]
pub(crate) use client_meta::ClientMetaParams;
pub(crate) use client_meta::{CLIENT_CAPABILITIES, CLIENT_INFO, ClientMeta, PROTOCOL_VERSION};
pub(crate) use codec::{decode, decode_or_default, encode};
pub use completion::*;
pub use content::*;
pub use elicit_result::{ElicitAction, ElicitResult};
pub use elicitation::*;
pub use error::*;
pub use jsonrpc::*;
pub use lifecycle::*;
pub use logging::*;
pub(crate) use meta::request_target;
pub use meta::*;
pub use progress::*;
pub use prompts::*;
pub use resources::*;
pub(crate) use result_payload::ResultMarkers;
pub use result_payload::ResultPayload;
pub(crate) use result_payload::ServerInfo;
pub use roots::*;
pub use sampling::*;
#[cfg(feature = "skills")]
pub use skills::{GetSkillResult, ListSkillsResult, SkillEntry, SkillResource, SkillResources};
pub use tasks::*;
pub use tools::*;
