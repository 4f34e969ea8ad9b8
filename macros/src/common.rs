//! Helpers every expansion shares: the runtime crate path and the debug printer.

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

/// `Option<String>` tokens for an optional literal.
pub fn opt_string(v: Option<&str>) -> TokenStream {
    match v {
        Some(s) => quote!(::core::option::Option::Some(::std::string::String::from(#s))),
        None => quote!(::core::option::Option::None),
    }
}

/// The unit struct named after the annotated function (what users register), with the
/// function itself moved, unchanged, to the associated `name::run`.
pub fn unit_struct_with_run(func: &syn::ItemFn) -> TokenStream {
    let ident = &func.sig.ident;
    let vis = &func.vis;
    let docs: Vec<_> = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let other_attrs: Vec<_> = func
        .attrs
        .iter()
        .filter(|a| !a.path().is_ident("doc"))
        .collect();
    let mut sig = func.sig.clone();
    sig.ident = syn::Ident::new("run", ident.span());
    let block = &func.block;
    quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #ident;

        impl #ident {
            #(#docs)*
            #(#other_attrs)*
            #vis #sig #block
        }
    }
}
