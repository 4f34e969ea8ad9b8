//! The attribute grammar shared by the macros: `key`, `key = "string"`,
//! `key = path`, `key = ["a", "b"]`, comma-separated. Unknown keys get a suggestion,
//! duplicates are reported at the second occurrence, and values of the wrong kind at the
//! value.

use super::check::suggest;
use super::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Token, bracketed};

/// What a key's value must be.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `key` alone.
    Flag,
    /// `key = "text"`.
    Str,
    /// `key = some::path`.
    Path,
    /// `key = ["a", "b"]`.
    StrList,
    /// `key = 3` (a non-negative integer).
    Int,
    /// `key = -1.5` (any number).
    Num,
    /// `key = "s"`, a number, or `true` / `false`.
    Lit,
}

/// A parsed value.
pub enum Value {
    Flag,
    Str(LitStr),
    Path(syn::Path),
    StrList(Vec<LitStr>),
    /// A number: its value and whether it was written as an integer.
    Num(f64, bool, Span),
    Bool(bool, Span),
}

struct Item {
    key: Ident,
    value: Value,
    value_span: Span,
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = Ident::parse_any(input)?;
        if !input.peek(Token![=]) {
            return Ok(Item {
                value_span: key.span(),
                key,
                value: Value::Flag,
            });
        }
        input.parse::<Token![=]>()?;
        let lookahead = input.lookahead1();
        if lookahead.peek(Token![-]) || lookahead.peek(syn::LitInt) || lookahead.peek(syn::LitFloat)
        {
            let negative = input.parse::<Option<Token![-]>>()?.is_some();
            let sign = if negative { -1.0 } else { 1.0 };
            if input.peek(syn::LitInt) {
                let lit: syn::LitInt = input.parse()?;
                let v: f64 = lit.base10_parse()?;
                return Ok(Item {
                    value_span: lit.span(),
                    key,
                    value: Value::Num(sign * v, true, lit.span()),
                });
            }
            let lit: syn::LitFloat = input.parse()?;
            let v: f64 = lit.base10_parse()?;
            return Ok(Item {
                value_span: lit.span(),
                key,
                value: Value::Num(sign * v, false, lit.span()),
            });
        }
        if lookahead.peek(syn::LitBool) {
            let lit: syn::LitBool = input.parse()?;
            return Ok(Item {
                value_span: lit.span(),
                key,
                value: Value::Bool(lit.value, lit.span()),
            });
        }
        if lookahead.peek(LitStr) {
            let s: LitStr = input.parse()?;
            Ok(Item {
                value_span: s.span(),
                key,
                value: Value::Str(s),
            })
        } else if lookahead.peek(syn::token::Bracket) {
            let content;
            let bracket = bracketed!(content in input);
            let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
            Ok(Item {
                value_span: bracket.span.join(),
                key,
                value: Value::StrList(list.into_iter().collect()),
            })
        } else if lookahead.peek(Ident::peek_any) || lookahead.peek(Token![::]) {
            let path = input.call(syn::Path::parse_mod_style)?;
            let span = syn::spanned::Spanned::span(&path);
            Ok(Item {
                value_span: span,
                key,
                value: Value::Path(path),
            })
        } else {
            Err(lookahead.error())
        }
    }
}

/// The parsed, checked arguments of one attribute.
pub struct Args {
    items: Vec<(Ident, Value)>,
}

impl Args {
    /// Parses `tokens` allowing the keys of `spec`; reports problems into `cx`.
    pub fn parse(tokens: TokenStream, spec: &[(&str, Kind)], cx: &Ctxt) -> Args {
        let parsed = match Punctuated::<Item, Token![,]>::parse_terminated.parse2(tokens) {
            Ok(p) => p,
            Err(e) => {
                cx.syn_error(e);
                return Args { items: Vec::new() };
            }
        };
        let keys: Vec<&str> = spec.iter().map(|(k, _)| *k).collect();
        let mut items: Vec<(Ident, Value)> = Vec::new();
        for item in parsed {
            let name = item.key.unraw().to_string();
            let Some((_, kind)) = spec.iter().find(|(k, _)| *k == name) else {
                let hint = match suggest(&name, &keys) {
                    Some(s) => format!("; did you mean `{s}`?"),
                    None => String::new(),
                };
                cx.error_spanned_by(
                    &item.key,
                    format!(
                        "unknown attribute `{name}`{hint} (expected one of: {})",
                        keys.join(", ")
                    ),
                );
                continue;
            };
            if items.iter().any(|(k, _)| k.unraw() == name) {
                cx.error_spanned_by(&item.key, format!("duplicate attribute `{name}`"));
                continue;
            }
            let ok = matches!(
                (kind, &item.value),
                (Kind::Flag, Value::Flag)
                    | (Kind::Str, Value::Str(_))
                    | (Kind::Path, Value::Path(_))
                    | (Kind::StrList, Value::StrList(_))
                    | (Kind::Num, Value::Num(..))
                    | (Kind::Lit, Value::Str(_) | Value::Num(..) | Value::Bool(..))
            ) || matches!((kind, &item.value), (Kind::Int, Value::Num(v, true, _)) if *v >= 0.0);
            if !ok {
                let expected = match kind {
                    Kind::Flag => format!("`{name}` takes no value"),
                    Kind::Str => format!("`{name}` expects a string: `{name} = \"...\"`"),
                    Kind::Path => format!("`{name}` expects a path: `{name} = some::path`"),
                    Kind::StrList => {
                        format!("`{name}` expects a list of strings: `{name} = [\"...\"]`")
                    }
                    Kind::Int => format!("`{name}` expects a non-negative integer: `{name} = 3`"),
                    Kind::Num => format!("`{name}` expects a number: `{name} = 1.5`"),
                    Kind::Lit => format!("`{name}` expects a string, number or boolean"),
                };
                cx.syn_error(syn::Error::new(item.value_span, expected));
                continue;
            }
            items.push((item.key, item.value));
        }
        Args { items }
    }

    fn get(&self, key: &str) -> Option<&(Ident, Value)> {
        self.items.iter().find(|(k, _)| k.unraw() == key)
    }

    /// Whether a flag is set.
    pub fn flag(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// A string value.
    pub fn str(&self, key: &str) -> Option<&LitStr> {
        match self.get(key) {
            Some((_, Value::Str(s))) => Some(s),
            _ => None,
        }
    }

    /// A path value.
    pub fn path(&self, key: &str) -> Option<&syn::Path> {
        match self.get(key) {
            Some((_, Value::Path(p))) => Some(p),
            _ => None,
        }
    }

    /// A numeric value.
    pub fn num(&self, key: &str) -> Option<f64> {
        match self.get(key) {
            Some((_, Value::Num(v, _, _))) => Some(*v),
            _ => None,
        }
    }

    /// The raw value of `key`.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.get(key).map(|(_, v)| v)
    }

    /// A string-list value.
    pub fn list(&self, key: &str) -> Option<&[LitStr]> {
        match self.get(key) {
            Some((_, Value::StrList(l))) => Some(l),
            _ => None,
        }
    }
}
