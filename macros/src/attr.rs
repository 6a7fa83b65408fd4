//! The arguments of `#[tool(...)]`.
//!
//! Parsed by hand rather than with `syn::meta::parser`, which stops at the first error: every
//! misuse is recorded and parsing resumes after the next top-level comma.

use proc_macro2::{TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream, Parser};
use syn::{Error, Expr, Ident, LitBool, LitInt, LitStr, Token, Type};

use crate::rest::{self, Route};

/// Every key, with how it is written: the text of "unknown key" and "expects" errors.
const KEYS: &[(&str, &str)] = &[
    ("name", "name = \"tool_name\""),
    ("title", "title = \"Title\""),
    ("read_only", "read_only"),
    ("destructive", "destructive = false"),
    ("idempotent", "idempotent"),
    ("open_world", "open_world = false"),
    ("rest", "rest = \"GET /path/{param}\""),
    ("body", "body = \"field\""),
    ("status", "status = 201"),
    ("location", "location = \"/models/{id}\""),
    ("output", "output = Type"),
    ("output_schema", "output_schema = expr"),
    ("input_schema", "input_schema = expr"),
    ("allow_unknown_args", "allow_unknown_args"),
    ("task", "task` or `task = \"required\""),
    ("deferred_task", "deferred_task"),
    ("timeout_ms", "timeout_ms = 5000"),
    ("max_concurrent", "max_concurrent = 4"),
    ("scopes", "scopes = [\"notes:write\"]"),
];

/// Where the output schema comes from, when not from the return type.
pub(crate) enum OutputSchema {
    Type(Type),
    Expr(Expr),
}

/// The checked arguments. A key given wrongly counts as absent (its error is already recorded).
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    /// The annotation hints as stated; `None` is left for the client to default.
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) rest: Option<Route>,
    pub(crate) body: Option<LitStr>,
    pub(crate) status: Option<u16>,
    /// The success response's `Location`: a path the result's fields fill.
    pub(crate) location: Option<LitStr>,
    pub(crate) output: Option<OutputSchema>,
    /// A schema built at run time, for arguments whose schema no Rust type states.
    pub(crate) input_schema: Option<Expr>,
    pub(crate) allow_unknown_args: bool,
    /// `task` (calls may run as tasks) or `task = "required"` (only as tasks).
    pub(crate) task: Option<TaskSupport>,
    /// The call becomes a task when its code calls `Cx::start_task`.
    pub(crate) deferred_task: bool,
    /// How long a call may take, in milliseconds.
    pub(crate) timeout_ms: Option<u64>,
    /// How many calls may run at once.
    pub(crate) max_concurrent: Option<u32>,
    /// The OAuth scopes a caller's token must grant to call the tool.
    pub(crate) scopes: Vec<LitStr>,
}

/// How a tool's calls may run as tasks, as the attribute states it.
#[derive(Clone, Copy)]
pub(crate) enum TaskSupport {
    Optional,
    Required,
}

pub(crate) fn parse(tokens: TokenStream, errors: &mut Vec<Error>) -> ToolAttr {
    let mut attr = ToolAttr::default();
    let mut seen: Vec<Ident> = Vec::new();
    let parser = |input: ParseStream| {
        while !input.is_empty() {
            entry(input, &mut attr, &mut seen, errors);
            if !input.is_empty()
                && let Err(e) = input.parse::<Token![,]>()
            {
                errors.push(e);
                skip_to_comma(input);
                input.parse::<Option<Token![,]>>()?;
            }
        }
        Ok(())
    };
    // Cannot fail (every error is recorded and skipped past), but an error beats a panic.
    if let Err(e) = parser.parse2(tokens) {
        errors.push(e);
    }
    check_combinations(&mut attr, &seen, errors);
    attr
}

/// Parses one `key` or `key = value`, leaving the input at the following comma or end.
fn entry(input: ParseStream, attr: &mut ToolAttr, seen: &mut Vec<Ident>, errors: &mut Vec<Error>) {
    let key: Ident = match input.parse() {
        Ok(key) => key,
        Err(e) => {
            errors.push(Error::new(e.span(), format!("expected a key, one of {}", key_list())));
            return skip_to_comma(input);
        }
    };
    let name = key.to_string();
    let Some(&(_, usage)) = KEYS.iter().find(|(k, _)| *k == name) else {
        errors.push(Error::new(key.span(), format!("unknown key `{name}`: expected one of {}", key_list())));
        return skip_to_comma(input);
    };
    let duplicate = seen.contains(&key);
    if duplicate {
        errors.push(Error::new(key.span(), format!("duplicate key `{name}`")));
    }
    seen.push(key.clone());

    // The value of a duplicate is still parsed, so that its own mistakes are reported too.
    match name.as_str() {
        "name" | "title" | "rest" | "body" | "location" => {
            let Some(lit) = value::<LitStr>(input, &key, "a string", usage, errors) else {
                return;
            };
            if duplicate {
                return;
            }
            match name.as_str() {
                // The rule the runtime's table applies, checked here to fail at compile time.
                "name" if !is_tool_name(&lit.value()) => {
                    errors.push(Error::new(lit.span(), "a tool name is 1 to 128 of `A-Z a-z 0-9 _ . -`"))
                }
                "name" => attr.name = Some(lit),
                "title" => attr.title = Some(lit),
                "rest" => attr.rest = rest::parse(lit, errors),
                "location" => attr.location = rest::parse_location(lit, errors),
                _ if !rest::is_field_name(&lit.value()) => {
                    errors.push(Error::new(lit.span(), "`body` names an argument field: a Rust identifier"))
                }
                _ => attr.body = Some(lit),
            }
        }
        "status" => {
            let Some(lit) = value::<LitInt>(input, &key, "an integer", usage, errors) else {
                return;
            };
            match lit.base10_parse::<u16>() {
                Ok(code @ 100..=599) if !duplicate => attr.status = Some(code),
                Ok(100..=599) => {}
                _ => errors.push(Error::new(lit.span(), "`status` must be an HTTP status code, 100 to 599")),
            }
        }
        "timeout_ms" | "max_concurrent" => {
            let Some(lit) = value::<LitInt>(input, &key, "an integer", usage, errors) else {
                return;
            };
            let (n, what) = match name.as_str() {
                "timeout_ms" => (lit.base10_parse::<u64>().ok(), "a number of milliseconds"),
                _ => (lit.base10_parse::<u32>().ok().map(u64::from), "a number of calls"),
            };
            match n.filter(|n| *n > 0) {
                None => errors.push(Error::new(lit.span(), format!("`{name}` must be {what}, at least 1"))),
                Some(_) if duplicate => {}
                Some(ms) if name == "timeout_ms" => attr.timeout_ms = Some(ms),
                Some(calls) => attr.max_concurrent = u32::try_from(calls).ok(),
            }
        }
        "scopes" => {
            let what = "a list of strings";
            let Some(list) = value::<syn::ExprArray>(input, &key, what, usage, errors) else {
                return;
            };
            let mut scopes = Vec::new();
            for element in list.elems {
                match element {
                    Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(scope), .. }) if is_scope(&scope.value()) => {
                        scopes.push(scope)
                    }
                    other => errors.push(Error::new_spanned(
                        other,
                        "a scope is a non-empty string of visible ASCII but `\"` and `\\` (RFC 6749's scope-token)",
                    )),
                }
            }
            if !duplicate {
                attr.scopes = scopes;
            }
        }
        "task" => {
            let support = match input.peek(Token![=]) {
                false => Some(TaskSupport::Optional),
                true => {
                    value::<LitStr>(input, &key, "a string", usage, errors).and_then(|lit| match lit.value().as_str() {
                        "optional" => Some(TaskSupport::Optional),
                        "required" => Some(TaskSupport::Required),
                        _ => {
                            errors.push(Error::new(
                                lit.span(),
                                "`task` is `task`, `task = \"optional\"` or `task = \"required\"`",
                            ));
                            None
                        }
                    })
                }
            };
            if !duplicate {
                attr.task = support;
            }
        }
        "output" => {
            let ty = value::<Type>(input, &key, "a type", usage, errors);
            if let Some(ty) = ty.filter(|_| !duplicate) {
                attr.output = Some(OutputSchema::Type(ty));
            }
        }
        "output_schema" => {
            let what = "an expression of type `serde_json::Value`";
            let expr = value::<Expr>(input, &key, what, usage, errors);
            if let Some(expr) = expr.filter(|_| !duplicate) {
                attr.output = Some(OutputSchema::Expr(expr));
            }
        }
        "input_schema" => {
            let what = "an expression of type `serde_json::Value`";
            let expr = value::<Expr>(input, &key, what, usage, errors);
            if let Some(expr) = expr.filter(|_| !duplicate) {
                attr.input_schema = Some(expr);
            }
        }
        _ => {
            let Some(on) = flag(input, &key, errors) else {
                return;
            };
            if duplicate {
                return;
            }
            match name.as_str() {
                "read_only" => attr.read_only = Some(on),
                "destructive" => attr.destructive = Some(on),
                "idempotent" => attr.idempotent = Some(on),
                "open_world" => attr.open_world = Some(on),
                "deferred_task" => attr.deferred_task = on,
                _ => attr.allow_unknown_args = on,
            }
        }
    }
}

/// The `= value` that `key` needs; `None`, with the error recorded, when it is missing or wrong.
fn value<T: Parse>(input: ParseStream, key: &Ident, what: &str, usage: &str, errors: &mut Vec<Error>) -> Option<T> {
    let expects = || format!("`{key}` expects {what}: `{usage}`");
    let parsed = match input.parse::<Option<Token![=]>>() {
        Ok(Some(_)) => input.parse::<T>().map_err(|e| Error::new(e.span(), expects())),
        _ => Err(Error::new(key.span(), expects())),
    };
    parsed
        .map_err(|e| {
            errors.push(e);
            skip_to_comma(input);
        })
        .ok()
}

/// A flag's value: bare means `true`, else `= true` or `= false`.
fn flag(input: ParseStream, key: &Ident, errors: &mut Vec<Error>) -> Option<bool> {
    if !input.peek(Token![=]) {
        return Some(true);
    }
    let _: Token![=] = input.parse().ok()?;
    match input.parse::<LitBool>() {
        Ok(b) => Some(b.value),
        Err(e) => {
            errors.push(Error::new(e.span(), format!("`{key}` is a flag: `{key}`, `{key} = true` or `{key} = false`")));
            skip_to_comma(input);
            None
        }
    }
}

/// The rules between keys: `body`, `status` and `location` belong to a route, and one output
/// schema.
fn check_combinations(attr: &mut ToolAttr, seen: &[Ident], errors: &mut Vec<Error>) {
    let key = |name: &str| seen.iter().find(|k| *k == name);

    if let Some(body) = &attr.body {
        let field = body.value();
        match &attr.rest {
            // A route with errors was dropped; its errors say enough.
            None if key("rest").is_some() => {}
            None => errors.push(Error::new(body.span(), "`body` needs a `rest` route with POST, PUT or PATCH")),
            Some(route) if !route.has_body() => errors.push(Error::new(
                body.span(),
                format!("`body` needs a POST, PUT or PATCH route; a {} request has no body", route.method),
            )),
            Some(route) if route.params.contains(&field) => errors.push(Error::new(
                body.span(),
                format!("`{field}` is already the path parameter `{{{field}}}`; it cannot also be the body"),
            )),
            Some(_) => {}
        }
    }
    for needs_route in ["status", "location"] {
        if let Some(given) = key(needs_route)
            && key("rest").is_none()
        {
            errors.push(Error::new(given.span(), format!("`{needs_route}` needs a `rest` route")));
        }
    }
    if let Some(deferred) = key("deferred_task")
        && key("task").is_none()
    {
        errors.push(Error::new(deferred.span(), "`deferred_task` needs `task`: only a task can be deferred"));
    }
    // Report on whichever of the two comes second.
    if let (Some(a), Some(b)) = (key("output"), key("output_schema")) {
        let second = if seen.iter().position(|k| k == a) < seen.iter().position(|k| k == b) { b } else { a };
        errors.push(Error::new(second.span(), "give `output` or `output_schema`, not both"));
        attr.output = None;
    }
}

fn is_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}

/// RFC 6749 section 3.3: `%x21 / %x23-5B / %x5D-7E`, at least one.
fn is_scope(scope: &str) -> bool {
    !scope.is_empty() && scope.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
}

fn key_list() -> String {
    KEYS.iter().map(|(k, _)| format!("`{k}`")).collect::<Vec<_>>().join(", ")
}

/// Skips tokens up to (not past) the next top-level comma; commas inside brackets are nested
/// in groups, so only those of generics like `Map<K, V>` can be mistaken, and only after an error.
fn skip_to_comma(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            if matches!(&tt, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    });
}
