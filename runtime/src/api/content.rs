//! MCP content blocks and resource contents, for tools that return more than JSON and for
//! resources and prompts.
//!
//! ```
//! use serde_json::json;
//! use tooltable::content::{Content, ContentBlock, ResourceContents};
//!
//! let reply = Content::new()
//!     .with(ContentBlock::text("the logo"))
//!     .with(ContentBlock::image(b"\x89PNG", "image/png"))
//!     .with(ContentBlock::resource(ResourceContents::text("notes://1", "text/plain", "Buy milk")));
//! let sent = serde_json::to_value(&reply)?;
//! assert_eq!(sent[0], json!({ "type": "text", "text": "the logo" }));
//! assert_eq!(sent[1]["data"], "iVBORw==", "bytes are sent base64-encoded");
//! assert_eq!(sent[2]["resource"]["uri"], "notes://1");
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde::Serialize;

/// The contents of a resource: text or a base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text.
    #[serde(rename_all = "camelCase")]
    Text {
        /// The resource's URI.
        uri: String,
        /// Its media type.
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Bytes.
    #[serde(rename_all = "camelCase")]
    Blob {
        /// The resource's URI.
        uri: String,
        /// Its media type.
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 of the bytes.
        blob: String,
    },
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, mime_type: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents::Text { uri: uri.into(), mime_type: Some(mime_type.into()), text: text.into() }
    }
    /// Binary contents; the bytes are base64-encoded here.
    pub fn blob(uri: impl Into<String>, mime_type: impl Into<String>, bytes: &[u8]) -> Self {
        ResourceContents::Blob { uri: uri.into(), mime_type: Some(mime_type.into()), blob: base64_of(bytes) }
    }
    /// The resource's URI.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
        }
    }
}

/// One content block of a tool result or a prompt message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    #[serde(rename_all = "camelCase")]
    Image {
        /// Base64 of the bytes.
        data: String,
        /// Its media type (`image/png`).
        mime_type: String,
    },
    /// An audio clip.
    #[serde(rename_all = "camelCase")]
    Audio {
        /// Base64 of the bytes.
        data: String,
        /// Its media type (`audio/wav`).
        mime_type: String,
    },
    /// An embedded resource.
    Resource {
        /// Its contents.
        resource: ResourceContents,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }
    /// An image; the bytes are base64-encoded here.
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        ContentBlock::Image { data: base64_of(bytes), mime_type: mime_type.into() }
    }
    /// An audio clip; the bytes are base64-encoded here.
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio { data: base64_of(bytes), mime_type: mime_type.into() }
    }
    /// An embedded resource.
    pub fn resource(contents: ResourceContents) -> Self {
        ContentBlock::Resource { resource: contents }
    }
}

/// A tool result given as content blocks rather than a JSON value: return it from a tool whose
/// result is an image, audio, an embedded resource or a mix.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Content(pub Vec<ContentBlock>);

impl Content {
    /// No blocks yet.
    pub fn new() -> Self {
        Content(Vec::new())
    }
    /// Appends a block.
    pub fn with(mut self, block: ContentBlock) -> Self {
        self.0.push(block);
        self
    }
}

impl From<ContentBlock> for Content {
    fn from(block: ContentBlock) -> Self {
        Content(vec![block])
    }
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
