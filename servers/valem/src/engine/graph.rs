//! The dependency graph of derivations: who reads whose target, a topological order (a cycle is
//! a spec error), and the derivations a set of writes makes dirty.

use std::collections::VecDeque;

use super::path::Path;

/// What the graph needs of a derivation.
pub struct NodeShape<'a> {
    pub target: &'a Path,
    pub reads: &'a [Path],
}

#[derive(Debug, Default)]
pub struct Graph {
    /// `dependents[i]`: the derivations that read derivation `i`'s target.
    dependents: Vec<Vec<usize>>,
    /// Each derivation's position in the evaluation order.
    rank: Vec<usize>,
    order: Vec<usize>,
}

impl Graph {
    /// Builds the graph; `Err` names the derivations on a cycle.
    pub fn build(nodes: &[NodeShape]) -> Result<Graph, Vec<usize>> {
        let n = nodes.len();
        let mut dependents = vec![Vec::new(); n];
        let mut indegree = vec![0usize; n];
        for (d, node) in nodes.iter().enumerate() {
            for (e, source) in nodes.iter().enumerate() {
                // A derivation that reads around its own target does not depend on itself.
                if d != e && node.reads.iter().any(|r| r.overlaps(source.target)) {
                    dependents[e].push(d);
                    indegree[d] += 1;
                }
            }
        }
        let mut queue: VecDeque<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = queue.pop_front() {
            order.push(i);
            for &d in &dependents[i] {
                indegree[d] -= 1;
                if indegree[d] == 0 {
                    queue.push_back(d);
                }
            }
        }
        if order.len() < n {
            return Err((0..n).filter(|&i| indegree[i] > 0).collect());
        }
        let mut rank = vec![0; n];
        for (pos, &i) in order.iter().enumerate() {
            rank[i] = pos;
        }
        Ok(Graph { dependents, rank, order })
    }

    /// Every derivation, in evaluation order.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The derivations to re-evaluate after `seeds` changed, with everything downstream of them,
    /// in evaluation order.
    pub fn downstream(&self, seeds: impl IntoIterator<Item = usize>) -> Vec<usize> {
        // Only what is reached is visited and sorted: the cost follows the dirty part.
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<usize> = seeds.into_iter().collect();
        let mut out = Vec::new();
        while let Some(i) = stack.pop() {
            if seen.insert(i) {
                out.push(i);
                stack.extend(&self.dependents[i]);
            }
        }
        out.sort_by_key(|&i| self.rank[i]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Path {
        Path::parse(s).unwrap()
    }

    #[test]
    fn order_follows_reads_and_cycles_are_found() {
        let (a, b, c) = (p("$.a"), p("$.b"), p("$.c"));
        let reads_b = [p("$.b")];
        let reads_x = [p("$.x")];
        let reads_a = [p("$.a")];
        let nodes = [
            NodeShape { target: &a, reads: &reads_b },
            NodeShape { target: &b, reads: &reads_x },
            NodeShape { target: &c, reads: &reads_a },
        ];
        let g = Graph::build(&nodes).unwrap();
        assert_eq!(g.order(), [1, 0, 2]);
        assert_eq!(g.downstream([1]), [1, 0, 2]);
        assert_eq!(g.downstream([0]), [0, 2]);
        let reads_c = [p("$.c")];
        let cyclic = [NodeShape { target: &a, reads: &reads_c }, NodeShape { target: &c, reads: &reads_a }];
        assert_eq!(Graph::build(&cyclic).unwrap_err(), [0, 1]);
    }
}
