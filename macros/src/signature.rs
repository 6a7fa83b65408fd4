//! The function's signature: `async fn name([cx: &Cx<S>,] [args: T]) -> Result<T, E>`.

use quote::ToTokens;
use syn::{Error, FnArg, GenericArgument, PathArguments, ReturnType, Signature, Type};

/// The context parameter: the state type `S` of `Cx<S>`, and whether it is taken by reference.
pub(crate) struct Context {
    pub(crate) state: Type,
    pub(crate) by_ref: bool,
}

/// What the expansion needs to know of a valid signature.
pub(crate) struct Checked {
    pub(crate) context: Option<Context>,
    pub(crate) args: Option<Type>,
    pub(crate) output: Type,
}

const SHAPE: &str = "a tool is `async fn name(cx: &Cx<S>, args: T) -> Result<T, E>`, both parameters optional";

/// Checks the signature, pushing every problem found; `None` if there was any.
pub(crate) fn check(sig: &Signature, errors: &mut Vec<Error>) -> Option<Checked> {
    let before = errors.len();
    // `new_spanned` spans all of the tokens, where `Spanned::span` gives only the first on stable.
    let mut err = |tokens: &dyn ToTokens, msg: &str| errors.push(Error::new_spanned(tokens, msg));

    if sig.asyncness.is_none() {
        err(&sig.fn_token, "a tool must be an `async fn`");
    }
    if let Some(unsafety) = &sig.unsafety {
        err(unsafety, "a tool cannot be `unsafe`");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        err(&sig.generics, "a tool cannot be generic: its argument and state types are concrete");
    }

    let mut context = None;
    let mut args = None;
    let mut position = 0;
    for input in &sig.inputs {
        let ty = match input {
            FnArg::Receiver(r) => {
                err(r, "a tool cannot take `self`: it is a free `async fn`");
                continue;
            }
            FnArg::Typed(pat) => &*pat.ty,
        };
        position += 1;
        if position > 2 {
            err(input, &format!("too many parameters: {SHAPE}"));
            continue;
        }
        match context_of(ty) {
            Some(Err(msg)) => err(ty, msg),
            Some(Ok(_)) if context.is_some() => err(ty, "a tool takes one context parameter"),
            Some(Ok(_)) if position > 1 => err(ty, "the context `Cx<S>` must be the first parameter"),
            Some(Ok(cx)) => context = Some(cx),
            None if args.is_some() => {
                err(input, "a tool takes one arguments parameter: gather the arguments in one struct")
            }
            None if matches!(ty, Type::Reference(_)) => {
                err(ty, "the arguments parameter is taken by value: write `T`, not `&T`")
            }
            None => args = Some(ty.clone()),
        }
    }

    let output = match &sig.output {
        ReturnType::Type(_, ty) => Some((**ty).clone()),
        ReturnType::Default => {
            // Where `-> Result<T, E>` is missing.
            errors.push(Error::new(sig.paren_token.span.close(), "a tool returns `Result<T, E>`"));
            None
        }
    };

    let output = output?;
    (errors.len() == before).then_some(Checked { context, args, output })
}

/// `Some` when `ty` is `Cx<S>` or `&Cx<S>` (by the last path segment's name), with an error
/// message when it is the context written wrongly.
fn context_of(ty: &Type) -> Option<Result<Context, &'static str>> {
    let (path_ty, by_ref) = match ty {
        Type::Reference(r) => (&*r.elem, true),
        _ => (ty, false),
    };
    let Type::Path(path) = path_ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Cx" {
        return None;
    }
    if matches!(ty, Type::Reference(r) if r.mutability.is_some()) {
        return Some(Err("take the context as `&Cx<S>` or `Cx<S>`, not `&mut`"));
    }
    let state = match &last.arguments {
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            GenericArgument::Type(state) => Some(state.clone()),
            _ => None,
        },
        _ => None,
    };
    Some(state.map(|state| Context { state, by_ref }).ok_or("the context is `Cx<S>`, with the server's state type `S`"))
}
