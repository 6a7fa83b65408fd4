//! Built-in functions one call of which can allocate far more than its arguments hold: `$pad`
//! (any width), `$replace` (matches times the replacement), `$join` (items times the separator),
//! `$split` (a value per piece). The engine allocates their result in one go, where the memory
//! meter cannot stop it, so each call site is rewritten to show its arguments to a check first:
//!
//! `$replace(a, b, c)` becomes `($__valem_arg0 := a; ...; $__valem_check("replace", $, $__valem_arg0, ...); $replace($__valem_arg0, ...))`
//!
//! The call keeps its arguments, its order of evaluation and its context (`$`, for the forms
//! that take the context as their first argument); `x ~> $f(a)` is first written `$f(x, a)`.
//! A function passed as a value (`$map(xs, $pad)`) or partly applied (`$pad(?, 5)`) is not
//! rewritten: its result is bounded by the time limit and the meter only.

use jsonata_core::ast::{AstNode, BinaryOp};
use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::parser;
use jsonata_core::value::JValue;

use super::walk;

/// The name the check is bound under.
pub const CHECK: &str = "__valem_check";
const ARG: &str = "__valem_arg";

/// Each guarded function, the fewest arguments it takes, and whether the context then fills
/// the first one (the `-` of its signature).
const GUARDED: &[(&str, usize, bool)] =
    &[("pad", 2, true), ("replace", 3, true), ("join", 1, false), ("split", 2, true)];

/// Bytes counted per piece of a `$split` result: the string and its place in the array.
const PIECE_BYTES: usize = 48;

/// Rewrites every guarded call site in `ast`.
pub fn rewrite(ast: &mut AstNode) {
    let mut stack = vec![ast];
    while let Some(node) = stack.pop() {
        unchain(node);
        match guard(node) {
            Some(args) => {
                *node = args;
                // The original arguments, now the right-hand sides of the block's bindings.
                if let AstNode::Block(items) = node {
                    for item in items.iter_mut() {
                        if let AstNode::Binary { op: BinaryOp::ColonEqual, rhs, .. } = item {
                            stack.push(rhs);
                        }
                    }
                }
            }
            None => walk::children_mut(node, &mut |c| stack.push(c)),
        }
    }
}

fn guarded(name: &str) -> bool {
    GUARDED.iter().any(|(n, _, _)| *n == name)
}

fn is_partial(args: &[AstNode]) -> bool {
    args.iter().any(|a| matches!(a, AstNode::Placeholder))
}

/// `x ~> $f(a)` as `$f(x, a)`, for a guarded `$f`.
fn unchain(node: &mut AstNode) {
    let AstNode::Binary { op: BinaryOp::ChainPipe, rhs, .. } = node else { return };
    let AstNode::Function { name, args, .. } = rhs.as_ref() else { return };
    if !guarded(name) || is_partial(args) {
        return;
    }
    let AstNode::Binary { lhs, rhs, .. } = std::mem::replace(node, AstNode::Undefined) else { return };
    let AstNode::Function { name, mut args, is_builtin } = *rhs else { return };
    args.insert(0, *lhs);
    *node = AstNode::Function { name, args, is_builtin };
}

/// The checked block for a guarded call, or `None` when `node` is not one.
fn guard(node: &mut AstNode) -> Option<AstNode> {
    let AstNode::Function { name, args, .. } = node else { return None };
    if !guarded(name) || is_partial(args) {
        return None;
    }
    let vars: Vec<String> = (0..args.len()).map(|i| format!("${ARG}{i}")).collect();
    let bindings: String = vars.iter().map(|v| format!("{v} := null; ")).collect();
    let listed: String = vars.iter().map(|v| format!(", {v}")).collect();
    let text = format!("({bindings}${CHECK}(\"{name}\", ${listed}); ${name}({}))", vars.join(", "));
    let mut block = parser::parse(&text).ok()?;
    let AstNode::Block(items) = &mut block else { return None };
    for (item, arg) in items.iter_mut().zip(std::mem::take(args)) {
        if let AstNode::Binary { rhs, .. } = item {
            **rhs = arg;
        }
    }
    Some(block)
}

/// The check: refuses a call whose result could hold more than `limit` bytes. Its arguments
/// are the function's name, the context, then the call's own arguments.
pub fn check(limit: usize, args: &[JValue]) -> Result<JValue, EvaluatorError> {
    let (Some(JValue::String(name)), Some(context)) = (args.first(), args.get(1)) else { return Ok(JValue::Undefined) };
    let Some(&(_, fewest, takes_context)) = GUARDED.iter().find(|(n, _, _)| **n == **name) else {
        return Ok(JValue::Undefined);
    };
    let given = &args[2..];
    let full: Vec<&JValue> = if takes_context && given.len() < fewest {
        std::iter::once(context).chain(given).collect()
    } else {
        given.iter().collect()
    };
    let bytes = result_bound(name, &full);
    if bytes > limit as f64 {
        return Err(EvaluatorError::EvaluationError(format!(
            "${name} would build a result of up to {bytes} bytes, more than one evaluation may hold ({limit} bytes, --max-eval-bytes)"
        )));
    }
    Ok(JValue::Undefined)
}

/// The most bytes the call's result can take (as f64: a width may be any number).
fn result_bound(name: &str, args: &[&JValue]) -> f64 {
    let len = |i: usize| match args.get(i) {
        Some(JValue::String(s)) => Some(s.len() as f64),
        _ => None,
    };
    let number = |i: usize| match args.get(i) {
        Some(JValue::Number(n)) => Some(*n),
        _ => None,
    };
    match name {
        // A padding character takes at most 4 bytes.
        "pad" => number(1).map_or(0.0, |w| w.abs() * 4.0),
        "replace" => match (len(0), len(2)) {
            (Some(s), Some(r)) => {
                let pattern = len(1).unwrap_or(1.0).max(1.0);
                let matches = (s / pattern).min(number(3).unwrap_or(f64::INFINITY));
                s + matches * r
            }
            _ => 0.0,
        },
        "join" => match args.first() {
            Some(JValue::Array(items)) => {
                let text: f64 =
                    items.iter().map(|i| if let JValue::String(s) = i { s.len() as f64 } else { 0.0 }).sum();
                text + items.len() as f64 * len(1).unwrap_or(0.0)
            }
            _ => 0.0,
        },
        "split" => match len(0) {
            Some(s) => s + (s + 1.0).min(number(2).unwrap_or(f64::INFINITY)) * PIECE_BYTES as f64,
            None => 0.0,
        },
        _ => 0.0,
    }
}
