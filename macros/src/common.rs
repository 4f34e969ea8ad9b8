//! Helpers every expansion shares: the runtime crate path and the debug printer.

use crate::internals::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::quote;

/// The path to the runtime crate: `crate = path` if given, else `::tracksuit`.
pub fn krate(path: Option<&syn::Path>) -> TokenStream {
    match path {
        Some(p) => quote!(#p),
        None => quote!(::tracksuit),
    }
}

/// Prints the expansion when `TRACKSUIT_MACROS_DEBUG` is set.
pub fn debug(name: &str, tokens: TokenStream) -> TokenStream {
    if std::env::var_os("TRACKSUIT_MACROS_DEBUG").is_some_and(|v| v != "0") {
        eprintln!("--- #[{name}] expansion ---\n{tokens}\n---");
    }
    tokens
}

/// `compile_error!`s for an error, beside the fallback tokens.
pub fn with_errors(error: syn::Error, fallback: TokenStream) -> TokenStream {
    let errors = error.to_compile_error();
    quote!(#errors #fallback)
}

/// `var.field = Some("..".into());` when there is a value; nothing otherwise (descriptors
/// start with every optional field `None`).
pub fn set_opt(var: &str, field: &str, v: Option<&str>) -> TokenStream {
    let var = syn::Ident::new(var, proc_macro2::Span::call_site());
    let field = syn::Ident::new(field, proc_macro2::Span::call_site());
    match v {
        Some(s) => quote!(#var.#field = ::core::option::Option::Some(#s.into());),
        None => TokenStream::new(),
    }
}

/// `Option<String>` tokens for an optional literal.
pub fn opt_string(v: Option<&str>) -> TokenStream {
    match v {
        Some(s) => quote!(::core::option::Option::Some(::std::string::String::from(#s))),
        None => quote!(::core::option::Option::None),
    }
}

/// The annotated function, still a function of the same name (so the name stays an ordinary
/// identifier in its module, and the function stays callable): its body becomes an `async`
/// block tagged with a handler type defined inside the function, which is how
/// `Server::tool(name)` finds the handler. `handler` names the trait (`ToolHandler`, ...),
/// `items` are the handler impl's items and `support` the items it uses (an arguments
/// struct, statics); all of them live inside the function's body, none in the user's module.
pub fn tagged_fn(
    func: &syn::ItemFn,
    krate: &TokenStream,
    handler: &str,
    support: TokenStream,
    items: TokenStream,
) -> TokenStream {
    let handler = syn::Ident::new(handler, proc_macro2::Span::call_site());
    let attrs = &func.attrs;
    let vis = &func.vis;
    let mut sig = func.sig.clone();
    sig.asyncness = None;
    let ret = match &func.sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let captures = name_elided_lifetimes(&mut sig);
    // `impl Trait` parameters (refused, but emitted in the fallback) cannot be listed.
    let apit = sig
        .inputs
        .iter()
        .any(|i| matches!(i, syn::FnArg::Typed(t) if matches!(*t.ty, syn::Type::ImplTrait(_))));
    let captures = (!apit).then(|| quote!(+ use<#(#captures),*>));
    sig.output = syn::parse_quote! {
        -> impl ::core::future::Future<Output = #ret> + #krate::__private::Generated<dyn #krate::#handler> #captures
    };
    let block = &func.block;
    let rebind = unshadow_params(&mut sig);
    // The user's block is the `async` block's body itself (its statements after the rebinding
    // when there is one), never a block inside a block: `{ query }` must not become
    // `{ { query } }`, which lints (`unused_braces`) at the user's braces.
    let body = if rebind.is_empty() {
        quote!(#block)
    } else {
        let stmts = &block.stmts;
        quote!({ #rebind #(#stmts)* })
    };
    let version = version_check(krate);
    quote! {
        #(#attrs)*
        #vis #sig {
            #[derive(::core::default::Default)]
            struct __TracksuitHandler;

            #version

            #support

            #[automatically_derived]
            impl #krate::#handler for __TracksuitHandler {
                #items
            }

            #krate::__private::tagged::<__TracksuitHandler, _>(async move #body)
        }
    }
}

/// A parameter named like its function (`fn limit(limit: u32)`) would shadow the function
/// for the handler inside the body, which calls the function by name: such a parameter takes
/// a generated name in the signature and is bound to its own name again inside the body.
fn unshadow_params(sig: &mut syn::Signature) -> TokenStream {
    let name = sig.ident.clone();
    let mut rebind = TokenStream::new();
    for (i, input) in sig.inputs.iter_mut().enumerate() {
        let syn::FnArg::Typed(typed) = input else {
            continue;
        };
        let syn::Pat::Ident(pat) = &*typed.pat else {
            continue;
        };
        if pat.ident != name {
            continue;
        }
        let renamed = syn::Ident::new(&format!("__tracksuit_param{i}"), pat.ident.span());
        let original = pat.clone();
        rebind.extend(quote!(let #original = #renamed;));
        *typed.pat = syn::parse_quote!(#renamed);
    }
    rebind
}

/// Names the lifetimes elided in the parameters (`&Ctx` → `&'__tracksuit0 Ctx`) and returns
/// every generic parameter, for the `use<..>` of the returned future: it captures them all,
/// as the `async fn` did, in any edition.
fn name_elided_lifetimes(sig: &mut syn::Signature) -> Vec<TokenStream> {
    use syn::visit_mut::VisitMut;
    struct Namer(Vec<syn::Lifetime>);
    impl Namer {
        fn fresh(&mut self, span: proc_macro2::Span) -> syn::Lifetime {
            let lt = syn::Lifetime::new(&format!("'__tracksuit{}", self.0.len()), span);
            self.0.push(lt.clone());
            lt
        }
    }
    impl VisitMut for Namer {
        fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
            if r.lifetime.is_none() {
                r.lifetime = Some(self.fresh(r.and_token.span));
            }
            self.visit_type_mut(&mut r.elem);
        }
        fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
            if lt.ident == "_" {
                *lt = self.fresh(lt.apostrophe);
            }
        }
        // Elision inside these is their own (higher-ranked), not the function's.
        fn visit_type_bare_fn_mut(&mut self, _: &mut syn::TypeBareFn) {}
        fn visit_parenthesized_generic_arguments_mut(
            &mut self,
            _: &mut syn::ParenthesizedGenericArguments,
        ) {
        }
        fn visit_type_impl_trait_mut(&mut self, _: &mut syn::TypeImplTrait) {}
    }
    let mut namer = Namer(Vec::new());
    for input in sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(arg) = input {
            namer.visit_type_mut(&mut arg.ty);
        }
    }
    for lt in &namer.0 {
        sig.generics
            .params
            .push(syn::GenericParam::Lifetime(syn::LifetimeParam::new(
                lt.clone(),
            )));
    }
    sig.generics
        .params
        .iter()
        .map(|p| match p {
            syn::GenericParam::Lifetime(l) => {
                let lt = &l.lifetime;
                quote!(#lt)
            }
            syn::GenericParam::Type(t) => {
                let i = &t.ident;
                quote!(#i)
            }
            syn::GenericParam::Const(c) => {
                let i = &c.ident;
                quote!(#i)
            }
        })
        .collect()
}

/// `const _: () = krate::__private::expects_tracksuit_X_Y_Z;`, X.Y.Z being this crate's
/// version: a runtime of another version has no such item, so the mismatch is a compile
/// error naming the version the macros expect.
pub fn version_check(krate: &TokenStream) -> TokenStream {
    let version = env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_");
    let marker = syn::Ident::new(
        &format!("expects_tracksuit_{version}"),
        proc_macro2::Span::call_site(),
    );
    quote!(const _: () = #krate::__private::#marker;)
}

/// The handler's `scopes()` method (the fixed scopes) and `scope_rule()` (the scopes with
/// placeholders, and `scopes_with`); nothing for what is not required.
impl quote::ToTokens for crate::internals::attr::Scopes {
    fn to_tokens(&self, out: &mut TokenStream) {
        let krate = &self.krate;
        let (templated, fixed): (Vec<_>, Vec<_>) = self
            .list
            .iter()
            .partition(|lit| !crate::internals::attr::placeholders(&lit.value()).is_empty());
        if !fixed.is_empty() {
            out.extend(quote! {
                fn scopes(&self) -> ::std::vec::Vec<::std::string::String> {
                    ::std::vec![#(::std::string::String::from(#fixed)),*]
                }
            });
        }
        let mut rules = Vec::new();
        if !templated.is_empty() {
            rules.push(quote!(#krate::ScopeRule::template([#(#templated),*])));
        }
        if let Some(path) = &self.with {
            // Spanned at the path: a function of the wrong shape is reported there.
            rules.push(quote::quote_spanned!(syn::spanned::Spanned::span(path)=>
                #krate::ScopeRule::typed(#path)));
        }
        if let Some((first, rest)) = rules.split_first() {
            out.extend(quote! {
                fn scope_rule(&self) -> ::core::option::Option<#krate::ScopeRule> {
                    ::core::option::Option::Some(#first #(.and(#rest))*)
                }
            });
        }
    }
}

/// The argument for a borrowed parameter recognised as the context by type (`&McpCtx`):
/// `&<McpCtx as FromCtx>::from_ctx(&__ctx)`, spanned at the type so a type that is not the
/// context is reported there.
pub fn ctx_by_type(ty: &syn::Type, krate: &TokenStream) -> TokenStream {
    let inner = match ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    quote::quote_spanned!(syn::spanned::Spanned::span(inner)=>
        &<#inner as #krate::FromCtx>::from_ctx(&__ctx))
}

/// The call of a completer named by `complete = path` outside an `#[mcp_server]` block:
/// through `__private::complete_with`, which takes the `(argument, value)` and
/// `(ctx, argument, value)` forms alike (told apart by the function's type), spanned at the
/// path so a function of neither form is one error there.
/// `Self::..` names nothing a free function can reach (inside the generated handler it
/// would be the handler's own type), so it is an error there naming what to write instead.
pub fn free_completer<'a>(
    cx: &'a Ctxt,
    krate: &'a TokenStream,
) -> impl Fn(&syn::Path) -> TokenStream + 'a {
    move |path| {
        if path.segments.first().is_some_and(|s| s.ident == "Self") {
            cx.error_spanned_by(path, "`Self` names no type here: this item is a free function, not a method of an `#[mcp_server]` block; name the completer by its path (`names`, or `Type::names` for an associated function)");
            return quote::quote!(::std::boxed::Box::pin(async { ::std::vec::Vec::new() }));
        }
        quote::quote_spanned!(syn::spanned::Spanned::span(path)=>
            #krate::__private::complete_with(#path, __ctx, argument, value))
    }
}
