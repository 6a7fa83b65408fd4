use tooltable::tool::Tool;
use tooltable::Cx;
use tooltable_macros::tool;

pub struct Models {
    pub count: u32,
}

/// Counts the models.
#[tool(rest = "GET /models/count", read_only)]
pub(crate) async fn count_models(cx: &Cx<Models>) -> Result<u32, tooltable::Error> {
    Ok(cx.count)
}

/// Answers; takes neither context nor arguments, so it fits a table of any state.
#[tool]
async fn ping() -> Result<&'static str, tooltable::Error> {
    Ok("pong")
}

fn main() {
    assert_eq!(count_models.meta().name, "count_models");
    assert_eq!(Tool::<Models>::meta(&ping).name, "ping");
}
