//! `#[mcp_tool]` on an `impl` block: a handoff tool with `before`, `client` and `after`
//! phases (read into `ast::Handoff`), driven by the generated `ToolHandler` impl as a state
//! machine.

use crate::common::with_errors;
use crate::internals::ast::{Handoff, Phase, PhaseParam};
use crate::internals::attr::{AFTER, Args, CLIENT, NAME, TOOL_KEYS, ToolAttrs};
use crate::internals::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemImpl;
use syn::spanned::Spanned;

/// The entry point: the block, unchanged, and its `ToolHandler` impl (or the block beside
/// the errors).
pub fn expand(attr: TokenStream, block: ItemImpl) -> TokenStream {
    let cx = Ctxt::new();
    let args = Args::parse(attr, TOOL_KEYS, &cx);
    for key in [CLIENT, AFTER] {
        if let Some((k, _)) = args.get(key) {
            cx.error_spanned_by(k, format!("a handoff `impl`'s phases are its methods `before`, `client` and `after`; `{key} = ..` names a phase of a handoff tool inside an `#[mcp_server]` block"));
        }
    }
    let handoff = Handoff::from_impl(&cx, &block);
    let attrs = handoff.as_ref().map(|h| {
        let mut attrs = ToolAttrs::from_args(&cx, &args, &h.ident, h.docs.as_ref());
        if args.str(NAME).is_none() {
            attrs.name = h.ident.to_string();
        }
        attrs
    });
    let checked = cx.check();
    let generated = match (checked, handoff, attrs) {
        (Ok(()), Some(h), Some(attrs)) => Ok(generate(&h, &attrs)),
        (Ok(()), ..) => Ok(TokenStream::new()),
        (Err(e), ..) => Err(e),
    };
    match generated {
        Ok(handler) => quote!(#block #handler),
        // An impl of an unnamed type is an error of its own: the block is dropped.
        Err(e) if !matches!(*block.self_ty, syn::Type::Path(_)) => e.to_compile_error(),
        Err(e) => with_errors(e, quote!(#block)),
    }
}

/// The arguments each phase is called with, by role.
fn call_args(phase: &Phase, ctx: TokenStream, state: TokenStream) -> Vec<TokenStream> {
    phase
        .params
        .iter()
        .map(|(role, _)| match role {
            PhaseParam::Ctx => ctx.clone(),
            PhaseParam::Params => quote!(__params),
            PhaseParam::State => state.clone(),
            PhaseParam::Out => quote!(__out),
        })
        .collect()
}

/// How the generated handler reaches a phase: `Self::phase(..)` / `self.phase(..)` on a
/// handoff `impl`, `Server::phase(..)` / `self.0.phase(..)` in an `#[mcp_server]` block
/// (whose handler wraps an `Arc` of the server).
pub enum Owner {
    /// The handler is the tool's own type.
    Itself,
    /// The handler wraps an `Arc` of the `#[mcp_server]` type.
    Server,
}

/// The phase's call, boxed as a `Send` future, spanned at the phase's name.
fn phase_call(
    h: &Handoff,
    phase: &Phase,
    args: &[TokenStream],
    krate: &TokenStream,
    owner: &Owner,
) -> TokenStream {
    let self_ty = &h.self_ty;
    let ident = &phase.ident;
    let call = match (phase.receiver, owner) {
        (false, _) => quote_spanned!(ident.span()=> #self_ty::#ident(#(#args),*)),
        (true, Owner::Itself) => quote_spanned!(ident.span()=> self.#ident(#(#args),*)),
        (true, Owner::Server) => quote_spanned!(ident.span()=> self.0.#ident(#(#args),*)),
    };
    quote_spanned!(ident.span()=> #krate::__private::box_send_future(#call))
}

/// The arguments type and, when `before` takes none, an empty struct standing for it.
fn arguments(h: &Handoff, krate: &TokenStream) -> (TokenStream, TokenStream) {
    if let Some(t) = h.params() {
        return (TokenStream::new(), quote!(#t));
    }
    let serde_crate = format!("{krate}::serde").replace(' ', "");
    let schemars_crate = format!("{krate}::schemars").replace(' ', "");
    let decl = quote! {
        #[derive(#krate::serde::Deserialize, #krate::schemars::JsonSchema)]
        #[serde(crate = #serde_crate)]
        #[schemars(crate = #schemars_crate)]
        struct __TracksuitArgs {}
    };
    (decl, quote!(__TracksuitArgs))
}

/// The `outputSchema` expression (from what `after` returns) and the statement turning
/// `after`'s result into the call's result.
fn output(h: &Handoff, krate: &TokenStream) -> (TokenStream, TokenStream) {
    let after_ret = h.after.output.as_ref().map_or(quote!(()), |t| quote!(#t));
    let output_schema = quote! {{
        #[allow(unused_imports)]
        use #krate::__private::{NoOutputSchema as _, OutputSchemaOf as _};
        (&&#krate::__private::ReturnOf::<#after_ret>::new()).output_schema()
    }};
    let span = h
        .after
        .output
        .as_ref()
        .map_or(h.after.ident.span(), |t| t.span());
    // Reached only through `IntoToolResult`: one error, at the type.
    let finish = quote_spanned! {span=>
        #krate::__private::finish_tool(
            &__SCHEMAS,
            <#after_ret as #krate::IntoToolResult>::into_tool_result(__result),
            <#after_ret as #krate::IntoToolResult>::output_schema,
        )
    };
    (output_schema, finish)
}

/// The `ToolHandler` impl, in a `const _` beside the block.
fn generate(h: &Handoff, attrs: &ToolAttrs) -> TokenStream {
    let krate = &attrs.krate;
    let self_ty = &h.self_ty;
    let version = crate::common::version_check(krate);
    let (support, items) = handler(h, attrs, &Owner::Itself);
    quote! {
        const _: () = {
            #version
            #support

            #[automatically_derived]
            impl #krate::ToolHandler for #self_ty {
                #items
            }
        };
    }
}

/// The items the handler's impl uses (the arguments struct, the schemas' static, the
/// output's serde check) and the impl's own items (`descriptor`, `scopes`, `call`).
pub fn handler(h: &Handoff, attrs: &ToolAttrs, owner: &Owner) -> (TokenStream, TokenStream) {
    let krate = &attrs.krate;
    let (state_ty, out_ty) = (&h.state, &h.out);
    let keys = match &attrs.elicits {
        Some(k) => quote!(#k),
        None => quote!(()),
    };
    let (args_struct, args_ty) = arguments(h, krate);
    let (output_schema, finish) = output(h, krate);
    // The state's serde bounds are checked by `HandoffState` where `before_once` names
    // the state type (a missing derive is reported once, there); the client's output here.
    let serde_check = quote_spanned! {out_ty.span()=>
        const _: fn() = || {
            let _ = <#out_ty as #krate::handoff::HandoffState>::restore;
        };
    };
    let name = &attrs.name;
    // The `before` parameter's type is reached only through `ToolParameter`.
    let derived =
        quote!(|| <#args_ty as #krate::ToolParameter>::params_schema().unwrap_or_default());
    let descriptor = attrs.descriptor(quote!(__SCHEMAS.input(#derived).clone()), output_schema);
    let scopes = &attrs.scopes;
    let call = |phase: &Phase, ctx: TokenStream, state: TokenStream| {
        phase_call(h, phase, &call_args(phase, ctx, state), krate, owner)
    };
    let before_call = call(&h.before, quote!(&__phase), quote!(__state));
    let before_once = quote_spanned! {state_ty.span()=>
        let __state = #krate::__private::before_once(&__ctx, #before_call, #krate::__private::Sealing::new(<#state_ty as #krate::handoff::HandoffState>::keep, <#state_ty as #krate::handoff::HandoffState>::restore)).await?;
    };
    let client_call = call(&h.client, quote!(&__keyed), quote!(&__state));
    let after_call = call(&h.after, quote!(&__phase), quote!(__state));
    let support = quote! {
        #args_struct
        #serde_check

        static __SCHEMAS: #krate::__private::ToolSchemas = #krate::__private::ToolSchemas::new();
    };
    let items = quote! {
        fn descriptor(&self) -> #krate::protocol::Tool {
            #descriptor
        }

        fn raw_input_schema(&self) -> ::core::option::Option<#krate::protocol::JsonObject> {
            ::core::option::Option::Some(__SCHEMAS.raw_input(#derived))
        }

        #scopes

        fn call<'__a>(
            &'__a self,
            __ctx: #krate::Ctx,
            __arguments: #krate::protocol::JsonObject,
        ) -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::CallToolResult, #krate::ToolError>> {
            ::std::boxed::Box::pin(async move {
                let __value = __SCHEMAS.arguments(#name, __arguments, #derived)?;
                let __params = <#args_ty as #krate::ToolParameter>::from_call(&__ctx, ::core::option::Option::Some(__value))
                    .map_err(|e| #krate::__private::invalid_argument(#name, ::core::option::Option::None, e))?;
                let __phase = #krate::__private::phase_ctx(&__ctx);
                #before_once
                let __keyed = __ctx.with_keys::<#keys>();
                let __out = #krate::__private::phase("client", #client_call.await)?;
                let __result = #after_call.await;
                #finish
            })
        }
    };
    (support, items)
}
