//! `#[mcp_tool]` on an `impl` block: a handoff tool with `before`, `client` and `after`
//! phases, driven by the generated `Tool` impl as a state machine.

use crate::common::with_errors;
use crate::internals::attr::{Args, NAME};
use crate::internals::attr::{TOOL_KEYS as KEYS, ToolAttrs};
use crate::internals::ctxt::Ctxt;
use crate::internals::docs;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ImplItemFn, ItemImpl, Type};

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Reference(r) => last_segment(&r.elem),
        Type::Path(p) => p.path.segments.last(),
        _ => None,
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == name)
}

/// `T` of `Result<T, E>`.
fn ok_type(ty: &Type) -> Option<&Type> {
    let seg = last_segment(ty)?;
    if seg.ident != "Result" {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn arg_types(f: &ImplItemFn) -> Vec<Type> {
    f.sig
        .inputs
        .iter()
        .filter_map(|i| match i {
            FnArg::Typed(t) => Some((*t.ty).clone()),
            FnArg::Receiver(_) => None,
        })
        .collect()
}

pub fn expand(attr: TokenStream, block: ItemImpl) -> TokenStream {
    let cx = Ctxt::new();
    let args = Args::parse(attr, KEYS, &cx);
    let self_ty = block.self_ty.clone();
    let ident = match &*self_ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    };
    let Some(ident) = ident else {
        cx.error_spanned_by(&self_ty, "a handoff tool is an `impl` of a named type");
        // The block is not emitted: an inherent impl of such a type is an error of its own.
        return match cx.check() {
            Ok(()) => quote!(#block),
            Err(e) => e.to_compile_error(),
        };
    };
    let phase = |name: &str| {
        block.items.iter().find_map(|i| match i {
            ImplItem::Fn(f) if f.sig.ident == name => Some(f.clone()),
            _ => None,
        })
    };
    let (Some(before), Some(client), Some(after)) =
        (phase("before"), phase("client"), phase("after"))
    else {
        cx.error_spanned_by(&block.self_ty, "a handoff tool's impl needs three phases: `async fn before`, `async fn client` and `async fn after`");
        return match cx.check() {
            Ok(()) => quote!(#block),
            Err(e) => with_errors(e, quote!(#block)),
        };
    };
    for f in [&before, &client, &after] {
        if f.sig.asyncness.is_none() {
            cx.error_spanned_by(
                f.sig.fn_token,
                format!("the `{}` phase must be an `async fn`", f.sig.ident),
            );
        }
        if let Some(FnArg::Receiver(r)) = f.sig.inputs.first() {
            cx.error_spanned_by(
                r,
                "handoff phases are associated functions: the state is passed in, not `self`",
            );
        }
    }
    let ret = |f: &ImplItemFn| match &f.sig.output {
        syn::ReturnType::Type(_, t) => Some((**t).clone()),
        syn::ReturnType::Default => None,
    };
    let state_ty = ret(&before).as_ref().and_then(|t| ok_type(t).cloned());
    let out_ty = ret(&client).as_ref().and_then(|t| ok_type(t).cloned());
    if state_ty.is_none() {
        cx.error_spanned_by(&before.sig, "`before` returns `Result<State, E>`");
    }
    if out_ty.is_none() {
        cx.error_spanned_by(&client.sig, "`client` returns `Result<Out, E>`");
    }
    let docs = docs::collect(&block.attrs);
    let mut attrs = ToolAttrs::from_args(&cx, &args, &ident, docs.as_ref());
    let name_default = ident.to_string();
    if args.str(NAME).is_none() {
        attrs.name = name_default;
    }
    if let Err(e) = cx.check() {
        return with_errors(e, quote!(#block));
    }
    let (Some(state_ty), Some(out_ty)) = (state_ty, out_ty) else {
        return quote!(#block);
    };
    let krate = attrs.krate.clone();
    let keys = match &attrs.elicits {
        Some(k) => quote!(#k),
        None => quote!(()),
    };
    let params_ty = arg_types(&before)
        .into_iter()
        .find(|t| !is_named(t, "PhaseCtx"));
    let (args_struct, args_ty) = match &params_ty {
        Some(t) => (TokenStream::new(), quote!(#t)),
        None => {
            let serde_crate = format!("{krate}::__private::serde").replace(' ', "");
            let schemars_crate = format!("{krate}::__private::schemars").replace(' ', "");
            (
                quote! {
                    #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
                    #[serde(crate = #serde_crate)]
                    #[schemars(crate = #schemars_crate)]
                    struct __TracksuitArgs {}
                },
                quote!(__TracksuitArgs),
            )
        }
    };
    let before_args: Vec<_> = arg_types(&before)
        .iter()
        .map(|t| {
            if is_named(t, "PhaseCtx") {
                quote!(&__phase)
            } else {
                quote!(__params)
            }
        })
        .collect();
    let client_args: Vec<_> = arg_types(&client)
        .iter()
        .map(|t| {
            if is_named(t, "Ctx") {
                quote!(&__keyed)
            } else {
                quote!(&__state)
            }
        })
        .collect();
    let mut plain = 0;
    let after_args: Vec<_> = arg_types(&after)
        .iter()
        .map(|t| {
            if is_named(t, "PhaseCtx") {
                quote!(&__phase)
            } else {
                plain += 1;
                if plain == 1 {
                    quote!(__state)
                } else {
                    quote!(__out)
                }
            }
        })
        .collect();
    let after_ret = ret(&after).map(|t| quote!(#t)).unwrap_or(quote!(()));
    let after_span = after.sig.output.span();
    let output_schema = quote! {{
        #[allow(unused_imports)]
        use #krate::__private::{NoOutputSchema as _, OutputSchemaOf as _};
        (&&#krate::__private::ReturnOf::<#after_ret>::new()).output_schema()
    }};
    let finish = quote_spanned!(after_span=> #krate::__private::finish_tool::<#after_ret>(&__SCHEMAS, __result));
    // The state's serde bounds are checked by `sealing::<State>` (spanned at the state
    // type, so a missing derive is reported once, there); the client's output here.
    let serde_check = quote_spanned! {out_ty.span()=>
        const _: fn() = || {
            fn sealable<T: #krate::__private::serde::Serialize + #krate::__private::serde::de::DeserializeOwned>() {}
            sealable::<#out_ty>();
        };
    };
    let name = &attrs.name;
    let version = crate::common::version_check(&krate);
    let descriptor = attrs.descriptor(quote!(__SCHEMAS.input::<#args_ty>().clone()), output_schema);
    let scopes = &attrs.scopes;
    let before_call = quote_spanned!(before.sig.ident.span()=> #krate::__private::box_send_future(#self_ty::before(#(#before_args),*)));
    let before_once = quote_spanned! {state_ty.span()=>
        let __state = #krate::__private::before_once(&__ctx, #before_call, #krate::__private::sealing::<#state_ty>()).await?;
    };
    let client_call = quote_spanned!(client.sig.ident.span()=> #krate::__private::box_send_future(#self_ty::client(#(#client_args),*)));
    let after_call = quote_spanned!(after.sig.ident.span()=> #krate::__private::box_send_future(#self_ty::after(#(#after_args),*)));
    quote! {
        #block

        const _: () = {
            #version
            #args_struct
            #serde_check

            static __SCHEMAS: #krate::__private::ToolSchemas = #krate::__private::ToolSchemas::new();

            #[automatically_derived]
            impl #krate::ToolHandler for #self_ty {
                fn descriptor(&self) -> #krate::protocol::Tool {
                    #descriptor
                }

                #scopes

                fn call<'__a>(
                    &'__a self,
                    __ctx: #krate::Ctx,
                    __arguments: #krate::protocol::JsonObject,
                ) -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::CallToolResult, #krate::ToolError>> {
                    ::std::boxed::Box::pin(async move {
                        let __params: #args_ty = __SCHEMAS.decode::<#args_ty>(#name, __arguments)?;
                        let __phase = #krate::__private::phase_ctx(&__ctx);
                        #before_once
                        let __keyed = __ctx.with_keys::<#keys>();
                        let __out = #krate::__private::phase("client", #client_call.await)?;
                        let __result = #after_call.await;
                        #finish
                    })
                }
            }
        };
    }
}
