//! The arguments a tool's inputSchema marks `x-mcp-header`, which a 2026-07-28 request over
//! Streamable HTTP mirrors in `Mcp-Param-*` headers. Found once, when the table is built, so that
//! a call walks only the way to them, and not at all for the many tools that mark none.

use serde_json::Value;

/// The properties of one schema object that are marked or lead to a mark (through `properties`
/// alone), in the schema's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkedProperties(Vec<MarkedProperty>);

/// A property that is marked `x-mcp-header`, holds properties that are, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkedProperty {
    /// The property's name.
    pub key: String,
    /// Its mark (the header is `Mcp-Param-{mark}`), when it has one that is a string.
    pub mark: Option<String>,
    /// Its own properties on the way to marks further down.
    pub properties: MarkedProperties,
}

impl MarkedProperties {
    /// The marked properties of `schema` and the ones on the way to them.
    pub fn of(schema: &Value) -> Self {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Self::default() };
        let marked = properties.iter().filter_map(|(key, property)| {
            let mark = property.get("x-mcp-header").and_then(Value::as_str).map(str::to_owned);
            let properties = MarkedProperties::of(property);
            (mark.is_some() || !properties.is_empty()).then(|| MarkedProperty { key: key.clone(), mark, properties })
        });
        MarkedProperties(marked.collect())
    }

    /// Whether no property is marked.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The properties, in the schema's order.
    pub fn iter(&self) -> std::slice::Iter<'_, MarkedProperty> {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_way_to_the_marks_is_kept() {
        let schema = json!({ "type": "object", "properties": {
            "plain": { "type": "string" },
            "region": { "type": "string", "x-mcp-header": "Region" },
            "nested": { "type": "object", "properties": {
                "n": { "type": "integer", "x-mcp-header": "N" },
                "m": { "type": "integer" },
            } },
            "not_a_name": { "x-mcp-header": 3 },
        } });
        let marked = MarkedProperties::of(&schema);
        let keys: Vec<_> = marked.iter().map(|p| (p.key.as_str(), p.mark.as_deref())).collect();
        assert_eq!(keys, [("region", Some("Region")), ("nested", None)]);
        let nested: Vec<_> = marked.iter().nth(1).unwrap().properties.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(nested, ["n"]);
        assert!(MarkedProperties::of(&json!({ "type": "object", "properties": { "a": {} } })).is_empty());
    }
}
