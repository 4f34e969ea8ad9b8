//! Answer MCP sampling with a model API.
//!
//! A tracksuit [`Client`](tracksuit::client::Client) answers the server's
//! `sampling/createMessage` with the handler given to
//! [`on_sampling`](tracksuit::client::ClientBuilder::on_sampling). This crate provides that
//! handler for two APIs:
//!
//! - [`OpenAi`]: OpenAI-compatible Chat Completions (OpenAI, llama.cpp, vLLM, Ollama...).
//! - [`Anthropic`]: the Anthropic Messages API.
//!
//! Both convert every SEP-1577 feature both ways: text and image content, `tool_use` ↔ the
//! provider's tool calls (parallel calls arrive as several `tool_use` blocks), `tool_result`,
//! `tools` and `toolChoice` (auto / required / none), stop reasons, and token usage
//! (`usage.inputTokens` / `usage.outputTokens` on the result, which
//! [`TokenBudget`](tracksuit::sampling::TokenBudget) reads).
//!
//! The reserved `__schema__` tool that `ctx.sample_schema::<T>()` sends becomes the
//! provider's native structured output — `response_format: json_schema` on OpenAI, a forced
//! tool on Anthropic — and the answer comes back as a `__schema__` `tool_use` block.
//!
//! For models whose chat template has no tool calls, [`ToolMode::JsonChoice`] offers the
//! tools as structured output: one JSON Schema, an `anyOf` of
//! `{"tool": <name>, "arguments": <input schema>}` (plus `{"text": ...}` when `toolChoice` is
//! auto), mapped back to `tool_use`.
//!
//! ```
//! use tracksuit::client::Client;
//! use tracksuit_providers::{OpenAi, ToolMode, handler};
//!
//! let model = OpenAi::builder()
//!     .base_url("http://127.0.0.1:8080/v1")
//!     .model("SmolLM2-135M-Instruct")
//!     .tool_mode(ToolMode::JsonChoice)
//!     .build()
//!     .unwrap();
//! let builder = Client::builder().on_sampling(handler(model));
//! # let _ = builder;
//! ```
//!
//! Base URL, model and key come from the builders or the environment (`OPENAI_BASE_URL`,
//! `OPENAI_MODEL`, `OPENAI_API_KEY`; `ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`,
//! `ANTHROPIC_API_KEY`). Plain `http://` needs nothing more; `https://` needs the `https`
//! feature (rustls).

mod anthropic;
mod choice;
mod convert;
mod error;
mod http;
mod openai;

pub use anthropic::{Anthropic, AnthropicBuilder};
pub use error::ProviderError;
pub use openai::{OpenAi, OpenAiBuilder, ToolMode};

/// Default base URLs and versions.
///
/// ```
/// use tracksuit_providers::{Anthropic, OpenAi, defaults};
/// // Without `.base_url(..)`, the samplers call the public APIs.
/// let openai = OpenAi::builder().model("gpt-4o-mini").build().unwrap();
/// assert_eq!(openai.url(), format!("{}/chat/completions", defaults::OPENAI_BASE_URL));
/// let anthropic = Anthropic::builder().model("claude-x").build().unwrap();
/// assert_eq!(anthropic.url(), format!("{}/v1/messages", defaults::ANTHROPIC_BASE_URL));
/// ```
pub mod defaults {
    pub use crate::anthropic::{API_VERSION, DEFAULT_BASE_URL as ANTHROPIC_BASE_URL};
    pub use crate::openai::DEFAULT_BASE_URL as OPENAI_BASE_URL;
}

use futures::future::BoxFuture;
use std::future::Future;
use std::sync::Arc;
use tracksuit::protocol::{CreateMessageRequestParams, CreateMessageResult, ErrorObject};

/// Something that answers a sampling request with a model.
///
/// ```
/// use futures::future::BoxFuture;
/// use serde_json::json;
/// use tracksuit::protocol::{CreateMessageRequestParams, CreateMessageResult};
/// use tracksuit::{Ctx, Server, ToolError, client::Client, mcp_tool};
/// use tracksuit_providers::{ProviderError, Sampler, handler};
/// /// A "model" that always says the same thing (a test double, a cache, a router...).
/// struct Canned(&'static str);
/// impl Sampler for Canned {
///     fn sample(&self, _: CreateMessageRequestParams)
///         -> BoxFuture<'static, Result<CreateMessageResult, ProviderError>> {
///         let reply = json!({"role": "assistant", "model": "canned",
///             "content": {"type": "text", "text": self.0}});
///         Box::pin(async move { serde_json::from_value(reply).map_err(|e| ProviderError::Decode(e.to_string())) })
///     }
/// }
/// /// Asks the client's model.
/// #[mcp_tool]
/// async fn ask(ctx: &Ctx) -> Result<String, ToolError> {
///     Ok(ctx.sample().prompt("Hello?").await?.text())
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).tool(ask).build()?;
/// let builder = Client::builder().on_sampling(handler(Canned("Hi there")));
/// let client = tracksuit::host::connect_in_memory(server, builder).await?;
/// assert_eq!(client.call_tool("ask", json!({})).await?.content[0].as_text(), Some("Hi there"));
/// # Ok(())
/// # }
/// ```
pub trait Sampler: Send + Sync + 'static {
    /// Calls the model with `params`.
    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ProviderError>>;
}

impl<S: Sampler + ?Sized> Sampler for Arc<S> {
    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ProviderError>> {
        (**self).sample(params)
    }
}

/// The sampling handler for
/// [`ClientBuilder::on_sampling`](tracksuit::client::ClientBuilder::on_sampling): calls
/// `sampler`, and answers a failure with a JSON-RPC error (see [`ProviderError`]).
///
/// ```
/// # use tracksuit_providers::{Anthropic, handler};
/// let model = Anthropic::builder().model("claude-x").api_key("k").build().unwrap();
/// let builder = tracksuit::client::Client::builder().on_sampling(handler(model));
/// # let _ = builder;
/// ```
pub fn handler<S: Sampler>(
    sampler: S,
) -> impl Fn(
    CreateMessageRequestParams,
) -> std::pin::Pin<Box<dyn Future<Output = Result<CreateMessageResult, ErrorObject>> + Send>>
+ Send
+ Sync
+ 'static {
    let sampler = Arc::new(sampler);
    move |params| {
        let call = sampler.sample(params);
        Box::pin(async move { call.await.map_err(ErrorObject::from) })
    }
}

/// The code in `docs/providers.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/providers.md")]
pub struct ProvidersGuide;
