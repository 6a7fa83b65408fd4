//! The one seam to `jsonata-core`: compile an expression, learn what it reads and calls, and
//! evaluate it against a JSON input under a [`Budget`]: the time left in the cycle, a stack
//! depth, a sequence length, and a memory budget the allocator's meter enforces (see
//! `meter.rs`; `guard.rs` checks the calls that allocate their result in one go). Nothing else
//! in the crate sees a `jsonata-core` type.
//!
//! `jsonata-core` values are reference-counted and stay on one thread, so a compiled
//! expression keeps only its syntax tree (`Send + Sync`) and values are converted at each call.

mod convert;
mod functions;
mod guard;
mod interrupt;
mod meter;
mod reads;
mod walk;

use std::cell::Cell;
use std::fmt;
use std::time::Instant;

use jsonata_core::ast::AstNode;
use jsonata_core::evaluator::{Context, Evaluator, EvaluatorOptions};
use jsonata_core::parser;
use jsonata_core::value::JValue;
use serde_json::Value;

use crate::engine::budget::{Budget, Stopped};
use crate::engine::limits::MAX_DEPTH;

pub use interrupt::Interrupt;
pub use meter::Metered;
pub use reads::{ReadSeg, Reads};

/// The deepest evaluation stack; a runaway recursion fails with D1011.
const MAX_STACK_DEPTH: usize = 2_000;

/// A compiled expression: its text, its syntax tree, what it reads and the functions it calls.
#[derive(Debug)]
pub struct Expr {
    source: String,
    ast: AstNode,
    reads: Reads,
    calls: Vec<String>,
}

/// Why an expression does not compile.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileError(pub String);

/// Why an evaluation failed (the message starts with the JSONata error code when it has one).
#[derive(Debug, Clone, PartialEq)]
pub struct EvalError(pub String);

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Expr {
    pub fn compile(source: &str) -> Result<Expr, CompileError> {
        // The parser recurses per nesting level; an absurd nesting is refused before it runs.
        if nesting(source) > MAX_DEPTH {
            return Err(CompileError(format!("the expression nests deeper than {MAX_DEPTH} levels")));
        }
        let mut ast = parser::parse(source).map_err(|e| CompileError(e.to_string()))?;
        let reads = reads::of(&ast);
        let calls = functions::called(&ast);
        guard::rewrite(&mut ast);
        Ok(Expr { source: source.to_owned(), ast, reads, calls })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// The document paths the expression reads, relative to its input and to `$parent`.
    pub fn reads(&self) -> &Reads {
        &self.reads
    }

    /// The `$name(...)` calls that name neither a built-in function nor a variable the
    /// expression binds itself: each must be a library export or it is undefined.
    pub fn free_calls(&self) -> &[String] {
        &self.calls
    }

    /// Whether the expression calls a function whose answer changes from call to call.
    pub fn is_nondeterministic(&self) -> bool {
        functions::uses_clock_or_random(&self.ast)
    }
}

/// A library: JSONata blocks that bind functions and end with the array of exported names.
#[derive(Debug)]
pub struct Library {
    /// Each layer with its final name array replaced by an object of the named functions.
    layers: Vec<AstNode>,
    pub exports: Vec<String>,
}

impl Library {
    /// Compiles the layers; each returns the names it exports (later layers see earlier exports).
    pub fn compile(layers: &[&str]) -> Result<Library, CompileError> {
        let mut compiled = Vec::new();
        let mut exports = Vec::new();
        for (n, text) in layers.iter().enumerate() {
            let expr = Expr::compile(text).map_err(|e| CompileError(format!("layer {n}: {e}")))?;
            if !expr.reads.paths.is_empty() || expr.reads.whole_input {
                return Err(CompileError(format!("layer {n}: library code may not read the document")));
            }
            if expr.is_nondeterministic() {
                return Err(CompileError(format!("layer {n}: library code may not call $now, $millis or $random")));
            }
            let (ast, names) = functions::export_object(expr.ast).ok_or_else(|| {
                CompileError(format!("layer {n}: a library must end with an array of exported names, e.g. [\"money\"]"))
            })?;
            exports.extend(names);
            compiled.push(ast);
        }
        Ok(Library { layers: compiled, exports })
    }
}

/// The variables every expression of one model sees (`$const`, the library exports), ready to
/// evaluate many expressions in a row under one budget: the time limit runs from the moment
/// the environment is made. Lives for one computation, on one thread.
pub struct Env {
    globals: Vec<(String, JValue)>,
    budget: Budget,
    deadline: Instant,
    stopped: Cell<Option<Stopped>>,
}

impl Env {
    pub fn new(constants: &Value, library: Option<&Library>, budget: &Budget) -> Result<Env, EvalError> {
        let mut env = Env {
            globals: vec![("const".to_owned(), convert::to_jvalue(constants))],
            budget: budget.clone(),
            deadline: Instant::now() + budget.cycle_time,
            stopped: Cell::new(None),
        };
        let layers = library.map_or(&[][..], |l| &l.layers[..]);
        for layer in layers {
            let exported =
                env.evaluate(layer, &JValue::Null, &[], Ok).map_err(|e| EvalError(format!("library: {}", e.0)))?;
            if let JValue::Object(map) = exported {
                env.globals.extend(map.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        Ok(env)
    }

    /// Why the computation must stop (time up, cancelled), once it must: every evaluation
    /// after that fails at once.
    pub fn stopped(&self) -> Option<Stopped> {
        let stopped = self.stopped.take();
        self.stopped.set(stopped.clone());
        stopped
    }

    /// Evaluates `expr` on `input` with extra variables (`$parent`, `$self`, ...). `Ok(None)` is
    /// JSONata's undefined (no value).
    pub fn eval(&self, expr: &Expr, input: &Value, bindings: &[(&str, &Value)]) -> Result<Option<Value>, EvalError> {
        self.eval_fields(expr, input, None, bindings)
    }

    /// As [`Env::eval`], the input cut down to the root fields `only` (when given): an expression
    /// that reads two fields of a large document converts two fields, not the document.
    pub fn eval_fields(
        &self,
        expr: &Expr,
        input: &Value,
        only: Option<&[String]>,
        bindings: &[(&str, &Value)],
    ) -> Result<Option<Value>, EvalError> {
        let input = match only {
            Some(fields) => convert::fields_to_jvalue(input, fields),
            None => convert::to_jvalue(input),
        };
        self.evaluate(&expr.ast, &input, bindings, |v| convert::from_jvalue(&v))
    }

    /// As [`Env::eval`]; `None` evaluates on no input at all (JSONata's undefined), where `$`
    /// is undefined rather than null.
    pub fn eval_optional(
        &self,
        expr: &Expr,
        input: Option<&Value>,
        bindings: &[(&str, &Value)],
    ) -> Result<Option<Value>, EvalError> {
        let input = input.map_or(JValue::Undefined, convert::to_jvalue);
        self.evaluate(&expr.ast, &input, bindings, |v| convert::from_jvalue(&v))
    }

    /// One evaluation; `finish` (the conversion of its result) counts in its memory.
    fn evaluate<T>(
        &self,
        ast: &AstNode,
        input: &JValue,
        bindings: &[(&str, &Value)],
        finish: impl FnOnce(JValue) -> Result<T, String>,
    ) -> Result<T, EvalError> {
        let token = match (self.stop_now(), self.budget.interrupt.next_token()) {
            (None, Some(token)) => token,
            (Some(why), _) => return Err(EvalError(why.to_string())),
            (None, None) => return Err(EvalError(Stopped::Cancelled.to_string())),
        };
        let left = self.deadline.saturating_duration_since(Instant::now());
        let mut context = Context::new();
        for (name, value) in &self.globals {
            context.bind(name.clone(), value.clone());
        }
        for (name, value) in bindings {
            context.bind((*name).to_owned(), convert::to_jvalue(value));
        }
        let options = EvaluatorOptions {
            timeout_ms: Some((left.as_millis() as u64).max(1)),
            max_stack_depth: Some(MAX_STACK_DEPTH),
            max_sequence_length: Some(self.budget.sequence),
            cancel: Some(token.clone()),
        };
        let mut evaluator = Evaluator::with_options(context, options);
        let limit = self.budget.eval_bytes;
        // The name is no built-in, so registering it cannot fail.
        let _ = evaluator.register_fn(guard::CHECK, move |args: &[JValue]| guard::check(limit, args));
        let (result, over_budget) = meter::measure(limit, &token, || match evaluator.evaluate(ast, input) {
            Ok(value) => finish(value).map_err(EvalError),
            Err(e) => Err(EvalError(e.message().to_owned())),
        });
        if over_budget {
            return Err(EvalError(format!(
                "the evaluation took more than {limit} bytes of memory, more than one evaluation may hold (--max-eval-bytes)"
            )));
        }
        match result {
            // The engine's time-out is the cycle's: it stops the cycle, not just this expression.
            Err(e) => match self.stop_now().or_else(|| self.timed_out(&e)) {
                Some(why @ Stopped::TimeUp(_)) => Err(EvalError(format!("D1012: {why}"))),
                Some(why) => Err(EvalError(why.to_string())),
                None => Err(e),
            },
            ok => ok,
        }
    }

    /// The engine's time-out is the cycle's own (it is given the time left), even when it
    /// fires a moment before the deadline.
    fn timed_out(&self, e: &EvalError) -> Option<Stopped> {
        let why = Stopped::TimeUp(self.budget.cycle_time.as_millis());
        e.0.starts_with("D1012").then(|| {
            self.stopped.set(Some(why.clone()));
            why
        })
    }

    /// Records and returns why the computation must stop, if it must.
    fn stop_now(&self) -> Option<Stopped> {
        if let Some(stopped) = self.stopped() {
            return Some(stopped);
        }
        let why = if self.budget.interrupt.is_interrupted() || (self.budget.cancelled)() {
            Stopped::Cancelled
        } else if Instant::now() >= self.deadline {
            Stopped::TimeUp(self.budget.cycle_time.as_millis())
        } else {
            return None;
        };
        self.stopped.set(Some(why.clone()));
        Some(why)
    }
}

/// The deepest bracket nesting in the text, a cheap bound on the parser's recursion.
fn nesting(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in source.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// JSONata truthiness as constraints and triggers use it: true, a non-zero number, a non-empty
/// string; anything else (false, null, undefined, containers) fails.
pub fn is_truthy(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn eval(src: &str, input: Value) -> Result<Option<Value>, EvalError> {
        Env::new(&json!({ "rate": 2 }), None, &Budget::default()).unwrap().eval(
            &Expr::compile(src).unwrap(),
            &input,
            &[],
        )
    }

    #[test]
    fn numbers_come_out_as_javascript_prints_them() {
        assert_eq!(eval("price * qty", json!({ "price": 10, "qty": 3 })).unwrap(), Some(json!(30)));
        assert_eq!(eval("price * 1.5", json!({ "price": 3 })).unwrap().unwrap().to_string(), "4.5");
        assert_eq!(eval("$const.rate", json!({})).unwrap(), Some(json!(2)));
        assert_eq!(eval("missing", json!({})).unwrap(), None);
    }

    #[test]
    fn runaway_expressions_fail_instead_of_hanging() {
        let err = eval("($f := function($x){ 1 + $f($x) }; $f(1))", json!({})).unwrap_err();
        assert!(err.0.starts_with("D1011"), "{err}");
        assert!(Expr::compile(&"(".repeat(10_000)).is_err());
    }

    #[test]
    fn library_exports_are_bound_as_functions() {
        let lib = Library::compile(&["( $money := function($n) { $round($n, 2) }; [\"money\"] )"]).unwrap();
        assert_eq!(lib.exports, ["money"]);
        let env = Env::new(&Value::Null, Some(&lib), &Budget::default()).unwrap();
        let out = env.eval(&Expr::compile("$money(x)").unwrap(), &json!({ "x": 1.234 }), &[]).unwrap();
        assert_eq!(out, Some(json!(1.23)));
        assert!(Library::compile(&["( $f := function() { price }; [\"f\"] )"]).is_err());
        assert!(Library::compile(&["price"]).is_err());
    }
}
