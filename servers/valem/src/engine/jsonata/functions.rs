//! Function calls in an expression: which are undefined, which read the clock or chance, and
//! how a library's export list becomes an object of its functions.

use std::collections::HashSet;

use jsonata_core::ast::{AstNode, BinaryOp};

use super::walk;

/// The functions JSONata defines.
const BUILTINS: &[&str] = &[
    "sum",
    "count",
    "max",
    "min",
    "average",
    "string",
    "substring",
    "substringBefore",
    "substringAfter",
    "lowercase",
    "uppercase",
    "length",
    "trim",
    "pad",
    "contains",
    "split",
    "join",
    "match",
    "replace",
    "eval",
    "base64encode",
    "base64decode",
    "encodeUrlComponent",
    "encodeUrl",
    "decodeUrlComponent",
    "decodeUrl",
    "number",
    "abs",
    "floor",
    "ceil",
    "round",
    "power",
    "sqrt",
    "random",
    "formatNumber",
    "formatBase",
    "formatInteger",
    "parseInteger",
    "boolean",
    "not",
    "exists",
    "map",
    "filter",
    "single",
    "reduce",
    "sift",
    "keys",
    "lookup",
    "append",
    "spread",
    "merge",
    "reverse",
    "each",
    "error",
    "assert",
    "type",
    "sort",
    "shuffle",
    "distinct",
    "zip",
    "now",
    "millis",
    "fromMillis",
    "toMillis",
    "clone",
];

/// Bound in every model expression by the service itself.
const SERVICE_VARIABLES: &[&str] = &["const", "parent", "self"];

/// Calls of `$name(...)` that no built-in, service variable or binding in the expression defines.
pub fn called(ast: &AstNode) -> Vec<String> {
    let mut bound: HashSet<&str> = HashSet::new();
    let mut calls: Vec<&str> = Vec::new();
    walk::each(ast, &mut |node| match node {
        AstNode::Binary { op: BinaryOp::ColonEqual, lhs, .. } => {
            if let AstNode::Variable(name) = lhs.as_ref() {
                bound.insert(name);
            }
        }
        AstNode::Lambda { params, .. } => bound.extend(params.iter().map(String::as_str)),
        AstNode::Path { steps } => {
            // `@$x` and `#$x` bind too.
            for step in steps {
                bound.extend(step.focus.iter().chain(&step.index_var).map(String::as_str));
            }
        }
        AstNode::Function { name, .. } => calls.push(name),
        _ => {}
    });
    let mut free: Vec<String> = calls
        .into_iter()
        .filter(|n| !BUILTINS.contains(n) && !SERVICE_VARIABLES.contains(n) && !bound.contains(n))
        .map(str::to_owned)
        .collect();
    free.sort();
    free.dedup();
    free
}

/// Whether `$now`, `$millis` or `$random` is called.
pub fn uses_clock_or_random(ast: &AstNode) -> bool {
    let mut found = false;
    walk::each(ast, &mut |node| {
        if let AstNode::Function { name, .. } = node {
            found |= matches!(name.as_str(), "now" | "millis" | "random");
        }
    });
    found
}

/// Rewrites a library layer whose value is an array of names (`[..., ["a", "b"]]`, alone or at
/// the end of a block) into one whose value is `{"a": $a, "b": $b}`; gives the names.
pub fn export_object(ast: AstNode) -> Option<(AstNode, Vec<String>)> {
    match ast {
        AstNode::Block(mut items) => {
            let last = items.pop()?;
            let (object, names) = export_object(last)?;
            items.push(object);
            Some((AstNode::Block(items), names))
        }
        AstNode::Array(names) => {
            let names: Vec<String> = names
                .into_iter()
                .map(|n| match n {
                    AstNode::String(s) => Some(s),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            let pairs = names.iter().map(|n| (AstNode::String(n.clone()), AstNode::Variable(n.clone()))).collect();
            Some((AstNode::Object(pairs), names))
        }
        _ => None,
    }
}
