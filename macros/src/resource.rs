//! `#[mcp_resource]` expansion: a fixed resource when the URI has no variables, a resource
//! template (typed variables parsed with `FromStr`) when it has some.

use crate::common::{krate, with_errors};
use crate::internals::ast::{Function, ParamKind, output_span};
use crate::internals::attr::{Args, CRATE, RESOURCE_KEYS, ResourceAttrs};
use crate::internals::check;
use crate::internals::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{ItemFn, LitStr};

/// A checked resource or resource template: its handler trait and impl items.
pub struct Resource {
    /// The URI (or template): what duplicates are detected by.
    pub uri: String,
    pub uri_span: proc_macro2::Span,
    /// `ResourceHandler` or `ResourceTemplateHandler`.
    pub handler: &'static str,
    pub items: TokenStream,
    /// Declared with `app`: an MCP App (`ui://`, `text/html;profile=mcp-app`).
    pub app: bool,
}

/// The local a template variable is parsed into: not the parameter's own name, which may be
/// the function's (`fn user(user: String)`), called right after.
fn var_binding(param: &syn::Ident) -> syn::Ident {
    quote::format_ident!("__tracksuit_var_{}", param)
}

/// The statements parsing each template variable into its parameter's type.
fn parse_vars(parsed: &Function, krate: &TokenStream) -> TokenStream {
    parsed
        .args()
        .map(|p| {
            let n = p.ident.to_string();
            let i = var_binding(&p.ident);
            let ty = &p.ty;
            quote_spanned! {syn::spanned::Spanned::span(ty)=>
                let #i: #ty = match __vars.get(#n).map(|v| v.parse::<#ty>()) {
                    ::core::option::Option::Some(::core::result::Result::Ok(v)) => v,
                    ::core::option::Option::Some(::core::result::Result::Err(e)) => {
                        return ::core::result::Result::Err(#krate::protocol::ErrorObject::invalid_params(
                            ::std::format!("invalid value for `{}` in {}: {}", #n, __uri, e),
                        ));
                    }
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(#krate::protocol::ErrorObject::invalid_params(
                            ::std::format!("missing `{}` in {}", #n, __uri),
                        ));
                    }
                };
            }
        })
        .collect()
}

/// The body of `read`: variables parsed, the user's function called, its result converted.
fn read_body(
    parsed: &Function,
    attrs: &ResourceAttrs,
    sig: &syn::Signature,
    krate: &TokenStream,
    invoke: impl Fn(Vec<TokenStream>) -> TokenStream,
) -> TokenStream {
    let call_args = parsed.params.iter().map(|p| {
        let i = &p.ident;
        match p.kind {
            ParamKind::Ctx {
                by_ref: true,
                by_name: false,
            } => crate::common::ctx_by_type(&p.ty, krate),
            ParamKind::Ctx { by_ref: true, .. } => quote!(&__ctx),
            ParamKind::Ctx { by_ref: false, .. } => quote!(::core::clone::Clone::clone(&__ctx)),
            _ => {
                let v = var_binding(i);
                quote!(#v)
            }
        }
    });
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let mime_ref = match &attrs.mime_type {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let into = quote_spanned!(output_span(sig)=> <#ret as #krate::IntoResourceResult>::into_resource_result(__out, &__uri, #mime_ref));
    let call = invoke(call_args.collect());
    let user_future = quote_spanned!(sig.ident.span()=> #krate::__private::box_send_future(#call));
    let parse_vars = parse_vars(parsed, krate);
    quote! {
        ::std::boxed::Box::pin(async move {
            #parse_vars
            let __out = #user_future.await;
            #into
        })
    }
}

/// The `descriptor` statements setting what the attribute and docs give (`var` is the
/// descriptor's variable).
fn descriptor_sets(attrs: &ResourceAttrs, var: &str) -> TokenStream {
    [
        ("title", &attrs.title),
        ("description", &attrs.description),
        ("mime_type", &attrs.mime_type),
    ]
    .iter()
    .map(|(f, v)| crate::common::set_opt(var, f, v.as_deref()))
    .collect()
}

/// A template's handler items.
fn template_items(
    attrs: &ResourceAttrs,
    uri: &str,
    body: TokenStream,
    krate: &TokenStream,
    completer: &dyn Fn(&syn::Path) -> TokenStream,
) -> TokenStream {
    let name = &attrs.name;
    let sets = descriptor_sets(attrs, "t");
    let scopes = &attrs.scopes;
    let complete = attrs.complete.as_ref().map(|path| {
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
    });
    quote! {
        fn descriptor(&self) -> #krate::protocol::ResourceTemplate {
            let mut t = #krate::protocol::ResourceTemplate::new(#uri, #name);
            #sets
            t
        }

        #scopes

        fn template(&self) -> &#krate::UriTemplate {
            static TEMPLATE: ::std::sync::OnceLock<#krate::UriTemplate> = ::std::sync::OnceLock::new();
            TEMPLATE.get_or_init(|| #krate::__private::checked_template(#uri))
        }

        fn read<'__a>(
            &'__a self,
            __ctx: #krate::Ctx,
            __uri: &'__a str,
            __vars: ::std::collections::HashMap<::std::string::String, ::std::string::String>,
        ) -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::ReadResourceResult, #krate::protocol::ErrorObject>> {
            let __uri = __uri.to_owned();
            #body
        }

        #complete
    }
}

/// A fixed resource's handler items.
fn fixed_items(
    attrs: &ResourceAttrs,
    uri: &str,
    body: TokenStream,
    krate: &TokenStream,
) -> TokenStream {
    let name = &attrs.name;
    let sets = descriptor_sets(attrs, "r");
    let scopes = &attrs.scopes;
    quote! {
        fn descriptor(&self) -> #krate::protocol::Resource {
            let mut r = #krate::protocol::Resource::new(#uri, #name);
            #sets
            r
        }

        #scopes

        fn read<'__a>(&'__a self, __ctx: #krate::Ctx)
            -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::ReadResourceResult, #krate::protocol::ErrorObject>> {
            let __uri = ::std::string::String::from(#uri);
            #body
        }
    }
}

/// Reads and checks a resource's attribute and signature (errors go to `cx`); see
/// `prompt::prompt` for `method`, `invoke` and `completer`.
#[allow(clippy::too_many_arguments)]
pub fn resource(
    cx: &Ctxt,
    args: &Args,
    fn_attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    krate: &TokenStream,
    method: bool,
    invoke: impl Fn(Vec<TokenStream>) -> TokenStream,
    completer: &dyn Fn(&syn::Path) -> TokenStream,
) -> Resource {
    let parsed = Function::from_sig(cx, fn_attrs, sig, "resource");
    let attrs = ResourceAttrs::from_args(cx, args, &sig.ident, parsed.docs.as_ref());
    let vars = check(cx, &attrs, &parsed, &sig.ident, method);
    attrs
        .scopes
        .check_placeholders(cx, &vars, "the URI template's variables");
    let uri_span = attrs.uri.as_ref().map_or(sig.ident.span(), LitStr::span);
    let uri = attrs.uri.as_ref().map(LitStr::value).unwrap_or_default();
    let body = read_body(&parsed, &attrs, sig, krate, invoke);
    let (handler, items) = if vars.is_empty() {
        ("ResourceHandler", fixed_items(&attrs, &uri, body, krate))
    } else {
        (
            "ResourceTemplateHandler",
            template_items(&attrs, &uri, body, krate, completer),
        )
    };
    Resource {
        uri,
        uri_span,
        handler,
        items,
        app: attrs.app,
    }
}

/// The resource's checks: a URI (or valid template) whose variables are exactly the
/// function's arguments, and a receiver only on `#[mcp_server]` methods. Returns the
/// template's variables.
fn check(
    cx: &Ctxt,
    attrs: &ResourceAttrs,
    parsed: &Function,
    ident: &syn::Ident,
    method: bool,
) -> Vec<String> {
    let uri = &attrs.uri;
    let mut template_ok = true;
    let vars = match &uri {
        None => {
            cx.syn_error(syn::Error::new(
                proc_macro2::Span::call_site(),
                "`#[mcp_resource]` needs `uri = \"scheme://...\"` (a fixed URI or an RFC 6570 template)",
            ));
            template_ok = false;
            Vec::new()
        }
        Some(lit) => match check::uri_template_variables(&lit.value()) {
            Ok(v) => v,
            Err(e) => {
                cx.error_spanned_by(lit, e);
                template_ok = false;
                Vec::new()
            }
        },
    };
    for p in &parsed.params {
        match p.kind {
            ParamKind::Arg if template_ok && !vars.contains(&p.ident.to_string()) => {
                let shown = uri.as_ref().map(LitStr::value).unwrap_or_default();
                // A context under another name, by value, cannot be told from a variable.
                let hint = if crate::internals::ast::may_be_context(&p.ty) {
                    let ty = &p.ty;
                    let ty = quote!(#ty).to_string().replace(' ', "");
                    format!("; if it is the request context under another name, borrow it: `&{ty}`")
                } else {
                    String::new()
                };
                cx.error_spanned_by(
                    &p.ident,
                    format!(
                        "`{}` is not a variable of the URI template {shown:?}{hint}",
                        p.ident
                    ),
                );
            }
            ParamKind::Whole => cx.error_spanned_by(
                &p.ident,
                "`#[params]` is for tools; resource parameters are URI template variables",
            ),
            ParamKind::Cancel => cx.error_spanned_by(
                &p.ty,
                "resources take `&Ctx` for context, not a cancellation token",
            ),
            _ => {}
        }
    }
    if let Some(lit) = &uri
        && attrs.app
        && !vars.is_empty()
    {
        cx.error_spanned_by(
            lit,
            "an MCP App (`app`) has a fixed `ui://` URI, not a URI template",
        );
    }
    if let Some(lit) = &uri {
        for v in &vars {
            if !parsed.args().any(|p| p.ident == v) {
                cx.error_spanned_by(lit, format!("URI template variable `{v}` has no parameter; add `{v}: String` (or any `FromStr` type)"));
            }
        }
    }
    match (&parsed.receiver, method) {
        (Some(r), false) => cx.error_spanned_by(r, "`#[mcp_resource]` on a method needs `#[mcp_server]` on its impl block"),
        (None, true) => cx.error_spanned_by(ident, "a resource in an `#[mcp_server]` impl takes `&self`; move associated functions out or add `&self`"),
        _ => {}
    }
    vars
}

/// The entry point: the resource, or the function beside the errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => {
            return syn::Error::new(e.span(), "`#[mcp_resource]` goes on an `async fn`")
                .to_compile_error();
        }
    };
    let cx = Ctxt::new();
    let args = Args::parse(attr, RESOURCE_KEYS, &cx);
    let krate = krate(args.path(CRATE));
    match free_resource(cx, &args, &mut func, &krate) {
        Ok(tokens) => tokens,
        Err(e) => {
            // No handler: without a valid URI it is unknown whether this is a template.
            func.attrs.insert(0, syn::parse_quote!(#[allow(dead_code)]));
            with_errors(e, quote!(#func))
        }
    }
}

/// A resource on a free function: the function, with its handler inside.
fn free_resource(
    cx: Ctxt,
    args: &Args,
    func: &mut ItemFn,
    krate: &TokenStream,
) -> syn::Result<TokenStream> {
    let ident = func.sig.ident.clone();
    let fn_attrs = func.attrs.clone();
    let invoke = |a: Vec<TokenStream>| quote_spanned!(ident.span()=> #ident(#(#a),*));
    let completer = crate::common::free_completer(&cx, krate);
    let resource = resource(
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
        resource.handler,
        TokenStream::new(),
        resource.items,
    ))
}
