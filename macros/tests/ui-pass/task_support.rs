use tooltable::tool::{TaskSupport, Tool, ToolDescriptor};
use tooltable_macros::tool;

/// Builds for a while; a client with the tasks extension gets a task.
#[tool(task)]
async fn build() -> Result<&'static str, tooltable::Error> {
    Ok("built")
}

/// Deploys: only as a task.
#[tool(task = "required", destructive)]
async fn deploy() -> Result<&'static str, tooltable::Error> {
    Ok("deployed")
}

/// Asks first, in rounds, then becomes a task.
#[tool(task, deferred_task)]
async fn review() -> Result<&'static str, tooltable::Error> {
    Ok("reviewed")
}

/// Answers at once.
#[tool]
async fn status() -> Result<&'static str, tooltable::Error> {
    Ok("fine")
}

fn main() {
    let support = |meta| ToolDescriptor::from(meta).task_support;
    assert_eq!(support(Tool::<()>::meta(&build)), TaskSupport::Optional);
    assert_eq!(support(Tool::<()>::meta(&deploy)), TaskSupport::Required);
    assert_eq!(support(Tool::<()>::meta(&status)), TaskSupport::Forbidden);
    let deferred = ToolDescriptor::from(Tool::<()>::meta(&review));
    assert!(deferred.deferred_task && deferred.task_support == TaskSupport::Optional);
    assert!(!ToolDescriptor::from(Tool::<()>::meta(&build)).deferred_task);
    let listed = ToolDescriptor::from(Tool::<()>::meta(&deploy)).to_mcp();
    assert_eq!(listed["execution"]["taskSupport"], "required");
}
