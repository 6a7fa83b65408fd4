use tooltable_macros::operation;

#[derive(serde::Serialize)]
pub struct NotFound {
    pub error: String,
}

/// Reads a model.
#[operation]
pub async fn read() -> Result<String, NotFound> {
    Err(NotFound { error: "no model".into() })
}

fn main() {}
