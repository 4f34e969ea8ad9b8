//! Cross-crate integration tests live in `tests/*.rs`; [`support`] holds what they share.

pub mod support;
