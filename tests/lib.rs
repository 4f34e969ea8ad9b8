//! Cross-crate integration tests live in `tests/*.rs`; [`support`] holds what they share.

pub mod support;

/// The code in `docs/eras.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/eras.md")]
pub struct ErasGuide;

/// The code in `docs/scaling.md` (feature `postgres`), compiled as doctests.
#[cfg(all(doctest, feature = "postgres"))]
#[doc = include_str!("../docs/scaling.md")]
pub struct ScalingGuide;
/// The code in `docs/middleware.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/middleware.md")]
pub struct MiddlewareGuide;
/// The code in `docs/composing.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/composing.md")]
pub struct ComposingGuide;
/// The code in `docs/proxy.md` (feature `proxy`), compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/proxy.md")]
pub struct ProxyGuide;
/// The code in `docs/otel.md` (feature `otel`), compiled as doctests.
#[cfg(all(doctest, feature = "otel"))]
#[doc = include_str!("../docs/otel.md")]
pub struct OtelGuide;
/// The code in `docs/auth.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/auth.md")]
pub struct AuthGuide;
/// The code in `docs/tools.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/tools.md")]
pub struct ToolsGuide;
/// The code in `docs/client.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/client.md")]
pub struct ClientGuide;
/// The code in `docs/deploying.md`, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/deploying.md")]
pub struct DeployingGuide;
/// The code in `docs/tasks.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/tasks.md")]
pub struct TasksGuide;

/// The trybuild pass case `ui/pass/lint_free.rs`, compiled here too so that
/// `cargo clippy --all-targets -- -D warnings` checks the macros' output in it (trybuild runs
/// only rustc). Kept as written: its one-line bodies are the point.
#[cfg(test)]
#[rustfmt::skip]
#[path = "ui/pass/lint_free.rs"]
mod lint_free;

#[cfg(test)]
#[test]
fn the_lint_free_items_build_a_server() {
    lint_free::main();
}
