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
