use tooltable_macros::tool;

/// Builds.
#[tool(task = "sometimes")]
async fn build() -> Result<&'static str, tooltable::Error> {
    Ok("built")
}

/// Deploys.
#[tool(task = true)]
async fn deploy() -> Result<&'static str, tooltable::Error> {
    Ok("deployed")
}

/// Reviews.
#[tool(deferred_task)]
async fn review() -> Result<&'static str, tooltable::Error> {
    Ok("reviewed")
}

fn main() {}
