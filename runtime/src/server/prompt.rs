//! The [`PromptHandler`] trait and [`PromptFn`] for prompts written as closures.

use crate::context::Ctx;
use crate::protocol::{ErrorObject, GetPromptResult, Prompt as PromptDescriptor};
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::future::Future;

/// A prompt template the server exposes through `prompts/list` and `prompts/get`.
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

    /// Renders the prompt with the given arguments.
    fn get<'a>(
        &'a self,
        ctx: Ctx,
        arguments: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<GetPromptResult, ErrorObject>>;

    /// Completion values for `argument` given what the user typed so far.
    fn complete<'a>(
        &'a self,
        argument: &'a str,
        value: &'a str,
        context: &'a HashMap<String, String>,
    ) -> BoxFuture<'a, Vec<String>> {
        let _ = (argument, value, context);
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
}

impl<F> PromptFn<F> {
    /// A prompt described by `descriptor` rendered by `f`.
    pub fn new<Fut>(descriptor: PromptDescriptor, f: F) -> Self
    where
        F: Fn(Ctx, HashMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + Send + 'static,
    {
        PromptFn { descriptor, f }
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

    fn get<'a>(
        &'a self,
        ctx: Ctx,
        arguments: HashMap<String, String>,
    ) -> BoxFuture<'a, Result<GetPromptResult, ErrorObject>> {
        Box::pin((self.f)(ctx, arguments))
    }
}
