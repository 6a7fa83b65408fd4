//! The fixture resources: static text, a static binary, a watched resource and a template.

use serde_json::json;
use tooltable::ServerBuilder;
use tooltable::content::ResourceContents;
use tooltable::resources::{Resource, ResourceTemplate};

use crate::content_tools::RED_PIXEL_PNG;

pub fn register(builder: ServerBuilder<()>) -> ServerBuilder<()> {
    builder
        .resource(
            Resource::new("test://static-text", "static-text").description("A static text resource").mime_type("text/plain"),
            |_, req| async move {
                Ok(vec![ResourceContents::text(req.uri, "text/plain", "This is the content of the static text resource.")])
            },
        )
        .resource(
            Resource::new("test://static-binary", "static-binary").description("A static PNG image").mime_type("image/png"),
            |_, req| async move { Ok(vec![ResourceContents::blob(req.uri, "image/png", RED_PIXEL_PNG)]) },
        )
        .resource(
            Resource::new("test://watched-resource", "watched-resource")
                .description("A resource to subscribe to; the touch_resource tool announces changes")
                .mime_type("text/plain"),
            |_, req| async move { Ok(vec![ResourceContents::text(req.uri, "text/plain", "Watched resource content.")]) },
        )
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template-data")
                .description("Data for an id, substituted into the template")
                .mime_type("application/json"),
            |_, req| async move {
                let id = req.params.get("id").cloned().unwrap_or_default();
                let text = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string();
                Ok(vec![ResourceContents::text(req.uri, "application/json", text)])
            },
        )
}
