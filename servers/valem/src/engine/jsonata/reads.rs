//! What an expression reads, found in its syntax tree: the field paths it follows from its input
//! (`a.b`), from `$parent` (`$parent.price`), and whether it takes the whole input (`$`, `*`).
//!
//! A path that goes on through a filter, a wildcard or a `.( )` step counts as reading its whole
//! prefix: `items[price > 0].qty` reads `items`. Coarse, never missing a dependency.

use jsonata_core::ast::AstNode;

use super::walk;

/// One step of a read path: a field name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ReadSeg {
    Key(String),
}

/// The reads of one expression. An empty path means the whole input (or the whole `$parent`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reads {
    pub paths: Vec<Vec<ReadSeg>>,
    pub parent: Vec<Vec<ReadSeg>>,
    pub whole_input: bool,
}

/// Where the expression being walked stands.
#[derive(Clone)]
enum At {
    /// At this path from the input.
    Input(Vec<ReadSeg>),
    /// At this path from `$parent`.
    Parent(Vec<ReadSeg>),
    /// Somewhere already read as a whole (inside a filter, a lambda parameter, a literal).
    Elsewhere,
}

impl At {
    fn field(&self, name: &str) -> At {
        let extend = |p: &Vec<ReadSeg>| {
            let mut p = p.clone();
            p.push(ReadSeg::Key(name.to_owned()));
            p
        };
        match self {
            At::Input(p) => At::Input(extend(p)),
            At::Parent(p) => At::Parent(extend(p)),
            At::Elsewhere => At::Elsewhere,
        }
    }
}

pub fn of(ast: &AstNode) -> Reads {
    let mut reads = Reads::default();
    visit(ast, &At::Input(Vec::new()), &mut reads);
    reads.paths = minimal(reads.paths);
    reads.parent = minimal(reads.parent);
    reads.whole_input = reads.paths.iter().any(Vec::is_empty);
    reads
}

fn record(at: &At, reads: &mut Reads) {
    match at {
        At::Input(p) => reads.paths.push(p.clone()),
        At::Parent(p) => reads.parent.push(p.clone()),
        At::Elsewhere => {}
    }
}

fn visit(node: &AstNode, at: &At, reads: &mut Reads) {
    match node {
        AstNode::Path { steps } => {
            let mut cur = At::Elsewhere;
            for (n, step) in steps.iter().enumerate() {
                cur = match (&step.node, n) {
                    (AstNode::Name(name), 0) => at.field(name),
                    (AstNode::Name(name), _) => cur.field(name),
                    (AstNode::Variable(v), 0) => variable(v, at),
                    // `$$`: the input's root.
                    (AstNode::ParentVariable(_), 0) => At::Input(Vec::new()),
                    (other, 0) => {
                        if matches!(other, AstNode::Wildcard | AstNode::Descendant) {
                            record(at, reads);
                        }
                        visit(other, at, reads);
                        At::Elsewhere
                    }
                    (other, _) => {
                        record(&cur, reads);
                        visit(other, &At::Elsewhere, reads);
                        At::Elsewhere
                    }
                };
                if !step.stages.is_empty() || step.focus.is_some() || step.index_var.is_some() {
                    record(&cur, reads);
                    walk::stages(&step.stages, &mut |f| visit(f, &At::Elsewhere, reads));
                    cur = At::Elsewhere;
                }
            }
            record(&cur, reads);
        }
        AstNode::Variable(v) => record(&variable(v, at), reads),
        AstNode::ParentVariable(_) => record(&At::Input(Vec::new()), reads),
        AstNode::Wildcard | AstNode::Descendant => record(at, reads),
        AstNode::Sort { input, terms } => {
            visit(input, at, reads);
            terms.iter().for_each(|(t, _)| visit(t, &At::Elsewhere, reads));
        }
        AstNode::ObjectTransform { input, pattern } => {
            visit(input, at, reads);
            pattern.iter().for_each(|(k, v)| {
                visit(k, &At::Elsewhere, reads);
                visit(v, &At::Elsewhere, reads);
            });
        }
        AstNode::Transform { .. } => walk::children(node, &mut |c| visit(c, &At::Elsewhere, reads)),
        _ => walk::children(node, &mut |c| visit(c, at, reads)),
    }
}

/// Where a variable at the head of a path stands: `$` is the context, `$parent` the parent
/// element; any other variable holds a value not read from the input.
fn variable(name: &str, at: &At) -> At {
    match name {
        "" => at.clone(),
        "parent" => At::Parent(Vec::new()),
        _ => At::Elsewhere,
    }
}

/// Drops duplicates and paths under another path of the list.
fn minimal(mut paths: Vec<Vec<ReadSeg>>) -> Vec<Vec<ReadSeg>> {
    paths.sort_by_key(Vec::len);
    let mut kept: Vec<Vec<ReadSeg>> = Vec::new();
    for p in paths {
        if !kept.iter().any(|k| p.starts_with(k)) {
            kept.push(p);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(src: &str) -> (Vec<String>, Vec<String>) {
        let r = of(&jsonata_core::parser::parse(src).unwrap());
        let show = |ps: &Vec<Vec<ReadSeg>>| -> Vec<String> {
            let mut v: Vec<String> =
                ps.iter().map(|p| p.iter().map(|ReadSeg::Key(k)| k.clone()).collect::<Vec<_>>().join(".")).collect();
            v.sort();
            v
        };
        (show(&r.paths), show(&r.parent))
    }

    #[test]
    fn field_paths_are_read() {
        assert_eq!(reads("price * qty").0, ["price", "qty"]);
        assert_eq!(reads("quote.applicant.age < 30 ? 1 : $const.x").0, ["quote.applicant.age"]);
        assert_eq!(reads("$sum(items[price != null].(price * qty))").0, ["items"]);
        assert_eq!(reads("$parent.price * $parent.qty").1, ["price", "qty"]);
        assert_eq!(reads("$map([1..n], function($i) { $i * rate })").0, ["n", "rate"]);
        assert_eq!(reads("$map(rows, function($r) { $r.total })").0, ["rows"]);
        assert_eq!(reads("$.a + $$.b").0, ["a", "b"]);
    }

    #[test]
    fn whole_input_reads_are_seen() {
        assert_eq!(reads("$keys($)").0, [""]);
        assert_eq!(reads("*.x").0, [""]);
        assert_eq!(reads("($x := 1; $x)").0, Vec::<String>::new());
    }
}
