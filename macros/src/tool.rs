//! `#[mcp_tool]` expansion.

use crate::common::{krate, with_errors};
use crate::internals::ast::{Function, Input, ParamKind, output_span};
use crate::internals::attr::{AFTER, Args, CLIENT, CRATE, TOOL_KEYS, ToolAttrs};
use crate::internals::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{ItemFn, Signature};

impl ToolAttrs {
    /// An expression building the `protocol::Tool` descriptor.
    pub fn descriptor(&self, input_schema: TokenStream, output_schema: TokenStream) -> TokenStream {
        let krate = &self.krate;
        let name = &self.name;
        // Only what differs from `Tool::new`'s defaults (`None`) is set.
        let mut sets = Vec::new();
        for (field, value) in [("title", &self.title), ("description", &self.description)] {
            if let Some(s) = value {
                let field = format_ident!("{field}");
                sets.push(quote!(tool.#field = ::core::option::Option::Some(#s.into());));
            }
        }
        if self.annotations.iter().any(|(_, on)| *on) {
            let fields = self.annotations.iter().filter(|(_, on)| *on).map(|(f, _)| {
                let f = format_ident!("{f}");
                quote!(annotations.#f = ::core::option::Option::Some(true);)
            });
            sets.push(quote! {
                let mut annotations = #krate::protocol::ToolAnnotations::default();
                #(#fields)*
                tool.annotations = ::core::option::Option::Some(annotations);
            });
        }
        if !self.icons.is_empty() {
            let srcs = &self.icons;
            sets.push(quote!(tool.icons = ::core::option::Option::Some(
                ::std::vec![#(#krate::protocol::Icon { src: ::std::string::String::from(#srcs), ..::core::default::Default::default() }),*]
            );));
        }
        let base_meta = match &self.meta {
            Some(json) => {
                quote!(#krate::serde_json::from_str::<#krate::protocol::Meta>(#json).ok())
            }
            None => quote!(::core::option::Option::<#krate::protocol::Meta>::None),
        };
        let meta = match &self.elicits {
            None if self.meta.is_none() => None,
            Some(keys) => Some(quote! {{
                let mut meta = #base_meta.unwrap_or_default();
                meta.insert(
                    ::std::string::String::from(#krate::__private::KEYS_META),
                    #krate::serde_json::Value::Array(<#keys as #krate::elicitation::ElicitKeySet>::keys()),
                );
                ::core::option::Option::Some(meta)
            }}),
            None => Some(base_meta),
        };
        if let Some(meta) = meta {
            sets.push(quote!(tool.meta = #meta;));
        }
        if let Some(uri) = &self.ui {
            let uri = uri.value();
            sets.push(quote!(#krate::apps::link(&mut tool, #uri);));
        }
        if let Some(variant) = &self.task_support {
            sets.push(quote!(tool.execution = ::core::option::Option::Some(#krate::protocol::ToolExecution {
                task_support: ::core::option::Option::Some(#krate::protocol::TaskSupport::#variant),
            });));
        }
        quote! {{
            let mut tool = #krate::protocol::Tool::new(#name, #input_schema);
            tool.output_schema = #output_schema;
            #(#sets)*
            tool
        }}
    }
}

/// A tool that declares `elicits = Keys` takes `Ctx<Keys>`; one that does not takes `Ctx`.
pub fn check_key_set(cx: &Ctxt, func: &Function, attrs: &ToolAttrs) {
    // A `#[params]` struct's fields are not known here: its placeholders are checked when
    // a call comes (a missing argument is `-32602`).
    if func.whole().is_none() {
        let names: Vec<String> = func.args().map(|p| property_name(&p.ident)).collect();
        attrs
            .scopes
            .check_placeholders(cx, &names, "the tool's arguments");
    }
    for p in &func.params {
        if !matches!(p.kind, ParamKind::Ctx { .. }) {
            continue;
        }
        let ty = match &p.ty {
            syn::Type::Reference(r) => &*r.elem,
            other => other,
        };
        let has_keys = match ty {
            syn::Type::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|s| !s.arguments.is_empty()),
            _ => false,
        };
        match (&attrs.elicits, has_keys) {
            (Some(keys), false) => {
                let keys = quote!(#keys).to_string().replace(' ', "");
                cx.error_spanned_by(
                    &p.ty,
                    format!(
                        "this tool declares `elicits = {keys}`, so its context is `&Ctx<{keys}>`"
                    ),
                );
            }
            (None, true) => cx.error_spanned_by(
                &p.ty,
                "a `Ctx<Keys>` parameter needs the key set declared: `#[mcp_tool(elicits = Keys)]`",
            ),
            _ => {}
        }
    }
}

/// The pieces of a tool implementation, for free functions and methods alike.
pub struct Generated {
    /// The arguments' schema type (or nothing for `#[params]`).
    pub args_struct: TokenStream,
    /// The `Tool` impl body (`descriptor` and `call`).
    pub tool_items: TokenStream,
}

/// The variable an argument is decoded into before the call.
fn arg_var(ident: &syn::Ident) -> syn::Ident {
    format_ident!("__tracksuit_arg_{}", ident)
}

/// A parameter's name in the input schema (`r#type` is `type`).
pub fn property_name(ident: &syn::Ident) -> String {
    use syn::ext::IdentExt;
    ident.unraw().to_string()
}

/// A parameter's docs as schemars splits them: a leading `# heading` line is the title.
fn title_and_description(docs: Option<&str>) -> (String, String) {
    let docs = docs.unwrap_or_default().trim();
    match docs.strip_prefix('#') {
        Some(rest) => {
            let (title, description) = rest.split_once('\n').unwrap_or((rest, ""));
            (
                title.trim_start_matches('#').trim().to_owned(),
                description.trim().to_owned(),
            )
        }
        None => (String::new(), docs.to_owned()),
    }
}

/// The arguments: the function returning the derived input schema, the declarations it
/// needs, and the statements decoding `__value` (the validated arguments) into one
/// variable per argument. Each argument's type is reached only through `ToolParameter`, so
/// a type that is not an argument (nor the context) is one error, at the type.
fn arguments(
    func: &Function,
    krate: &TokenStream,
    name: &str,
) -> (TokenStream, TokenStream, TokenStream) {
    let fail = |arg: TokenStream| {
        quote! {
            ::std::boxed::Box::pin(::core::future::ready(::core::result::Result::Err(
                #krate::__private::invalid_argument(#name, #arg, e),
            )))
        }
    };
    if let Some(whole) = func.whole() {
        let ty = &whole.ty;
        let var = arg_var(&whole.ident);
        let on_error = fail(quote!(::core::option::Option::None));
        let derived =
            quote!(|| <#ty as #krate::ToolParameter>::params_schema().unwrap_or_default());
        let decode = quote! {
            let #var = match <#ty as #krate::ToolParameter>::from_call(&__ctx, ::core::option::Option::Some(__value)) {
                ::core::result::Result::Ok(v) => v,
                ::core::result::Result::Err(e) => return #on_error,
            };
        };
        return (derived, TokenStream::new(), decode);
    }
    let properties = func.args().map(|p| {
        let ty = &p.ty;
        let name = property_name(&p.ident);
        let (title, description) = title_and_description(p.docs.as_deref());
        quote! {
            #krate::__private::add_property(&mut __object, #name, #title, #description,
                <#ty as #krate::ToolParameter>::input_property(__generator));
        }
    });
    let decls = quote! {
        struct __TracksuitArgs;

        impl #krate::schemars::JsonSchema for __TracksuitArgs {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed("__TracksuitArgs")
            }

            fn json_schema(__generator: &mut #krate::schemars::SchemaGenerator) -> #krate::schemars::Schema {
                let mut __object = #krate::__private::object_schema();
                #(#properties)*
                __object
            }
        }
    };
    let decode = func.args().map(|p| {
        let ty = &p.ty;
        let var = arg_var(&p.ident);
        let name = property_name(&p.ident);
        let on_error = fail(quote!(::core::option::Option::Some(#name)));
        quote! {
            let #var = match <#ty as #krate::ToolParameter>::from_call(&__ctx, __object.remove(#name)) {
                ::core::result::Result::Ok(v) => v,
                ::core::result::Result::Err(e) => return #on_error,
            };
        }
    });
    let decode = quote! {
        #[allow(unused_mut)]
        let mut __object = #krate::__private::into_object(__value);
        #(#decode)*
    };
    let derived = quote!(#krate::__private::derived_input::<__TracksuitArgs>);
    (derived, decls, decode)
}

/// The expression each parameter is called with.
fn call_args(func: &Function, attrs: &ToolAttrs) -> Vec<TokenStream> {
    let keys = match &attrs.elicits {
        Some(k) => quote!(#k),
        None => quote!(()),
    };
    func.params
        .iter()
        .map(|p| match p.kind {
            ParamKind::Arg | ParamKind::Whole => {
                let var = arg_var(&p.ident);
                quote!(#var)
            }
            ParamKind::Ctx { by_name: false, .. } => {
                crate::common::ctx_by_type(&p.ty, &attrs.krate)
            }
            ParamKind::Ctx { by_ref, .. } => {
                let amp = if by_ref { quote!(&) } else { quote!() };
                let ty_span = syn::spanned::Spanned::span(&p.ty);
                quote_spanned!(ty_span=> #amp __ctx.with_keys::<#keys>())
            }
            ParamKind::Cancel => quote!(__ctx.cancellation_token()),
        })
        .collect()
}

/// Generates the argument struct and the `Tool` methods. `invoke` is a function from the
/// argument expressions to the call expression (`name(a, b)` or `self.0.name(a, b)`).
pub fn generate(
    func: &Function,
    attrs: &ToolAttrs,
    sig: &Signature,
    invoke: impl Fn(Vec<TokenStream>) -> TokenStream,
) -> Generated {
    let krate = &attrs.krate;
    let name = &attrs.name;
    let (derived, args_struct, decode) = arguments(func, krate, name);
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let output_schema = quote! {{
        #[allow(unused_imports)]
        use #krate::__private::{NoOutputSchema as _, OutputSchemaOf as _};
        (&&#krate::__private::ReturnOf::<#ret>::new()).output_schema()
    }};
    // The return type is reached only through `IntoToolResult`: one error, at the type.
    let finish = quote_spanned! {output_span(sig)=>
        #krate::__private::finish_tool(
            &__SCHEMAS,
            <#ret as #krate::IntoToolResult>::into_tool_result(__out),
            <#ret as #krate::IntoToolResult>::output_schema,
        )
    };
    let call = invoke(call_args(func, attrs));
    // One box for the whole call: arguments are decoded before it, and the user's future
    // sits inside it unboxed. The box is spanned at the function's name, so a non-`Send`
    // body is reported once, there (the coercion to a `Send` future is what fails).
    let boxed_call = quote_spanned! {sig.ident.span()=>
        ::std::boxed::Box::pin(async move {
            let __out = #call.await;
            #finish
        })
    };
    let descriptor = attrs.descriptor(quote!(__SCHEMAS.input(#derived).clone()), output_schema);
    // Without a `Ctx` the body cannot ask the client anything; a parameter passed by value
    // is the context when its type is (`McpCtx` after `use tracksuit::Ctx as McpCtx`).
    let by_name = func
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Ctx { .. }));
    let by_type = func.args().map(|p| {
        let ty = &p.ty;
        quote!(|| <#ty as #krate::ToolParameter>::CONTEXT)
    });
    let asks_client = quote!(#by_name #(#by_type)*);
    let scopes = &attrs.scopes;
    let tool_items = quote! {
        fn descriptor(&self) -> #krate::protocol::Tool {
            #descriptor
        }

        fn asks_client(&self) -> bool {
            #asks_client
        }

        fn raw_input_schema(&self) -> ::core::option::Option<#krate::protocol::JsonObject> {
            ::core::option::Option::Some(__SCHEMAS.raw_input(#derived))
        }
        #scopes

        fn call<'__a>(
            &'__a self,
            __ctx: #krate::Ctx,
            __arguments: #krate::protocol::JsonObject,
        ) -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::CallToolResult, #krate::ToolError>> {
            let __value = match __SCHEMAS.arguments(#name, __arguments, #derived) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(e) => {
                    return ::std::boxed::Box::pin(::core::future::ready(::core::result::Result::Err(e)));
                }
            };
            #decode
            #boxed_call
        }
    };
    Generated {
        args_struct,
        tool_items,
    }
}

/// The entry point: a function is a tool, an `impl` block a handoff tool (one parse).
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func = match Input::parse(item) {
        Ok(Input::Fn(f)) => f,
        Ok(Input::Impl(block)) => return crate::handoff::expand(attr, block),
        Err(e) => return e.to_compile_error(),
    };
    let cx = Ctxt::new();
    let args = Args::parse(attr, TOOL_KEYS, &cx);
    let krate = krate(args.path(CRATE));
    match tool(cx, &args, &mut func) {
        Ok(tokens) => tokens,
        // A method (in a plain impl block) stays in place so the impl stays valid.
        Err(e) if func.sig.receiver().is_some() => with_errors(e, quote!(#func)),
        Err(e) => with_errors(e, stub(&func, &krate)),
    }
}

/// The tool: the function, still a function, with its handler inside.
fn tool(cx: Ctxt, args: &Args, func: &mut ItemFn) -> syn::Result<TokenStream> {
    let parsed = Function::from_sig(&cx, &func.attrs, &mut func.sig, "tool");
    if let Some(r) = &parsed.receiver {
        cx.error_spanned_by(
            r,
            "`#[mcp_tool]` on a method needs `#[mcp_server]` on its impl block",
        );
        // Always an error: the method is emitted as it is, beside it.
        return cx.check().map(|()| TokenStream::new());
    }
    for key in [CLIENT, AFTER] {
        if let Some((k, _)) = args.get(key) {
            cx.error_spanned_by(k, format!("`{key} = ..` names a handoff phase of a method in an `#[mcp_server]` block; a handoff tool outside one is `#[mcp_tool]` on an `impl` with `before`, `client` and `after`"));
        }
    }
    let attrs = ToolAttrs::from_args(&cx, args, &func.sig.ident, parsed.docs.as_ref());
    check_key_set(&cx, &parsed, &attrs);
    cx.check()?;
    let ident = func.sig.ident.clone();
    let Generated {
        args_struct,
        tool_items,
    } = generate(
        &parsed,
        &attrs,
        &func.sig,
        |call_args| quote_spanned!(ident.span()=> #ident(#(#call_args),*)),
    );
    let krate = &attrs.krate;
    let support = quote! {
        #args_struct
        static __SCHEMAS: #krate::__private::ToolSchemas = #krate::__private::ToolSchemas::new();
    };
    Ok(crate::common::tagged_fn(
        func,
        krate,
        "ToolHandler",
        support,
        tool_items,
    ))
}

/// The function beside the errors, with a handler that only reports it failed to compile
/// (so `.tool(name)` elsewhere raises no second error).
fn stub(func: &ItemFn, krate: &TokenStream) -> TokenStream {
    let ident = &func.sig.ident;
    let items = quote! {
        fn descriptor(&self) -> #krate::protocol::Tool {
            #krate::protocol::Tool::new(::core::stringify!(#ident), ::core::default::Default::default())
        }
        fn call<'__a>(&'__a self, _: #krate::Ctx, _: #krate::protocol::JsonObject)
            -> #krate::__private::BoxFuture<'__a, ::core::result::Result<#krate::protocol::CallToolResult, #krate::ToolError>> {
            ::std::boxed::Box::pin(async { ::core::result::Result::Err(#krate::ToolError::new("this tool failed to compile")) })
        }
    };
    crate::common::tagged_fn(func, krate, "ToolHandler", TokenStream::new(), items)
}
