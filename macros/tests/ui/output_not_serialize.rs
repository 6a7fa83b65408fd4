use tooltable_macros::operation;

pub struct Model {
    pub id: String,
}

/// Reads a model.
#[operation]
pub async fn read() -> Result<Model, tooltable::Error> {
    Ok(Model { id: "a".into() })
}

fn main() {}
