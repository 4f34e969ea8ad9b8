//! What [`Server::tool`](super::Server::tool) and its siblings accept: a handler value, or an
//! `async fn` annotated with `#[mcp_tool]` / `#[mcp_prompt]` / `#[mcp_resource]`, passed by
//! name.
//!
//! The macros leave the user's function a function (so its name stays an ordinary
//! identifier in its module and the function stays callable), and make it return a future
//! that also implements [`Generated`]: the handler type is defined inside the function's
//! body, and reached from the function item through its return type.

use super::{PromptHandler, ResourceHandler, ResourceTemplateHandler, ToolHandler};
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The future an annotated function returns: the body's future, tagged with the handler
/// type the macro generated for the function. Implemented only by generated code.
#[doc(hidden)]
pub trait Generated<H: ?Sized> {
    /// A fresh handler.
    fn handler() -> Arc<H>;
}

pin_project_lite::pin_project! {
    /// The body's future `F`, tagged with the generated handler `T`.
    #[doc(hidden)]
    pub struct Tagged<T, F> {
        #[pin]
        future: F,
        handler: PhantomData<fn() -> T>,
    }
}

impl<T, F: Future> Future for Tagged<T, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().future.poll(cx)
    }
}

/// Tags the body's future with its handler type (called by generated code).
#[doc(hidden)]
pub fn tagged<T, F>(future: F) -> Tagged<T, F> {
    Tagged {
        future,
        handler: PhantomData,
    }
}

macro_rules! generated {
    ($($handler:ident),*) => {$(
        impl<T: $handler + Default, F> Generated<dyn $handler> for Tagged<T, F> {
            fn handler() -> Arc<dyn $handler> {
                Arc::new(T::default())
            }
        }
    )*};
}

generated!(
    ToolHandler,
    PromptHandler,
    ResourceHandler,
    ResourceTemplateHandler
);

/// Selects the implementation of the `Into*` traits for handler values.
#[doc(hidden)]
pub enum ByValue {}

/// Selects the implementation of the `Into*` traits for annotated functions (`Args` are
/// their parameter types, `O` their return type).
#[doc(hidden)]
pub struct ByFn<O, Args>(PhantomData<fn(Args) -> O>);

macro_rules! into_handler {
    ($(#[$doc:meta])* $trait:ident, $method:ident, $handler:ident) => {
        $(#[$doc])*
        pub trait $trait<M> {
            /// The handler, shared.
            fn $method(self) -> Arc<dyn $handler>;
        }

        impl<T: $handler> $trait<ByValue> for T {
            fn $method(self) -> Arc<dyn $handler> {
                Arc::new(self)
            }
        }

        into_handler!(@fns $trait, $method, $handler; A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16);
    };
    (@fns $trait:ident, $method:ident, $handler:ident; $($a:ident),*) => {
        into_handler!(@fn $trait, $method, $handler;);
        into_handler!(@step $trait, $method, $handler; []; $($a),*);
    };
    (@step $trait:ident, $method:ident, $handler:ident; [$($done:ident),*]; $next:ident $(, $rest:ident)*) => {
        into_handler!(@fn $trait, $method, $handler; $($done,)* $next);
        into_handler!(@step $trait, $method, $handler; [$($done,)* $next]; $($rest),*);
    };
    (@step $trait:ident, $method:ident, $handler:ident; [$($done:ident),*];) => {};
    (@fn $trait:ident, $method:ident, $handler:ident; $($a:ident),*) => {
        impl<Func, O, $($a),*> $trait<ByFn<O, ($($a,)*)>> for Func
        where
            Func: Fn($($a),*) -> O,
            O: Generated<dyn $handler>,
        {
            fn $method(self) -> Arc<dyn $handler> {
                O::handler()
            }
        }
    };
}

into_handler!(
    /// A tool, as [`Server::tool`](super::Server::tool) takes it: a `#[mcp_tool]` function
    /// passed by name, or any [`ToolHandler`] value (a `ToolFn`, a handoff tool, your own).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a tool",
        label = "expected a tool; a `#[mcp_server]` type is registered with `.tools(..)`",
        note = "pass an `async fn` annotated with `#[mcp_tool]` by name, or a value implementing `ToolHandler`",
        note = "for the value of a `#[mcp_server]` impl block, call `.tools(value)`: it registers all its tools, prompts and resources"
    )]
    IntoTool,
    tool,
    ToolHandler
);
into_handler!(
    /// A prompt: a `#[mcp_prompt]` function passed by name, or any [`PromptHandler`].
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a prompt",
        label = "expected a prompt",
        note = "pass an `async fn` annotated with `#[mcp_prompt]` by name, or a value implementing `PromptHandler`"
    )]
    IntoPrompt,
    prompt,
    PromptHandler
);
into_handler!(
    /// A fixed resource: a `#[mcp_resource]` function (URI without variables) passed by
    /// name, or any [`ResourceHandler`].
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a resource",
        label = "expected a resource",
        note = "pass an `async fn` annotated with `#[mcp_resource]` by name, or a value implementing `ResourceHandler`"
    )]
    IntoResource,
    resource,
    ResourceHandler
);
into_handler!(
    /// A resource template: a `#[mcp_resource]` function (URI with variables) passed by
    /// name, or any [`ResourceTemplateHandler`].
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a resource template",
        label = "expected a resource template",
        note = "pass an `async fn` annotated with `#[mcp_resource]` by name, or a value implementing `ResourceTemplateHandler`"
    )]
    IntoResourceTemplate,
    resource_template,
    ResourceTemplateHandler
);
