//! `#[mcp_server]` expansion: the `#[mcp_tool]`, `#[mcp_prompt]` and `#[mcp_resource]`
//! methods of an impl block become handlers that share the server state through an `Arc`,
//! registered together with `Server::tools`. Duplicate tool names, prompt names and
//! resource URIs are refused at compile time, at the second occurrence. A tool's
//! `ui = "ui://..."` must name one of the block's `app` resources when it declares any.

use crate::common::{krate, with_errors};
use crate::internals::ast::Function;
use crate::internals::attr::{
    Args, CRATE, Kind, PROMPT_KEYS, RESOURCE_KEYS, Symbol, TOOL_KEYS, ToolAttrs,
};
use crate::internals::ctxt::Ctxt;
use crate::tool::{Generated, generate};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{ImplItem, ImplItemFn, ItemImpl};

const KEYS: &[(Symbol, Kind)] = &[(CRATE, Kind::Path)];

/// One annotated method, generated: a wrapper over the shared state implementing `handler`.
struct Member {
    wrapper: syn::Ident,
    handler: &'static str,
    /// The `ServerParts` field it goes in.
    part: &'static str,
    support: TokenStream,
    items: TokenStream,
}

/// The MCP App links the block declares: its `app` resources' URIs and its tools' `ui`.
#[derive(Default)]
struct Links {
    apps: Vec<String>,
    uis: Vec<syn::LitStr>,
}

impl Links {
    /// Each `ui` names an app resource of the block, unless it has none (the app may then
    /// be registered with `Server::ui_resource`; `Server::build` checks that).
    fn check(&self, cx: &Ctxt) {
        if self.apps.is_empty() {
            return;
        }
        let apps: Vec<&str> = self.apps.iter().map(String::as_str).collect();
        for lit in &self.uis {
            let uri = lit.value();
            if apps.contains(&uri.as_str()) {
                continue;
            }
            let hint = match crate::internals::check::suggest(&uri, &apps) {
                Some(s) => format!("; did you mean {s:?}?"),
                None => format!(" (it declares {})", apps.join(", ")),
            };
            cx.error_spanned_by(
                lit,
                format!("no `#[mcp_resource(uri = {uri:?}, app)]` in this server{hint}"),
            );
        }
    }
}

/// Which macro a method carries.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Tool,
    Prompt,
    Resource,
}

impl Role {
    const ALL: [(Role, &'static str); 3] = [
        (Role::Tool, "mcp_tool"),
        (Role::Prompt, "mcp_prompt"),
        (Role::Resource, "mcp_resource"),
    ];
}

/// The entry point: the block, with the handlers and registration beside it, or the block
/// beside the errors.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut block: ItemImpl = match syn::parse2(item) {
        Ok(b) => b,
        Err(e) => {
            return syn::Error::new(e.span(), "`#[mcp_server]` goes on an inherent `impl` block")
                .to_compile_error();
        }
    };
    match server(attr, &mut block) {
        Ok(tokens) => tokens,
        Err(e) => with_errors(e, quote!(#block)),
    }
}

/// Checks the block and generates a handler per annotated method (their attributes are
/// removed from `block`).
fn server(attr: TokenStream, block: &mut ItemImpl) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let args = Args::parse(attr, KEYS, &cx);
    let krate = krate(args.path(CRATE));
    if let Some((_, path, _)) = &block.trait_ {
        cx.error_spanned_by(
            path,
            "`#[mcp_server]` goes on an inherent `impl` block, not a trait impl",
        );
    }
    if !block.generics.params.is_empty() {
        cx.error_spanned_by(
            &block.generics,
            "`#[mcp_server]` does not support generic server types",
        );
    }
    let mut seen: Vec<(Role, String)> = Vec::new();
    let mut members = Vec::new();
    let mut links = Links::default();
    for item in block.items.iter_mut() {
        let ImplItem::Fn(method) = item else { continue };
        if let Some(member) = member(&cx, method, &krate, &mut seen, &mut links) {
            members.push(member);
        }
    }
    links.check(&cx);
    cx.check()?;
    Ok(generate_server(block, &krate, &members))
}

/// The `#[mcp_*]` attribute of a method, removed: its role and its tokens.
fn take_role(cx: &Ctxt, method: &mut ImplItemFn) -> Option<(Role, TokenStream)> {
    let (pos, role) = method.attrs.iter().enumerate().find_map(|(i, a)| {
        Role::ALL
            .iter()
            .find(|(_, name)| a.path().is_ident(name))
            .map(|(role, _)| (i, *role))
    })?;
    match method.attrs.remove(pos).meta {
        syn::Meta::Path(_) => Some((role, TokenStream::new())),
        syn::Meta::List(l) => Some((role, l.tokens)),
        syn::Meta::NameValue(nv) => {
            cx.error_spanned_by(nv, "use `#[mcp_...]` or `#[mcp_...(...)]`");
            None
        }
    }
}

/// Removes the method's `#[mcp_*]` attribute and generates its handler; `seen` holds the
/// names (URIs for resources) so far, `links` the App links.
fn member(
    cx: &Ctxt,
    method: &mut ImplItemFn,
    krate: &TokenStream,
    seen: &mut Vec<(Role, String)>,
    links: &mut Links,
) -> Option<Member> {
    let (role, tokens) = take_role(cx, method)?;
    let (key, span, member) = match role {
        Role::Tool => tool_member(cx, tokens, method, krate, links),
        Role::Prompt => prompt_member(cx, tokens, method, krate),
        Role::Resource => resource_member(cx, tokens, method, krate, links),
    };
    if seen.iter().any(|(r, k)| *r == role && *k == key) {
        let what = match role {
            Role::Tool => "tool name",
            Role::Prompt => "prompt name",
            Role::Resource => "resource URI",
        };
        cx.syn_error(syn::Error::new(
            span,
            format!("duplicate {what} `{key}` in this server"),
        ));
        return None;
    }
    seen.push((role, key));
    Some(member)
}

/// An `#[mcp_prompt]` method: its name, the name's span, and its handler.
fn prompt_member(
    cx: &Ctxt,
    tokens: TokenStream,
    method: &mut ImplItemFn,
    krate: &TokenStream,
) -> (String, Span, Member) {
    let args = Args::parse(tokens, PROMPT_KEYS, cx);
    let ident = method.sig.ident.clone();
    let invoke = |a: Vec<TokenStream>| quote!(self.0.#ident(#(#a),*));
    let p = crate::prompt::prompt(
        cx,
        &args,
        &method.attrs,
        &mut method.sig,
        krate,
        true,
        invoke,
    );
    let member = Member {
        wrapper: format_ident!("__TracksuitPrompt_{}", ident),
        handler: "PromptHandler",
        part: "prompts",
        support: TokenStream::new(),
        items: p.items,
    };
    (p.name, p.name_span, member)
}

/// An `#[mcp_resource]` method: its URI, the URI's span, and its handler.
fn resource_member(
    cx: &Ctxt,
    tokens: TokenStream,
    method: &mut ImplItemFn,
    krate: &TokenStream,
    links: &mut Links,
) -> (String, Span, Member) {
    let args = Args::parse(tokens, RESOURCE_KEYS, cx);
    let ident = method.sig.ident.clone();
    let invoke = |a: Vec<TokenStream>| quote!(self.0.#ident(#(#a),*));
    let r = crate::resource::resource(
        cx,
        &args,
        &method.attrs,
        &mut method.sig,
        krate,
        true,
        invoke,
    );
    if r.app {
        links.apps.push(r.uri.clone());
    }
    let part = if r.handler == "ResourceHandler" {
        "resources"
    } else {
        "templates"
    };
    let member = Member {
        wrapper: format_ident!("__TracksuitResource_{}", ident),
        handler: r.handler,
        part,
        support: TokenStream::new(),
        items: r.items,
    };
    (r.uri, r.uri_span, member)
}

/// An `#[mcp_tool]` method: its name, the name's span, and its handler.
fn tool_member(
    cx: &Ctxt,
    tokens: TokenStream,
    method: &mut ImplItemFn,
    krate: &TokenStream,
    links: &mut Links,
) -> (String, Span, Member) {
    let tool_args = Args::parse(tokens, TOOL_KEYS, cx);
    let parsed = Function::from_sig(cx, &method.attrs, &mut method.sig, "tool");
    if parsed.receiver.is_none() {
        cx.error_spanned_by(&method.sig.ident, "a tool in an `#[mcp_server]` impl takes `&self`; move associated functions out or add `&self`");
    }
    let mut attrs = ToolAttrs::from_args(cx, &tool_args, &method.sig.ident, parsed.docs.as_ref());
    attrs.krate = krate.clone();
    links.uis.extend(attrs.ui.clone());
    crate::tool::check_key_set(cx, &parsed, &attrs);
    let ident = &method.sig.ident;
    let Generated {
        args_struct,
        tool_items,
    } = generate(
        &parsed,
        &attrs,
        &method.sig,
        |a| quote!(self.0.#ident(#(#a),*)),
    );
    let support = quote! {
        #args_struct
        static __SCHEMAS: #krate::__private::ToolSchemas = #krate::__private::ToolSchemas::new();
    };
    let member = Member {
        wrapper: format_ident!("__TracksuitTool_{}", ident),
        handler: "ToolHandler",
        part: "tools",
        support,
        items: tool_items,
    };
    (attrs.name, attrs.name_span, member)
}

/// The block, then the wrappers and the `ServerTools` / `ToolSet` impls, out of the way in
/// a `const _`.
fn generate_server(block: &ItemImpl, krate: &TokenStream, members: &[Member]) -> TokenStream {
    let self_ty = &block.self_ty;
    let version = crate::common::version_check(krate);
    let wrappers = members.iter().map(|m| {
        let Member {
            wrapper,
            support,
            items,
            ..
        } = m;
        let handler = syn::Ident::new(m.handler, Span::call_site());
        quote! {
            #[allow(non_camel_case_types)]
            struct #wrapper(::std::sync::Arc<#self_ty>);

            const _: () = {
                #support

                #[automatically_derived]
                impl #krate::#handler for #wrapper {
                    #items
                }
            };
        }
    });
    let pushes = members.iter().map(|m| {
        let wrapper = &m.wrapper;
        let part = syn::Ident::new(m.part, Span::call_site());
        quote!(parts.#part.push(::std::sync::Arc::new(#wrapper(::core::clone::Clone::clone(&state))));)
    });
    quote! {
        #block

        const _: () = {
            #version
            #(#wrappers)*

            #[automatically_derived]
            impl #krate::__private::ServerTools for #self_ty {
                fn parts_of(state: ::std::sync::Arc<Self>) -> #krate::__private::ServerParts {
                    let mut parts = <#krate::__private::ServerParts as ::core::default::Default>::default();
                    #(#pushes)*
                    parts
                }
            }

            #[automatically_derived]
            impl #krate::__private::ToolSet for #self_ty {
                fn into_tools(self) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::ToolHandler>> {
                    #krate::__private::ToolSet::into_tools(::std::sync::Arc::new(self))
                }

                fn into_parts(self) -> #krate::__private::ServerParts {
                    #krate::__private::ToolSet::into_parts(::std::sync::Arc::new(self))
                }
            }
        };
    }
}
