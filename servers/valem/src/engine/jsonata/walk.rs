//! The direct children of a syntax-tree node, so that analyses need not list every variant.

use jsonata_core::ast::{AstNode, Stage};

/// `children` and `children_mut`: one list of the variants that have children, for both borrows.
macro_rules! children_fn {
    ($name:ident, $stages:ident, $($mut_:tt)?) => {
        /// Calls `f` on each child expression of `node`, stages of path steps included.
        pub fn $name<'a>(node: &'a $($mut_)? AstNode, f: &mut impl FnMut(&'a $($mut_)? AstNode)) {
            match node {
                AstNode::Path { steps } => {
                    for step in steps {
                        f(& $($mut_)? step.node);
                        $stages(& $($mut_)? step.stages, f);
                    }
                }
                AstNode::Binary { lhs, rhs, .. } => {
                    f(lhs);
                    f(rhs);
                }
                AstNode::Unary { operand, .. } => f(operand),
                AstNode::Function { args, .. } => args.into_iter().for_each(f),
                AstNode::Call { procedure, args } => {
                    f(procedure);
                    args.into_iter().for_each(f);
                }
                AstNode::Lambda { body, .. } => f(body),
                AstNode::Array(items) | AstNode::Block(items) | AstNode::ArrayGroup(items) => {
                    items.into_iter().for_each(f)
                }
                AstNode::Object(pairs) => pairs.into_iter().for_each(|(k, v)| {
                    f(k);
                    f(v);
                }),
                AstNode::ObjectTransform { input, pattern } => {
                    f(input);
                    pattern.into_iter().for_each(|(k, v)| {
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
                    terms.into_iter().for_each(|(t, _)| f(t));
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

        pub fn $stages<'a>(stages: &'a $($mut_)? [Stage], f: &mut impl FnMut(&'a $($mut_)? AstNode)) {
            for stage in stages {
                if let Stage::Filter(e) = stage {
                    f(e);
                }
            }
        }
    };
}

children_fn!(children, stages,);
children_fn!(children_mut, stages_mut, mut);

/// Every node of the tree, the root first.
pub fn each<'a>(node: &'a AstNode, f: &mut impl FnMut(&'a AstNode)) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        f(n);
        children(n, &mut |c| stack.push(c));
    }
}
