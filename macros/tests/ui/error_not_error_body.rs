use tooltable_macros::tool;

#[derive(serde::Serialize)]
pub struct NotFound {
    pub error: String,
}

/// Reads a model.
#[tool]
pub async fn read() -> Result<String, NotFound> {
    Err(NotFound { error: "no model".into() })
}

fn main() {}
