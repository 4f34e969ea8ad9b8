//! The [`PromptHandler`] trait and [`PromptFn`] for prompts written as closures.

use crate::context::Ctx;
use crate::protocol::{ErrorObject, GetPromptResult, Prompt as PromptDescriptor};
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::future::Future;

/// A prompt template the server exposes through `prompts/list` and `prompts/get`.
///
/// ```
/// use std::collections::HashMap;
/// use futures::future::BoxFuture;
/// use tracksuit::{Ctx, PromptHandler, Server, client::Client};
/// use tracksuit::protocol::{ErrorObject, GetPromptResult, Prompt, PromptMessage};
///
/// /// A fixed prompt implemented by hand.
/// struct Review;
///
/// impl PromptHandler for Review {
///     fn descriptor(&self) -> Prompt {
///         Prompt::new("review")
///     }
///     fn get<'a>(&'a self, _ctx: Ctx, _args: HashMap<String, String>) -> BoxFuture<'a, Result<GetPromptResult, ErrorObject>> {
///         Box::pin(async { Ok(GetPromptResult::new(vec![PromptMessage::user_text("Review this diff.")])) })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).prompt(Review).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let prompt = client.get_prompt("review", serde_json::json!({})).await?;
/// assert_eq!(prompt.messages.len(), 1);
/// # Ok(())
/// # }
/// ```
pub trait PromptHandler: Send + Sync + 'static {
    /// The descriptor published in `prompts/list`.
    fn descriptor(&self) -> PromptDescriptor;

    /// The OAuth scopes a caller's token must grant before this prompt runs
    /// (`#[mcp_prompt(scopes = [..])]`); none by default. Checked against
    /// [`Ctx::principal`](crate::Ctx::principal): a caller without them is refused before the
    /// handler runs (over HTTP with `403` and an `insufficient_scope` challenge).
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Scopes this prompt requires depending on the request (its arguments), on top of
    /// [`scopes`](Self::scopes): `#[mcp_prompt(scopes = ["…{name}…"])]` or `scopes_with = path`;
    /// none by default. A caller without them is refused before the handler runs, and the
    /// `insufficient_scope` challenge names exactly the scopes the request needs.
    fn scope_rule(&self) -> Option<crate::server::ScopeRule> {
        None
    }

    /// Renders the prompt with the given arguments.
    fn get<'a>(
        &'a self,
        ctx: Ctx,
        arguments: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<GetPromptResult, ErrorObject>>;

    /// Completion values for `argument` given what the user typed so far (`context`: the
    /// arguments already filled in). `ctx` is the `completion/complete` request's context
    /// (app state with [`Ctx::state`](crate::Ctx::state), the caller, ...).
    fn complete<'a>(
        &'a self,
        ctx: &'a Ctx,
        argument: &'a str,
        value: &'a str,
        context: &'a HashMap<String, String>,
    ) -> BoxFuture<'a, Vec<String>> {
        let _ = (ctx, argument, value, context);
        Box::pin(async { Vec::new() })
    }
}

/// A prompt made of a descriptor and an async closure.
///
/// ```
/// use tracksuit::{PromptFn, protocol::{GetPromptResult, Prompt, PromptMessage}};
/// let p = PromptFn::new(Prompt::new("hello"), |_ctx, _args| async move {
///     Ok(GetPromptResult::new(vec![PromptMessage::user_text("Say hello")]))
/// });
/// # let _ = p;
/// ```
pub struct PromptFn<F> {
    descriptor: PromptDescriptor,
    f: F,
    scope_rule: Option<crate::server::ScopeRule>,
}

impl<F> PromptFn<F> {
    /// A prompt described by `descriptor` rendered by `f`.
    ///
    /// ```
    /// use tracksuit::{PromptFn, PromptHandler, protocol::{GetPromptResult, Prompt, PromptMessage}};
    /// let p = PromptFn::new(Prompt::new("hello"), |_ctx, _args| async move {
    ///     Ok(GetPromptResult::new(vec![PromptMessage::user_text("Say hello")]))
    /// });
    /// assert_eq!(p.descriptor().name, "hello");
    /// ```
    pub fn new<Fut>(descriptor: PromptDescriptor, f: F) -> Self
    where
        F: Fn(Ctx, HashMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + Send + 'static,
    {
        PromptFn {
            descriptor,
            f,
            scope_rule: None,
        }
    }

    /// Requires the scopes `rule` computes from each request's arguments (see
    /// [`PromptHandler::scope_rule`]).
    pub fn scopes_with(mut self, rule: crate::server::ScopeRule) -> Self {
        self.scope_rule = Some(rule);
        self
    }
}

impl<F, Fut> PromptHandler for PromptFn<F>
where
    F: Fn(Ctx, HashMap<String, String>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + Send + 'static,
{
    fn descriptor(&self) -> PromptDescriptor {
        self.descriptor.clone()
    }

    fn scope_rule(&self) -> Option<crate::server::ScopeRule> {
        self.scope_rule.clone()
    }

    fn get<'a>(
        &'a self,
        ctx: Ctx,
        arguments: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<GetPromptResult, ErrorObject>> {
        Box::pin((self.f)(ctx, arguments))
    }
}
