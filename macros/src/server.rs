//! `#[mcp_server]` expansion: `#[mcp_tool]` methods of an impl block become tools that share
//! the server state through an `Arc`, registered together with `Server::tools`.

use crate::common::{krate, with_errors};
use crate::internals::ast::Function;
use crate::internals::attr::{Args, Kind};
use crate::internals::ctxt::Ctxt;
use crate::tool::{Generated, KEYS as TOOL_KEYS, ToolAttrs, generate};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{ImplItem, ItemImpl};

const KEYS: &[(&str, Kind)] = &[("crate", Kind::Path)];

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut block: ItemImpl = match syn::parse2(item) {
        Ok(b) => b,
        Err(e) => {
            return syn::Error::new(e.span(), "`#[mcp_server]` goes on an inherent `impl` block")
                .to_compile_error();
        }
    };
    let cx = Ctxt::new();
    let args = Args::parse(attr, KEYS, &cx);
    let krate = krate(args.path("crate"));
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
    let self_ty = block.self_ty.clone();
    let mut tools = Vec::new();
    let mut names: Vec<(String, Span)> = Vec::new();
    for item in block.items.iter_mut() {
        let ImplItem::Fn(method) = item else { continue };
        let Some(pos) = method
            .attrs
            .iter()
            .position(|a| a.path().is_ident("mcp_tool"))
        else {
            continue;
        };
        let attr = method.attrs.remove(pos);
        let tokens = match &attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(l) => l.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                cx.error_spanned_by(nv, "use `#[mcp_tool]` or `#[mcp_tool(...)]`");
                continue;
            }
        };
        let tool_args = Args::parse(tokens, TOOL_KEYS, &cx);
        let parsed = Function::from_sig(&cx, &method.attrs, &mut method.sig, "tool");
        if parsed.receiver.is_none() {
            cx.error_spanned_by(&method.sig.ident, "a tool in an `#[mcp_server]` impl takes `&self`; move associated functions out or add `&self`");
        }
        let mut attrs =
            ToolAttrs::from_args(&cx, &tool_args, &method.sig.ident, parsed.docs.as_ref());
        attrs.krate = krate.clone();
        crate::tool::check_key_set(&cx, &parsed, &attrs);
        if let Some((_, _)) = names.iter().find(|(n, _)| *n == attrs.name) {
            cx.syn_error(syn::Error::new(
                attrs.name_span,
                format!("duplicate tool name `{}` in this server", attrs.name),
            ));
            continue;
        }
        names.push((attrs.name.clone(), attrs.name_span));
        tools.push((method.sig.clone(), parsed, attrs));
    }
    if let Err(e) = cx.check() {
        return with_errors(e, quote!(#block));
    }
    let mut structs = Vec::new();
    let mut constructors = Vec::new();
    for (sig, parsed, attrs) in &tools {
        let method = &sig.ident;
        let wrapper = format_ident!("__TracksuitTool_{}", method);
        let Generated {
            args_struct,
            tool_items,
        } = generate(
            parsed,
            attrs,
            sig,
            |call_args| quote!(self.0.#method(#(#call_args),*)),
        );
        structs.push(quote! {
            #[allow(non_camel_case_types)]
            struct #wrapper(::std::sync::Arc<#self_ty>);

            const _: () = {
                #args_struct
                static __SCHEMAS: #krate::__private::ToolSchemas = #krate::__private::ToolSchemas::new();

                #[automatically_derived]
                impl #krate::ToolHandler for #wrapper {
                    #tool_items
                }
            };
        });
        constructors.push(quote!(::std::sync::Arc::new(#wrapper(::core::clone::Clone::clone(&state))) as ::std::sync::Arc<dyn #krate::ToolHandler>));
    }
    quote! {
        #block

        const _: () = {
            #(#structs)*

            #[automatically_derived]
            impl #krate::__private::ServerTools for #self_ty {
                fn tools_of(state: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::ToolHandler>> {
                    ::std::vec![#(#constructors),*]
                }
            }

            #[automatically_derived]
            impl #krate::__private::ToolSet for #self_ty {
                fn into_tools(self) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::ToolHandler>> {
                    #krate::__private::ToolSet::into_tools(::std::sync::Arc::new(self))
                }
            }
        };
    }
}
