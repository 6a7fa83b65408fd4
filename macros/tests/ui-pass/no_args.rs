use tooltable::{Cx, Operation};
use tooltable_macros::operation;

pub struct Models {
    pub count: u32,
}

/// Counts the models.
#[operation(rest = "GET /models/count", read_only)]
pub(crate) async fn count_models(cx: &Cx<Models>) -> Result<u32, tooltable::Error> {
    Ok(cx.count)
}

/// Answers; takes neither context nor arguments, so it fits a table of any state.
#[operation]
async fn ping() -> Result<&'static str, tooltable::Error> {
    Ok("pong")
}

fn main() {
    assert_eq!(count_models.meta().name, "count_models");
    assert_eq!(Operation::<Models>::meta(&ping).name, "ping");
}
