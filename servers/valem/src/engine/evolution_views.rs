//! The view diff of a SpecEvolution, in its order: `removeViews`, `upsertViews` (by `id`),
//! `removeComponents`, `upsertComponents`, `newDefaultView`; or `newViewDefinition` whole.
//! Components nest under `children`; a component is found by its `id` anywhere in its view.

use serde_json::{Map, Value, json};

use super::evolution::{DiffError, invalid, list};

pub fn apply(spec: &mut Map<String, Value>, evolution: &Map<String, Value>) -> Result<(), DiffError> {
    if let Some(views) = evolution.get("newViewDefinition") {
        spec.insert("viewDefinition".into(), views.clone());
        return Ok(());
    }
    let keys = ["removeViews", "upsertViews", "removeComponents", "upsertComponents", "newDefaultView"];
    if !keys.iter().any(|k| evolution.contains_key(*k)) {
        return Ok(());
    }
    let mut definition = match spec.remove("viewDefinition") {
        Some(Value::Object(d)) => d,
        _ => Map::new(),
    };
    if let Some(upserts) = evolution.get("upsertViews").and_then(Value::as_array)
        && let Some(n) = upserts.iter().position(|v| v.get("id").and_then(Value::as_str).is_none())
    {
        return invalid(format!("`upsertViews[{n}]` has no `id`"));
    }
    list(&mut definition, evolution, "views", "Views", &|v: &Value| {
        v.get("id").and_then(Value::as_str).map(str::to_owned)
    })?;
    let views = definition.entry("views").or_insert_with(|| json!([]));
    for (n, item) in items(evolution, "removeComponents")?.iter().enumerate() {
        let at = format!("removeComponents[{n}]");
        let components = components_of(views, text(item, "viewId", &at)?)?;
        let id = text(item, "componentId", &at)?;
        let place = locate(components, id).ok_or_else(|| DiffError::Invalid(format!("{at}: no component {id:?}")))?;
        take(components, &place);
    }
    for (n, item) in items(evolution, "upsertComponents")?.iter().enumerate() {
        upsert(views, item, &format!("upsertComponents[{n}]"))?;
    }
    if let Some(default) = evolution.get("newDefaultView") {
        definition.insert("defaultView".into(), default.clone());
    }
    spec.insert("viewDefinition".into(), Value::Object(definition));
    Ok(())
}

fn items<'e>(evolution: &'e Map<String, Value>, key: &str) -> Result<&'e [Value], DiffError> {
    match evolution.get(key) {
        None => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => invalid(format!("`{key}` is a list")),
    }
}

fn text<'v>(item: &'v Value, field: &str, at: &str) -> Result<&'v str, DiffError> {
    item.get(field).and_then(Value::as_str).ok_or_else(|| DiffError::Invalid(format!("{at} has no `{field}`")))
}

/// The top-level components of the view `id`.
fn components_of<'v>(views: &'v mut Value, id: &str) -> Result<&'v mut Vec<Value>, DiffError> {
    let view = views
        .as_array_mut()
        .and_then(|vs| vs.iter_mut().find(|v| v.get("id").and_then(Value::as_str) == Some(id)))
        .ok_or_else(|| DiffError::Invalid(format!("there is no view {id:?}")))?;
    children(view, "components")
}

/// The `key` list of a view (`components`) or a component (`children`), created when absent.
fn children<'v>(node: &'v mut Value, key: &str) -> Result<&'v mut Vec<Value>, DiffError> {
    let Some(map) = node.as_object_mut() else { return invalid("a view or component is not an object") };
    match map.entry(key).or_insert_with(|| json!([])) {
        Value::Array(list) => Ok(list),
        _ => invalid(format!("a `{key}` is not a list")),
    }
}

/// The indices leading to the component `id`, through `children`.
fn locate(list: &[Value], id: &str) -> Option<Vec<usize>> {
    list.iter().enumerate().find_map(|(i, c)| {
        if c.get("id").and_then(Value::as_str) == Some(id) {
            return Some(vec![i]);
        }
        let inner = c.get("children").and_then(Value::as_array)?;
        locate(inner, id).map(|mut rest| {
            rest.insert(0, i);
            rest
        })
    })
}

/// The list holding the component at `place`, and its index there.
fn holder<'l>(mut list: &'l mut Vec<Value>, place: &[usize]) -> (&'l mut Vec<Value>, usize) {
    let (last, way) = place.split_last().unwrap_or((&0, &[]));
    for i in way {
        list = list[*i].get_mut("children").and_then(Value::as_array_mut).expect("located through children");
    }
    (list, *last)
}

fn take(list: &mut Vec<Value>, place: &[usize]) -> Value {
    let (holder, at) = holder(list, place);
    holder.remove(at)
}

fn upsert(views: &mut Value, item: &Value, at: &str) -> Result<(), DiffError> {
    let components = components_of(views, text(item, "viewId", at)?)?;
    let component = item
        .get("component")
        .filter(|c| c.is_object())
        .ok_or_else(|| DiffError::Invalid(format!("{at} has no `component` object")))?;
    let id = text(component, "id", &format!("{at}.component"))?;
    let (parent, before) = (item.get("parentId").and_then(Value::as_str), item.get("beforeId").and_then(Value::as_str));
    let existing = locate(components, id);
    if let (Some(place), None, None) = (&existing, parent, before) {
        let (holder, i) = holder(components, place);
        holder[i] = component.clone();
        return Ok(());
    }
    if let (Some(place), Some(parent)) = (&existing, parent) {
        let (holder, i) = holder(components, place);
        if parent == id || locate(std::slice::from_ref(&holder[i]), parent).is_some() {
            return invalid(format!("{at}: a component cannot move under itself"));
        }
    }
    if let Some(place) = existing {
        take(components, &place);
    }
    let target = match parent {
        None => components,
        Some(parent) => {
            let place = locate(components, parent)
                .ok_or_else(|| DiffError::Invalid(format!("{at}: no parent component {parent:?}")))?;
            let (holder, i) = holder(components, &place);
            children(&mut holder[i], "children")?
        }
    };
    let index = match before {
        None => target.len(),
        Some(before) => target
            .iter()
            .position(|c| c.get("id").and_then(Value::as_str) == Some(before))
            .ok_or_else(|| DiffError::Invalid(format!("{at}: no component {before:?} to insert before")))?,
    };
    target.insert(index, component.clone());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Map<String, Value> {
        let view = json!({ "id": "main", "components": [
            { "id": "a", "type": "text" },
            { "id": "box", "type": "section", "children": [{ "id": "b", "type": "text" }] },
        ] });
        json!({ "id": "m", "viewDefinition": { "views": [view] } }).as_object().cloned().unwrap()
    }

    fn ids(spec: &Map<String, Value>) -> Value {
        fn walk(list: &Value) -> Value {
            list.as_array()
                .map(|l| {
                    l.iter()
                        .map(|c| match c.get("children") {
                            Some(children) => json!({ c["id"].as_str().unwrap(): walk(children) }),
                            None => c["id"].clone(),
                        })
                        .collect()
                })
                .unwrap_or_default()
        }
        walk(&spec["viewDefinition"]["views"][0]["components"])
    }

    fn evolve(diff: Value) -> Result<Map<String, Value>, DiffError> {
        let mut s = spec();
        apply(&mut s, diff.as_object().unwrap()).map(|_| s)
    }

    #[test]
    fn components_are_replaced_moved_inserted_and_removed() {
        let replaced =
            evolve(json!({ "upsertComponents": [{ "viewId": "main", "component": { "id": "b", "type": "number" } }] }))
                .unwrap();
        assert_eq!(replaced["viewDefinition"]["views"][0]["components"][1]["children"][0]["type"], "number");
        let moved = evolve(json!({ "upsertComponents": [{ "viewId": "main", "parentId": "box", "beforeId": "b", "component": { "id": "a", "type": "text" } }] })).unwrap();
        assert_eq!(ids(&moved), json!([{ "box": ["a", "b"] }]));
        let new = evolve(json!({ "upsertComponents": [{ "viewId": "main", "beforeId": "a", "component": { "id": "c", "type": "text" } }] })).unwrap();
        assert_eq!(ids(&new), json!(["c", "a", { "box": ["b"] }]));
        let removed = evolve(json!({ "removeComponents": [{ "viewId": "main", "componentId": "box" }] })).unwrap();
        assert_eq!(ids(&removed), json!(["a"]));
    }

    #[test]
    fn impossible_component_changes_say_why() {
        let cases = [
            (json!({ "removeComponents": [{ "viewId": "nope", "componentId": "a" }] }), "there is no view \"nope\""),
            (json!({ "removeComponents": [{ "viewId": "main", "componentId": "zz" }] }), "no component \"zz\""),
            (
                json!({ "upsertComponents": [{ "viewId": "main", "parentId": "b", "component": { "id": "box" } }] }),
                "cannot move under itself",
            ),
            (
                json!({ "upsertComponents": [{ "viewId": "main", "parentId": "zz", "component": { "id": "n" } }] }),
                "no parent component \"zz\"",
            ),
            (
                json!({ "upsertComponents": [{ "viewId": "main", "beforeId": "zz", "component": { "id": "n" } }] }),
                "to insert before",
            ),
            (json!({ "upsertViews": [{ "label": "x" }] }), "`upsertViews[0]` has no `id`"),
        ];
        for (diff, expected) in cases {
            match evolve(diff.clone()) {
                Err(DiffError::Invalid(m)) => assert!(m.contains(expected), "{diff}: {m}"),
                other => panic!("{diff}: {other:?}"),
            }
        }
    }
}
