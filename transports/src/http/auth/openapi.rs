//! The authorization an OAuth resource server requires, stated in its OpenAPI document: a
//! security scheme `oauth` of type `openIdConnect` (the issuer's discovery document), required by
//! every operation, each with the scopes of its tool, so that a generated client knows which
//! token to get for which route.

use serde_json::{Value, json};
use tooltable::tool::ToolDescriptor;

/// The name of the security scheme in `components.securitySchemes`.
const SCHEME: &str = "oauth";

/// Adds the scheme and each operation's requirement to `document`, whose operations are named
/// after their tools (`operationId`).
pub(super) fn secure(document: &mut Value, issuer: &str, tools: &[ToolDescriptor]) {
    let Some(fields) = document.as_object_mut() else { return };
    let scheme = json!({
        "type": "openIdConnect",
        "openIdConnectUrl": format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/')),
        "description": format!("A bearer token issued by {issuer} for this server, in the Authorization header"),
    });
    let components = fields.entry("components").or_insert_with(|| json!({}));
    if let Some(components) = components.as_object_mut() {
        let schemes = components.entry("securitySchemes").or_insert_with(|| json!({}));
        schemes[SCHEME] = scheme;
    }
    fields.insert("security".into(), json!([{ SCHEME: [] }]));
    let Some(paths) = fields.get_mut("paths").and_then(Value::as_object_mut) else { return };
    for operation in paths.values_mut().filter_map(Value::as_object_mut).flat_map(|item| item.values_mut()) {
        let tool = operation.get("operationId").and_then(Value::as_str);
        let Some(tool) = tool.and_then(|name| tools.iter().find(|t| t.name == name)) else { continue };
        operation["security"] = json!([{ SCHEME: tool.scopes }]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_requires_a_token_with_its_tools_scopes() {
        let mut writer = ToolDescriptor::new("write", "", json!({ "type": "object" }));
        writer.scopes = vec!["notes:write".into()];
        let reader = ToolDescriptor::new("read", "", json!({ "type": "object" }));
        let mut document = json!({ "paths": {
            "/notes": { "post": { "operationId": "write" }, "get": { "operationId": "read" } },
        } });
        secure(&mut document, "http://as/", &[writer, reader]);
        assert_eq!(document["components"]["securitySchemes"]["oauth"]["type"], "openIdConnect");
        assert_eq!(
            document["components"]["securitySchemes"]["oauth"]["openIdConnectUrl"],
            "http://as/.well-known/openid-configuration"
        );
        assert_eq!(document["security"], json!([{ "oauth": [] }]));
        assert_eq!(document["paths"]["/notes"]["post"]["security"], json!([{ "oauth": ["notes:write"] }]));
        assert_eq!(document["paths"]["/notes"]["get"]["security"], json!([{ "oauth": [] }]));
    }
}
