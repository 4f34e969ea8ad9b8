//! `#[mcp_server]` expansion: the `#[mcp_tool]`, `#[mcp_prompt]` and `#[mcp_resource]`
//! methods of an impl block become handlers that share the server state through an `Arc`,
//! registered together with `Server::tools`. Duplicate tool names, prompt names and
//! resource URIs are refused at compile time, at the second occurrence. A tool's
//! `ui = "ui://..."` must name one of the block's `app` resources when it declares any.

use crate::common::{krate, with_errors};
use crate::handoff::Owner;
use crate::internals::ast::{Function, Handoff};
use crate::internals::attr::{
    AFTER, Args, CLIENT, CRATE, Kind, PROMPT_KEYS, RESOURCE_KEYS, Symbol, TOOL_KEYS, ToolAttrs,
};
use crate::internals::ctxt::Ctxt;
use crate::tool::{Generated, generate};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
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

/// What every member's expansion needs of the block: the runtime's path, the server type
/// and the signatures of all its methods (handoff phases and completers are found there).
struct Scope {
    krate: TokenStream,
    self_ty: syn::Type,
    sigs: Vec<syn::Signature>,
}

impl Scope {
    /// The block's method a phase or completer path names (`name` or `Self::name`).
    fn method(&self, path: &syn::Path) -> Option<&syn::Signature> {
        let name = match path.segments.len() {
            1 if path.leading_colon.is_none() => &path.segments[0].ident,
            2 if path.segments[0].ident == "Self" => &path.segments[1].ident,
            _ => return None,
        };
        self.sigs.iter().find(|s| s.ident == *name)
    }
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
    server(attr, &mut block).unwrap_or_else(|e| with_errors(e, quote!(#block)))
}

/// Checks the block and generates a handler per annotated method (their attributes are
/// removed from `block`). An error in one method leaves the others generated and checked:
/// the errors come beside the block, its sound members and its `ToolSet` impl (so neither
/// the other methods' mistakes are hidden nor `Server::tools` reports the type unusable).
/// Only an error in the block itself (generic, a trait impl) gives the block alone.
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
    let block_sound = cx.error_count() == 0;
    let scope = Scope {
        krate,
        self_ty: (*block.self_ty).clone(),
        sigs: block
            .items
            .iter()
            .filter_map(|i| match i {
                ImplItem::Fn(f) => Some(f.sig.clone()),
                _ => None,
            })
            .collect(),
    };
    let mut seen: Vec<(Role, String)> = Vec::new();
    let mut members = Vec::new();
    let mut links = Links::default();
    for item in block.items.iter_mut() {
        let ImplItem::Fn(method) = item else { continue };
        let before = cx.error_count();
        let member = member(&cx, method, &scope, &mut seen, &mut links);
        // A member with an error is left out: its generated code would only add noise.
        if let Some(member) = member.filter(|_| cx.error_count() == before) {
            members.push(member);
        }
    }
    links.check(&cx);
    match cx.check() {
        Ok(()) => Ok(generate_server(block, &scope.krate, &members)),
        Err(e) if block_sound => Ok(with_errors(
            e,
            generate_server(block, &scope.krate, &members),
        )),
        Err(e) => Err(e),
    }
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
    scope: &Scope,
    seen: &mut Vec<(Role, String)>,
    links: &mut Links,
) -> Option<Member> {
    let (role, tokens) = take_role(cx, method)?;
    let (key, span, member) = match role {
        Role::Tool => tool_member(cx, tokens, method, scope, links),
        Role::Prompt => prompt_member(cx, tokens, method, scope),
        Role::Resource => resource_member(cx, tokens, method, scope, links),
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
    scope: &Scope,
) -> (String, Span, Member) {
    let args = Args::parse(tokens, PROMPT_KEYS, cx);
    let ident = method.sig.ident.clone();
    let invoke = |a: Vec<TokenStream>| quote!(self.0.#ident(#(#a),*));
    let completer = |path: &syn::Path| completer(cx, scope, path);
    let p = crate::prompt::prompt(
        cx,
        &args,
        &method.attrs,
        &mut method.sig,
        &scope.krate,
        true,
        invoke,
        &completer,
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
    scope: &Scope,
    links: &mut Links,
) -> (String, Span, Member) {
    let args = Args::parse(tokens, RESOURCE_KEYS, cx);
    let ident = method.sig.ident.clone();
    let invoke = |a: Vec<TokenStream>| quote!(self.0.#ident(#(#a),*));
    let completer = |path: &syn::Path| completer(cx, scope, path);
    let r = crate::resource::resource(
        cx,
        &args,
        &method.attrs,
        &mut method.sig,
        &scope.krate,
        true,
        invoke,
        &completer,
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
    scope: &Scope,
    links: &mut Links,
) -> (String, Span, Member) {
    let krate = &scope.krate;
    let tool_args = Args::parse(tokens, TOOL_KEYS, cx);
    if tool_args.get(CLIENT).is_some() || tool_args.get(AFTER).is_some() {
        return handoff_member(cx, &tool_args, method, scope, links);
    }
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

/// An `#[mcp_tool(client = .., after = ..)]` method: a handoff tool whose `before` phase is
/// the method itself and whose `client` and `after` phases are the block's methods the
/// attribute names. Each phase may take `&self` (the server).
fn handoff_member(
    cx: &Ctxt,
    args: &Args,
    method: &ImplItemFn,
    scope: &Scope,
    links: &mut Links,
) -> (String, Span, Member) {
    let ident = &method.sig.ident;
    let docs = crate::internals::docs::collect(&method.attrs);
    let mut attrs = ToolAttrs::from_args(cx, args, ident, docs.as_ref());
    attrs.krate = scope.krate.clone();
    links.uis.extend(attrs.ui.clone());
    let wrapper = format_ident!("__TracksuitTool_{}", ident);
    let phases = [CLIENT, AFTER].map(|key| phase_method(cx, args, scope, key, ident));
    let (support, items) = match phases {
        [Some(client), Some(after)] => {
            let sigs = [&method.sig, client, after];
            let handoff = Handoff::from_sigs(cx, scope.self_ty.clone(), ident.clone(), docs, sigs);
            match handoff {
                Some(h) => crate::handoff::handler(&h, &attrs, &Owner::Server),
                None => Default::default(),
            }
        }
        _ => Default::default(),
    };
    let member = Member {
        wrapper,
        handler: "ToolHandler",
        part: "tools",
        support,
        items,
    };
    (attrs.name, attrs.name_span, member)
}

/// The block's method a handoff tool's `client = ..` or `after = ..` names (an error at
/// the attribute when it is missing, at the path when it names no method of the block).
fn phase_method<'s>(
    cx: &Ctxt,
    args: &Args,
    scope: &'s Scope,
    key: Symbol,
    tool: &syn::Ident,
) -> Option<&'s syn::Signature> {
    let Some(path) = args.path(key) else {
        cx.error_spanned_by(tool, format!("a handoff tool in an `#[mcp_server]` block names its `client` and `after` phases: add `{key} = method` to `#[mcp_tool(..)]` (this method is its `before` phase)"));
        return None;
    };
    let found = scope.method(path);
    if found.is_none() {
        let written = path.segments.last().map(|s| s.ident.to_string());
        let names: Vec<String> = scope.sigs.iter().map(|s| s.ident.to_string()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let hint = written
            .and_then(|w| crate::internals::check::suggest(&w, &names))
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        cx.error_spanned_by(path, format!("`{key} = ..` names a method of this `#[mcp_server]` block (`method` or `Self::method`); there is no such method here{hint}"));
    }
    found
}

/// What a completer may be, as the diagnostics say it.
const COMPLETER_SHAPE: &str = "a completer is an `async fn(argument: &str, value: &str) -> Vec<String>`, or `async fn(ctx: &Ctx, argument: &str, value: &str) -> Vec<String>` to reach the app state; a method of this block may also take `&self`";

/// The call of a completer named by `complete = path` in an `#[mcp_server]` block: a method
/// of the block is called directly, with `&self` when it takes it and the request's
/// `&Ctx` when it takes three parameters; anything else goes through
/// `__private::complete_with` like a completer outside a server (`Self` made the server's
/// type, since the handler is a wrapper).
fn completer(cx: &Ctxt, scope: &Scope, path: &syn::Path) -> TokenStream {
    let krate = &scope.krate;
    let self_ty = &scope.self_ty;
    let Some(sig) = scope.method(path) else {
        let span = syn::spanned::Spanned::span(path);
        if path.segments.len() > 1 && path.segments[0].ident == "Self" {
            let rest = path.segments.iter().skip(1);
            let full = quote_spanned!(span=> <#self_ty>#(::#rest)*);
            return quote_spanned!(span=> #krate::__private::complete_with(#full, __ctx, argument, value));
        }
        return quote_spanned!(span=> #krate::__private::complete_with(#path, __ctx, argument, value));
    };
    let ident = &sig.ident;
    let typed = sig
        .inputs
        .iter()
        .filter(|i| matches!(i, syn::FnArg::Typed(_)))
        .count();
    let args = match typed {
        _ if sig.asyncness.is_none() => {
            cx.error_spanned_by(path, format!("`{ident}` is not `async`: {COMPLETER_SHAPE}"));
            return quote!(::std::boxed::Box::pin(async { ::std::vec::Vec::new() }));
        }
        2 => quote!(argument, value),
        3 => quote!(__ctx, argument, value),
        n => {
            cx.error_spanned_by(
                path,
                format!("`{ident}` takes {n} parameter(s) besides `&self`: {COMPLETER_SHAPE}"),
            );
            return quote!(::std::boxed::Box::pin(async { ::std::vec::Vec::new() }));
        }
    };
    let call = match sig.receiver() {
        None => quote_spanned!(ident.span()=> <#self_ty>::#ident(#args)),
        Some(r) if r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none() => {
            quote_spanned!(ident.span()=> self.0.#ident(#args))
        }
        Some(r) => {
            cx.error_spanned_by(
                r,
                "a completer takes `&self`: one server answers every completion at once",
            );
            return quote!(::std::boxed::Box::pin(async { ::std::vec::Vec::new() }));
        }
    };
    quote_spanned!(ident.span()=> #krate::__private::box_send_future(#call))
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
