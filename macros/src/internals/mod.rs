//! The macros' front end: attribute grammar, the IR of an annotated function, semantic
//! checks, and the error collector. Expansion lives in `tool.rs`, `prompt.rs`,
//! `resource.rs`.

pub mod ast;
pub mod attr;
pub mod check;
pub mod ctxt;
pub mod docs;
