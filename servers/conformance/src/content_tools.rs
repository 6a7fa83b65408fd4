//! Tools whose results are fixed content: text, image, audio, embedded resources, an error, and
//! the schema-preservation and outputSchema fixtures.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::content::{Content, ContentBlock, ResourceContents};
use tooltable::{Error, tool};

pub(crate) const RED_PIXEL_PNG: &[u8] = include_bytes!("../fixtures/red-pixel.png");
const SILENCE_WAV: &[u8] = include_bytes!("../fixtures/silence.wav");

/// Returns a fixed text block.
#[tool(read_only, idempotent)]
pub async fn test_simple_text() -> Result<Content, Error> {
    Ok(ContentBlock::text("This is a simple text response for testing.").into())
}

/// Returns a 1x1 red PNG image.
#[tool(read_only, idempotent)]
pub async fn test_image_content() -> Result<Content, Error> {
    Ok(ContentBlock::image(RED_PIXEL_PNG, "image/png").into())
}

/// Returns a tenth of a second of silence as WAV audio.
#[tool(read_only, idempotent)]
pub async fn test_audio_content() -> Result<Content, Error> {
    Ok(ContentBlock::audio(SILENCE_WAV, "audio/wav").into())
}

/// Returns an embedded text resource.
#[tool(read_only, idempotent)]
pub async fn test_embedded_resource() -> Result<Content, Error> {
    let resource =
        ResourceContents::text("test://embedded-resource", "text/plain", "This is an embedded resource content.");
    Ok(ContentBlock::resource(resource).into())
}

/// Returns text, an image and an embedded JSON resource in one result.
#[tool(read_only, idempotent)]
pub async fn test_multiple_content_types() -> Result<Content, Error> {
    let resource =
        ResourceContents::text("test://mixed-content-resource", "application/json", r#"{"test":"data","value":123}"#);
    Ok(Content::new()
        .with(ContentBlock::text("Multiple content types test:"))
        .with(ContentBlock::image(RED_PIXEL_PNG, "image/png"))
        .with(ContentBlock::resource(resource)))
}

/// Always fails, to show how a tool error reaches the client.
#[tool(read_only, idempotent)]
pub async fn test_error_handling() -> Result<Content, Error> {
    Err(Error::internal("This tool intentionally returns an error for testing"))
}

/// A postal address (named `address` in `$defs`, as the suite expects, with an anchor).
#[derive(Deserialize, Serialize, JsonSchema)]
#[schemars(rename = "address", extend("$anchor" = "addressDef"))]
pub struct Address {
    pub street: Option<String>,
    pub city: Option<String>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContactMethod {
    Phone,
    Email,
}

/// Arguments whose schema uses `$schema`, `$defs`, `$anchor`, `additionalProperties`, composition
/// (`allOf` of an `anyOf`: a phone or an email) and a condition (`if`/`then`/`else`: the
/// contact named is given).
// The root `allOf` is the conformance suite's own (it checks that a client keeps it); the
// Anthropic API refuses a tool list that has one, so the table warns of it when it is built and
// the golden check allows it for this tool only (`golden-sessions/conformance-server/golden.json`).
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(extend(
    "allOf" = [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
    "if" = { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
    "then" = { "required": ["phone"] },
    "else" = { "required": ["email"] },
))]
pub struct SchemaFeatures {
    pub name: Option<String>,
    pub address: Option<Address>,
    pub contact_method: Option<ContactMethod>,
    pub phone: Option<String>,
    pub email: Option<String>,
}

/// Tool with JSON Schema 2020-12 features: echoes its arguments.
#[tool(read_only, idempotent)]
pub async fn json_schema_2020_12_tool(args: SchemaFeatures) -> Result<SchemaFeatures, Error> {
    Ok(args)
}

#[derive(Deserialize, JsonSchema)]
pub struct AddNumbers {
    /// The first addend.
    pub a: f64,
    /// The second addend.
    pub b: f64,
}

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
pub struct Sum {
    pub sum: f64,
}

/// Adds two numbers; its result is an object, so the tool declares an outputSchema.
#[tool(title = "Add numbers", read_only, idempotent, rest = "GET /add")]
pub async fn add_numbers(args: AddNumbers) -> Result<Sum, Error> {
    let sum = args.a + args.b;
    // JSON has no infinity: serde would write `null`, which the outputSchema does not admit.
    if !sum.is_finite() {
        return Err(Error::invalid_input(format!("{} + {} is not a finite number", args.a, args.b)));
    }
    Ok(Sum { sum })
}
