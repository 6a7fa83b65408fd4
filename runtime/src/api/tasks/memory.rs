//! The default task store: a map in this process, bounded in count. A task whose time to live
//! has passed is no longer served, and is removed when next looked up or when the store is full.
//! Tasks kept here exist on this instance only.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::{MAX_TASKS, TaskEnd, TaskRecord, TaskStatus, TaskStore, TaskStoreError};
use crate::api::lock;
use crate::api::tool::BoxFuture;

/// Tasks in memory: at most `limit` at once (default [`MAX_TASKS`]).
pub struct MemoryTaskStore {
    limit: usize,
    tasks: Mutex<HashMap<String, Kept>>,
}

struct Kept {
    record: TaskRecord,
    expires: Instant,
}

impl std::fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTaskStore").field("limit", &self.limit).field("tasks", &lock(&self.tasks).len()).finish()
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new(MAX_TASKS)
    }
}

impl MemoryTaskStore {
    /// A store holding at most `limit` tasks (at least one).
    pub fn new(limit: usize) -> Self {
        MemoryTaskStore { limit: limit.max(1), tasks: Mutex::new(HashMap::new()) }
    }

    /// Runs `f` on the live task `id`, the expired ones dropped first.
    fn with<T>(&self, id: &str, f: impl FnOnce(&mut TaskRecord) -> T) -> Option<T> {
        let mut tasks = lock(&self.tasks);
        let now = Instant::now();
        match tasks.get_mut(id) {
            Some(kept) if kept.expires > now => Some(f(&mut kept.record)),
            Some(_) => {
                tasks.remove(id);
                None
            }
            None => None,
        }
    }

    fn create_now(&self, ttl: Duration, owner: Option<String>) -> Result<TaskRecord, TaskStoreError> {
        let mut tasks = lock(&self.tasks);
        let now = Instant::now();
        if tasks.len() >= self.limit {
            tasks.retain(|_, kept| kept.expires > now);
        }
        if tasks.len() >= self.limit {
            return Err(TaskStoreError::Full { limit: self.limit });
        }
        let record = TaskRecord { owner, ..TaskRecord::new(new_id(), ttl) };
        tasks.insert(record.id.clone(), Kept { record: record.clone(), expires: now + ttl });
        Ok(record)
    }
}

/// 128 random bits: an id no one can guess.
fn new_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    URL_SAFE_NO_PAD.encode(bytes)
}

fn settle(record: &mut TaskRecord, end: TaskEnd) -> bool {
    if record.status.is_terminal() {
        return false;
    }
    record.set_status(match &end {
        TaskEnd::Completed(_) => TaskStatus::Completed,
        TaskEnd::Failed(_) => TaskStatus::Failed,
        TaskEnd::Cancelled => TaskStatus::Cancelled,
    });
    record.input_requests.clear();
    record.answers.clear();
    record.end = Some(end);
    true
}

fn ask(record: &mut TaskRecord, questions: Map<String, Value>) {
    if !record.status.is_terminal() {
        record.input_requests.extend(questions);
        record.set_status(TaskStatus::InputRequired);
    }
}

fn answer(record: &mut TaskRecord, answers: Map<String, Value>) {
    if record.status.is_terminal() {
        return;
    }
    for (key, value) in answers {
        if record.input_requests.remove(&key).is_some() {
            record.answers.insert(key, value);
        }
    }
    if record.status == TaskStatus::InputRequired && record.input_requests.is_empty() {
        record.set_status(TaskStatus::Working);
    }
}

fn take_answers(record: &mut TaskRecord, keys: &[String]) -> Result<Option<Map<String, Value>>, TaskStoreError> {
    if record.status.is_terminal() {
        return Err(TaskStoreError::Ended);
    }
    if !keys.iter().all(|k| record.answers.contains_key(k)) {
        return Ok(None);
    }
    Ok(Some(keys.iter().filter_map(|k| record.answers.remove_entry(k)).collect()))
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, ttl: Duration, owner: Option<String>) -> BoxFuture<'_, Result<TaskRecord, TaskStoreError>> {
        let created = self.create_now(ttl, owner);
        Box::pin(async move { created })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let record = self.with(id, |r| r.clone());
        Box::pin(async move { Ok(record) })
    }

    fn settle<'a>(&'a self, id: &'a str, end: TaskEnd) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let changed = self.with(id, |r| settle(r, end)).unwrap_or(false);
        Box::pin(async move { Ok(changed) })
    }

    fn ask<'a>(&'a self, id: &'a str, questions: Map<String, Value>) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let asked = self.with(id, |r| ask(r, questions)).ok_or(TaskStoreError::Unknown);
        Box::pin(async move { asked })
    }

    fn answer<'a>(&'a self, id: &'a str, answers: Map<String, Value>) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let found = self.with(id, |r| answer(r, answers)).is_some();
        Box::pin(async move { Ok(found) })
    }

    fn take_answers<'a>(
        &'a self,
        id: &'a str,
        keys: &'a [String],
    ) -> BoxFuture<'a, Result<Option<Map<String, Value>>, TaskStoreError>> {
        let taken = self.with(id, |r| take_answers(r, keys)).unwrap_or(Err(TaskStoreError::Unknown));
        Box::pin(async move { taken })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn block<T>(f: BoxFuture<'_, T>) -> T {
        tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(f)
    }

    #[test]
    fn refuses_a_task_past_its_limit() {
        let store = MemoryTaskStore::new(2);
        for _ in 0..2 {
            block(store.create(Duration::from_secs(60), None)).unwrap();
        }
        assert_eq!(block(store.create(Duration::from_secs(60), None)), Err(TaskStoreError::Full { limit: 2 }));
    }

    #[test]
    fn the_first_end_wins() {
        let store = MemoryTaskStore::default();
        let task = block(store.create(Duration::from_secs(60), None)).unwrap();
        assert!(block(store.settle(&task.id, TaskEnd::Cancelled)).unwrap());
        assert!(!block(store.settle(&task.id, TaskEnd::Completed(json!({})))).unwrap());
        assert_eq!(block(store.get(&task.id)).unwrap().unwrap().status, TaskStatus::Cancelled);
    }

    #[test]
    fn partial_answers_keep_the_rest_pending() {
        let store = MemoryTaskStore::default();
        let id = block(store.create(Duration::from_secs(60), None)).unwrap().id;
        let questions = Map::from_iter([("a".into(), json!({})), ("b".into(), json!({}))]);
        block(store.ask(&id, questions)).unwrap();
        let keys = ["a".to_owned(), "b".to_owned()];
        block(store.answer(&id, Map::from_iter([("a".into(), json!(1)), ("zzz".into(), json!(0))]))).unwrap();
        let task = block(store.get(&id)).unwrap().unwrap();
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert_eq!(task.input_requests.keys().collect::<Vec<_>>(), ["b"]);
        assert_eq!(block(store.take_answers(&id, &keys)).unwrap(), None, "one answer is still missing");
        block(store.answer(&id, Map::from_iter([("b".into(), json!(2))]))).unwrap();
        assert_eq!(block(store.get(&id)).unwrap().unwrap().status, TaskStatus::Working);
        let answers = block(store.take_answers(&id, &keys)).unwrap().unwrap();
        assert_eq!(Value::Object(answers), json!({ "a": 1, "b": 2 }));
    }
}
