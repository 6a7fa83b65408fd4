//! The commits of other instances: one thread with its own connection LISTENs on the store's
//! channel and calls back with the model id of each notification another instance sent (every
//! commit and deletion NOTIFYs `INSTANCE MODEL_ID` in its transaction, so it is heard only once
//! committed). A lost connection is made again after a pause; what was sent meanwhile is not
//! heard, and a cache still sees it by the model's revision.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use super::{CHANNEL, Connector, describe_error};

/// How often the thread looks whether the store is gone, and waits before connecting again.
const POLL: Duration = Duration::from_millis(500);

/// The payload of a notification: the sending instance, a space, the model id.
pub fn payload(instance: &str, id: &str) -> String {
    format!("{instance} {id}")
}

/// The model id of a notification, unless it is `instance`'s own.
fn from_other<'a>(payload: &'a str, instance: &str) -> Option<&'a str> {
    payload.split_once(' ').filter(|(sender, _)| *sender != instance).map(|(_, id)| id)
}

/// Starts the thread; it ends once `stop` is set.
pub(super) fn spawn(
    connector: Connector,
    instance: String,
    stop: Arc<AtomicBool>,
    on_commit: Arc<dyn Fn(&str) + Send + Sync>,
) {
    let run = move || {
        while !stop.load(Ordering::Relaxed) {
            if let Err(why) = listen(&connector, &instance, &stop, on_commit.as_ref()) {
                eprintln!("warning: PostgreSQL: not hearing other instances' commits ({why}); trying again");
                std::thread::sleep(POLL);
            }
        }
    };
    if let Err(e) = std::thread::Builder::new().name("valem-listen".into()).spawn(run) {
        eprintln!("warning: PostgreSQL: cannot start the thread that hears other instances' commits: {e}");
    }
}

/// Listens on one connection until it fails (the reason) or `stop` is set.
fn listen(connector: &Connector, instance: &str, stop: &AtomicBool, on_commit: &dyn Fn(&str)) -> Result<(), String> {
    let mut client = connector.connect().map_err(|e| e.to_string())?;
    client.batch_execute(&format!("LISTEN {CHANNEL}")).map_err(|e| describe_error(&e))?;
    while !stop.load(Ordering::Relaxed) {
        {
            let mut notifications = client.notifications();
            let mut heard = notifications.timeout_iter(POLL);
            while let Some(notification) = heard.next().map_err(|e| describe_error(&e))? {
                if let Some(id) = from_other(notification.payload(), instance) {
                    on_commit(id);
                }
            }
        }
        if client.is_closed() {
            return Err("the connection was closed".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_names_its_model_unless_it_is_our_own() {
        let sent = payload("a1b2", "team/orders 2");
        assert_eq!(from_other(&sent, "c3d4"), Some("team/orders 2"));
        assert_eq!(from_other(&sent, "a1b2"), None);
        assert_eq!(from_other("garbled", "c3d4"), None);
    }
}
