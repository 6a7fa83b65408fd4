//! A live model: its compiled spec, its state, and the history and traces of its cycles.

use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::budget::Budget;
use super::compiled::{self, Compiled};
use super::cycle::{self, CycleError, Mode};
use super::evolution::Evolved;
use super::findings::Findings;
use super::journal::Journal;
use super::jsonata::Env;
use super::path::Path;
use super::ring::Ring;
use super::schema;
use super::snapshot::Snapshot;
use super::spec::ModelSpec;
use super::state::State;
use super::trace::{CycleOutcome, Trace};

pub const HISTORY_CAPACITY: usize = 50;
pub const TRACE_CAPACITY: usize = 500;

/// `create_model` and `get_model_info`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub id: String,
    pub version: String,
    pub derivation_count: usize,
    pub meta_derivation_count: usize,
    pub constraint_count: usize,
    pub effect_count: usize,
}

/// One committed cycle; `get_history` lists their timestamps.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    pub sequence: u64,
    /// `at` in ISO-8601 with milliseconds: a valid `at` for `get_state`.
    pub timestamp: String,
    /// `create`, `mutate` or `patch`.
    pub source: String,
    pub mutations: Map<String, Value>,
    /// What the cycle changed, as what to put back: `get_state` `at` rebuilds an earlier state
    /// by undoing the newer cycles from the live state.
    pub undo: Arc<Journal>,
    /// What the entry keeps, in bytes of JSON: its journal and mutations.
    pub(super) bytes: usize,
    /// The commit instant, whole milliseconds, so that its timestamp reads back to it.
    pub at: DateTime<Utc>,
}

/// Why a model could not be created or changed.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelFailure {
    InvalidSpec(Findings),
    Cycle(CycleError),
    BadPath(String),
    /// The document would be larger than a model, or the models together, may hold.
    StateTooLarge(String),
    /// An evolution whose spec is invalid or whose backfill names no address.
    Evolution(String),
    /// An evolution whose schema refuses values the model holds.
    Stranded {
        message: String,
        incompatibilities: Vec<schema::Violation>,
    },
}

/// Whether a document of this many bytes may be stored; `Err` says why not. Asked before a
/// cycle is committed, so that the server can hold all its models to one total.
pub type Admit<'a> = &'a dyn Fn(usize) -> Result<(), String>;

/// Admits any document a model may hold.
pub fn admit_any(_: usize) -> Result<(), String> {
    Ok(())
}

#[derive(Debug)]
pub struct Model {
    pub compiled: Arc<Compiled>,
    pub state: State,
    pub history: Ring<HistoryEntry>,
    pub traces: Ring<Trace>,
    pub(super) next_sequence: u64,
    /// The size of the document, as last committed.
    pub(super) bytes: usize,
    /// The bytes the history entries keep; the oldest go once it passes a document's worth.
    pub(super) history_bytes: usize,
}

/// Reads and compiles a spec; `Ok` carries the warnings.
pub fn compile(raw: &Value) -> Result<(Compiled, Findings), Findings> {
    if super::limits::depth(raw) > super::limits::MAX_DEPTH {
        let mut f = Findings::default();
        f.error("$", format!("the spec nests deeper than {} levels", super::limits::MAX_DEPTH));
        return Err(f);
    }
    compiled::compile(ModelSpec::parse(raw)?)
}

impl Model {
    /// Compiles the spec, seeds the document, and runs the creation cycle.
    pub fn create(raw: &Value, budget: &Budget, admit: Admit) -> Result<Model, ModelFailure> {
        let (compiled, _warnings) = compile(raw).map_err(ModelFailure::InvalidSpec)?;
        Model::from_compiled(Arc::new(compiled), budget, admit)
    }

    pub fn from_compiled(compiled: Arc<Compiled>, budget: &Budget, admit: Admit) -> Result<Model, ModelFailure> {
        let mut state = State::new(schema::seed(&compiled.spec.schema));
        let outcome =
            cycle::run(&compiled, &mut state, Vec::new(), Mode::Create, budget).map_err(ModelFailure::Cycle)?;
        // No state before creation is ever rebuilt, so creation keeps no journal.
        state.take_journal();
        let bytes = measure(&state, budget, admit)?;
        let mut model = Model {
            compiled,
            state,
            history: Ring::new(HISTORY_CAPACITY),
            traces: Ring::new(TRACE_CAPACITY),
            next_sequence: 0,
            bytes,
            history_bytes: 0,
        };
        model.commit("create", Map::new(), &outcome, Journal::default(), budget);
        Ok(model)
    }

    pub fn id(&self) -> &str {
        &self.compiled.spec.id
    }

    pub fn info(&self, id: &str) -> ModelInfo {
        let c = &self.compiled;
        ModelInfo {
            id: id.to_owned(),
            version: c.spec.version.clone(),
            derivation_count: c.derivations.len(),
            meta_derivation_count: c.metas.len(),
            constraint_count: c.constraints.len(),
            effect_count: c.effects.len(),
        }
    }

    /// The size of the document, in bytes of compact JSON, as last committed.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Runs one cycle on `mutations` (`{"$.path": value}`) within `budget`, committed when
    /// `admit` accepts the new document's size; on failure nothing changes.
    pub fn mutate(
        &mut self,
        mutations: &Map<String, Value>,
        budget: &Budget,
        admit: Admit,
    ) -> Result<CycleOutcome, ModelFailure> {
        let mut writes = Vec::with_capacity(mutations.len());
        for (address, value) in mutations {
            let path = Path::parse(address).map_err(|e| ModelFailure::BadPath(e.0))?;
            writes.push((path, value.clone()));
        }
        self.write(writes, "mutate", budget, admit)
    }

    /// Runs one cycle on `writes`, recorded in the history as coming from `source`; committed
    /// when `admit` accepts the new document's size; on failure nothing changes.
    pub fn write(
        &mut self,
        writes: Vec<(Path, Value)>,
        source: &str,
        budget: &Budget,
        admit: Admit,
    ) -> Result<CycleOutcome, ModelFailure> {
        let mutations: Map<String, Value> = writes.iter().map(|(p, v)| (p.to_string(), v.clone())).collect();
        let result = cycle::run(&self.compiled, &mut self.state, writes, Mode::Write, budget)
            .map_err(ModelFailure::Cycle)
            .and_then(|outcome| Ok((outcome, measure(&self.state, budget, admit)?)));
        let journal = self.state.take_journal();
        match result {
            Ok((outcome, bytes)) => {
                self.bytes = bytes;
                self.commit(source, mutations, &outcome, journal, budget);
                Ok(outcome)
            }
            Err(e) => {
                self.state.undo(journal);
                Err(e)
            }
        }
    }

    /// A copy of the state, to hand back to `restore`.
    pub fn snapshot(&self, id: &str) -> Snapshot {
        Snapshot::of(id, &self.compiled.spec.version, &self.state)
    }

    /// Puts back the state a snapshot holds, each written leaf checked against the current
    /// effective schema first; history and traces start empty. Nothing is evaluated: the
    /// derived and meta values are the snapshot's own.
    pub fn restore(&mut self, snapshot: &Snapshot, budget: &Budget, admit: Admit) -> Result<(), ModelFailure> {
        let mut leaves = Vec::new();
        super::snapshot::leaves(&Path::root(), &snapshot.base_doc, &mut leaves);
        let schema = &self.compiled.spec.schema;
        let violations: Vec<_> =
            leaves.iter().flat_map(|(p, v)| schema::check_write(schema, p, v, self.state.meta.get(p))).collect();
        if !violations.is_empty() {
            return Err(ModelFailure::Cycle(CycleError::Schema(violations)));
        }
        let (derived, meta) = snapshot.caches().map_err(ModelFailure::BadPath)?;
        let mut state = State::new(snapshot.base_doc.clone());
        state.derived = derived;
        state.meta = meta;
        state.doc = state.merged();
        self.bytes = measure(&state, budget, admit)?;
        self.start_from(state);
        Ok(())
    }

    /// Takes `state` as the model's, its history and traces starting empty.
    fn start_from(&mut self, state: State) {
        self.state = state;
        self.history = Ring::new(HISTORY_CAPACITY);
        self.history_bytes = 0;
        self.traces = Ring::new(TRACE_CAPACITY);
    }

    /// Swaps in the spec an evolution left, keeping the model's values: the written document,
    /// the derived values whose addresses are still derived, the meta values. `backfill` fills
    /// absent or null addresses in one ordinary cycle; when the schema changed, every written
    /// value must still satisfy it; then every derivation and meta value is computed again.
    /// History and traces start empty. On failure nothing changes.
    pub fn evolve(&mut self, id: &str, evolved: Evolved, budget: &Budget, admit: Admit) -> Result<(), ModelFailure> {
        let compiled = match compile(&evolved.spec) {
            Ok((compiled, _warnings)) => Arc::new(compiled),
            Err(f) => {
                let all: Vec<String> = f.errors.iter().map(|e| format!("{}: {}", e.location, e.message)).collect();
                return Err(ModelFailure::Evolution(format!("Evolved spec failed validation: {}", all.join("; "))));
            }
        };
        let mut state = State::new(self.state.base.clone());
        state.derived = self
            .state
            .derived
            .iter()
            .filter(|(p, _)| compiled.derivations.iter().any(|d| d.path.matches(p)))
            .map(|(p, v)| (p.clone(), v.clone()))
            .collect();
        state.meta = self.state.meta.clone();
        state.doc = state.merged();
        let mut writes = Vec::new();
        for (address, value) in evolved.backfill {
            let path = Path::parse(&address).map_err(|e| ModelFailure::Evolution(format!("backfill: {}", e.0)))?;
            if path.get(&state.base).is_none_or(Value::is_null) {
                writes.push((path, value));
            }
        }
        if !writes.is_empty() {
            cycle::run(&compiled, &mut state, writes, Mode::Write, budget).map_err(ModelFailure::Cycle)?;
        }
        if evolved.touches_schema {
            let mut leaves = Vec::new();
            super::snapshot::leaves(&Path::root(), &state.base, &mut leaves);
            let schema = &compiled.spec.schema;
            let stranded: Vec<_> =
                leaves.iter().flat_map(|(p, v)| schema::check_value(schema, p, v, state.meta.get(p))).collect();
            if !stranded.is_empty() {
                return Err(ModelFailure::Stranded {
                    message: format!("Evolution of model '{id}' would strand {} existing value(s)", stranded.len()),
                    incompatibilities: stranded.into_iter().take(10).collect(),
                });
            }
        }
        cycle::run(&compiled, &mut state, Vec::new(), Mode::Recompute, budget).map_err(ModelFailure::Cycle)?;
        state.take_journal();
        self.bytes = measure(&state, budget, admit)?;
        self.compiled = compiled;
        self.start_from(state);
        Ok(())
    }

    fn commit(
        &mut self,
        source: &str,
        mutations: Map<String, Value>,
        outcome: &CycleOutcome,
        undo: Journal,
        budget: &Budget,
    ) {
        for t in &outcome.traces {
            self.traces.push(t.clone());
        }
        let at = Utc::now().trunc_subsecs(3);
        let cap = budget.model_bytes;
        let bytes = undo.bytes(cap) + super::limits::size_up_to(&Value::Object(mutations.clone()), cap);
        let dropped = self.history.push(HistoryEntry {
            sequence: self.next_sequence,
            timestamp: at.to_rfc3339_opts(SecondsFormat::Millis, true),
            source: source.to_owned(),
            mutations,
            undo: Arc::new(undo),
            bytes,
            at,
        });
        self.history_bytes += bytes;
        self.history_bytes -= dropped.map_or(0, |gone| gone.bytes);
        // The newest entry always stays.
        while self.history_bytes > cap && self.history.iter().nth(1).is_some() {
            self.history_bytes -= self.history.pop_oldest().map_or(0, |gone| gone.bytes);
        }
        self.next_sequence += 1;
    }

    /// The merged document, lazy derivations computed now within `budget`.
    pub fn merged(&self, budget: &Budget) -> Value {
        self.with_lazy(self.state.merged(), budget)
    }

    /// Whether reading the state evaluates expressions (lazy derivations).
    pub fn has_lazy(&self) -> bool {
        self.compiled.derivations.iter().any(|d| d.lazy)
    }

    /// `merged`, the lazy derivations computed on it.
    fn with_lazy(&self, mut out: Value, budget: &Budget) -> Value {
        let lazy: Vec<usize> =
            self.compiled.graph.order().iter().copied().filter(|&i| self.compiled.derivations[i].lazy).collect();
        if lazy.is_empty() {
            return out;
        }
        let Ok(env) = Env::new(&self.compiled.spec.constants, self.compiled.library.as_ref(), budget) else {
            return out;
        };
        for i in lazy {
            let d = &self.compiled.derivations[i];
            let targets = if d.path.has_wildcard() { d.path.expand(&out) } else { vec![d.path.clone()] };
            for target in targets {
                let parent = target.parent().unwrap_or_default();
                let parent_value =
                    d.bound.parent_value(parent.get(&out).unwrap_or(&Value::Null)).map(|v| v.into_owned());
                let bindings: Vec<(&str, &Value)> = parent_value.iter().map(|v| ("parent", v)).collect();
                let value = env
                    .eval_fields(&d.bound.expr, &out, d.bound.projection.as_deref(), &bindings)
                    .ok()
                    .flatten()
                    .unwrap_or(Value::Null);
                let _ = target.set(&mut out, value);
            }
        }
        out
    }

    /// The merged state as the newest history entry at or before `at` left it: the live state
    /// with every newer cycle undone, newest first.
    pub fn merged_at(&self, at: DateTime<Utc>, budget: &Budget) -> Option<Value> {
        let newer = self.history.iter().rev().take_while(|h| h.at > at).count();
        if newer == self.history.iter().count() {
            return None;
        }
        if newer == 0 {
            return Some(self.merged(budget));
        }
        let mut state = self.state.clone();
        for entry in self.history.iter().rev().take(newer) {
            state.undo(Journal::clone(&entry.undo));
        }
        Some(self.with_lazy(state.merged(), budget))
    }
}

impl ModelFailure {
    /// A one-line account of the failure.
    pub fn describe(&self) -> String {
        match self {
            ModelFailure::InvalidSpec(f) => {
                let first: Vec<String> =
                    f.errors.iter().take(3).map(|e| format!("{}: {}", e.location, e.message)).collect();
                format!("invalid spec ({})", first.join("; "))
            }
            ModelFailure::Cycle(CycleError::Schema(v)) => {
                let all: Vec<String> = v.iter().map(|v| format!("{} ({}): {}", v.path, v.keyword, v.message)).collect();
                format!("schema violation: {}", all.join("; "))
            }
            ModelFailure::Cycle(CycleError::Constraint(v)) => {
                let all: Vec<String> = v.iter().map(|v| format!("{}: {}", v.constraint_id, v.message)).collect();
                format!("constraint violation: {}", all.join("; "))
            }
            ModelFailure::Cycle(CycleError::TooLarge(m) | CycleError::Library(m))
            | ModelFailure::BadPath(m)
            | ModelFailure::StateTooLarge(m)
            | ModelFailure::Evolution(m)
            | ModelFailure::Stranded { message: m, .. } => m.clone(),
            ModelFailure::Cycle(CycleError::Stopped(why)) => why.to_string(),
        }
    }
}

/// The document's size, when a model may hold it and `admit` accepts it.
fn measure(state: &State, budget: &Budget, admit: Admit) -> Result<usize, ModelFailure> {
    let bytes = super::limits::size_up_to(&state.doc, budget.model_bytes);
    if bytes > budget.model_bytes {
        return Err(ModelFailure::StateTooLarge(format!(
            "the model's document would be larger than {} bytes, more than one model may hold (--max-model-bytes)",
            budget.model_bytes
        )));
    }
    admit(bytes).map_err(ModelFailure::StateTooLarge)?;
    Ok(bytes)
}
