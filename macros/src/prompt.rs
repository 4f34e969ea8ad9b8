//! `#[mcp_prompt]` expansion.

use crate::common::{krate, with_errors};
use crate::internals::ast::{Function, ParamKind, output_span};
use crate::internals::attr::{Args, CRATE, PROMPT_KEYS, PromptAttrs};
use crate::internals::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;

/// A checked prompt: what its `PromptHandler` impl needs.
pub struct Prompt {
    pub name: String,
    pub name_span: proc_macro2::Span,
    /// The handler impl's items, calling the function through `invoke`.
    pub items: TokenStream,
}

/// The signature's checks: no `#[params]` or cancellation token, and a receiver exactly on
/// `#[mcp_server]` methods. (That arguments are strings is checked by type, through
/// `PromptParameter`, which also recognises the context under another name.)
fn check(cx: &Ctxt, parsed: &Function, sig: &syn::Signature, method: bool) {
    for p in &parsed.params {
        match p.kind {
            ParamKind::Whole => cx.error_spanned_by(
                &p.ident,
                "`#[params]` is for tools; prompt arguments are individual strings",
            ),
            ParamKind::Cancel => cx.error_spanned_by(
                &p.ty,
                "prompts take `&Ctx` for context, not a cancellation token",
            ),
            _ => {}
        }
    }
    match (&parsed.receiver, method) {
        (Some(r), false) => cx.error_spanned_by(r, "`#[mcp_prompt]` on a method needs `#[mcp_server]` on its impl block"),
        (None, true) => cx.error_spanned_by(&sig.ident, "a prompt in an `#[mcp_server]` impl takes `&self`; move associated functions out or add `&self`"),
        _ => {}
    }
}

/// The `descriptor` method.
fn descriptor(parsed: &Function, attrs: &PromptAttrs, krate: &TokenStream) -> TokenStream {
    let name = &attrs.name;
    let title = crate::common::set_opt("p", "title", attrs.title.as_deref());
    let description = crate::common::set_opt("p", "description", attrs.description.as_deref());
    // Each argument's type says whether it is required, or the context (not listed).
    let arg_descriptors: Vec<_> = parsed
        .args()
        .map(|p| {
            let n = crate::tool::property_name(&p.ident);
            let d = crate::common::opt_string(p.docs.as_deref());
            let ty = &p.ty;
            quote! {
                if let ::core::option::Option::Some(required) = <#ty as #krate::PromptParameter>::required() {
                    let mut a = #krate::protocol::PromptArgument::new(#n);
                    a.description = #d;
                    a.required = ::core::option::Option::Some(required);
                    arguments.push(a);
                }
            }
        })
        .collect();
    let arguments = (!arg_descriptors.is_empty()).then(|| {
        quote! {
            let mut arguments = ::std::vec::Vec::new();
            #(#arg_descriptors)*
            if !arguments.is_empty() {
                p.arguments = ::core::option::Option::Some(arguments);
            }
        }
    });
    quote! {
        fn descriptor(&self) -> #krate::protocol::Prompt {
            let mut p = #krate::protocol::Prompt::new(#name);
            #title
            #description
            #arguments
            p
        }
    }
}

/// The `complete` method, when `complete = path` is given; `completer` makes the call of
/// the completer from its path.
fn complete(
    attrs: &PromptAttrs,
    krate: &TokenStream,
    completer: &dyn Fn(&syn::Path) -> TokenStream,
) -> Option<TokenStream> {
    attrs.complete.as_ref().map(|path| {
        let call = completer(path);
        quote! {
            fn complete<'__a>(
                &'__a self,
                __ctx: &'__a #krate::Ctx,
                argument: &'__a str,
                value: &'__a str,
                _context: &'__a ::std::collections::HashMap<::std::string::String, ::std::string::String>,
            ) -> #krate::__private::BoxFuture<'__a, ::std::vec::Vec<::std::string::String>> {
                #call
            }
        }
    })
}

/// Reads and checks a prompt's attribute and signature (errors go to `cx`). `method` is
/// whether it is an `#[mcp_server]` method (which takes `&self`); `invoke` turns the call
/// arguments into the call of the user's function, `completer` a `complete = path` into
/// the call of the completer (`crate::common::free_completer` outside a server).
#[allow(clippy::too_many_arguments)]
pub fn prompt(
    cx: &Ctxt,
    args: &Args,
    fn_attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    krate: &TokenStream,
    method: bool,
    invoke: impl Fn(Vec<TokenStream>) -> TokenStream,
    completer: &dyn Fn(&syn::Path) -> TokenStream,
) -> Prompt {
    let parsed = Function::from_sig(cx, fn_attrs, sig, "prompt");
    check(cx, &parsed, sig, method);
    let attrs = PromptAttrs::from_args(cx, args, &sig.ident, parsed.docs.as_ref());
    let names: Vec<String> = parsed
        .args()
        .map(|p| crate::tool::property_name(&p.ident))
        .collect();
    attrs
        .scopes
        .check_placeholders(cx, &names, "the prompt's arguments");
    let call_args = parsed
        .params
        .iter()
        .map(|p| {
            let n = crate::tool::property_name(&p.ident);
            let ty = &p.ty;
            match p.kind {
                ParamKind::Arg => {
                    quote!(<#ty as #krate::PromptParameter>::from_prompt(&__ctx, #n, __args.remove(#n))?)
                }
                ParamKind::Ctx {
                    by_ref: true,
                    by_name: false,
                } => crate::common::ctx_by_type(&p.ty, krate),
                ParamKind::Ctx { by_ref: true, .. } => quote!(&__ctx),
                _ => quote!(::core::clone::Clone::clone(&__ctx)),
            }
        })
        .collect();
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let into = quote_spanned!(output_span(sig)=> <#ret as #krate::IntoPromptResult>::into_prompt_result(__out));
    let call = invoke(call_args);
    let user_future = quote_spanned!(sig.ident.span()=> #krate::__private::box_send_future(#call));
    let descriptor = descriptor(&parsed, &attrs, krate);
    let complete = complete(&attrs, krate, completer);
    let scopes = &attrs.scopes;
    let items = quote! {
        #descriptor

        #scopes

        #[allow(unused_mut)]
        fn get<'__a>(
            &'__a self,
            __ctx: #krate::Ctx,
            mut __args: ::std::collections::HashMap<::std::string::String, ::std::string::String>,
        ) -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::GetPromptResult, #krate::protocol::ErrorObject>> {
            ::std::boxed::Box::pin(async move {
                let __out = #user_future.await;
                #into
            })
        }

        #complete
    };
    Prompt {
        name: attrs.name,
        name_span: attrs.name_span,
        items,
    }
}

/// The stub handler items emitted beside errors.
pub fn stub(krate: &TokenStream, ident: &syn::Ident) -> TokenStream {
    quote! {
        fn descriptor(&self) -> #krate::protocol::Prompt { #krate::protocol::Prompt::new(::core::stringify!(#ident)) }
        fn get<'__a>(&'__a self, _: #krate::Ctx, _: ::std::collections::HashMap<::std::string::String, ::std::string::String>)
            -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::GetPromptResult, #krate::protocol::ErrorObject>> {
            ::std::boxed::Box::pin(async { ::core::result::Result::Err(#krate::protocol::ErrorObject::internal("this prompt failed to compile")) })
        }
    }
}

/// The entry point: the prompt, or the function beside the errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => {
            return syn::Error::new(e.span(), "`#[mcp_prompt]` goes on an `async fn`")
                .to_compile_error();
        }
    };
    let cx = Ctxt::new();
    let args = Args::parse(attr, PROMPT_KEYS, &cx);
    let krate = krate(args.path(CRATE));
    match free_prompt(cx, &args, &mut func, &krate) {
        Ok(tokens) => tokens,
        Err(e) if func.sig.receiver().is_some() => with_errors(e, quote!(#func)),
        Err(e) => {
            let stub = stub(&krate, &func.sig.ident);
            let fallback =
                crate::common::tagged_fn(&func, &krate, "PromptHandler", TokenStream::new(), stub);
            with_errors(e, fallback)
        }
    }
}

/// A prompt on a free function: the function, with its handler inside.
fn free_prompt(
    cx: Ctxt,
    args: &Args,
    func: &mut ItemFn,
    krate: &TokenStream,
) -> syn::Result<TokenStream> {
    let ident = func.sig.ident.clone();
    let fn_attrs = func.attrs.clone();
    let invoke = |a: Vec<TokenStream>| quote_spanned!(ident.span()=> #ident(#(#a),*));
    let completer = crate::common::free_completer(&cx, krate);
    let prompt = prompt(
        &cx,
        args,
        &fn_attrs,
        &mut func.sig,
        krate,
        false,
        invoke,
        &completer,
    );
    drop(completer);
    cx.check()?;
    Ok(crate::common::tagged_fn(
        func,
        krate,
        "PromptHandler",
        TokenStream::new(),
        prompt.items,
    ))
}
