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
        /// Written `Ctx`. Otherwise a borrowed type of another name (`&McpCtx` after
        /// `use tracksuit::Ctx as McpCtx`): arguments are owned, so a borrowed parameter can
        /// only be the context, and the generated code has the type checker confirm it
        /// (`tracksuit::FromCtx`, whose message covers the `&str` mistake too). A parameter passed
        /// by value under another name is an `Arg`: `tracksuit::ToolParameter` tells the context
        /// from an argument by type.
        by_name: bool,
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

/// Borrowed types that are plainly not the context: `&str` and friends keep the macro's own
/// "arguments must be owned" message.
const NOT_CONTEXT: &[&str] = &[
    "str",
    "String",
    "Vec",
    "Option",
    "Box",
    "Arc",
    "Rc",
    "Cow",
    "Path",
    "PathBuf",
    "Value",
    "HashMap",
    "BTreeMap",
    "HashSet",
    "BTreeSet",
    "JsonObject",
    "Map",
    "bool",
    "char",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
];

/// Whether a parameter's type could be the context under another name: not one of the
/// types that plainly are not.
pub fn may_be_context(ty: &Type) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    last_segment(ty).is_some_and(|s| !NOT_CONTEXT.contains(&s.ident.to_string().as_str()))
}

fn context_kind(ty: &Type) -> Option<ParamKind> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => match last_segment(&r.elem) {
            Some(s) if s.ident == "Ctx" => Some(ParamKind::Ctx {
                by_ref: true,
                by_name: true,
            }),
            Some(s) if s.ident == "CancellationToken" => Some(ParamKind::Cancel),
            Some(s) if !NOT_CONTEXT.contains(&s.ident.to_string().as_str()) => {
                Some(ParamKind::Ctx {
                    by_ref: true,
                    by_name: false,
                })
            }
            _ => None,
        },
        _ => match last_segment(ty) {
            Some(s) if s.ident == "Ctx" => Some(ParamKind::Ctx {
                by_ref: false,
                by_name: true,
            }),
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
        let mut function = Function {
            docs: docs::collect(attrs),
            params: Vec::new(),
            receiver: None,
        };
        for input in sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(r) => {
                    if r.reference.is_none() || r.mutability.is_some() {
                        cx.error_spanned_by(&*r, format!("an MCP {what} method takes `&self` (the server state is shared between calls)"));
                    }
                    function.receiver = Some(r.clone());
                }
                FnArg::Typed(arg) => {
                    if let Some(param) = function.param(cx, arg, what) {
                        function.params.push(param);
                    }
                }
            }
        }
        function
    }

    /// Reads one parameter, given those before it; `None` after reporting a mistake.
    fn param(&self, cx: &Ctxt, arg: &mut syn::PatType, what: &str) -> Option<Param> {
        let whole = take_attr(&mut arg.attrs, "params");
        let param_docs = docs::collect(&arg.attrs);
        arg.attrs.retain(|a| !a.path().is_ident("doc"));
        let ident = match &*arg.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            other => {
                cx.error_spanned_by(other, format!("MCP {what} parameters must be plain names (`name: Type`) so they can name the schema's properties"));
                return None;
            }
        };
        let ty = (*arg.ty).clone();
        let whole_seen = self.whole().is_some();
        let only_argument = "a `#[params]` parameter receives the whole argument object, so it must be the only argument";
        let kind = match context_kind(&ty) {
            Some(kind @ ParamKind::Ctx { by_name, .. }) => {
                if let Some(first) = self
                    .params
                    .iter()
                    .find(|p| matches!(p.kind, ParamKind::Ctx { .. }))
                {
                    let first = &first.ident;
                    if !by_name {
                        cx.error_spanned_by(&arg.ty, format!("arguments are deserialised from the request, so they must be owned types; `{first}` already receives the `Ctx`"));
                        return None;
                    }
                    cx.error_spanned_by(&arg.ty, format!("only one context parameter is allowed; `{first}` already receives the `Ctx`"));
                    return None;
                }
                kind
            }
            Some(kind) => kind,
            None if whole => {
                if whole_seen || self.args().next().is_some() {
                    cx.error_spanned_by(&arg.pat, only_argument);
                    return None;
                }
                ParamKind::Whole
            }
            None => {
                let problem = match &ty {
                    _ if whole_seen => Some(only_argument),
                    Type::Reference(_) => Some(
                        "arguments are deserialised from the request, so they must be owned types (e.g. `String`, not `&str`)",
                    ),
                    Type::ImplTrait(_) => Some(
                        "`impl Trait` arguments are not supported: the schema needs a concrete type",
                    ),
                    _ => None,
                };
                if let Some(problem) = problem {
                    match &ty {
                        _ if whole_seen => cx.error_spanned_by(&arg.pat, problem),
                        _ => cx.error_spanned_by(&ty, problem),
                    }
                    return None;
                }
                ParamKind::Arg
            }
        };
        Some(Param {
            ident,
            ty,
            docs: param_docs,
            kind,
        })
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

/// What `#[mcp_tool]` is attached to, parsed once: a function (a tool) or an `impl` block
/// (a handoff tool, whose phases are read into a [`Handoff`]).
pub enum Input {
    Fn(syn::ItemFn),
    Impl(syn::ItemImpl),
}

impl Input {
    /// Parses the annotated item; anything else is an error at the item.
    pub fn parse(item: proc_macro2::TokenStream) -> syn::Result<Input> {
        match syn::parse2::<syn::Item>(item)? {
            syn::Item::Fn(f) => Ok(Input::Fn(f)),
            syn::Item::Impl(block) => Ok(Input::Impl(block)),
            other => Err(syn::Error::new_spanned(
                other,
                "`#[mcp_tool]` goes on an `async fn` (or on methods inside an `#[mcp_server]` impl block)",
            )),
        }
    }
}

/// What a handoff phase's parameter receives. Roles come from the signature's structure,
/// not from type names: a reference is the context unless it borrows the state (in
/// `client`); owned parameters are the arguments (`before`), or the state then the client's
/// output (`after`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PhaseParam {
    /// `&PhaseCtx` in `before` / `after`, `&Ctx<Keys>` in `client`.
    Ctx,
    /// The tool's arguments (`before`), deserialised from the call.
    Params,
    /// The state `before` returned: `&State` in `client`, `State` in `after`.
    State,
    /// What `client` returned (`after`).
    Out,
}

/// One phase of a handoff tool.
pub struct Phase {
    pub ident: Ident,
    /// Takes `&self` (the tool's value, or the server's in an `#[mcp_server]` block).
    pub receiver: bool,
    /// Each parameter's role and type, in order.
    pub params: Vec<(PhaseParam, Type)>,
    /// The declared return type.
    pub output: Option<Type>,
}

/// A handoff tool: an `impl` of a named type with `before`, `client` and `after` (or three
/// methods of an `#[mcp_server]` block), checked.
pub struct Handoff {
    pub self_ty: Type,
    pub ident: Ident,
    pub docs: Option<String>,
    pub before: Phase,
    pub client: Phase,
    pub after: Phase,
    /// `State` of `before`'s `Result<State, E>`.
    pub state: Type,
    /// `Out` of `client`'s `Result<Out, E>`.
    pub out: Type,
}

/// The three phases of a handoff impl, found by name.
fn phases<'a>(cx: &Ctxt, block: &'a syn::ItemImpl) -> Option<[&'a Signature; 3]> {
    let find = |name: &str| {
        block.items.iter().find_map(|i| match i {
            syn::ImplItem::Fn(f) if f.sig.ident == name => Some(&f.sig),
            _ => None,
        })
    };
    let (Some(before), Some(client), Some(after)) = (find("before"), find("client"), find("after"))
    else {
        cx.error_spanned_by(&block.self_ty, "a handoff tool's impl needs three phases: `async fn before`, `async fn client` and `async fn after`");
        return None;
    };
    Some([before, client, after])
}

impl Phase {
    /// Reads a phase's receiver and parameters; `role` gets each parameter's type and how
    /// many owned parameters came before it, and says what it receives (or what is wrong).
    fn read(
        cx: &Ctxt,
        sig: &Signature,
        role: impl Fn(&Type, usize) -> Result<PhaseParam, &'static str>,
    ) -> Phase {
        let mut owned = 0;
        let mut params = Vec::new();
        let mut receiver = false;
        for arg in sig.inputs.iter() {
            let arg = match arg {
                FnArg::Receiver(r) => {
                    check_receiver(cx, r);
                    receiver = true;
                    continue;
                }
                FnArg::Typed(arg) => arg,
            };
            match role(&arg.ty, owned) {
                Ok(role) => params.push((role, (*arg.ty).clone())),
                Err(e) => cx.error_spanned_by(&arg.ty, e),
            }
            owned += usize::from(!matches!(*arg.ty, Type::Reference(_)));
        }
        Phase {
            ident: sig.ident.clone(),
            receiver,
            params,
            output: Phase::output(sig),
        }
    }

    fn output(sig: &Signature) -> Option<Type> {
        match &sig.output {
            syn::ReturnType::Type(_, t) => Some((**t).clone()),
            syn::ReturnType::Default => None,
        }
    }
}

/// A phase may borrow the value it belongs to (`&self`), never own or mutate it: one value
/// serves every call at once. The error is at the user's receiver.
fn check_receiver(cx: &Ctxt, r: &syn::Receiver) {
    let problem = match (&r.reference, &r.mutability) {
        (Some(_), None) if r.colon_token.is_none() => return,
        (Some(_), Some(_)) => {
            "a handoff phase takes `&self`, not `&mut self`: one value serves every call at once; keep what changes behind a `Mutex` or an atomic"
        }
        (None, _) if r.colon_token.is_none() => {
            "a handoff phase takes `&self`, not `self`: one value serves every call at once, so a phase borrows it"
        }
        _ => "a handoff phase takes `&self`",
    };
    cx.error_spanned_by(r, problem);
}
/// `T` of `Result<T, E>`.
fn ok_type(ty: &Type) -> Option<&Type> {
    let seg = last_segment(ty)?;
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if seg.ident == "Result" => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn same_type(a: &Type, b: &Type) -> bool {
    quote::quote!(#a).to_string() == quote::quote!(#b).to_string()
}

impl Handoff {
    /// Reads the phases of `block`; every mistake goes to `cx` (spanned at the user's
    /// token), and `None` means there is nothing to generate.
    pub fn from_impl(cx: &Ctxt, block: &syn::ItemImpl) -> Option<Handoff> {
        let Some(ident) = (match &*block.self_ty {
            Type::Path(p) => p.path.segments.last().map(|s| s.ident.clone()),
            _ => None,
        }) else {
            cx.error_spanned_by(
                &block.self_ty,
                "a handoff tool is an `impl` of a named type",
            );
            return None;
        };
        let phases = phases(cx, block)?;
        let docs = docs::collect(&block.attrs);
        Handoff::from_sigs(cx, (*block.self_ty).clone(), ident, docs, phases)
    }

    /// Reads three phase signatures (`before`, `client`, `after`, in that order) of a tool
    /// named `ident` on `self_ty`; every mistake goes to `cx` (spanned at the user's token),
    /// and `None` means there is nothing to generate.
    pub fn from_sigs(
        cx: &Ctxt,
        self_ty: Type,
        ident: Ident,
        docs: Option<String>,
        [before, client, after]: [&Signature; 3],
    ) -> Option<Handoff> {
        for (role, sig) in [("before", before), ("client", client), ("after", after)] {
            if sig.asyncness.is_none() {
                cx.error_spanned_by(
                    sig.fn_token,
                    format!("the `{role}` phase must be an `async fn`"),
                );
            }
        }
        let state = Phase::output(before)
            .as_ref()
            .and_then(|t| ok_type(t).cloned());
        let out = Phase::output(client)
            .as_ref()
            .and_then(|t| ok_type(t).cloned());
        if state.is_none() {
            cx.error_spanned_by(before, "`before` returns `Result<State, E>`");
        }
        if out.is_none() {
            cx.error_spanned_by(client, "`client` returns `Result<Out, E>`");
        }
        let (state, out) = (state?, out?);
        let before = Phase::read(cx, before, |ty, owned| match (ty, owned) {
            (Type::Reference(_), _) => Ok(PhaseParam::Ctx),
            (_, 0) => Ok(PhaseParam::Params),
            _ => Err("`before` takes the tool's arguments (one owned type) and `&PhaseCtx`"),
        });
        let client = Phase::read(cx, client, |ty, _| match ty {
            Type::Reference(r) if same_type(&r.elem, &state) => Ok(PhaseParam::State),
            Type::Reference(_) => Ok(PhaseParam::Ctx),
            _ => Err(
                "`client` borrows the state (`&State`, the type `before` returns) and the context (`&Ctx<Keys>`)",
            ),
        });
        let after = Phase::read(cx, after, |ty, owned| match (ty, owned) {
            (Type::Reference(_), _) => Ok(PhaseParam::Ctx),
            (_, 0) => Ok(PhaseParam::State),
            (_, 1) => Ok(PhaseParam::Out),
            _ => Err("`after` takes the state, the client's output and `&PhaseCtx`"),
        });
        Some(Handoff {
            self_ty,
            ident,
            docs,
            before,
            client,
            after,
            state,
            out,
        })
    }

    /// The tool's arguments type, if `before` takes one.
    pub fn params(&self) -> Option<&Type> {
        self.before
            .params
            .iter()
            .find(|(role, _)| *role == PhaseParam::Params)
            .map(|(_, ty)| ty)
    }
}
