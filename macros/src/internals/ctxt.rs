//! An error collector that must be checked before it is dropped, so every diagnostic of a
//! macro invocation is reported together.

use std::cell::RefCell;
use std::fmt::Display;

/// Collects errors during parsing and checking.
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// An empty collector.
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanned at `tokens`.
    pub fn error_spanned_by<T: quote::ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens, message));
    }

    /// Records a syn error.
    pub fn syn_error(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }

    /// How many errors have been recorded so far (a caller compares counts to tell whether
    /// one part of the input added any).
    pub fn error_count(&self) -> usize {
        self.errors.borrow().as_ref().map_or(0, Vec::len)
    }

    /// Finishes: all errors combined into one, or `Ok`.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self
            .errors
            .borrow_mut()
            .take()
            .unwrap_or_default()
            .into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            combined.combine(e);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            // A bug in the macro, not in user code: every path must call `check` (as
            // serde_derive's `Ctxt` does). The tests catch it.
            panic!("tracksuit-macros: Ctxt dropped without check()");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ctxt;

    /// Every error is reported: the collector combines them in order.
    #[test]
    fn check_combines_every_error() {
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(a), "first");
        cx.error_spanned_by(quote::quote!(b), "second");
        let messages: Vec<String> = cx
            .check()
            .expect_err("two errors")
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
        assert!(Ctxt::new().check().is_ok());
    }

    /// A collector dropped without `check` is a bug in the macros, and panics.
    #[test]
    #[should_panic(expected = "Ctxt dropped without check()")]
    fn dropped_unchecked_panics() {
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(a), "lost");
        drop(cx);
    }
}
