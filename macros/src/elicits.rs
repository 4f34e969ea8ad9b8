//! `#[derive(Elicits)]`: a struct becomes an elicitation form, a unit-variant enum a select
//! field, and an enum with `#[elicit(response = T)]` variants a keyed elicitation set.

use crate::common::{krate, with_errors};
use crate::internals::ast::is_option;
use crate::internals::attr::{
    Args, CRATE, DEFAULT, FORMAT, Kind, LEGACY_TITLES, MAX, MAX_ITEMS, MAX_LENGTH, MESSAGE, MIN,
    MIN_ITEMS, MIN_LENGTH, RENAME, RESPONSE, Symbol, TITLE, Value,
};
use crate::internals::ctxt::Ctxt;
use crate::internals::docs;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Type};

const CONTAINER_KEYS: &[(Symbol, Kind)] = &[(CRATE, Kind::Path), (LEGACY_TITLES, Kind::Flag)];
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
const OPTION_KEYS: &[(Symbol, Kind)] = &[(TITLE, Kind::Str), (RENAME, Kind::Str)];
const KEY_KEYS: &[(Symbol, Kind)] = &[(RESPONSE, Kind::Path), (MESSAGE, Kind::Str)];

/// The tokens of `#[elicit(...)]` attributes among `attrs` (all of them, in order).
fn elicit_tokens(attrs: &[syn::Attribute], cx: &Ctxt) -> TokenStream {
    let mut out = TokenStream::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("elicit")) {
        match &attr.meta {
            syn::Meta::List(l) => {
                if !out.is_empty() {
                    out.extend(quote!(,));
                }
                out.extend(l.tokens.clone());
            }
            other => cx.error_spanned_by(other, "use `#[elicit(key = value, ...)]`"),
        }
    }
    out
}

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

pub fn expand(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let cx = Ctxt::new();
    let container = Args::parse(elicit_tokens(&input.attrs, &cx), CONTAINER_KEYS, &cx);
    let krate = krate(container.path(CRATE));
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`Elicits` does not support generic types: a form's schema is fixed",
        );
    }
    let out = match &input.data {
        Data::Struct(s) => form(&cx, &input, &s.fields, &krate),
        Data::Enum(e)
            if e.variants.iter().all(|v| matches!(v.fields, Fields::Unit))
                && !e.variants.iter().any(|v| {
                    v.attrs.iter().any(|a| {
                        a.path().is_ident("elicit")
                            && a.to_token_stream_string().contains("response")
                    })
                }) =>
        {
            select(&cx, &input, e, &krate, container.flag(LEGACY_TITLES))
        }
        Data::Enum(e) => key_set(&cx, &input, e, &krate),
        Data::Union(u) => {
            cx.error_spanned_by(
                u.union_token,
                "`Elicits` goes on a struct (a form) or an enum (a select field or a key set)",
            );
            TokenStream::new()
        }
    };
    match cx.check() {
        Ok(()) => {
            let version = crate::common::version_check(&krate);
            quote!(#version #out)
        }
        Err(e) => with_errors(e, TokenStream::new()),
    }
}

trait AttrString {
    fn to_token_stream_string(&self) -> String;
}

impl AttrString for syn::Attribute {
    fn to_token_stream_string(&self) -> String {
        quote!(#self).to_string()
    }
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
        let args = Args::parse(elicit_tokens(&field.attrs, cx), FIELD_KEYS, cx);
        let ty = &field.ty;
        let base = last_ident(unoption(ty)).unwrap_or_default();
        let is_text = base == "String";
        let is_bool = base == "bool";
        let is_number = matches!(
            base.as_str(),
            "i8" | "i16"
                | "i32"
                | "i64"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "isize"
                | "usize"
                | "f32"
                | "f64"
        );
        if let Some(lit) = args.str(FORMAT) {
            if !matches!(lit.value().as_str(), "email" | "uri" | "date" | "date-time") {
                cx.error_spanned_by(
                    lit,
                    "`format` is one of \"email\", \"uri\", \"date\", \"date-time\"",
                );
            } else if !is_text {
                cx.error_spanned_by(lit, "`format` applies to `String` fields");
            }
        }
        for key in [MIN_LENGTH, MAX_LENGTH] {
            if args.num(key).is_some() && !is_text {
                cx.error_spanned_by(ty, format!("`{key}` applies to `String` fields"));
            }
        }
        for key in [MIN, MAX] {
            if args.num(key).is_some() && !is_number {
                cx.error_spanned_by(ty, format!("`{key}` applies to number fields"));
            }
        }
        let default = match args.value(DEFAULT) {
            None => quote!(::core::option::Option::None),
            Some(Value::Str(s)) => {
                if is_bool || is_number {
                    cx.error_spanned_by(
                        s,
                        format!("this default is a string, but `{name}` is not"),
                    );
                }
                quote!(::core::option::Option::Some(#krate::__private::serde_json::Value::from(#s)))
            }
            Some(Value::Bool(b, span)) => {
                if !is_bool {
                    cx.syn_error(syn::Error::new(
                        *span,
                        format!("this default is a boolean, but `{name}` is not"),
                    ));
                }
                quote!(::core::option::Option::Some(#krate::__private::serde_json::Value::from(#b)))
            }
            Some(Value::Num(v, int, span)) => {
                if !is_number {
                    cx.syn_error(syn::Error::new(
                        *span,
                        format!("this default is a number, but `{name}` is not"),
                    ));
                }
                if *int {
                    let v = *v as i64;
                    quote!(::core::option::Option::Some(#krate::__private::serde_json::Value::from(#v)))
                } else {
                    let v = *v;
                    quote!(::core::option::Option::Some(#krate::__private::serde_json::Value::from(#v)))
                }
            }
            Some(_) => quote!(::core::option::Option::None),
        };
        let opt_str = |v: Option<String>| match v {
            Some(s) => quote!(::core::option::Option::Some(::std::string::String::from(#s))),
            None => quote!(::core::option::Option::None),
        };
        let opt_u64 = |v: Option<f64>| match v {
            Some(n) => {
                let n = n as u64;
                quote!(::core::option::Option::Some(#n))
            }
            None => quote!(::core::option::Option::None),
        };
        let opt_f64 = |v: Option<f64>| match v {
            Some(n) => quote!(::core::option::Option::Some(#n)),
            None => quote!(::core::option::Option::None),
        };
        let title = opt_str(args.str(TITLE).map(|l| l.value()));
        let description = opt_str(docs::collect(&field.attrs));
        let format = match args.str(FORMAT) {
            Some(l) => {
                let f = l.value();
                quote!(::core::option::Option::Some(#f))
            }
            None => quote!(::core::option::Option::None),
        };
        let (min_length, max_length) =
            (opt_u64(args.num(MIN_LENGTH)), opt_u64(args.num(MAX_LENGTH)));
        let (min_items, max_items) = (opt_u64(args.num(MIN_ITEMS)), opt_u64(args.num(MAX_ITEMS)));
        let (minimum, maximum) = (opt_f64(args.num(MIN)), opt_f64(args.num(MAX)));
        // Only the fields that are set; the rest come from `FieldMeta::default()`.
        let none = quote!(::core::option::Option::None).to_string();
        let set = [
            ("title", title),
            ("description", description),
            ("min_length", min_length),
            ("max_length", max_length),
            ("format", format),
            ("minimum", minimum),
            ("maximum", maximum),
            ("min_items", min_items),
            ("max_items", max_items),
            ("default", default),
        ]
        .into_iter()
        .filter(|(_, v)| v.to_string() != none)
        .map(|(f, v)| {
            let f = format_ident!("{f}");
            quote!(#f: #v,)
        });
        let schema = quote_spanned! {ty.span()=>
            <#ty as #krate::elicitation::FormField>::field_schema(#krate::__private::FieldMeta {
                #(#set)*
                ..::core::default::Default::default()
            })
        };
        inserts.push(quote!(properties.insert(::std::string::String::from(#name), #schema);));
        if !is_option(ty) {
            required.push(name);
        }
    }
    quote! {
        #[automatically_derived]
        impl #krate::elicitation::ElicitForm for #ident {
            fn requested_schema() -> #krate::protocol::ElicitationSchema {
                let mut properties = ::std::collections::BTreeMap::new();
                #(#inserts)*
                #krate::protocol::ElicitationSchema {
                    schema: ::core::option::Option::None,
                    kind: #krate::protocol::ObjectType::Object,
                    properties,
                    required: ::core::option::Option::Some(::std::vec![#(::std::string::String::from(#required)),*]),
                }
            }
        }
    }
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
            let args = Args::parse(elicit_tokens(&v.attrs, cx), OPTION_KEYS, cx);
            let value = args
                .str(RENAME)
                .map(|l| l.value())
                .or_else(|| serde_attr(&v.attrs, "rename"))
                .unwrap_or_else(|| rename_all(&v.ident.to_string(), rule.as_deref(), true));
            let title = match args.str(TITLE) {
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

/// A keyed set. Adds impls only: `ElicitKeySet` for the enum and one inherent constructor
/// per key (`Keys::pick_move(..) -> Key<Keys, Response>`), which types the answer; the
/// context's schema and serialisation use structs local to the impl's functions.
fn key_set(cx: &Ctxt, input: &DeriveInput, e: &syn::DataEnum, krate: &TokenStream) -> TokenStream {
    let set = &input.ident;
    let vis = &input.vis;
    let serde_crate = format!("{krate}::__private::serde").replace(' ', "");
    let schemars_crate = format!("{krate}::__private::schemars").replace(' ', "");
    let mut constructors = Vec::new();
    let mut described = Vec::new();
    let mut names = Vec::new();
    let mut messages = Vec::new();
    let mut contexts = Vec::new();
    for v in &e.variants {
        let args = Args::parse(elicit_tokens(&v.attrs, cx), KEY_KEYS, cx);
        let key = &v.ident;
        let key_name = key.to_string();
        let doc = docs::collect(&v.attrs);
        let Some(response) = args.path(RESPONSE) else {
            cx.error_spanned_by(
                key,
                "each key needs `#[elicit(response = Type)]`: the form the user answers with",
            );
            continue;
        };
        let fields = match &v.fields {
            Fields::Named(n) => n.named.iter().collect::<Vec<_>>(),
            Fields::Unit => Vec::new(),
            Fields::Unnamed(u) => {
                cx.error_spanned_by(u, "a key's context needs named fields (`Key { board: Board }`) so they can be published");
                continue;
            }
        };
        let idents: Vec<_> = fields.iter().map(|f| &f.ident).collect();
        let types: Vec<_> = fields.iter().map(|f| &f.ty).collect();
        let field_docs: Vec<Vec<_>> = fields
            .iter()
            .map(|f| {
                f.attrs
                    .iter()
                    .filter(|a| a.path().is_ident("doc"))
                    .collect()
            })
            .collect();
        let message = match args.str(MESSAGE).map(|l| l.value()).or(doc.clone()) {
            Some(m) => quote!(::std::string::String::from(#m)),
            None => quote!(::std::string::String::from(#key_name)),
        };
        let description = match &doc {
            Some(d) => quote!(::core::option::Option::Some(#d)),
            None => quote!(::core::option::Option::None),
        };
        let ctor = format_ident!("{}", snake_case(&key_name), span = key.span());
        let ctor_doc = format!("Asks for the key `{key_name}` (its fields are the context).");
        let docs_attrs = v.attrs.iter().filter(|a| a.path().is_ident("doc"));
        let key_ty = quote_spanned!(response.span()=> #krate::elicitation::Key<Self, #response>);
        constructors.push(quote! {
            #(#docs_attrs)*
            #[doc = ""]
            #[doc = #ctor_doc]
            #[allow(dead_code, clippy::too_many_arguments)]
            #vis fn #ctor(#(#idents: #types),*) -> #key_ty {
                #krate::__private::key(Self::#key { #(#idents),* })
            }
        });
        names.push(quote!(Self::#key { .. } => #key_name,));
        messages.push(quote!(Self::#key { .. } => #message,));
        contexts.push(if idents.is_empty() {
            quote!(Self::#key { .. } => #krate::__private::serde_json::Value::Object(::core::default::Default::default()),)
        } else {
            quote! {
            Self::#key { #(#idents),* } => {
                #[derive(#krate::__private::serde::Serialize)]
                #[serde(crate = #serde_crate)]
                struct Context<'__a> { #(#idents: &'__a #types),* }
                #krate::__private::serde_json::to_value(Context { #(#idents),* })
                    .unwrap_or(#krate::__private::serde_json::Value::Null)
            }
            }
        });
        described.push(quote! {{
            #[derive(#krate::__private::schemars::JsonSchema)]
            #[schemars(crate = #schemars_crate)]
            #[allow(dead_code)]
            struct Context { #(#(#field_docs)* #idents: #types),* }
            #krate::__private::describe_key::<#response>(#key_name, #description, #krate::schema_for::<Context>())
        }});
    }
    if e.variants.is_empty() {
        cx.error_spanned_by(set, "a key set needs at least one key");
    }
    quote! {
        #[automatically_derived]
        impl #set {
            #(#constructors)*
        }

        #[automatically_derived]
        impl #krate::elicitation::ElicitKeySet for #set {
            fn keys() -> ::std::vec::Vec<#krate::__private::serde_json::Value> {
                ::std::vec![#(#described),*]
            }

            fn key(&self) -> &'static str {
                match self { #(#names)* }
            }

            fn message(&self) -> ::std::string::String {
                match self { #(#messages)* }
            }

            fn context(&self) -> #krate::__private::serde_json::Value {
                match self { #(#contexts)* }
            }
        }
    }
}
