//! The direct children of a syntax-tree node, so that analyses need not list every variant.

use jsonata_core::ast::{AstNode, Stage};

/// Calls `f` on each child expression of `node`, stages of path steps included.
pub fn children<'a>(node: &'a AstNode, f: &mut impl FnMut(&'a AstNode)) {
    match node {
        AstNode::Path { steps } => {
            for step in steps {
                f(&step.node);
                stages(&step.stages, f);
            }
        }
        AstNode::Binary { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        AstNode::Unary { operand, .. } => f(operand),
        AstNode::Function { args, .. } => args.iter().for_each(f),
        AstNode::Call { procedure, args } => {
            f(procedure);
            args.iter().for_each(f);
        }
        AstNode::Lambda { body, .. } => f(body),
        AstNode::Array(items) | AstNode::Block(items) | AstNode::ArrayGroup(items) => items.iter().for_each(f),
        AstNode::Object(pairs) => pairs.iter().for_each(|(k, v)| {
            f(k);
            f(v);
        }),
        AstNode::ObjectTransform { input, pattern } => {
            f(input);
            pattern.iter().for_each(|(k, v)| {
                f(k);
                f(v);
            });
        }
        AstNode::Conditional { condition, then_branch, else_branch } => {
            f(condition);
            f(then_branch);
            if let Some(e) = else_branch {
                f(e);
            }
        }
        AstNode::FunctionApplication(inner) => f(inner),
        AstNode::Sort { input, terms } => {
            f(input);
            terms.iter().for_each(|(t, _)| f(t));
        }
        AstNode::Transform { location, update, delete } => {
            f(location);
            f(update);
            if let Some(d) = delete {
                f(d);
            }
        }
        _ => {}
    }
}

pub fn stages<'a>(stages: &'a [Stage], f: &mut impl FnMut(&'a AstNode)) {
    for stage in stages {
        if let Stage::Filter(e) = stage {
            f(e);
        }
    }
}

/// Every node of the tree, the root first.
pub fn each<'a>(node: &'a AstNode, f: &mut impl FnMut(&'a AstNode)) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        f(n);
        children(n, &mut |c| stack.push(c));
    }
}
