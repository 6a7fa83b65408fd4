//! A view of a model evaluated on its merged state, as `get_view` returns it: each component
//! with its bound value, its visibility and state from explicit fields, expressions or the live
//! meta values of its `bind`, and its text fields evaluated.

use serde_json::{Map, Value, json};

use super::jsonata::{Env, Expr, is_truthy};
use super::path::Path;
use indexmap::IndexMap;

/// The fields whose text is evaluated when it is an expression.
const TEXT_FIELDS: &[&str] = &["text", "href", "src", "delta", "caption", "trend"];

pub struct Render<'a> {
    pub env: &'a Env,
    pub doc: &'a Value,
    pub meta: &'a IndexMap<Path, Map<String, Value>>,
}

/// The view `view_id` of `definition` (the default view, else the first, when `None`).
pub fn select<'d>(definition: Option<&'d Value>, view_id: Option<&str>) -> Result<&'d Value, String> {
    let views = definition
        .and_then(|d| d.get("views"))
        .and_then(Value::as_array)
        .filter(|v| !v.is_empty())
        .ok_or("the model's spec defines no views (viewDefinition.views)")?;
    let id_of = |v: &Value| v.get("id").and_then(Value::as_str).map(str::to_owned);
    let wanted = view_id.map(str::to_owned).or_else(|| definition?.get("defaultView")?.as_str().map(str::to_owned));
    match wanted {
        None => Ok(&views[0]),
        Some(id) => views.iter().find(|v| id_of(v).as_deref() == Some(&id)).ok_or_else(|| {
            let ids: Vec<String> = views.iter().filter_map(id_of).collect();
            format!("there is no view {id:?}; the views are {}", ids.join(", "))
        }),
    }
}

impl Render<'_> {
    pub fn view(&self, model_id: &str, view: &Value) -> Value {
        let components =
            view.get("components").and_then(Value::as_array).map(|c| self.components(c)).unwrap_or_default();
        json!({
            "modelId": model_id,
            "viewId": view.get("id").cloned().unwrap_or(Value::Null),
            "title": view.get("label").cloned().unwrap_or(Value::Null),
            "layout": view.get("layout").cloned().unwrap_or_else(|| json!("vertical")),
            "components": components,
        })
    }

    fn components(&self, list: &[Value]) -> Vec<Value> {
        list.iter().filter_map(Value::as_object).map(|c| self.component(c)).collect()
    }

    fn component(&self, c: &Map<String, Value>) -> Value {
        let mut out: Map<String, Value> =
            c.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
        let kind = c.get("type").and_then(Value::as_str).unwrap_or_default();
        if matches!(kind, "explainPanel" | "auditTimeline" | "validationSummary") {
            return Value::Object(out);
        }
        let bind = c.get("bind").and_then(Value::as_str).and_then(|b| Path::parse(b).ok());
        let meta = |property: &str| bind.as_ref().and_then(|b| self.meta.get(b)).and_then(|m| m.get(property)).cloned();
        // A null bound value is left out, as every null is.
        if let Some(value) = bind.as_ref().and_then(|b| b.get(self.doc)).filter(|v| !v.is_null()) {
            out.insert("value".into(), value.clone());
        }
        let visible = match c.get("visible") {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(expr)) => self.eval(expr).is_none_or(|v| is_truthy(v.as_ref())),
            _ => meta("relevant").is_none_or(|v| is_truthy(Some(&v))),
        };
        let flag = |field: &str, property: &str| match c.get(field) {
            Some(Value::Bool(b)) => *b,
            _ => meta(property).is_some_and(|v| v == Value::Bool(true)),
        };
        let read_only = flag("readOnly", "readOnly");
        let required = flag("required", "required");
        let enabled = c.get("enabled").and_then(Value::as_bool).unwrap_or(!read_only);
        let collapsed = c.get("collapsed").and_then(Value::as_bool).unwrap_or(false);
        for (field, value, shown_when) in [
            ("visible", visible, false),
            ("enabled", enabled, false),
            ("readOnly", read_only, true),
            ("required", required, true),
            ("collapsed", collapsed, true),
        ] {
            out.shift_remove(field);
            if value == shown_when {
                out.insert(field.into(), json!(value));
            }
        }
        for field in TEXT_FIELDS {
            if let Some(Value::String(raw)) = c.get(*field) {
                out.insert((*field).into(), json!(self.text(raw)));
            }
        }
        if let Some(Value::Array(items)) = c.get("items") {
            let items = items.iter().map(|item| match item.get("text").and_then(Value::as_str) {
                Some(raw) => {
                    let mut item = item.clone();
                    item["text"] = json!(self.text(raw));
                    item
                }
                None => item.clone(),
            });
            out.insert("items".into(), Value::Array(items.collect()));
        }
        let defaults: &[(&str, Value)] = match kind {
            "currencyField" => &[("format", json!("currency"))],
            "percentField" => &[("format", json!("percent"))],
            "tagsField" | "comboBox" => &[("allowCustom", json!(true))],
            "sectionList" => &[("canAdd", json!(true)), ("canRemove", json!(true))],
            _ => &[],
        };
        for (field, value) in defaults {
            out.entry(*field).or_insert_with(|| value.clone());
        }
        if let Some(Value::Array(children)) = c.get("children") {
            out.insert("children".into(), Value::Array(self.components(children)));
        }
        Value::Object(out)
    }

    fn eval(&self, source: &str) -> Option<Option<Value>> {
        let expr = Expr::compile(source).ok()?;
        self.env.eval(&expr, self.doc, &[]).ok()
    }

    /// A text field: evaluated when it reads `$` or is a dotted name that resolves; else as written.
    fn text(&self, raw: &str) -> String {
        let dotted = !raw.is_empty()
            && raw.split('.').all(|part| {
                part.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        if !raw.contains('$') && !dotted {
            return raw.to_owned();
        }
        match self.eval(raw) {
            Some(Some(Value::String(s))) => s,
            Some(Some(v)) => v.to_string(),
            _ => raw.to_owned(),
        }
    }
}
