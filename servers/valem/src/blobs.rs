//! The content-addressed blob store: binary content by the sha256 of its bytes, bounded per blob
//! and in total (`--max-blob-bytes`, `--max-blob-store-bytes`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use sha2::{Digest, Sha256};

use crate::tools::errors::ModelError;

pub struct BlobStore {
    blobs: Mutex<Stored>,
    max_blob: usize,
    max_total: usize,
}

#[derive(Default)]
struct Stored {
    by_id: HashMap<String, Blob>,
    bytes: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Blob {
    pub media_type: String,
    pub bytes: Arc<[u8]>,
}

/// The id of some bytes: `sha256:<64 hex>`.
pub fn blob_id(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// There is no blob `id`.
pub fn missing(id: &str) -> ModelError {
    ModelError::Missing(format!("Blob not found: {id}"))
}

/// Why a new blob is refused when the blobs together would pass `max_total` bytes (in memory or
/// in a durable store alike).
pub(crate) fn over_total(max_total: u64) -> String {
    format!("the blob store would hold more than {max_total} bytes, as much as it may (--max-blob-store-bytes)")
}

impl BlobStore {
    pub fn new(max_blob: usize, max_total: usize) -> BlobStore {
        BlobStore { blobs: Mutex::default(), max_blob, max_total }
    }

    /// The most bytes one blob may hold.
    pub fn max_blob(&self) -> usize {
        self.max_blob
    }

    fn lock(&self) -> MutexGuard<'_, Stored> {
        self.blobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Refuses a blob larger than one may be.
    pub fn check_size(&self, bytes: usize) -> Result<(), ModelError> {
        if bytes > self.max_blob {
            return Err(ModelError::TooLarge(format!(
                "the blob holds {bytes} bytes, more than one blob may (--max-blob-bytes {})",
                self.max_blob
            )));
        }
        Ok(())
    }

    /// Keeps `bytes` under their id; the same bytes stored again cost nothing.
    pub fn put(&self, bytes: Vec<u8>, media_type: &str) -> Result<String, ModelError> {
        self.check_size(bytes.len())?;
        let id = blob_id(&bytes);
        let mut stored = self.lock();
        if stored.by_id.contains_key(&id) {
            return Ok(id);
        }
        if stored.bytes + bytes.len() > self.max_total {
            return Err(ModelError::TooLarge(over_total(self.max_total as u64)));
        }
        stored.bytes += bytes.len();
        stored.by_id.insert(id.clone(), Blob { media_type: media_type.to_owned(), bytes: bytes.into() });
        Ok(id)
    }

    pub fn get(&self, id: &str) -> Result<Blob, ModelError> {
        self.lock().by_id.get(id).cloned().ok_or_else(|| missing(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_content_addressed_and_bounded() {
        let store = BlobStore::new(4, 6);
        let id = store.put(b"abc".to_vec(), "text/plain").unwrap();
        assert_eq!(id, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(store.put(b"abc".to_vec(), "text/plain").unwrap(), id);
        assert_eq!(&*store.get(&id).unwrap().bytes, b"abc");
        assert!(
            matches!(store.put(b"abcde".to_vec(), "x"), Err(ModelError::TooLarge(m)) if m.contains("--max-blob-bytes"))
        );
        assert!(
            matches!(store.put(b"wxyz".to_vec(), "x"), Err(ModelError::TooLarge(m)) if m.contains("--max-blob-store-bytes"))
        );
        assert_eq!(store.get("sha256:00"), Err(ModelError::Missing("Blob not found: sha256:00".into())));
    }
}
