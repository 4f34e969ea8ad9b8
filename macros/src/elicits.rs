//! `#[derive(Elicits)]`: a struct becomes an elicitation form, a unit-variant enum a select
//! field, and an enum with `#[elicit(response = T)]` variants a keyed elicitation set.

use crate::common::with_errors;
use crate::internals::ast::is_option;
use crate::internals::attr::{
    ContainerAttrs, FieldAttrs, KeyAttrs, OptionAttrs, RESPONSE, Value, elicit_has,
};
use crate::internals::check::suggest;
use crate::internals::ctxt::Ctxt;
use crate::internals::docs;
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, LitStr, Type};

/// `#[serde(rename = "...")]` / `#[serde(rename_all = "...")]` among `attrs`.
fn serde_attr(attrs: &[syn::Attribute], key: &str) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(key) {
                let value: syn::LitStr = meta.value()?.parse()?;
                found = Some(value.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    found
}

/// Applies a serde `rename_all` rule to a Rust name.
fn rename_all(name: &str, rule: Option<&str>, is_variant: bool) -> String {
    let words: Vec<String> = if is_variant {
        // PascalCase → words
        let mut words = Vec::new();
        let mut cur = String::new();
        for c in name.chars() {
            if c.is_uppercase() && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            cur.push(c);
        }
        words.push(cur);
        words.into_iter().map(|w| w.to_lowercase()).collect()
    } else {
        name.split('_').map(str::to_owned).collect()
    };
    let cap = |w: &String| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    match rule {
        Some("lowercase") => words.concat().to_lowercase(),
        Some("UPPERCASE") => words.concat().to_uppercase(),
        Some("snake_case") => words.join("_"),
        Some("SCREAMING_SNAKE_CASE") => words.join("_").to_uppercase(),
        Some("kebab-case") => words.join("-"),
        Some("SCREAMING-KEBAB-CASE") => words.join("-").to_uppercase(),
        Some("camelCase") => words
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.clone() } else { cap(w) })
            .collect(),
        Some("PascalCase") => words.iter().map(cap).collect(),
        _ => name.to_owned(),
    }
}

fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The type inside `Option<..>`, or the type itself.
fn unoption(ty: &Type) -> &Type {
    if let Type::Path(p) = ty
        && let Some(seg) = p.path.segments.last()
        && seg.ident == "Option"
        && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
        && let Some(syn::GenericArgument::Type(inner)) = a.args.first()
    {
        return inner;
    }
    ty
}

/// The entry point: the impls, or the errors alone.
pub fn expand(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    derive(&input).unwrap_or_else(|e| with_errors(e, TokenStream::new()))
}

/// A struct is a form, an enum of unit variants a select field, an enum whose variants say
/// `response = ..` a key set.
fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let container = ContainerAttrs::from_attrs(&cx, &input.attrs);
    let krate = &container.krate;
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`Elicits` does not support generic types: a form's schema is fixed",
        );
    }
    let out = match &input.data {
        Data::Struct(s) => form(&cx, input, &s.fields, krate),
        Data::Enum(e)
            if e.variants.iter().all(|v| matches!(v.fields, Fields::Unit))
                && !e.variants.iter().any(|v| elicit_has(&v.attrs, RESPONSE)) =>
        {
            select(&cx, input, e, krate, container.legacy_titles)
        }
        Data::Enum(e) => key_set(&cx, input, e, krate),
        Data::Union(u) => {
            cx.error_spanned_by(
                u.union_token,
                "`Elicits` goes on a struct (a form) or an enum (a select field or a key set)",
            );
            TokenStream::new()
        }
    };
    cx.check()?;
    let version = crate::common::version_check(krate);
    Ok(quote!(#version #out))
}

fn form(cx: &Ctxt, input: &DeriveInput, fields: &Fields, krate: &TokenStream) -> TokenStream {
    let Fields::Named(named) = fields else {
        cx.error_spanned_by(
            &input.ident,
            "an elicitation form needs named fields (`struct Form { name: String }`)",
        );
        return TokenStream::new();
    };
    let ident = &input.ident;
    let mut inserts = Vec::new();
    let mut required = Vec::new();
    let rule = serde_attr(&input.attrs, "rename_all");
    for field in &named.named {
        let Some(rust_name) = field
            .ident
            .as_ref()
            .map(|i| i.to_string().trim_start_matches("r#").to_owned())
        else {
            continue;
        };
        let name = serde_attr(&field.attrs, "rename")
            .unwrap_or_else(|| rename_all(&rust_name, rule.as_deref(), false));
        let schema = field_schema(cx, field, &name, krate);
        inserts.push(quote!(properties.insert(::std::string::String::from(#name), #schema);));
        if !is_option(&field.ty) {
            required.push(name);
        }
    }
    quote! {
        #[automatically_derived]
        impl #krate::elicitation::ElicitForm for #ident {
            fn requested_schema() -> #krate::protocol::ElicitationSchema {
                let mut properties = #krate::protocol::IndexMap::new();
                #(#inserts)*
                #krate::protocol::ElicitationSchema {
                    schema: ::core::option::Option::None,
                    kind: #krate::protocol::ObjectType::Object,
                    properties,
                    required: ::core::option::Option::Some(::std::vec![#(::std::string::String::from(#required)),*]),
                }
            }

            // The schema is fixed (no generics): made on first use, then lent.
            fn requested_schema_cached() -> ::std::borrow::Cow<'static, #krate::protocol::ElicitationSchema> {
                static SCHEMA: ::std::sync::OnceLock<#krate::protocol::ElicitationSchema> =
                    ::std::sync::OnceLock::new();
                ::std::borrow::Cow::Borrowed(SCHEMA.get_or_init(
                    <Self as #krate::elicitation::ElicitForm>::requested_schema,
                ))
            }

            // ... and written as JSON text once, which every question then takes.
            fn requested_schema_text() -> ::core::option::Option<&'static #krate::serde_json::value::RawValue> {
                static TEXT: ::std::sync::OnceLock<::std::boxed::Box<#krate::serde_json::value::RawValue>> =
                    ::std::sync::OnceLock::new();
                let text = TEXT.get_or_init(|| {
                    let schema = <Self as #krate::elicitation::ElicitForm>::requested_schema_cached();
                    // A schema always serialises; the default (`null`) is never taken.
                    #krate::serde_json::value::to_raw_value(&*schema).unwrap_or_default()
                });
                ::core::option::Option::Some(&**text)
            }
        }
    }
}

/// What a field's type is, as far as its `#[elicit(..)]` checks care.
#[derive(Clone, Copy, PartialEq)]
enum FieldKind {
    Text,
    Bool,
    Number,
    Other,
}

impl FieldKind {
    fn of(ty: &Type) -> Self {
        match last_ident(unoption(ty)).unwrap_or_default().as_str() {
            "String" => FieldKind::Text,
            "bool" => FieldKind::Bool,
            "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "isize" | "usize"
            | "f32" | "f64" => FieldKind::Number,
            _ => FieldKind::Other,
        }
    }
}

/// A field's schema: `<Ty as FormField>::field_schema(FieldMeta { .. })`, with the keys of
/// its `#[elicit(..)]` checked against its type.
fn field_schema(cx: &Ctxt, field: &syn::Field, name: &str, krate: &TokenStream) -> TokenStream {
    let attrs = FieldAttrs::from_attrs(cx, &field.attrs);
    let ty = &field.ty;
    let kind = FieldKind::of(ty);
    if let Some(lit) = &attrs.format {
        if !matches!(lit.value().as_str(), "email" | "uri" | "date" | "date-time") {
            cx.error_spanned_by(
                lit,
                "`format` is one of \"email\", \"uri\", \"date\", \"date-time\"",
            );
        } else if kind != FieldKind::Text {
            cx.error_spanned_by(lit, "`format` applies to `String` fields");
        }
    }
    for (key, v) in attrs.lengths {
        if v.is_some() && kind != FieldKind::Text {
            cx.error_spanned_by(ty, format!("`{key}` applies to `String` fields"));
        }
    }
    for (key, v) in attrs.bounds {
        if v.is_some() && kind != FieldKind::Number {
            cx.error_spanned_by(ty, format!("`{key}` applies to number fields"));
        }
    }
    let default = attrs
        .default
        .as_ref()
        .and_then(|v| default_value(cx, v, name, kind, krate));
    // Only the fields that are set; the rest come from `FieldMeta::default()`.
    let some = |v: TokenStream| Some(quote!(::core::option::Option::Some(#v)));
    let string = |s: Option<String>| s.and_then(|s| some(quote!(::std::string::String::from(#s))));
    let int = |v: Option<f64>| {
        v.and_then(|n| {
            let n = n as u64;
            some(quote!(#n))
        })
    };
    let float = |v: Option<f64>| v.and_then(|n| some(quote!(#n)));
    let set = [
        ("title", string(attrs.title.clone())),
        ("description", string(docs::collect(&field.attrs))),
        ("min_length", int(attrs.lengths[0].1)),
        ("max_length", int(attrs.lengths[1].1)),
        (
            "format",
            attrs
                .format
                .as_ref()
                .and_then(|l| some(l.value().to_token_stream())),
        ),
        ("minimum", float(attrs.bounds[0].1)),
        ("maximum", float(attrs.bounds[1].1)),
        ("min_items", int(attrs.items[0].1)),
        ("max_items", int(attrs.items[1].1)),
        ("default", default.and_then(some)),
    ]
    .into_iter()
    .filter_map(|(f, v)| {
        let f = format_ident!("{f}");
        v.map(|v| quote!(#f: #v,))
    });
    quote_spanned! {ty.span()=>
        <#ty as #krate::elicitation::FormField>::field_schema(#krate::__private::FieldMeta {
            #(#set)*
            ..::core::default::Default::default()
        })
    }
}

/// `serde_json::Value::from(..)` of a field's default, checked against the field's kind.
fn default_value(
    cx: &Ctxt,
    value: &Value,
    name: &str,
    kind: FieldKind,
    krate: &TokenStream,
) -> Option<TokenStream> {
    let (what, span, ok, v) = match value {
        Value::Str(s) => (
            "a string",
            s.span(),
            !matches!(kind, FieldKind::Bool | FieldKind::Number),
            quote!(#s),
        ),
        Value::Bool(b, span) => ("a boolean", *span, kind == FieldKind::Bool, quote!(#b)),
        Value::Num(v, true, span) => {
            let v = *v as i64;
            ("a number", *span, kind == FieldKind::Number, quote!(#v))
        }
        Value::Num(v, false, span) => ("a number", *span, kind == FieldKind::Number, quote!(#v)),
        _ => return None,
    };
    if !ok {
        cx.syn_error(syn::Error::new(
            span,
            format!("this default is {what}, but `{name}` is not"),
        ));
    }
    Some(quote!(#krate::serde_json::Value::from(#v)))
}

fn select(
    cx: &Ctxt,
    input: &DeriveInput,
    e: &syn::DataEnum,
    krate: &TokenStream,
    legacy: bool,
) -> TokenStream {
    let ident = &input.ident;
    let rule = serde_attr(&input.attrs, "rename_all");
    let options: Vec<_> = e
        .variants
        .iter()
        .map(|v| {
            let attrs = OptionAttrs::from_attrs(cx, &v.attrs);
            let value = attrs
                .rename
                .or_else(|| serde_attr(&v.attrs, "rename"))
                .unwrap_or_else(|| rename_all(&v.ident.to_string(), rule.as_deref(), true));
            let title = match attrs.title {
                Some(t) => quote!(::core::option::Option::Some(#t)),
                None => quote!(::core::option::Option::None),
            };
            quote!((#value, #title))
        })
        .collect();
    if e.variants.is_empty() {
        cx.error_spanned_by(ident, "a select field needs at least one variant");
    }
    quote! {
        #[automatically_derived]
        impl #krate::elicitation::ElicitEnum for #ident {
            fn options() -> ::std::vec::Vec<(&'static str, ::core::option::Option<&'static str>)> {
                ::std::vec![#(#options),*]
            }

            fn legacy_titles() -> bool {
                #legacy
            }
        }

        #[automatically_derived]
        impl #krate::elicitation::FormField for #ident {
            fn field_schema(meta: #krate::__private::FieldMeta) -> #krate::protocol::PrimitiveSchemaDefinition {
                #krate::__private::single_select::<Self>(meta)
            }
        }
    }
}

/// `PickMove` → `pick_move`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// One key of a set, generated: its constructor, and its arms / entry in the
/// `ElicitKeySet` impl.
struct KeyParts {
    constructor: TokenStream,
    name: TokenStream,
    message: TokenStream,
    context: TokenStream,
    described: TokenStream,
}

/// A key (variant) of a set; `None` after reporting a mistake.
fn key(
    cx: &Ctxt,
    v: &syn::Variant,
    vis: &syn::Visibility,
    krate: &TokenStream,
) -> Option<KeyParts> {
    let attrs = KeyAttrs::from_attrs(cx, &v.attrs);
    let key = &v.ident;
    let key_name = key.to_string();
    let doc = docs::collect(&v.attrs);
    let Some(response) = &attrs.response else {
        cx.error_spanned_by(
            key,
            "each key needs `#[elicit(response = Type)]`: the form the user answers with",
        );
        return None;
    };
    let fields = match &v.fields {
        Fields::Named(n) => n.named.iter().collect::<Vec<_>>(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(u) => {
            cx.error_spanned_by(u, "a key's context needs named fields (`Key { board: Board }`) so they can be published");
            return None;
        }
    };
    let idents: Vec<_> = fields.iter().map(|f| &f.ident).collect();
    let types: Vec<_> = fields.iter().map(|f| &f.ty).collect();
    let field_names: Vec<String> = idents
        .iter()
        .filter_map(|i| i.as_ref().map(|i| i.unraw().to_string()))
        .collect();
    let message = match &attrs.message {
        Some(lit) => {
            let used: Vec<_> = message_placeholders(cx, lit, &key_name, &field_names)
                .into_iter()
                .filter_map(|name| {
                    idents
                        .iter()
                        .flat_map(|i| i.as_ref())
                        .find(|i| i.unraw() == name)
                })
                .collect();
            quote!(Self::#key { #(#used,)* .. } => ::std::format!(#lit #(, #used = #used)*),)
        }
        None => {
            let text = doc.clone().unwrap_or_else(|| key_name.clone());
            quote!(Self::#key { .. } => ::std::string::String::from(#text),)
        }
    };
    let ctor = format_ident!("{}", snake_case(&key_name), span = key.span());
    let ctor_doc = format!("Asks for the key `{key_name}` (its fields are the context).");
    let docs_attrs = v.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let key_ty = quote_spanned!(response.span()=> #krate::elicitation::Key<Self, #response>);
    let constructor = quote! {
        #(#docs_attrs)*
        #[doc = ""]
        #[doc = #ctor_doc]
        #[allow(dead_code, clippy::too_many_arguments)]
        #vis fn #ctor(#(#idents: #types),*) -> #key_ty {
            #krate::__private::key(Self::#key { #(#idents),* })
        }
    };
    Some(KeyParts {
        constructor,
        name: quote!(Self::#key { .. } => #key_name,),
        message,
        context: key_context(key, &idents, &types, krate),
        described: key_description(key, &fields, response, doc.as_deref(), krate),
    })
}

/// The placeholders of a key's `message = ".."` template, each a context field's name
/// (`{board}`, or `{count:>3}` with a format spec), in order of first use; `{{` and `}}` are
/// literal braces. An unknown field or a stray brace is reported at the literal.
fn message_placeholders(cx: &Ctxt, lit: &LitStr, key: &str, fields: &[String]) -> Vec<String> {
    let text = lit.value();
    let mut used: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '}' if chars.peek() == Some(&c) => {
                chars.next();
            }
            '{' => {
                let mut inner = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    inner.push(c);
                }
                if !closed {
                    cx.error_spanned_by(
                        lit,
                        "this `{` is not closed: write `{{` for a literal brace",
                    );
                    break;
                }
                let name = inner
                    .split(':')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_owned();
                if fields.contains(&name) {
                    if !used.contains(&name) {
                        used.push(name);
                    }
                    continue;
                }
                let candidates: Vec<&str> = fields.iter().map(String::as_str).collect();
                let hint = match suggest(&name, &candidates) {
                    Some(s) => format!("; did you mean `{{{s}}}`?"),
                    None => String::new(),
                };
                let known = if fields.is_empty() {
                    format!("the key `{key}` has no context fields")
                } else {
                    format!("its context fields are: {}", fields.join(", "))
                };
                let what = if name.is_empty() || name.chars().all(|c| c.is_ascii_digit()) {
                    format!(
                        "`{{{inner}}}` is positional: a placeholder names a context field of `{key}`"
                    )
                } else {
                    format!("`{{{name}}}` is not a context field of the key `{key}`")
                };
                cx.error_spanned_by(lit, format!("{what}{hint} ({known})"));
            }
            '}' => {
                cx.error_spanned_by(
                    lit,
                    "this `}` is not opened: write `}}` for a literal brace",
                );
                break;
            }
            _ => {}
        }
    }
    used
}

/// The `context()` arm of a key: its fields serialised through a local struct.
fn key_context(
    key: &syn::Ident,
    idents: &[&Option<syn::Ident>],
    types: &[&Type],
    krate: &TokenStream,
) -> TokenStream {
    if idents.is_empty() {
        return quote!(Self::#key { .. } => #krate::serde_json::Value::Object(::core::default::Default::default()),);
    }
    let serde_crate = format!("{krate}::serde").replace(' ', "");
    quote! {
        Self::#key { #(#idents),* } => {
            #[derive(#krate::serde::Serialize)]
            #[serde(crate = #serde_crate)]
            struct Context<'__a> { #(#idents: &'__a #types),* }
            #krate::serde_json::to_value(Context { #(#idents),* })
                .unwrap_or(#krate::serde_json::Value::Null)
        }
    }
}

/// A key's entry in `keys()`: name, description, response schema and context schema (from
/// a local struct with the fields' docs).
fn key_description(
    key: &syn::Ident,
    fields: &[&syn::Field],
    response: &syn::Path,
    doc: Option<&str>,
    krate: &TokenStream,
) -> TokenStream {
    let key_name = key.to_string();
    let schemars_crate = format!("{krate}::schemars").replace(' ', "");
    let description = match doc {
        Some(d) => quote!(::core::option::Option::Some(#d)),
        None => quote!(::core::option::Option::None),
    };
    let context_fields = fields.iter().map(|f| {
        let docs = f.attrs.iter().filter(|a| a.path().is_ident("doc"));
        let (ident, ty) = (&f.ident, &f.ty);
        quote!(#(#docs)* #ident: #ty)
    });
    quote! {{
        #[derive(#krate::schemars::JsonSchema)]
        #[schemars(crate = #schemars_crate)]
        #[allow(dead_code)]
        struct Context { #(#context_fields),* }
        #krate::__private::describe_key(#key_name, #description, <#response as #krate::elicitation::ElicitForm>::requested_schema(), #krate::schema_for::<Context>())
    }}
}

/// A keyed set. Adds impls only: `ElicitKeySet` for the enum and one inherent constructor
/// per key (`Keys::pick_move(..) -> Key<Keys, Response>`), which types the answer; the
/// context's schema and serialisation use structs local to the impl's functions.
fn key_set(cx: &Ctxt, input: &DeriveInput, e: &syn::DataEnum, krate: &TokenStream) -> TokenStream {
    let set = &input.ident;
    let keys: Vec<KeyParts> = e
        .variants
        .iter()
        .filter_map(|v| key(cx, v, &input.vis, krate))
        .collect();
    if e.variants.is_empty() {
        cx.error_spanned_by(set, "a key set needs at least one key");
    }
    let constructors = keys.iter().map(|k| &k.constructor);
    let described = keys.iter().map(|k| &k.described);
    let names = keys.iter().map(|k| &k.name);
    let messages = keys.iter().map(|k| &k.message);
    let contexts = keys.iter().map(|k| &k.context);
    quote! {
        #[automatically_derived]
        impl #set {
            #(#constructors)*
        }

        #[automatically_derived]
        impl #krate::elicitation::ElicitKeySet for #set {
            fn keys() -> ::std::vec::Vec<#krate::serde_json::Value> {
                ::std::vec![#(#described),*]
            }

            fn key(&self) -> &'static str {
                match self { #(#names)* }
            }

            fn message(&self) -> ::std::string::String {
                match self { #(#messages)* }
            }

            fn context(&self) -> #krate::serde_json::Value {
                match self { #(#contexts)* }
            }
        }
    }
}
