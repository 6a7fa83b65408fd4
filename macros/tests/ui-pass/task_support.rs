use tooltable::{Operation, TaskSupport, ToolDescriptor};
use tooltable_macros::operation;

/// Builds for a while; a client with the tasks extension gets a task.
#[operation(task)]
async fn build() -> Result<&'static str, tooltable::Error> {
    Ok("built")
}

/// Deploys: only as a task.
#[operation(task = "required", destructive)]
async fn deploy() -> Result<&'static str, tooltable::Error> {
    Ok("deployed")
}

/// Asks first, in rounds, then becomes a task.
#[operation(task, deferred_task)]
async fn review() -> Result<&'static str, tooltable::Error> {
    Ok("reviewed")
}

/// Answers at once.
#[operation]
async fn status() -> Result<&'static str, tooltable::Error> {
    Ok("fine")
}

fn main() {
    let support = |meta| ToolDescriptor::from(meta).task_support;
    assert_eq!(support(Operation::<()>::meta(&build)), TaskSupport::Optional);
    assert_eq!(support(Operation::<()>::meta(&deploy)), TaskSupport::Required);
    assert_eq!(support(Operation::<()>::meta(&status)), TaskSupport::Forbidden);
    let deferred = ToolDescriptor::from(Operation::<()>::meta(&review));
    assert!(deferred.deferred_task && deferred.task_support == TaskSupport::Optional);
    assert!(!ToolDescriptor::from(Operation::<()>::meta(&build)).deferred_task);
    let listed = ToolDescriptor::from(Operation::<()>::meta(&deploy)).to_mcp();
    assert_eq!(listed["execution"]["taskSupport"], "required");
}
