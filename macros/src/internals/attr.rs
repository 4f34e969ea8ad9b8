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

/// An attribute key. Keys are the constants below, never string literals, so a typo in
/// the macros' own code is a compile error rather than a look-up that silently finds
/// nothing (serde_derive's `internals/symbol.rs`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Symbol(&'static str);

impl Symbol {
    /// The key as written in the attribute.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for Symbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

pub const AFTER: Symbol = Symbol("after");
pub const APP: Symbol = Symbol("app");
pub const CLIENT: Symbol = Symbol("client");
pub const COMPLETE: Symbol = Symbol("complete");
pub const CRATE: Symbol = Symbol("crate");
pub const DEFAULT: Symbol = Symbol("default");
pub const DESCRIPTION: Symbol = Symbol("description");
pub const DESTRUCTIVE: Symbol = Symbol("destructive");
pub const ELICITS: Symbol = Symbol("elicits");
pub const FORMAT: Symbol = Symbol("format");
pub const ICONS: Symbol = Symbol("icons");
pub const IDEMPOTENT: Symbol = Symbol("idempotent");
pub const LEGACY_TITLES: Symbol = Symbol("legacy_titles");
pub const MAX: Symbol = Symbol("max");
pub const MAX_ITEMS: Symbol = Symbol("max_items");
pub const MAX_LENGTH: Symbol = Symbol("max_length");
pub const MESSAGE: Symbol = Symbol("message");
pub const META: Symbol = Symbol("meta");
pub const MIME_TYPE: Symbol = Symbol("mime_type");
pub const MIN: Symbol = Symbol("min");
pub const MIN_ITEMS: Symbol = Symbol("min_items");
pub const MIN_LENGTH: Symbol = Symbol("min_length");
pub const NAME: Symbol = Symbol("name");
pub const OPEN_WORLD: Symbol = Symbol("open_world");
pub const READ_ONLY: Symbol = Symbol("read_only");
pub const RENAME: Symbol = Symbol("rename");
pub const RESPONSE: Symbol = Symbol("response");
pub const SCOPES: Symbol = Symbol("scopes");
pub const SCOPES_WITH: Symbol = Symbol("scopes_with");
pub const TASK_SUPPORT: Symbol = Symbol("task_support");
pub const TITLE: Symbol = Symbol("title");
pub const UI: Symbol = Symbol("ui");
pub const URI: Symbol = Symbol("uri");

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
#[derive(Clone)]
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
    pub fn parse(tokens: TokenStream, spec: &[(Symbol, Kind)], cx: &Ctxt) -> Args {
        let parsed = match Punctuated::<Item, Token![,]>::parse_terminated.parse2(tokens) {
            Ok(p) => p,
            Err(e) => {
                cx.syn_error(e);
                return Args { items: Vec::new() };
            }
        };
        let keys: Vec<&str> = spec.iter().map(|(k, _)| k.as_str()).collect();
        let mut items: Vec<(Ident, Value)> = Vec::new();
        for item in parsed {
            let name = item.key.unraw().to_string();
            let Some((_, kind)) = spec.iter().find(|(k, _)| k.as_str() == name) else {
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

    pub fn get(&self, key: Symbol) -> Option<&(Ident, Value)> {
        self.items.iter().find(|(k, _)| k.unraw() == key.as_str())
    }

    /// Whether a flag is set.
    pub fn flag(&self, key: Symbol) -> bool {
        self.get(key).is_some()
    }

    /// A string value.
    pub fn str(&self, key: Symbol) -> Option<&LitStr> {
        match self.get(key) {
            Some((_, Value::Str(s))) => Some(s),
            _ => None,
        }
    }

    /// A path value.
    pub fn path(&self, key: Symbol) -> Option<&syn::Path> {
        match self.get(key) {
            Some((_, Value::Path(p))) => Some(p),
            _ => None,
        }
    }

    /// A numeric value.
    pub fn num(&self, key: Symbol) -> Option<f64> {
        match self.get(key) {
            Some((_, Value::Num(v, _, _))) => Some(*v),
            _ => None,
        }
    }

    /// The raw value of `key`.
    pub fn value(&self, key: Symbol) -> Option<&Value> {
        self.get(key).map(|(_, v)| v)
    }

    /// A string-list value.
    pub fn list(&self, key: Symbol) -> Option<&[LitStr]> {
        match self.get(key) {
            Some((_, Value::StrList(l))) => Some(l),
            _ => None,
        }
    }
}

/// `scopes = ["a", "b:{id}"]`: the OAuth scopes a caller's token must grant, each checked
/// as a scope token, without duplicates; empty when the key is absent. A scope with a
/// `{name}` placeholder depends on the request (see [`Scopes::check_placeholders`]);
/// `scopes_with = path` names a function computing more from the typed arguments.
/// (`common.rs` turns them into the handler's `scopes()` and `scope_rule()` methods.)
#[derive(Default)]
pub struct Scopes {
    pub list: Vec<LitStr>,
    pub with: Option<syn::Path>,
    pub krate: TokenStream,
}

/// The `{name}` placeholders of a scope, in order.
pub fn placeholders(scope: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = scope;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                out.push(&after[..close]);
                rest = &after[close + 1..];
            }
            None => {
                out.push(after);
                break;
            }
        }
    }
    out
}

impl Scopes {
    /// Each placeholder must name one of `names` (`what` says what they are, for the error,
    /// e.g. "the tool's parameters").
    pub fn check_placeholders(&self, cx: &Ctxt, names: &[String], what: &str) {
        for lit in &self.list {
            let scope = lit.value();
            for name in placeholders(&scope) {
                if !names.iter().any(|n| n == name) {
                    let known = if names.is_empty() {
                        "there are none".to_owned()
                    } else {
                        format!("one of {}", names.join(", "))
                    };
                    cx.error_spanned_by(
                        lit,
                        format!("`{{{name}}}` in scope {scope:?} names none of {what} ({known})"),
                    );
                }
            }
        }
    }

    pub fn from_args(cx: &Ctxt, args: &Args) -> Scopes {
        let krate = crate::common::krate(args.path(CRATE));
        let with = args.path(SCOPES_WITH).cloned();
        let Some(list) = args.list(SCOPES) else {
            return Scopes {
                list: Vec::new(),
                with,
                krate,
            };
        };
        if list.is_empty()
            && let Some((key, _)) = args.get(SCOPES)
        {
            cx.error_spanned_by(
                key,
                "`scopes = []` requires nothing: list at least one scope, or leave `scopes` out",
            );
        }
        let mut seen = Vec::new();
        for lit in list {
            let scope = lit.value();
            if let Err(e) = super::check::scope_token(&scope) {
                cx.error_spanned_by(lit, e);
            } else if seen.contains(&scope) {
                cx.error_spanned_by(lit, format!("scope {scope:?} is listed twice"));
            }
            seen.push(scope);
        }
        Scopes {
            list: list.to_vec(),
            with,
            krate,
        }
    }
}

// ---- `#[mcp_tool(...)]` ----

/// The keys `#[mcp_tool(...)]` accepts.
pub const TOOL_KEYS: &[(Symbol, Kind)] = &[
    (NAME, Kind::Str),
    (TITLE, Kind::Str),
    (DESCRIPTION, Kind::Str),
    (READ_ONLY, Kind::Flag),
    (DESTRUCTIVE, Kind::Flag),
    (IDEMPOTENT, Kind::Flag),
    (OPEN_WORLD, Kind::Flag),
    (ICONS, Kind::StrList),
    (META, Kind::Str),
    (UI, Kind::Str),
    (ELICITS, Kind::Path),
    (TASK_SUPPORT, Kind::Str),
    (SCOPES, Kind::StrList),
    (SCOPES_WITH, Kind::Path),
    (CLIENT, Kind::Path),
    (AFTER, Kind::Path),
    (CRATE, Kind::Path),
];

/// The values `task_support = "..."` accepts, as the spec spells them.
const TASK_SUPPORT_VALUES: &[&str] = &["forbidden", "optional", "required"];

/// What the tool descriptor needs from the attribute, checked.
pub struct ToolAttrs {
    pub name: String,
    pub name_span: Span,
    pub title: Option<String>,
    pub description: Option<String>,
    pub annotations: [(&'static str, bool); 4],
    pub icons: Vec<String>,
    pub meta: Option<String>,
    /// `ui = "ui://..."`: the MCP App the tool links to (`_meta.ui.resourceUri`).
    pub ui: Option<LitStr>,
    pub elicits: Option<syn::Path>,
    /// `Forbidden` / `Optional` / `Required`, when declared.
    pub task_support: Option<Ident>,
    pub scopes: Scopes,
    pub krate: TokenStream,
}

impl ToolAttrs {
    /// Reads and checks the attribute; `ident` is the function's name (the default tool name).
    pub fn from_args(cx: &Ctxt, args: &Args, ident: &Ident, docs: Option<&String>) -> ToolAttrs {
        let (name, name_span) = match args.str(NAME) {
            Some(lit) => (lit.value(), lit.span()),
            None => (
                ident.to_string().trim_start_matches("r#").to_owned(),
                ident.span(),
            ),
        };
        if let Err(e) = super::check::tool_name(&name) {
            match args.str(NAME) {
                Some(lit) => cx.error_spanned_by(lit, e),
                None => cx.error_spanned_by(ident, e),
            }
        }
        let ui = args.str(UI).filter(|lit| match ui_uri(&lit.value()) {
            Ok(()) => true,
            Err(e) => {
                cx.error_spanned_by(lit, e);
                false
            }
        });
        let meta = args.str(META).map(|lit| {
            match serde_json::from_str::<serde_json::Value>(&lit.value()) {
                Ok(serde_json::Value::Object(map)) => {
                    if let Some(ui) = ui
                        && map.get("ui").is_some_and(|v| !v.is_object() || v.get("resourceUri").is_some())
                    {
                        cx.error_spanned_by(
                            ui,
                            "`ui` sets `_meta.ui.resourceUri`, which `meta` already sets: keep one of them",
                        );
                    }
                }
                Ok(_) => cx.error_spanned_by(
                    lit,
                    "`meta` must be a JSON object, e.g. `meta = r#\"{\"ui\": \"x\"}\"#`",
                ),
                Err(e) => cx.error_spanned_by(lit, format!("`meta` is not valid JSON: {e}")),
            }
            lit.value()
        });
        let task_support = args.str(TASK_SUPPORT).and_then(|lit| {
            let value = lit.value();
            if TASK_SUPPORT_VALUES.contains(&value.as_str()) {
                let mut variant = value.clone();
                variant[..1].make_ascii_uppercase();
                return Some(Ident::new(&variant, lit.span()));
            }
            let hint = match suggest(&value.to_ascii_lowercase(), TASK_SUPPORT_VALUES) {
                Some(s) => format!("; did you mean \"{s}\"?"),
                None => String::new(),
            };
            cx.error_spanned_by(
                lit,
                format!(
                    "`task_support` is \"forbidden\", \"optional\" or \"required\", not {value:?}{hint}"
                ),
            );
            None
        });
        ToolAttrs {
            name,
            name_span,
            task_support,
            scopes: Scopes::from_args(cx, args),
            title: args.str(TITLE).map(LitStr::value),
            description: args
                .str(DESCRIPTION)
                .map(LitStr::value)
                .or_else(|| docs.cloned()),
            annotations: [
                ("read_only_hint", args.flag(READ_ONLY)),
                ("destructive_hint", args.flag(DESTRUCTIVE)),
                ("idempotent_hint", args.flag(IDEMPOTENT)),
                ("open_world_hint", args.flag(OPEN_WORLD)),
            ],
            icons: args
                .list(ICONS)
                .unwrap_or_default()
                .iter()
                .map(LitStr::value)
                .collect(),
            meta,
            ui: ui.cloned(),
            elicits: args.path(ELICITS).cloned(),
            krate: crate::common::krate(args.path(CRATE)),
        }
    }
}

/// An MCP App's URI: `ui://` and something after it, without whitespace.
fn ui_uri(uri: &str) -> Result<(), String> {
    match uri.strip_prefix("ui://") {
        Some(rest) if !rest.is_empty() && !rest.contains(char::is_whitespace) => Ok(()),
        _ => Err(format!(
            "an MCP App's URI is `ui://...` (e.g. \"ui://game/board.html\"), not {uri:?} (SEP-1865)"
        )),
    }
}

/// `description = ".."`, else the item's docs.
fn description(args: &Args, docs: Option<&String>) -> Option<String> {
    args.str(DESCRIPTION)
        .map(LitStr::value)
        .or_else(|| docs.cloned())
}

// ---- `#[mcp_prompt(...)]` ----

/// The keys `#[mcp_prompt(...)]` accepts.
pub const PROMPT_KEYS: &[(Symbol, Kind)] = &[
    (NAME, Kind::Str),
    (TITLE, Kind::Str),
    (DESCRIPTION, Kind::Str),
    (COMPLETE, Kind::Path),
    (SCOPES, Kind::StrList),
    (SCOPES_WITH, Kind::Path),
    (CRATE, Kind::Path),
];

/// What the prompt descriptor and handler need from the attribute, checked.
pub struct PromptAttrs {
    pub name: String,
    pub name_span: Span,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The completion function.
    pub complete: Option<syn::Path>,
    pub scopes: Scopes,
}

impl PromptAttrs {
    /// Reads the attribute; `ident` is the function's name (the default prompt name).
    pub fn from_args(cx: &Ctxt, args: &Args, ident: &Ident, docs: Option<&String>) -> Self {
        let (name, name_span) = match args.str(NAME) {
            Some(l) => (l.value(), l.span()),
            None => (ident.to_string(), ident.span()),
        };
        PromptAttrs {
            name,
            name_span,
            title: args.str(TITLE).map(LitStr::value),
            description: description(args, docs),
            complete: args.path(COMPLETE).cloned(),
            scopes: Scopes::from_args(cx, args),
        }
    }
}

// ---- `#[mcp_resource(...)]` ----

/// The MIME type of an MCP App's HTML (`tracksuit::apps::APP_MIME`).
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// The keys `#[mcp_resource(...)]` accepts.
pub const RESOURCE_KEYS: &[(Symbol, Kind)] = &[
    (URI, Kind::Str),
    (NAME, Kind::Str),
    (TITLE, Kind::Str),
    (DESCRIPTION, Kind::Str),
    (MIME_TYPE, Kind::Str),
    (APP, Kind::Flag),
    (COMPLETE, Kind::Path),
    (SCOPES, Kind::StrList),
    (SCOPES_WITH, Kind::Path),
    (CRATE, Kind::Path),
];

/// What the resource descriptor and handler need from the attribute, checked (the URI's
/// template is checked against the signature in `resource.rs`).
pub struct ResourceAttrs {
    pub uri: Option<LitStr>,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    /// `app`: an MCP App (`ui://`, `text/html;profile=mcp-app`).
    pub app: bool,
    /// The completion function (templates).
    pub complete: Option<syn::Path>,
    pub scopes: Scopes,
}

impl ResourceAttrs {
    /// Reads the attribute; `ident` is the function's name (the default resource name).
    pub fn from_args(cx: &Ctxt, args: &Args, ident: &Ident, docs: Option<&String>) -> Self {
        let app = args.flag(APP);
        let mut mime_type = args.str(MIME_TYPE).map(LitStr::value);
        if app {
            if let Some(lit) = args.str(MIME_TYPE) {
                cx.error_spanned_by(
                    lit,
                    format!("`app` sets the MIME type to {APP_MIME:?}: leave `mime_type` out"),
                );
            }
            if let Some(lit) = args.str(URI)
                && let Err(e) = ui_uri(&lit.value())
            {
                cx.error_spanned_by(lit, e);
            }
            mime_type = Some(APP_MIME.to_owned());
        }
        ResourceAttrs {
            app,
            uri: args.str(URI).cloned(),
            name: args
                .str(NAME)
                .map(LitStr::value)
                .unwrap_or_else(|| ident.to_string()),
            title: args.str(TITLE).map(LitStr::value),
            description: description(args, docs),
            mime_type,
            complete: args.path(COMPLETE).cloned(),
            scopes: Scopes::from_args(cx, args),
        }
    }
}

// ---- `#[derive(Elicits)]`: `#[elicit(...)]` on the container, fields and variants ----

/// The tokens of the `#[elicit(...)]` attributes among `attrs`, joined (a malformed one is
/// reported into `cx`).
fn elicit_tokens(attrs: &[syn::Attribute], cx: &Ctxt) -> TokenStream {
    let mut out = TokenStream::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("elicit")) {
        match &attr.meta {
            syn::Meta::List(l) => {
                if !out.is_empty() {
                    out.extend(quote::quote!(,));
                }
                out.extend(l.tokens.clone());
            }
            other => cx.error_spanned_by(other, "use `#[elicit(key = value, ...)]`"),
        }
    }
    out
}

/// Whether any `#[elicit(...)]` among `attrs` names `key` (read without reporting: the
/// attribute is parsed for real later).
pub fn elicit_has(attrs: &[syn::Attribute], key: Symbol) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("elicit"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|meta| {
                found |= meta.path.is_ident(key.as_str());
                if meta.input.peek(Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                }
                Ok(())
            });
            found
        })
}

const CONTAINER_KEYS: &[(Symbol, Kind)] = &[(CRATE, Kind::Path), (LEGACY_TITLES, Kind::Flag)];

/// `#[elicit(crate = path, legacy_titles)]` on the deriving type.
pub struct ContainerAttrs {
    pub krate: TokenStream,
    pub legacy_titles: bool,
}

impl ContainerAttrs {
    pub fn from_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let args = Args::parse(elicit_tokens(attrs, cx), CONTAINER_KEYS, cx);
        ContainerAttrs {
            krate: crate::common::krate(args.path(CRATE)),
            legacy_titles: args.flag(LEGACY_TITLES),
        }
    }
}

const FIELD_KEYS: &[(Symbol, Kind)] = &[
    (TITLE, Kind::Str),
    (FORMAT, Kind::Str),
    (MIN_LENGTH, Kind::Int),
    (MAX_LENGTH, Kind::Int),
    (MIN, Kind::Num),
    (MAX, Kind::Num),
    (MIN_ITEMS, Kind::Int),
    (MAX_ITEMS, Kind::Int),
    (DEFAULT, Kind::Lit),
];

/// `#[elicit(...)]` on a form's field. Bounds are `(key, value)` so checks can name the key.
pub struct FieldAttrs {
    pub title: Option<String>,
    pub format: Option<LitStr>,
    /// `min_length`, `max_length`.
    pub lengths: [(Symbol, Option<f64>); 2],
    /// `min`, `max`.
    pub bounds: [(Symbol, Option<f64>); 2],
    /// `min_items`, `max_items`.
    pub items: [(Symbol, Option<f64>); 2],
    pub default: Option<Value>,
}

impl FieldAttrs {
    pub fn from_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let args = Args::parse(elicit_tokens(attrs, cx), FIELD_KEYS, cx);
        let pair = |a: Symbol, b: Symbol| [(a, args.num(a)), (b, args.num(b))];
        FieldAttrs {
            title: args.str(TITLE).map(LitStr::value),
            format: args.str(FORMAT).cloned(),
            lengths: pair(MIN_LENGTH, MAX_LENGTH),
            bounds: pair(MIN, MAX),
            items: pair(MIN_ITEMS, MAX_ITEMS),
            default: args.value(DEFAULT).cloned(),
        }
    }
}

const OPTION_KEYS: &[(Symbol, Kind)] = &[(TITLE, Kind::Str), (RENAME, Kind::Str)];

/// `#[elicit(title = "..", rename = "..")]` on a select enum's variant.
pub struct OptionAttrs {
    pub title: Option<LitStr>,
    pub rename: Option<String>,
}

impl OptionAttrs {
    pub fn from_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let args = Args::parse(elicit_tokens(attrs, cx), OPTION_KEYS, cx);
        OptionAttrs {
            title: args.str(TITLE).cloned(),
            rename: args.str(RENAME).map(LitStr::value),
        }
    }
}

const KEY_KEYS: &[(Symbol, Kind)] = &[(RESPONSE, Kind::Path), (MESSAGE, Kind::Str)];

/// `#[elicit(response = Form, message = "..")]` on a key set's variant.
pub struct KeyAttrs {
    pub response: Option<syn::Path>,
    /// A template: `{field}` placeholders name the key's context fields.
    pub message: Option<LitStr>,
}

impl KeyAttrs {
    pub fn from_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let args = Args::parse(elicit_tokens(attrs, cx), KEY_KEYS, cx);
        KeyAttrs {
            response: args.path(RESPONSE).cloned(),
            message: args.str(MESSAGE).cloned(),
        }
    }
}
