//! The schema diff of a SpecEvolution, in its order: `upsertSchemaDefs`, `removeSchemaNodes`,
//! `upsertSchemaNodes`, `removeSchemaDefs`. A node is addressed as a field is (`$.a.b`,
//! `$.items[*]`); the walk never goes through a `$ref`, whose target is changed by its definition.

use serde_json::{Map, Value, json};

use super::evolution::node_path;
use super::path::Seg;

pub fn apply(schema: &mut Value, evolution: &Map<String, Value>) -> Result<(), String> {
    if let Some(defs) = evolution.get("upsertSchemaDefs") {
        let defs = defs.as_object().ok_or("`upsertSchemaDefs` is an object of `{name: schema}`")?;
        for (name, def) in defs {
            if def.is_null() {
                return Err(format!("`upsertSchemaDefs.{name}` is null; remove a definition with `removeSchemaDefs`"));
            }
            object(schema)?.entry("$defs").or_insert_with(|| json!({}));
            object(&mut schema["$defs"])?.insert(name.clone(), def.clone());
        }
    }
    for text in strings(evolution.get("removeSchemaNodes"), "removeSchemaNodes")? {
        let segs = node_path(text)?;
        let (last, parent) = segs.split_last().ok_or("a schema node address cannot be `$`")?;
        let node = walk(schema, parent, false, text)?.ok_or_else(|| format!("the schema has no node at {text}"))?;
        let removed = match last {
            Seg::Key(k) => {
                let gone = node.get_mut("properties").and_then(Value::as_object_mut).and_then(|p| p.shift_remove(k));
                set_required(node, k, false);
                gone
            }
            _ => object(node)?.shift_remove("items"),
        };
        removed.ok_or_else(|| format!("the schema has no node at {text}"))?;
    }
    if let Some(nodes) = evolution.get("upsertSchemaNodes") {
        let nodes = nodes.as_array().ok_or("`upsertSchemaNodes` is a list of `{path, schema, required?}`")?;
        for (n, item) in nodes.iter().enumerate() {
            let text =
                item.get("path").and_then(Value::as_str).ok_or(format!("`upsertSchemaNodes[{n}]` has no `path`"))?;
            let new = item.get("schema").ok_or(format!("`upsertSchemaNodes[{n}]` has no `schema`"))?;
            let segs = node_path(text)?;
            let (last, parent) = segs.split_last().ok_or("a schema node address cannot be `$`")?;
            let node = walk(schema, parent, true, text)?.ok_or_else(|| format!("the schema has no node at {text}"))?;
            match last {
                Seg::Key(k) => {
                    let properties = object(node)?.entry("properties").or_insert_with(|| json!({}));
                    object(properties)?.insert(k.clone(), new.clone());
                    if let Some(required) = item.get("required").and_then(Value::as_bool) {
                        set_required(node, k, required);
                    }
                }
                _ => {
                    object(node)?.insert("items".into(), new.clone());
                }
            }
        }
    }
    for name in strings(evolution.get("removeSchemaDefs"), "removeSchemaDefs")? {
        if let Some(defs) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
            defs.shift_remove(name);
        }
        let mut uses = Vec::new();
        references(schema, &format!("#/$defs/{name}"), String::new(), &mut uses);
        if !uses.is_empty() {
            return Err(format!("the definition {name:?} is still referenced at {}", uses.join(", ")));
        }
    }
    Ok(())
}

fn object(v: &mut Value) -> Result<&mut Map<String, Value>, String> {
    if v.is_null() {
        *v = json!({});
    }
    v.as_object_mut().ok_or_else(|| "a schema node is not an object".to_owned())
}

fn strings<'v>(v: Option<&'v Value>, key: &str) -> Result<Vec<&'v str>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => a.iter().map(|s| s.as_str().ok_or(format!("`{key}` is a list of strings"))).collect(),
        Some(_) => Err(format!("`{key}` is a list of strings")),
    }
}

/// The node at `segs`, creating the way when `create`; `None` when absent.
fn walk<'s>(schema: &'s mut Value, segs: &[Seg], create: bool, text: &str) -> Result<Option<&'s mut Value>, String> {
    let mut node = schema;
    for seg in segs {
        if node.get("$ref").is_some() {
            return Err(format!("{text} goes through a `$ref`; change its definition with `upsertSchemaDefs`"));
        }
        let (container, key) = match seg {
            Seg::Key(k) => ("properties", k.clone()),
            _ => ("items", String::new()),
        };
        if !create && node.get(container).is_none() {
            return Ok(None);
        }
        let map = object(node)?;
        let slot = map.entry(container).or_insert_with(|| json!({}));
        node = if key.is_empty() {
            slot
        } else {
            match object(slot)?.get(&key).is_some() || create {
                true => object(slot)?.entry(key).or_insert_with(|| json!({ "type": "object" })),
                false => return Ok(None),
            }
        };
    }
    if node.get("$ref").is_some() {
        return Err(format!("{text} goes through a `$ref`; change its definition with `upsertSchemaDefs`"));
    }
    Ok(Some(node))
}

fn set_required(node: &mut Value, key: &str, required: bool) {
    let Some(map) = node.as_object_mut() else { return };
    let list = map.entry("required").or_insert_with(|| json!([]));
    let Some(list) = list.as_array_mut() else { return };
    list.retain(|k| k.as_str() != Some(key));
    if required {
        list.push(json!(key));
    }
    if list.is_empty() {
        map.shift_remove("required");
    }
}

/// The JSON Pointers of every `$ref` to `target` under `v`.
fn references(v: &Value, target: &str, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                if k == "$ref" && v.as_str() == Some(target) {
                    out.push(if at.is_empty() { "/".into() } else { at.clone() });
                }
                references(v, target, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                references(v, target, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}
