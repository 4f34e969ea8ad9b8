//! `#[mcp_resource]` expansion: a fixed resource when the URI has no variables, a resource
//! template (typed variables parsed with `FromStr`) when it has some.

use crate::common::{krate, with_errors};
use crate::internals::ast::{Function, ParamKind, output_span};
use crate::internals::attr::{
    Args, COMPLETE, CRATE, DESCRIPTION, Kind, MIME_TYPE, NAME, SCOPES, Symbol, TITLE, URI,
    scopes_method,
};
use crate::internals::check;
use crate::internals::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{ItemFn, LitStr};

pub const KEYS: &[(Symbol, Kind)] = &[
    (URI, Kind::Str),
    (NAME, Kind::Str),
    (TITLE, Kind::Str),
    (DESCRIPTION, Kind::Str),
    (MIME_TYPE, Kind::Str),
    (COMPLETE, Kind::Path),
    (SCOPES, Kind::StrList),
    (CRATE, Kind::Path),
];

/// A checked resource or resource template: its handler trait and impl items.
pub struct Resource {
    /// The URI (or template): what duplicates are detected by.
    pub uri: String,
    pub uri_span: proc_macro2::Span,
    /// `ResourceHandler` or `ResourceTemplateHandler`.
    pub handler: &'static str,
    pub items: TokenStream,
}

/// Reads and checks a resource's attribute and signature (errors go to `cx`); see
/// `prompt::prompt` for `method` and `invoke`.
pub fn resource(
    cx: &Ctxt,
    args: &Args,
    fn_attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    krate: &TokenStream,
    method: bool,
    invoke: impl Fn(Vec<TokenStream>) -> TokenStream,
) -> Resource {
    let parsed = Function::from_sig(cx, fn_attrs, sig, "resource");
    let ident = sig.ident.clone();
    let (uri, vars) = check(cx, args, &parsed, &ident, method);
    let templated = !vars.is_empty();
    let uri_span = uri.as_ref().map_or(ident.span(), LitStr::span);
    let uri = uri.map(|l| l.value()).unwrap_or_default();
    let name = args
        .str(NAME)
        .map(LitStr::value)
        .unwrap_or_else(|| ident.to_string());
    let title = args.str(TITLE).map(LitStr::value);
    let description = args
        .str(DESCRIPTION)
        .map(LitStr::value)
        .or(parsed.docs.clone());
    let mime = args.str(MIME_TYPE).map(LitStr::value);
    let fields = [
        ("title", &title),
        ("description", &description),
        ("mime_type", &mime),
    ];
    let t_sets: Vec<_> = fields
        .iter()
        .map(|(f, v)| crate::common::set_opt("t", f, v.as_deref()))
        .collect();
    let r_sets: Vec<_> = fields
        .iter()
        .map(|(f, v)| crate::common::set_opt("r", f, v.as_deref()))
        .collect();
    let mime_ref = match &mime {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let parse_vars = parsed.args().map(|p| {
        let n = p.ident.to_string();
        let i = &p.ident;
        let ty = &p.ty;
        quote_spanned! {ty.span_for()=>
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
    });
    let call_args = parsed.params.iter().map(|p| {
        let i = &p.ident;
        match p.kind {
            ParamKind::Ctx { by_ref: true } => quote!(&__ctx),
            ParamKind::Ctx { by_ref: false } => quote!(::core::clone::Clone::clone(&__ctx)),
            _ => quote!(#i),
        }
    });
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let into = quote_spanned!(output_span(sig)=> <#ret as #krate::IntoResourceResult>::into_resource_result(__out, &__uri, #mime_ref));
    let call = invoke(call_args.collect());
    let user_future = quote_spanned!(ident.span()=> #krate::__private::box_send_future(#call));
    let body = quote! {
        ::std::boxed::Box::pin(async move {
            #(#parse_vars)*
            let __out = #user_future.await;
            #into
        })
    };
    let scopes = scopes_method(cx, args);
    if templated {
        let complete = args.path(COMPLETE).map(|path| {
            quote! {
                fn complete<'__a>(
                    &'__a self,
                    variable: &'__a str,
                    value: &'__a str,
                    _context: &'__a ::std::collections::HashMap<::std::string::String, ::std::string::String>,
                ) -> #krate::__private::BoxFuture<'__a, ::std::vec::Vec<::std::string::String>> {
                    ::std::boxed::Box::pin(#path(variable, value))
                }
            }
        });
        let items = quote! {
                fn descriptor(&self) -> #krate::protocol::ResourceTemplate {
                    let mut t = #krate::protocol::ResourceTemplate::new(#uri, #name);
                    #(#t_sets)*
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
        };
        Resource {
            uri,
            uri_span,
            handler: "ResourceTemplateHandler",
            items,
        }
    } else {
        let items = quote! {
                fn descriptor(&self) -> #krate::protocol::Resource {
                    let mut r = #krate::protocol::Resource::new(#uri, #name);
                    #(#r_sets)*
                    r
                }

                #scopes

                fn read<'__a>(&'__a self, __ctx: #krate::Ctx)
                    -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::ReadResourceResult, #krate::protocol::ErrorObject>> {
                    let __uri = ::std::string::String::from(#uri);
                    #body
                }
        };
        Resource {
            uri,
            uri_span,
            handler: "ResourceHandler",
            items,
        }
    }
}

/// The resource's checks: a URI (or valid template) whose variables are exactly the
/// function's arguments, and a receiver only on `#[mcp_server]` methods. Returns the URI
/// literal and the template's variables.
fn check(
    cx: &Ctxt,
    args: &Args,
    parsed: &Function,
    ident: &syn::Ident,
    method: bool,
) -> (Option<LitStr>, Vec<String>) {
    let uri = args.str(URI).cloned();
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
                cx.error_spanned_by(
                    &p.ident,
                    format!(
                        "`{}` is not a variable of the URI template {shown:?}",
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
    (uri, vars)
}

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => {
            return syn::Error::new(e.span(), "`#[mcp_resource]` goes on an `async fn`")
                .to_compile_error();
        }
    };
    let cx = Ctxt::new();
    let args = Args::parse(attr, KEYS, &cx);
    let krate = krate(args.path(CRATE));
    let ident = func.sig.ident.clone();
    let fn_attrs = func.attrs.clone();
    let resource = resource(
        &cx,
        &args,
        &fn_attrs,
        &mut func.sig,
        &krate,
        false,
        |a| quote_spanned!(ident.span()=> #ident(#(#a),*)),
    );
    if let Err(e) = cx.check() {
        // No handler: without a valid URI it is unknown whether this is a template.
        func.attrs.insert(0, syn::parse_quote!(#[allow(dead_code)]));
        return with_errors(e, quote!(#func));
    }
    crate::common::tagged_fn(
        &func,
        &krate,
        resource.handler,
        TokenStream::new(),
        resource.items,
    )
}

trait SpanFor {
    fn span_for(&self) -> proc_macro2::Span;
}

impl SpanFor for syn::Type {
    fn span_for(&self) -> proc_macro2::Span {
        syn::spanned::Spanned::span(self)
    }
}
