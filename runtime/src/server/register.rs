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
    ///
    /// ```
    /// use tracksuit::{Server, ToolFn, mcp_tool, protocol::{CallToolResult, Tool}};
    /// /// Says hello.
    /// #[mcp_tool]
    /// async fn hello() -> String { "hello".into() }
    /// let by_hand = ToolFn::new(Tool::new("bye", Default::default()), |_ctx, _args| async {
    ///     Ok(CallToolResult::text("bye"))
    /// });
    /// // Both are `IntoTool`: a macro-made function by name, and a handler value.
    /// let server = Server::new(tracksuit::crate_info!()).tool(hello).tool(by_hand).build()?;
    /// assert_eq!(server.tool_names(), ["hello", "bye"]); // in registration order
    /// # Ok::<(), tracksuit::ServerError>(())
    /// ```
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
    ///
    /// ```
    /// use tracksuit::{PromptFn, Server, client::Client, mcp_prompt};
    /// use tracksuit::protocol::{GetPromptResult, Prompt, PromptMessage};
    /// /// Reviews code.
    /// #[mcp_prompt]
    /// async fn review(code: String) -> String { format!("Review this code:\n{code}") }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let greet = PromptFn::new(Prompt::new("greet"), |_ctx, _args| async {
    ///     Ok(GetPromptResult::new(vec![PromptMessage::user_text("Say hello")]))
    /// });
    /// let server = Server::new(tracksuit::crate_info!()).prompt(review).prompt(greet).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let names: Vec<String> = client.list_prompts(None).await?.prompts.into_iter().map(|p| p.name).collect();
    /// assert_eq!(names, ["review", "greet"]);
    /// # Ok(())
    /// # }
    /// ```
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
    ///
    /// ```
    /// use tracksuit::{ResourceFn, Server, client::Client, mcp_resource};
    /// use tracksuit::protocol::{ReadResourceResult, Resource, ResourceContents};
    /// /// The readme.
    /// #[mcp_resource(uri = "mem://readme", mime_type = "text/markdown")]
    /// async fn readme() -> String { "# Hello".into() }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let licence = ResourceFn::new(Resource::new("mem://licence", "licence"), |_ctx| async {
    ///     Ok(ReadResourceResult::new(vec![ResourceContents::text("mem://licence", "MIT")]))
    /// });
    /// let server = Server::new(tracksuit::crate_info!()).resource(readme).resource(licence).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// assert_eq!(client.list_resources(None).await?.resources.len(), 2);
    /// # Ok(())
    /// # }
    /// ```
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
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, mcp_resource};
    /// /// One user's page.
    /// #[mcp_resource(uri = "mem://users/{user}/{page}")]
    /// async fn user_page(user: String, page: u32) -> String { format!("{user}, page {page}") }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).resource_template(user_page).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let read = serde_json::to_value(client.read_resource("mem://users/ada/2").await?)?;
    /// assert_eq!(read["contents"][0]["text"], "ada, page 2");
    /// # Ok(())
    /// # }
    /// ```
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a resource template",
        label = "expected a resource template",
        note = "pass an `async fn` annotated with `#[mcp_resource]` by name, or a value implementing `ResourceTemplateHandler`"
    )]
    IntoResourceTemplate,
    resource_template,
    ResourceTemplateHandler
);
