use tooltable_macros::operation;

/// Builds.
#[operation(task = "sometimes")]
async fn build() -> Result<&'static str, tooltable::Error> {
    Ok("built")
}

/// Deploys.
#[operation(task = true)]
async fn deploy() -> Result<&'static str, tooltable::Error> {
    Ok("deployed")
}

/// Reviews.
#[operation(deferred_task)]
async fn review() -> Result<&'static str, tooltable::Error> {
    Ok("reviewed")
}

fn main() {}
