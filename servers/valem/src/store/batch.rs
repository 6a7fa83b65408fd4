//! Group commit on the one SQLite writer connection. A writer queues its write and takes the
//! connection; whoever holds it runs every write queued meanwhile in one `BEGIN IMMEDIATE`
//! transaction, each in a savepoint of its own, so that one fsync makes them all durable. A
//! writer whose write a previous holder ran finds its result when it gets the connection.
//! Every write is durable before its writer returns.

use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::Connection;

use super::StoreError;

type Write = Box<dyn FnOnce(&Connection) -> Result<u64, StoreError> + Send>;
type Outcome = Arc<Mutex<Option<Result<u64, StoreError>>>>;

pub(super) struct Writer {
    conn: Mutex<Connection>,
    queue: Mutex<Vec<(Write, Outcome)>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn sqlite(what: &str, e: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(format!("SQLite: {what}: {e}"))
}

impl Writer {
    pub(super) fn new(conn: Connection) -> Writer {
        Writer { conn: Mutex::new(conn), queue: Mutex::default() }
    }

    /// Runs `write` in a committed transaction, with whatever other writes are waiting.
    pub(super) fn write(
        &self,
        write: impl FnOnce(&Connection) -> Result<u64, StoreError> + Send + 'static,
    ) -> Result<u64, StoreError> {
        let outcome: Outcome = Arc::default();
        lock(&self.queue).push((Box::new(write), Arc::clone(&outcome)));
        let conn = lock(&self.conn);
        if let Some(done) = lock(&outcome).take() {
            return done;
        }
        let batch = std::mem::take(&mut *lock(&self.queue));
        run(&conn, batch);
        drop(conn);
        lock(&outcome).take().unwrap_or_else(|| Err(StoreError::Unavailable("SQLite: the write was lost".into())))
    }
}

/// Runs `batch` in one transaction and gives each write its outcome.
fn run(conn: &Connection, batch: Vec<(Write, Outcome)>) {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        let e = sqlite("begin", e);
        for (_, outcome) in batch {
            *lock(&outcome) = Some(Err(e.clone()));
        }
        return;
    }
    let mut done = Vec::with_capacity(batch.len());
    for (write, outcome) in batch {
        let result = conn
            .execute_batch("SAVEPOINT one")
            .map_err(|e| sqlite("savepoint", e))
            .and_then(|()| write(conn))
            .and_then(|value| conn.execute_batch("RELEASE one").map(|()| value).map_err(|e| sqlite("release", e)));
        if result.is_err() {
            // What this write did goes; the others stay.
            let _ = conn.execute_batch("ROLLBACK TO one; RELEASE one");
        }
        done.push((result, outcome));
    }
    let committed = conn.execute_batch("COMMIT").map_err(|e| sqlite("commit", e));
    if committed.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    for (result, outcome) in done {
        let result = match &committed {
            Ok(()) => result,
            Err(e) => Err(e.clone()),
        };
        *lock(&outcome) = Some(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_undoes_itself_alone() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (n INTEGER)").unwrap();
        let writer = Writer::new(conn);
        let results: Vec<Result<u64, StoreError>> = std::thread::scope(|scope| {
            let writes: Vec<_> = (0..8u64)
                .map(|n| {
                    let writer = &writer;
                    scope.spawn(move || {
                        writer.write(move |conn| {
                            conn.execute("INSERT INTO t (n) VALUES (?1)", [n as i64])
                                .map_err(|e| sqlite("insert", e))?;
                            if n == 3 { Err(StoreError::Unavailable("refused".into())) } else { Ok(n) }
                        })
                    })
                })
                .collect();
            writes.into_iter().map(|w| w.join().unwrap()).collect()
        });
        for (n, result) in results.iter().enumerate() {
            match n {
                3 => assert_eq!(result, &Err(StoreError::Unavailable("refused".into()))),
                n => assert_eq!(result, &Ok(n as u64)),
            }
        }
        let conn = lock(&writer.conn);
        let mut rows: Vec<i64> =
            conn.prepare("SELECT n FROM t").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
        rows.sort();
        assert_eq!(rows, [0, 1, 2, 4, 5, 6, 7]);
    }
}
