//! One reactive cycle: validate the writes, write them, fill defaults into new containers,
//! recompute the dirty derivations in order, then meta, constraints and effects. The state
//! journals every change; the caller undoes the journal when the cycle fails.

use serde_json::{Map, Value, json};

use super::budget::{Budget, Stopped};
use super::compiled::{
    Bound, Compiled, ConstraintNode, DefaultNode, DerivationNode, EffectNode, MetaNode, Payload, Template,
};
use super::index::RootIndex;
use super::jsonata::{Env, is_truthy};
use super::limits;
use super::model::TRACE_CAPACITY;
use super::path::{Path, Seg};
use super::schema::{self, Violation};
use super::snapshot::meta_key;
use super::spec::Policy;
use super::state::State;
use super::trace::{ConstraintFailure, CycleOutcome, Trace};

/// Why a cycle was refused; the caller undoes what the state journalled.
#[derive(Debug, Clone, PartialEq)]
pub enum CycleError {
    Schema(Vec<Violation>),
    Constraint(Vec<ConstraintFailure>),
    TooLarge(String),
    Library(String),
    /// Time ran out or the caller cancelled: the cycle is undone.
    Stopped(Stopped),
}

/// The `targetPath` prefix of a constraint's traces: `$constraint:<id>`.
pub const CONSTRAINT_TARGET: &str = "$constraint:";

/// The phases of an effect's status under which it is on its way and is not emitted again.
const BUSY_PHASES: &[&str] = &["pending", "in_flight"];

/// What a cycle runs for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Callers' writes: what they touch is dirty.
    Write,
    /// A model's first cycle: every container is new and every node is dirty.
    Create,
    /// An evolved spec on a carried-over state: every eager derivation and meta value is
    /// computed again; no default fills, no constraint is evaluated and no effect emitted.
    Recompute,
}

/// Runs one cycle within `budget`.
pub fn run(
    c: &Compiled,
    state: &mut State,
    writes: Vec<(Path, Value)>,
    mode: Mode,
    budget: &Budget,
) -> Result<CycleOutcome, CycleError> {
    check_writes(c, state, &writes)?;
    let env = Env::new(&c.spec.constants, c.library.as_ref(), budget).map_err(|e| CycleError::Library(e.0))?;
    if let Some(why) = env.stopped() {
        return Err(CycleError::Stopped(why));
    }
    let out = cascade(c, state, writes, mode, &env);
    // A cycle that had to stop is refused whatever it found on the way.
    if let Some(why) = env.stopped() {
        return Err(CycleError::Stopped(why));
    }
    let mut out = out?;
    let older = out.traces.len().saturating_sub(TRACE_CAPACITY);
    out.traces.drain(..older);
    Ok(out)
}

/// Steps 2 to 8; a step stops early once the environment says the cycle must stop.
fn cascade(
    c: &Compiled,
    state: &mut State,
    writes: Vec<(Path, Value)>,
    mode: Mode,
    env: &Env,
) -> Result<CycleOutcome, CycleError> {
    let creation = mode != Mode::Write;
    let mut run = Cycle { state, env, out: CycleOutcome::default(), changed: Vec::new(), creation };

    let before: Vec<Vec<Path>> = c.defaults.iter().map(|d| containers(&d.path, &run.state.doc)).collect();
    for (path, value) in writes {
        run.state.write(&path, value).map_err(|e| CycleError::Schema(vec![violation(&path, "type", e)]))?;
        run.out.mutated_paths.push(path.to_string());
        run.changed.push(path);
    }
    if mode != Mode::Recompute {
        for (node, before) in c.defaults.iter().zip(before) {
            run.fill_defaults(node, &before);
        }
    }

    let dirty = if creation {
        c.graph.order().to_vec()
    } else {
        let seeds = c.derivation_index.candidates(&run.changed).into_iter().filter(|&i| {
            let d = &c.derivations[i];
            run.touched(&d.bound.reads) || run.changed.iter().any(|w| w.overlaps(&d.path))
        });
        c.graph.downstream(seeds.collect::<Vec<_>>())
    };
    for i in dirty {
        if env.stopped().is_some() {
            return Ok(run.out);
        }
        let d = &c.derivations[i];
        if !d.lazy {
            run.derive(d);
        }
    }
    for i in run.candidates(&c.meta_index, c.metas.len()) {
        let m = &c.metas[i];
        if env.stopped().is_some() {
            return Ok(run.out);
        }
        if run.creation || run.touched(&m.bound.reads) {
            run.meta(m);
        }
    }
    if mode == Mode::Recompute {
        return Ok(run.out);
    }
    for i in run.candidates(&c.constraint_index, c.constraints.len()) {
        let k = &c.constraints[i];
        if env.stopped().is_some() {
            return Ok(run.out);
        }
        if run.creation || run.touched(&k.bound.reads) {
            run.constraint(k);
        }
    }
    let rollbacks: Vec<ConstraintFailure> =
        run.out.flagged.iter().filter(|f| f.policy == Policy::Rollback).cloned().collect();
    if !rollbacks.is_empty() {
        return Err(CycleError::Constraint(rollbacks));
    }
    for i in run.candidates(&c.effect_index, c.effects.len()) {
        let e = &c.effects[i];
        if env.stopped().is_some() {
            return Ok(run.out);
        }
        let reads_dedupe = e.dedupe_key.as_ref().is_some_and(|k| run.touched(&k.reads));
        if run.creation || run.touched(&e.trigger.reads) || reads_dedupe {
            run.effect(e);
        }
    }
    Ok(run.out)
}

/// Step 1: every write is checked before anything is written; all violations are reported.
fn check_writes(c: &Compiled, state: &State, writes: &[(Path, Value)]) -> Result<(), CycleError> {
    let mut violations = Vec::new();
    for (path, value) in writes {
        if let Some(why) = limits::check_value(value) {
            return Err(CycleError::TooLarge(format!("{path}: {why}")));
        }
        if path.has_wildcard() {
            violations.push(violation(path, "path", format!("{path} has a wildcard; write each element's address")));
            continue;
        }
        let mut derived_here =
            c.derivation_index.candidates(std::slice::from_ref(path)).into_iter().map(|i| &c.derivations[i]);
        if let Some(d) = derived_here.find(|d| d.path.overlaps(path) && path.segs().len() >= d.path.segs().len()) {
            let why = format!("{path} is derived by `{}` and cannot be written", d.bound.expr.source());
            violations.push(violation(path, "readOnly", why));
            continue;
        }
        violations.extend(schema::check_write(&c.spec.schema, path, value, state.meta.get(path)));
    }
    if violations.is_empty() { Ok(()) } else { Err(CycleError::Schema(violations)) }
}

fn violation(path: &Path, keyword: &str, message: impl Into<String>) -> Violation {
    Violation { path: path.to_string(), keyword: keyword.to_owned(), message: message.into() }
}

/// The objects in `doc` that a `defaultValues` path names.
fn containers(pattern: &Path, doc: &Value) -> Vec<Path> {
    pattern.expand(doc).into_iter().filter(|p| p.get(doc).is_some_and(Value::is_object)).collect()
}

struct Cycle<'a> {
    state: &'a mut State,
    env: &'a Env,
    out: CycleOutcome,
    /// Addresses written or recomputed so far: what makes a node dirty.
    changed: Vec<Path>,
    creation: bool,
}

impl Cycle<'_> {
    /// The nodes of `index` to look at: at creation all `len` of them, else those a change may touch.
    fn candidates(&self, index: &RootIndex, len: usize) -> Vec<usize> {
        if self.creation { (0..len).collect() } else { index.candidates(&self.changed) }
    }

    fn touched(&self, reads: &[Path]) -> bool {
        reads.iter().any(|r| self.changed.iter().any(|w| w.overlaps(r)))
    }

    /// Evaluates `bound` on the document, or on the value at `at` when given, with `$parent`.
    fn eval(&self, bound: &Bound, at: Option<&Path>, parent: &Path) -> Result<Option<Value>, String> {
        let null = Value::Null;
        let parent_value = bound.parent_value(parent.get(&self.state.doc).unwrap_or(&null));
        let bindings: Vec<(&str, &Value)> = parent_value.as_deref().map(|v| ("parent", v)).into_iter().collect();
        let result = match at {
            None => self.env.eval_fields(&bound.expr, &self.state.doc, bound.projection.as_deref(), &bindings),
            Some(p) => self.env.eval(&bound.expr, p.get(&self.state.doc).unwrap_or(&null), &bindings),
        };
        result.map_err(|e| e.0)
    }

    /// Records one evaluation: undefined is an ordinary null result, only a failed
    /// evaluation carries an `errorMessage`.
    fn trace(&mut self, target: String, bound: &Bound, result: &Result<Option<Value>, String>, passed: Option<bool>) {
        let (value, error) = match result {
            // 500 traces of a large value each would outweigh the model: a large one is named.
            Ok(Some(v)) if limits::size_exceeds(v, limits::MAX_TRACE_VALUE_BYTES) => {
                (json!(format!("<more than {} bytes>", limits::MAX_TRACE_VALUE_BYTES)), None)
            }
            Ok(Some(v)) => (v.clone(), None),
            Ok(None) => (Value::Null, None),
            Err(e) => (Value::Null, Some(e.clone())),
        };
        self.out.traces.push(Trace {
            target_path: target,
            expression: bound.expr.source().to_owned(),
            input_paths: bound.reads.iter().map(Path::to_string).collect(),
            result: value,
            constraint_passed: passed,
            error_message: error,
        });
        // Only the newest traces are kept (see `TRACE_CAPACITY`); a cycle over many elements
        // drops the older ones as it goes.
        if self.out.traces.len() >= 2 * TRACE_CAPACITY {
            self.out.traces.drain(..TRACE_CAPACITY);
        }
    }

    /// Step 3: deep-fills what a `defaultValues` expression returns into each new container.
    fn fill_defaults(&mut self, node: &DefaultNode, before: &[Path]) {
        let root_fires = node.path.is_root() && self.creation;
        for container in containers(&node.path, &self.state.doc) {
            let is_new = if node.path.is_root() { root_fires } else { self.creation || !before.contains(&container) };
            if !is_new {
                continue;
            }
            let null = Value::Null;
            let this = container.get(&self.state.doc).unwrap_or(&null);
            let parent = container.parent().unwrap_or_default();
            let parent_value = parent.get(&self.state.doc).unwrap_or(&null);
            let filled = self.env.eval(&node.expr, &self.state.doc, &[("self", this), ("parent", parent_value)]);
            if let Ok(Some(Value::Object(fill))) = filled {
                self.deep_fill(&container, fill);
            }
        }
    }

    #[allow(clippy::collapsible_match)] // the write must follow the read's borrow
    fn deep_fill(&mut self, at: &Path, fill: Map<String, Value>) {
        for (key, value) in fill {
            let path = at.child(Seg::Key(key));
            match (path.get(&self.state.doc), value) {
                (Some(Value::Object(_)), Value::Object(inner)) => self.deep_fill(&path, inner),
                (None | Some(Value::Null), value) => {
                    // A scalar in the way only stops this one field.
                    if self.state.write(&path, value).is_ok() {
                        self.changed.push(path);
                    }
                }
                _ => {}
            }
        }
    }

    /// Step 5: a derivation, once per element for a `[*]` path; an error or no value stores null.
    fn derive(&mut self, d: &DerivationNode) {
        let parent_pattern = d.path.parent().unwrap_or_default();
        let Some(last) = d.path.segs().last().cloned() else { return };
        let targets: Vec<(Path, Path)> = if d.path.has_wildcard() {
            self.state.forget_derived(&d.path);
            containers(&parent_pattern, &self.state.doc).into_iter().map(|p| (p.child(last.clone()), p)).collect()
        } else {
            vec![(d.path.clone(), parent_pattern)]
        };
        for (target, parent) in targets {
            if self.env.stopped().is_some() {
                return;
            }
            let result = self.eval(&d.bound, None, &parent);
            let value = result.clone().ok().flatten().unwrap_or(Value::Null);
            let stored = self.state.derive(&target, value);
            let address = target.to_string();
            match stored {
                Ok(()) => self.trace(address.clone(), &d.bound, &result, None),
                Err(e) => self.trace(address.clone(), &d.bound, &Err(format!("cannot store the value: {e}")), None),
            }
            self.out.derived_updated.push(address);
        }
        self.changed.push(d.path.clone());
    }

    /// Step 6: a meta value, beside the document.
    fn meta(&mut self, m: &MetaNode) {
        let targets: Vec<Path> =
            if m.path.has_wildcard() { m.path.expand(&self.state.doc) } else { vec![m.path.clone()] };
        for target in targets {
            let result = self.eval(&m.bound, None, &target.parent().unwrap_or_default());
            self.trace(target.to_string(), &m.bound, &result, None);
            self.state.set_meta(&target, &m.property, result.ok().flatten());
            self.out.meta_updated.push(meta_key(&target, &m.property));
        }
    }

    /// Step 7: a constraint, once per address it names. One whose inputs hold no value yet
    /// (absent or null) is not evaluated: there is nothing to hold it against.
    fn constraint(&mut self, k: &ConstraintNode) {
        if !k.bound.reads.is_empty() && k.bound.reads.iter().all(|r| !self.holds_value(r)) {
            return;
        }
        let sites: Vec<Option<Path>> = if k.paths.is_empty() {
            vec![None]
        } else {
            k.paths
                .iter()
                .flat_map(|p| p.expand(&self.state.doc))
                .filter(|p| p.get(&self.state.doc).is_some())
                .map(Some)
                .collect()
        };
        for site in sites {
            let parent = site.as_ref().and_then(Path::parent).unwrap_or_default();
            let result = self.eval(&k.bound, site.as_ref(), &parent);
            let passed = matches!(&result, Ok(v) if is_truthy(v.as_ref()));
            self.trace(format!("{CONSTRAINT_TARGET}{}", k.id), &k.bound, &result, Some(passed));
            if !passed {
                self.out.flagged.push(ConstraintFailure {
                    constraint_id: k.id.clone(),
                    message: k.message.clone(),
                    policy: k.policy,
                });
                return;
            }
        }
    }

    fn holds_value(&self, read: &Path) -> bool {
        let known: Vec<Seg> = read.segs().iter().take_while(|s| **s != Seg::Any).cloned().collect();
        Path(known).get(&self.state.doc).is_some_and(|v| !v.is_null())
    }

    /// Step 8: an effect request, emitted as data in every cycle that touched its inputs while
    /// its trigger holds, unless its status shows it on its way (`phase` pending or in_flight)
    /// or already done for the current dedupe key (`key`).
    fn effect(&mut self, e: &EffectNode) {
        if !matches!(self.eval(&e.trigger, None, &Path::root()), Ok(v) if is_truthy(v.as_ref())) {
            return;
        }
        let key = e.dedupe_key.as_ref().and_then(|k| self.eval(k, None, &Path::root()).ok().flatten());
        let status = e.status_path.as_ref().and_then(|p| p.get(&self.state.doc));
        let busy = status
            .and_then(|s| s.get("phase"))
            .and_then(Value::as_str)
            .is_some_and(|phase| BUSY_PHASES.contains(&phase));
        let done = key.is_some() && status.and_then(|s| s.get("key")) == key.as_ref();
        if busy || done {
            return;
        }
        let mut request = Map::new();
        request.insert("effectId".into(), json!(e.spec.id));
        request.insert("executor".into(), json!(e.spec.executor));
        request.insert("statusPath".into(), json!(e.spec.status_path));
        request.insert("dedupeKey".into(), key.unwrap_or(Value::Null));
        for (k, v) in &e.spec.rest {
            let v = match e.evaluated.iter().find(|(name, _)| name == k) {
                Some((_, p)) => self.payload(p),
                None => v.clone(),
            };
            request.insert(k.clone(), v);
        }
        if let (Some(url), Some(Value::Object(r))) = (&e.url, request.get_mut("request")) {
            r.insert("url".into(), Value::String(self.fill(url)));
        }
        self.out.dispatched_effects.push(Value::Object(request));
    }

    /// A URL template with each `{ expression }` replaced by its value as text (nothing for
    /// an expression that fails or gives no value).
    fn fill(&self, template: &Template) -> String {
        let mut out = String::new();
        for part in &template.0 {
            match self.payload(part) {
                Value::Null => {}
                Value::String(s) => out.push_str(&s),
                other => out.push_str(&other.to_string()),
            }
        }
        out
    }

    /// A payload's string values are expressions over the document; one that does not compile
    /// or gives no value is null.
    fn payload(&self, p: &Payload) -> Value {
        match p {
            Payload::Object(fields) => {
                Value::Object(fields.iter().map(|(k, p)| (k.clone(), self.payload(p))).collect())
            }
            Payload::Expr(expr) => expr
                .as_ref()
                .and_then(|expr| self.env.eval(expr, &self.state.doc, &[]).ok().flatten())
                .unwrap_or(Value::Null),
            Payload::Value(v) => v.clone(),
        }
    }
}
