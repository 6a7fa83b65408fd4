//! The one place that knows the wire names of a REST route: a route is written with the Rust
//! field names the macro checks (`rest = "GET /models/{model_id}"`), while clients see the names
//! serde reads (`modelId` under `rename_all = "camelCase"`). The descriptor's route is rewritten to
//! the wire names once, when the table is built, so REST binding and OpenAPI only ever see those.

use serde_json::Value;

use crate::api::descriptor::ToolDescriptor;
use crate::api::table_error::TableError;

/// Rewrites the route's path parameters and body field to the inputSchema's property names.
pub(crate) fn resolve_route(descriptor: &mut ToolDescriptor) -> Result<(), TableError> {
    let Some(route) = &descriptor.rest else { return Ok(()) };
    let properties: Vec<&str> = descriptor
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let resolve = |field: &str| {
        wire_name(field, &properties).ok_or_else(|| TableError::UnknownRouteField {
            tool: descriptor.name.clone(),
            field: field.to_owned(),
            properties: properties.iter().map(|p| (*p).to_owned()).collect(),
        })
    };
    let path = route
        .path
        .split('/')
        .map(|seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(param) => resolve(param).map(|name| format!("{{{name}}}")),
            None => Ok(seg.to_owned()),
        })
        .collect::<Result<Vec<_>, _>>()?
        .join("/");
    let body = route.body.as_deref().map(resolve).transpose()?;
    let route = descriptor.rest.as_mut().expect("checked above");
    route.path = path;
    route.body = body;
    Ok(())
}

/// The property a Rust field is written as: the field's own name, else the one property that
/// one of serde's `rename_all` rules makes of it.
fn wire_name(field: &str, properties: &[&str]) -> Option<String> {
    if properties.contains(&field) {
        return Some(field.to_owned());
    }
    let mut found = renamings(field).into_iter().filter(|name| properties.contains(&name.as_str()));
    let first = found.next()?;
    // Two rules giving two different properties would be a guess; the build error says so.
    if found.any(|other| other != first) { None } else { Some(first) }
}

/// A snake_case field name under each of serde's `rename_all` rules.
fn renamings(field: &str) -> Vec<String> {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let capitalised = |w: &&str| {
        let mut chars = w.chars();
        chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
    };
    let pascal: String = words.iter().map(capitalised).collect();
    let camel = words.first().map(|w| w.to_string()).unwrap_or_default()
        + &words.iter().skip(1).map(capitalised).collect::<String>();
    vec![
        field.to_lowercase(),
        field.to_uppercase(),
        pascal,
        camel,
        field.replace('_', "-"),
        field.replace('_', "-").to_uppercase(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn descriptor(path: &str, body: Option<&str>, props: &[&str]) -> ToolDescriptor {
        let properties: serde_json::Map<String, Value> = props.iter().map(|p| ((*p).to_owned(), json!({}))).collect();
        let mut d = ToolDescriptor::new("t", "t", json!({ "type": "object", "properties": properties }));
        d.rest = Some(crate::api::descriptor::RestRoute {
            method: "POST".into(),
            path: path.into(),
            body: body.map(str::to_owned),
            status: 200,
            location: None,
        });
        d
    }

    #[test]
    fn routes_take_the_names_serde_reads() {
        let mut d = descriptor("/models/{model_id}/state", Some("new_state"), &["modelId", "newState"]);
        resolve_route(&mut d).unwrap();
        let route = d.rest.unwrap();
        assert_eq!((route.path.as_str(), route.body.as_deref()), ("/models/{modelId}/state", Some("newState")));

        let mut d = descriptor("/x/{item_id}", None, &["item-id"]);
        resolve_route(&mut d).unwrap();
        assert_eq!(d.rest.unwrap().path, "/x/{item-id}");

        let mut d = descriptor("/x/{id}", None, &["id"]);
        resolve_route(&mut d).unwrap();
        assert_eq!(d.rest.unwrap().path, "/x/{id}");
    }

    #[test]
    fn a_field_the_schema_does_not_name_is_a_build_error() {
        let mut d = descriptor("/x/{model_id}", None, &["id"]);
        let err = resolve_route(&mut d).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool \"t\": the route names `model_id`, but the inputSchema has no such property (it has: id)"
        );
    }
}
