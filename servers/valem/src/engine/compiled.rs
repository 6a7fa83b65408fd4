//! A spec made ready to run: every address parsed, every expression compiled with what it
//! reads, the dependency graph built. Compiling is also validating: each problem is a finding.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::Value;

use super::findings::Findings;
use super::graph::{Graph, NodeShape};
use super::index::RootIndex;
use super::jsonata::{Expr, Library, ReadSeg, Reads};
use super::path::{Path, Seg};
use super::schema;
use super::spec::{Effect, Evaluation, META_PROPERTIES, ModelSpec, Policy};

/// How an expression is fed: the document, or the value at an address, and what it reads.
#[derive(Debug)]
pub struct Bound {
    pub expr: Expr,
    /// Absolute addresses read (patterns), for the dependency graph and traces.
    pub reads: Vec<Path>,
    /// The root fields an expression on the document needs; `None` when it needs all of it.
    pub projection: Option<Vec<String>>,
    /// What of `$parent` the expression reads.
    pub parent: ParentUse,
}

/// What of `$parent` an expression reads: binding only that keeps the cost of an expression
/// next to a large container (a field at the root has the whole document as parent) to what
/// it reads.
#[derive(Debug, Clone, PartialEq)]
pub enum ParentUse {
    Unused,
    Fields(Vec<String>),
    Whole,
}

impl Bound {
    /// The value to bind as `$parent`, given the container's value; `None` when unused.
    pub fn parent_value<'v>(&self, container: &'v Value) -> Option<Cow<'v, Value>> {
        match (&self.parent, container) {
            (ParentUse::Unused, _) => None,
            (ParentUse::Fields(fields), Value::Object(m)) => Some(Cow::Owned(Value::Object(
                fields.iter().filter_map(|f| m.get(f).map(|v| (f.clone(), v.clone()))).collect(),
            ))),
            _ => Some(Cow::Borrowed(container)),
        }
    }
}

#[derive(Debug)]
pub struct DerivationNode {
    pub path: Path,
    pub lazy: bool,
    pub bound: Bound,
}

#[derive(Debug)]
pub struct MetaNode {
    pub path: Path,
    pub property: String,
    pub bound: Bound,
}

#[derive(Debug)]
pub struct ConstraintNode {
    pub id: String,
    /// Empty: the constraint is on the document.
    pub paths: Vec<Path>,
    pub bound: Bound,
    pub message: String,
    pub policy: Policy,
}

#[derive(Debug)]
pub struct EffectNode {
    pub spec: Effect,
    pub trigger: Bound,
    pub dedupe_key: Option<Bound>,
    pub status_path: Option<Path>,
    /// The members evaluated at emission (`payload`, `afterMs`, `prompt`), their expressions
    /// compiled.
    pub evaluated: Vec<(String, Payload)>,
    /// `request.url`, a template of `{ expression }` placeholders.
    pub url: Option<Template>,
}

/// The members of an effect whose strings are expressions, evaluated when it is emitted.
const EVALUATED_MEMBERS: [&str; 3] = ["payload", "afterMs", "prompt"];

/// A text with `{ expression }` placeholders: literal parts are string values, the
/// placeholders compiled expressions.
#[derive(Debug)]
pub struct Template(pub Vec<Payload>);

impl Template {
    fn compile(text: &str) -> Template {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let mut depth = 0;
            let close = rest[open..].char_indices().find_map(|(i, c)| {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                (depth == 0).then_some(open + i)
            });
            let Some(close) = close else { break };
            parts.push(Payload::Value(Value::String(rest[..open].to_owned())));
            parts.push(Payload::Expr(Expr::compile(&rest[open + 1..close]).ok()));
            rest = &rest[close + 1..];
        }
        parts.push(Payload::Value(Value::String(rest.to_owned())));
        Template(parts)
    }
}

/// A payload made ready to emit: its string values are expressions over the document,
/// evaluated at emission; one that does not compile gives null, as does one that fails.
#[derive(Debug)]
pub enum Payload {
    Object(Vec<(String, Payload)>),
    Expr(Option<Expr>),
    Value(Value),
}

impl Payload {
    fn compile(v: &Value) -> Payload {
        match v {
            Value::Object(m) => Payload::Object(m.iter().map(|(k, v)| (k.clone(), Payload::compile(v))).collect()),
            Value::String(text) => Payload::Expr(Expr::compile(text).ok()),
            other => Payload::Value(other.clone()),
        }
    }
}

#[derive(Debug)]
pub struct DefaultNode {
    pub path: Path,
    pub expr: Expr,
}

#[derive(Debug)]
pub struct Compiled {
    pub spec: ModelSpec,
    pub library: Option<Library>,
    pub derivations: Vec<DerivationNode>,
    pub metas: Vec<MetaNode>,
    pub constraints: Vec<ConstraintNode>,
    pub effects: Vec<EffectNode>,
    pub defaults: Vec<DefaultNode>,
    pub graph: Graph,
    /// Where to look for the nodes a change may touch, one index per kind of node.
    pub derivation_index: RootIndex,
    pub meta_index: RootIndex,
    pub constraint_index: RootIndex,
    pub effect_index: RootIndex,
}

/// `MAJOR.MINOR.PATCH[-pre]`.
fn is_semver(v: &str) -> bool {
    let core = v.split_once('-').map_or(v, |(c, pre)| if pre.is_empty() { "" } else { c });
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `1` or `1.2`: a version short of semver, accepted as written (see the README).
fn is_short_version(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() <= 2 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn is_model_id(id: &str) -> bool {
    let segment = |s: &str| {
        let mut bytes = s.bytes();
        bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
            && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    match id.split_once('/') {
        Some((ns, name)) => segment(ns) && segment(name),
        None => segment(id),
    }
}

/// Compiles a spec. `Err` carries the findings when there is any error; `Ok` carries warnings.
pub fn compile(spec: ModelSpec) -> Result<(Compiled, Findings), Findings> {
    let mut f = Findings::default();
    if !is_model_id(&spec.id) {
        f.error(
            "id",
            format!("{:?} is not a model id: `[namespace/]name`, each segment `[A-Za-z][A-Za-z0-9_-]*`", spec.id),
        );
    }
    if !is_semver(&spec.version) {
        if is_short_version(&spec.version) {
            f.warning("version", format!("{:?} is not MAJOR.MINOR.PATCH; it is kept as written", spec.version));
        } else {
            f.error(
                "version",
                format!("{:?} is not a version: use MAJOR.MINOR.PATCH[-pre], e.g. \"1.0.0\"", spec.version),
            );
        }
    }
    for (at, message) in schema::problems(&spec.schema) {
        f.error(at, message);
    }

    let library = compile_library(&spec, &mut f);
    let exports: HashSet<&str> =
        library.as_ref().map(|l| l.exports.iter().map(String::as_str).collect()).unwrap_or_default();
    let mut cx = Cx { f: &mut f, exports };

    let mut seen = HashSet::new();
    let mut derivations = Vec::new();
    for (i, d) in spec.derivations.iter().enumerate() {
        let at = format!("derivations[{i}]");
        let Some(path) = cx.address(&format!("{at}.path"), &d.path) else { continue };
        if path.is_root() {
            cx.f.error(format!("{at}.path"), "a derivation cannot target the whole document `$`");
            continue;
        }
        if !seen.insert(path.clone()) {
            cx.f.error(format!("{at}.path"), format!("{path} is derived twice"));
        }
        let parent = path.parent().unwrap_or_default();
        if let Some(bound) = cx.bind(&format!("{at}.expr"), &d.expr, &Path::root(), Some(&parent)) {
            derivations.push(DerivationNode { path, lazy: d.evaluation == Evaluation::Lazy, bound });
        }
    }

    let mut metas = Vec::new();
    let mut seen_meta = HashSet::new();
    for (i, m) in spec.meta_derivations.iter().enumerate() {
        let at = format!("metaDerivations[{i}]");
        if !META_PROPERTIES.contains(&m.property.as_str()) {
            cx.f.error(
                format!("{at}.property"),
                format!("{:?} is not one of {}", m.property, META_PROPERTIES.join(", ")),
            );
        }
        let Some(path) = cx.address(&format!("{at}.path"), &m.path) else { continue };
        if !seen_meta.insert((path.clone(), m.property.clone())) {
            cx.f.error(at.clone(), format!("{path}#{} is computed twice", m.property));
        }
        let parent = path.parent().unwrap_or_default();
        if let Some(bound) = cx.bind(&format!("{at}.expr"), &m.expr, &Path::root(), Some(&parent)) {
            metas.push(MetaNode { path, property: m.property.clone(), bound });
        }
    }

    let mut constraints = Vec::new();
    let mut ids = HashSet::new();
    for (i, c) in spec.constraints.iter().enumerate() {
        let at = format!("constraints[{i}]");
        if !ids.insert(c.id.clone()) {
            cx.f.error(format!("{at}.id"), format!("constraint id {:?} is used twice", c.id));
        }
        let paths: Vec<Path> = c.paths().iter().filter_map(|p| cx.address(&format!("{at}.path"), p)).collect();
        // A constraint on fields reads them; its expression's own reads are relative to each.
        let base = match paths.as_slice() {
            [one] => one.clone(),
            _ => Path::root(),
        };
        let Some(mut bound) = cx.bind(&format!("{at}.expr"), &c.expr, &base, None) else { continue };
        if paths.len() > 1 {
            bound.reads = paths.clone();
        }
        constraints.push(ConstraintNode {
            id: c.id.clone(),
            paths,
            bound,
            message: c.message.clone(),
            policy: c.policy,
        });
    }

    let mut effects = Vec::new();
    let mut effect_ids = HashSet::new();
    for (i, e) in spec.effects.iter().enumerate() {
        let at = format!("effects[{i}]");
        if !effect_ids.insert(e.id.clone()) {
            cx.f.error(format!("{at}.id"), format!("effect id {:?} is used twice", e.id));
        }
        let trigger = cx.bind(&format!("{at}.trigger"), &e.trigger, &Path::root(), None);
        let dedupe_key =
            e.dedupe_key.as_ref().and_then(|k| cx.bind(&format!("{at}.dedupeKey"), k, &Path::root(), None));
        let status_path = e.status_path.as_ref().and_then(|p| cx.address(&format!("{at}.statusPath"), p));
        if let Some(trigger) = trigger {
            let evaluated = EVALUATED_MEMBERS
                .iter()
                .filter_map(|&name| Some((name.to_owned(), Payload::compile(e.rest.get(name)?))))
                .collect();
            let url = e.rest.get("request").and_then(|r| r.get("url")).and_then(Value::as_str).map(Template::compile);
            effects.push(EffectNode { spec: e.clone(), trigger, dedupe_key, status_path, evaluated, url });
        }
    }

    let mut defaults = Vec::new();
    for (i, d) in spec.default_values.iter().enumerate() {
        let at = format!("defaultValues[{i}]");
        let path = cx.address(&format!("{at}.path"), &d.path);
        let expr = cx.expr(&format!("{at}.expr"), &d.expr);
        if let (Some(path), Some(expr)) = (path, expr) {
            defaults.push(DefaultNode { path, expr });
        }
    }
    check_views(spec.view_definition.as_ref(), cx.f);

    let shapes: Vec<NodeShape> =
        derivations.iter().map(|d| NodeShape { target: &d.path, reads: &d.bound.reads }).collect();
    let graph = match Graph::build(&shapes) {
        Ok(g) => g,
        Err(cycle) => {
            let names: Vec<String> = cycle.iter().map(|&i| derivations[i].path.to_string()).collect();
            f.error("graph", format!("the derivations of {} depend on each other in a cycle", names.join(", ")));
            Graph::default()
        }
    };
    for d in derivations.iter().filter(|d| !d.lazy) {
        for lazy in derivations.iter().filter(|l| l.lazy && d.bound.reads.iter().any(|r| r.overlaps(&l.path))) {
            f.warning(
                format!("derivations[{}]", d.path),
                format!("eager {} reads lazy {}, which is computed only when read", d.path, lazy.path),
            );
        }
    }
    if f.has_errors() {
        return Err(f);
    }
    let derivation_index =
        RootIndex::build(derivations.iter().map(|d| d.bound.reads.iter().chain([&d.path]).collect()));
    let meta_index = RootIndex::build(metas.iter().map(|m| m.bound.reads.iter().collect()));
    let constraint_index = RootIndex::build(constraints.iter().map(|k| k.bound.reads.iter().collect()));
    let effect_index = RootIndex::build(
        effects.iter().map(|e| e.trigger.reads.iter().chain(e.dedupe_key.iter().flat_map(|k| &k.reads)).collect()),
    );
    let compiled = Compiled {
        spec,
        library,
        derivations,
        metas,
        constraints,
        effects,
        defaults,
        graph,
        derivation_index,
        meta_index,
        constraint_index,
        effect_index,
    };
    Ok((compiled, f))
}

fn compile_library(spec: &ModelSpec, f: &mut Findings) -> Option<Library> {
    if spec.library.is_empty() {
        return None;
    }
    let layers: Vec<&str> = spec.library.iter().map(String::as_str).collect();
    Library::compile(&layers).map_err(|e| f.error("library", e.0)).ok()
}

/// The compiling context: where findings go and which `$functions` the library defines.
struct Cx<'a> {
    f: &'a mut Findings,
    exports: HashSet<&'a str>,
}

impl Cx<'_> {
    fn address(&mut self, at: &str, text: &str) -> Option<Path> {
        Path::parse(text).map_err(|e| self.f.error(at, e.0)).ok()
    }

    fn expr(&mut self, at: &str, text: &str) -> Option<Expr> {
        let expr = Expr::compile(text).map_err(|e| self.f.error(at, format!("does not compile: {e}"))).ok()?;
        for name in expr.free_calls() {
            if !self.exports.contains(name.as_str()) {
                self.f.error(at, format!("calls ${name}, which is neither a JSONata function nor a library export"));
            }
        }
        Some(expr)
    }

    /// Compiles an expression evaluated on the value at `base` (with `$parent` at `parent`).
    fn bind(&mut self, at: &str, text: &str, base: &Path, parent: Option<&Path>) -> Option<Bound> {
        let expr = self.expr(at, text)?;
        let r: &Reads = expr.reads();
        let mut reads: Vec<Path> = r.paths.iter().map(|p| base.join(&segs(p))).collect();
        if let Some(parent) = parent {
            reads.extend(r.parent.iter().map(|p| parent.join(&segs(p))));
        }
        let projection = (base.is_root() && !r.whole_input).then(|| root_keys(&r.paths)).flatten();
        let parent = match (r.parent.is_empty(), root_keys(&r.parent)) {
            (true, _) => ParentUse::Unused,
            (false, Some(fields)) => ParentUse::Fields(fields),
            (false, None) => ParentUse::Whole,
        };
        Some(Bound { expr, reads, projection, parent })
    }
}

/// The first keys of read paths, once each; `None` when one of them reads the whole value.
fn root_keys(paths: &[Vec<ReadSeg>]) -> Option<Vec<String>> {
    let mut roots: Vec<String> = Vec::new();
    for p in paths {
        match p.first() {
            Some(ReadSeg::Key(k)) if !roots.contains(k) => roots.push(k.clone()),
            Some(ReadSeg::Key(_)) => {}
            None => return None,
        }
    }
    Some(roots)
}

fn segs(read: &[ReadSeg]) -> Vec<Seg> {
    read.iter().map(|ReadSeg::Key(k)| Seg::Key(k.clone())).collect()
}

/// View ids are unique and `defaultView` names one of them.
fn check_views(view: Option<&Value>, f: &mut Findings) {
    let Some(view) = view else { return };
    let Some(views) = view.get("views").and_then(Value::as_array) else {
        f.error("viewDefinition.views", "`views` must be an array of views");
        return;
    };
    let mut ids = HashSet::new();
    for (i, v) in views.iter().enumerate() {
        match v.get("id").and_then(Value::as_str) {
            Some(id) if !ids.insert(id) => {
                f.error(format!("viewDefinition.views[{i}].id"), format!("view id {id:?} is used twice"))
            }
            Some(_) => {}
            None => f.error(format!("viewDefinition.views[{i}].id"), "every view needs a string `id`"),
        }
    }
    if let Some(default) = view.get("defaultView").and_then(Value::as_str)
        && !ids.contains(default)
    {
        f.error("viewDefinition.defaultView", format!("{default:?} names no view"));
    }
}
