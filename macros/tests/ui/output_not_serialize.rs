use tooltable_macros::tool;

pub struct Model {
    pub id: String,
}

/// Reads a model.
#[tool]
pub async fn read() -> Result<Model, tooltable::Error> {
    Ok(Model { id: "a".into() })
}

fn main() {}
