//! Schemas taken out of an OpenAPI document: each `#/components/schemas/..` reference is
//! rewritten to `#/$defs/..`, and every definition it reaches (transitively) is carried along, so
//! a tool's schema stands on its own.

use serde_json::{Map, Value};

const COMPONENTS: &str = "#/components/schemas/";

/// The definitions one tool's schemas reach, collected while their references are rewritten.
#[derive(Debug, Default)]
pub(super) struct Defs {
    pub defs: Map<String, Value>,
}

impl Defs {
    /// `schema` with its references rewritten; the definitions it reaches join `self`. A
    /// reference outside `#/components/schemas` (another document, another section) is refused.
    pub(super) fn carry(&mut self, document: &Value, schema: &Value) -> Result<Value, String> {
        let mut schema = schema.clone();
        let mut pending = rewrite(&mut schema)?;
        while let Some(name) = pending.pop() {
            if self.defs.contains_key(&name) {
                continue;
            }
            let mut def = component(document, &name)
                .ok_or_else(|| format!("the reference {COMPONENTS}{name} names no schema"))?
                .clone();
            pending.extend(rewrite(&mut def)?);
            self.defs.insert(name, def);
        }
        Ok(schema)
    }

    /// The root schema `schema` stands for: a reference to a component is replaced by the
    /// component itself (so its `type` shows at the root), other schemas are carried as they are.
    pub(super) fn carry_root(&mut self, document: &Value, schema: &Value) -> Result<Value, String> {
        let target = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix(COMPONENTS))
            .filter(|name| !name.contains('/'))
            .and_then(|name| component(document, name));
        self.carry(document, target.unwrap_or(schema))
    }

    /// `schema` with the collected definitions as its `$defs` (none when there are none).
    pub(super) fn attach(&self, mut schema: Value) -> Value {
        if let (Some(root), false) = (schema.as_object_mut(), self.defs.is_empty()) {
            root.insert("$defs".into(), Value::Object(self.defs.clone()));
        }
        schema
    }
}

fn component<'a>(document: &'a Value, name: &str) -> Option<&'a Value> {
    document.pointer("/components/schemas")?.get(unescape(name))
}

/// JSON Pointer unescaping of one segment (`~1` is `/`, `~0` is `~`).
fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// Rewrites the references in `schema`; returns the names of the components they reach.
fn rewrite(schema: &mut Value) -> Result<Vec<String>, String> {
    let mut reached = Vec::new();
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get_mut("$ref") {
                    let rest = r.strip_prefix(COMPONENTS).ok_or_else(|| format!("unsupported reference {r}"))?;
                    let name = rest.split('/').next().unwrap_or_default().to_owned();
                    *r = format!("#/$defs/{rest}");
                    reached.push(name);
                }
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    Ok(reached)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn document() -> Value {
        json!({ "components": { "schemas": {
            "Node": { "type": "object", "properties": { "next": { "$ref": "#/components/schemas/Node" }, "tag": { "$ref": "#/components/schemas/Tag" } } },
            "Tag": { "type": "string" },
            "Unused": { "type": "integer" },
        } } })
    }

    #[test]
    fn references_are_rewritten_and_what_they_reach_is_carried_once() {
        let mut defs = Defs::default();
        let schema = defs.carry(&document(), &json!({ "items": { "$ref": "#/components/schemas/Node" } })).unwrap();
        assert_eq!(schema, json!({ "items": { "$ref": "#/$defs/Node" } }));
        assert_eq!(defs.defs.keys().collect::<Vec<_>>(), ["Node", "Tag"]);
        assert_eq!(defs.defs["Node"]["properties"]["next"]["$ref"], "#/$defs/Node");
    }

    #[test]
    fn a_root_reference_is_replaced_by_its_component() {
        let mut defs = Defs::default();
        let root = defs.carry_root(&document(), &json!({ "$ref": "#/components/schemas/Node" })).unwrap();
        assert_eq!(root["type"], "object");
        assert_eq!(defs.attach(root)["$defs"]["Node"]["type"], "object");
    }

    #[test]
    fn foreign_and_dangling_references_are_refused() {
        let mut defs = Defs::default();
        let foreign = defs.carry(&document(), &json!({ "$ref": "other.json#/X" }));
        assert_eq!(foreign, Err("unsupported reference other.json#/X".into()));
        let dangling = defs.carry(&document(), &json!({ "$ref": "#/components/schemas/Gone" }));
        assert_eq!(dangling, Err("the reference #/components/schemas/Gone names no schema".into()));
    }
}
