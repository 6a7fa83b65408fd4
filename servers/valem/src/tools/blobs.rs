//! `upload_blob` and `download_blob`: binary content in and out of the content-addressed store.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tooltable::{Cx, tool};

use super::errors::ModelError;
use super::registry::Models;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadArgs {
    /// The content, standard base64.
    #[schemars(extend("contentEncoding" = "base64", "pattern" = BASE64))]
    pub data: String,
    /// Its media type; `application/octet-stream` when absent.
    #[serde(default)]
    pub media_type: Option<String>,
}

/// Standard base64 as the decoder reads it: padded, and the bits a last partial group leaves over
/// are zero (so one text per content).
const BASE64: &str = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$";

/// A reference to a stored blob, as a model's binary field holds it.
#[derive(Serialize, JsonSchema)]
pub struct BlobRef {
    #[serde(rename = "$blobId")]
    pub blob_id: String,
    #[serde(rename = "$mediaType")]
    pub media_type: String,
    #[serde(rename = "$bytes")]
    pub bytes: usize,
}

/// Stores binary content under the sha256 of its bytes (the same bytes, the same id) and returns
/// the reference object to write into a binary field. Small binaries only: a large one outgrows
/// the result-size guard when read back.
#[tool(
    title = "Upload blob",
    idempotent,
    rest = "POST /models/blobs",
    status = 201,
    open_world = false,
    destructive = false
)]
pub async fn upload_blob(cx: &Cx<Models>, args: UploadArgs) -> Result<BlobRef, ModelError> {
    let max = cx.max_blob();
    if args.data.len() / 4 * 3 > max.saturating_add(3) {
        return Err(ModelError::TooLarge(format!(
            "the blob is larger than {max} bytes, as much as one blob may hold (--max-blob-bytes)"
        )));
    }
    let bytes = STANDARD
        .decode(args.data.as_bytes())
        .map_err(|e| ModelError::Invalid(format!("'data' must be valid base64: {e}")))?;
    let media_type = args.media_type.unwrap_or_else(|| "application/octet-stream".into());
    let size = bytes.len();
    let blob_id = cx.put_blob(bytes, &media_type).await?;
    Ok(BlobRef { blob_id, media_type, bytes: size })
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DownloadArgs {
    /// The `$blobId` of the reference, `sha256:<hex>`.
    pub blob_id: String,
    /// A model whose written document must hold a reference to the blob.
    #[serde(default)]
    pub model_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Download {
    pub blob_id: String,
    pub bytes: usize,
    /// The content, standard base64.
    pub data: String,
}

/// A stored blob's content, base64. With `modelId`, only a blob that model references.
#[tool(
    title = "Download blob",
    read_only,
    idempotent,
    rest = "GET /models/{model_id}/blobs/{blob_id}",
    open_world = false
)]
pub async fn download_blob(cx: &Cx<Models>, args: DownloadArgs) -> Result<Download, ModelError> {
    if let Some(model) = &args.model_id {
        let referenced = Models::read(cx, model, |m| Ok(references(&m.state.base, &args.blob_id))).await?;
        if !referenced {
            return Err(ModelError::Missing(format!("Blob '{}' is not referenced by model '{model}'", args.blob_id)));
        }
    }
    let blob = cx.get_blob(&args.blob_id).await?;
    Ok(Download { bytes: blob.bytes.len(), data: STANDARD.encode(&blob.bytes), blob_id: args.blob_id })
}

/// Whether `doc` holds a reference object `{"$blobId": id, ...}` anywhere.
fn references(doc: &Value, id: &str) -> bool {
    let mut pending = vec![doc];
    while let Some(v) = pending.pop() {
        match v {
            Value::Object(m) if m.get("$blobId").and_then(Value::as_str) == Some(id) => return true,
            Value::Object(m) => pending.extend(m.values()),
            Value::Array(a) => pending.extend(a),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The pattern the schema states and the decoder agree on random texts over an alphabet of
    /// every kind of base64 character (and two that are none).
    #[test]
    fn the_base64_pattern_accepts_what_the_decoder_reads() {
        let validator = jsonschema::validator_for(&json!({ "type": "string", "pattern": BASE64 })).unwrap();
        let alphabet: Vec<char> = "AQgwBEc+/=09x-".chars().collect();
        let mut rng = fastrand::Rng::with_seed(0xba5e64);
        let (mut read, mut refused) = (0, 0);
        for _ in 0..20_000 {
            let text: String = (0..rng.usize(0..13)).map(|_| alphabet[rng.usize(..alphabet.len())]).collect();
            let decoded = STANDARD.decode(&text).is_ok();
            assert_eq!(validator.is_valid(&json!(text)), decoded, "{text:?}");
            if decoded { read += 1 } else { refused += 1 }
        }
        assert!(read > 500 && refused > 500, "both sides are exercised: {read} read, {refused} refused");
    }
}
