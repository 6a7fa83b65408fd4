//! MCP content blocks and resource contents, for operations that return more than JSON.

use serde::Serialize;

/// The contents of a resource: text or a base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ResourceContents {
    #[serde(rename_all = "camelCase")]
    Text {
        uri: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    Blob {
        uri: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 of the bytes.
        blob: String,
    },
}

impl ResourceContents {
    pub fn text(uri: impl Into<String>, mime_type: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents::Text { uri: uri.into(), mime_type: Some(mime_type.into()), text: text.into() }
    }
    /// Binary contents; the bytes are base64-encoded here.
    pub fn blob(uri: impl Into<String>, mime_type: impl Into<String>, bytes: &[u8]) -> Self {
        ResourceContents::Blob { uri: uri.into(), mime_type: Some(mime_type.into()), blob: base64_of(bytes) }
    }
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
    Text {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    Image {
        data: String,
        mime_type: String,
    },
    #[serde(rename_all = "camelCase")]
    Audio {
        data: String,
        mime_type: String,
    },
    Resource {
        resource: ResourceContents,
    },
}

impl ContentBlock {
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
    pub fn resource(contents: ResourceContents) -> Self {
        ContentBlock::Resource { resource: contents }
    }
}

/// A tool result given as content blocks rather than a JSON value: return it from an operation
/// whose result is an image, audio, an embedded resource or a mix.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Content(pub Vec<ContentBlock>);

impl Content {
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
