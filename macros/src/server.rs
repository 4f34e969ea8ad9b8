//! `#[mcp_server]` expansion (filled in below).
use proc_macro2::TokenStream;
pub fn expand(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
