//! Compile-time behaviour of the authoring macros (trybuild): every misuse in `ui/fail`
//! must fail with the `.stderr` beside it, spanned at the user's own token; everything in
//! `ui/pass` must compile. Regenerate snapshots with `TRYBUILD=overwrite` after reading them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
