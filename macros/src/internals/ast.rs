//! The IR of an annotated function: its parameters sorted into model-facing arguments and
//! injected context, with the docs that become descriptions.

use super::ctxt::Ctxt;
use super::docs;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, Pat, Signature, Type};

/// What a parameter receives.
pub enum ParamKind {
    /// An argument the model supplies; part of the input schema.
    Arg,
    /// The whole argument object, deserialised into this (struct) type.
    Whole,
    /// The request context, by reference (`&Ctx`) or by value (`Ctx`).
    Ctx {
        /// `&Ctx` rather than `Ctx`.
        by_ref: bool,
    },
    /// The request's cancellation token.
    Cancel,
}

/// One parameter.
pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub docs: Option<String>,
    pub kind: ParamKind,
}

/// An annotated function, checked.
pub struct Function {
    pub docs: Option<String>,
    pub params: Vec<Param>,
    pub receiver: Option<syn::Receiver>,
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

/// Whether `ty` is `Option<_>`.
pub fn is_option(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| {
        s.ident == "Option" && matches!(s.arguments, syn::PathArguments::AngleBracketed(_))
    })
}

fn context_kind(ty: &Type) -> Option<ParamKind> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => match last_segment(&r.elem) {
            Some(s) if s.ident == "Ctx" => Some(ParamKind::Ctx { by_ref: true }),
            Some(s) if s.ident == "CancellationToken" => Some(ParamKind::Cancel),
            _ => None,
        },
        _ => match last_segment(ty) {
            Some(s) if s.ident == "Ctx" => Some(ParamKind::Ctx { by_ref: false }),
            Some(s) if s.ident == "CancellationToken" => Some(ParamKind::Cancel),
            _ => None,
        },
    }
}

impl Function {
    /// Reads a signature and the attributes of its parameters (the `#[params]` and doc
    /// attributes are removed from `sig`, which is then emitted unchanged otherwise).
    /// `what` names the item in messages ("tool", "prompt", "resource").
    pub fn from_sig(
        cx: &Ctxt,
        attrs: &[syn::Attribute],
        sig: &mut Signature,
        what: &str,
    ) -> Function {
        if sig.asyncness.is_none() {
            cx.error_spanned_by(sig.fn_token, format!("an MCP {what} must be an `async fn`"));
        }
        if !sig.generics.params.is_empty() {
            cx.error_spanned_by(
                &sig.generics,
                format!(
                    "an MCP {what} cannot be generic: its schema is fixed when it is registered"
                ),
            );
        }
        if let Some(v) = &sig.variadic {
            cx.error_spanned_by(v, "variadic parameters are not supported");
        }
        let mut params: Vec<Param> = Vec::new();
        let mut receiver = None;
        let mut context_seen: Option<Ident> = None;
        let mut whole_seen = false;
        for input in sig.inputs.iter_mut() {
            let arg = match input {
                FnArg::Receiver(r) => {
                    if r.reference.is_none() || r.mutability.is_some() {
                        cx.error_spanned_by(&*r, format!("an MCP {what} method takes `&self` (the server state is shared between calls)"));
                    }
                    receiver = Some(r.clone());
                    continue;
                }
                FnArg::Typed(arg) => arg,
            };
            let whole = take_attr(&mut arg.attrs, "params");
            let param_docs = docs::collect(&arg.attrs);
            arg.attrs.retain(|a| !a.path().is_ident("doc"));
            let ident = match &*arg.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
                other => {
                    cx.error_spanned_by(other, format!("MCP {what} parameters must be plain names (`name: Type`) so they can name the schema's properties"));
                    continue;
                }
            };
            let ty = (*arg.ty).clone();
            let kind = if let Some(kind) = context_kind(&ty) {
                if let Some(first) = &context_seen
                    && matches!(kind, ParamKind::Ctx { .. })
                {
                    cx.error_spanned_by(&arg.ty, format!("only one context parameter is allowed; `{first}` already receives the `Ctx`"));
                    continue;
                }
                if matches!(kind, ParamKind::Ctx { .. }) {
                    context_seen = Some(ident.clone());
                }
                kind
            } else if whole {
                if whole_seen || params.iter().any(|p| matches!(p.kind, ParamKind::Arg)) {
                    cx.error_spanned_by(&arg.pat, "a `#[params]` parameter receives the whole argument object, so it must be the only argument");
                    continue;
                }
                whole_seen = true;
                ParamKind::Whole
            } else {
                if whole_seen {
                    cx.error_spanned_by(&arg.pat, "a `#[params]` parameter receives the whole argument object, so it must be the only argument");
                    continue;
                }
                if let Type::Reference(r) = &ty {
                    cx.error_spanned_by(r, "arguments are deserialised from the request, so they must be owned types (e.g. `String`, not `&str`)");
                    continue;
                }
                if let Type::ImplTrait(t) = &ty {
                    cx.error_spanned_by(t, "`impl Trait` arguments are not supported: the schema needs a concrete type");
                    continue;
                }
                ParamKind::Arg
            };
            params.push(Param {
                ident,
                ty,
                docs: param_docs,
                kind,
            });
        }
        Function {
            docs: docs::collect(attrs),
            params,
            receiver,
        }
    }

    /// The model-facing arguments.
    pub fn args(&self) -> impl Iterator<Item = &Param> {
        self.params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Arg))
    }

    /// The `#[params]` parameter, if any.
    pub fn whole(&self) -> Option<&Param> {
        self.params
            .iter()
            .find(|p| matches!(p.kind, ParamKind::Whole))
    }
}

fn take_attr(attrs: &mut Vec<syn::Attribute>, name: &str) -> bool {
    let before = attrs.len();
    attrs.retain(|a| !a.path().is_ident(name));
    attrs.len() != before
}

/// The span of the return type (or the signature when there is none).
pub fn output_span(sig: &Signature) -> proc_macro2::Span {
    match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.span(),
        syn::ReturnType::Default => sig.ident.span(),
    }
}
