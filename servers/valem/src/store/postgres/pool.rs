//! A small bounded pool of PostgreSQL connections: at most `size` open at once, each made when
//! first needed; a caller waits at most `wait` for one to be free. A connection the server closed
//! is let go and replaced.

use std::ops::{Deref, DerefMut};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

use super::{Connector, describe_error};
use crate::store::StoreError;

pub struct Pool {
    connector: Connector,
    size: usize,
    wait: Duration,
    state: Mutex<State>,
    freed: Condvar,
}

#[derive(Default)]
struct State {
    idle: Vec<Client>,
    /// Connections open: idle ones, lent ones and ones being made.
    open: usize,
}

/// A connection lent by the pool; back to it when dropped, unless it was found broken.
pub struct Pooled<'a> {
    pool: &'a Pool,
    client: Option<Client>,
}

impl Pool {
    pub fn new(connector: Connector, size: usize, wait: Duration) -> Pool {
        Pool { connector, size: size.max(1), wait, state: Mutex::default(), freed: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A connection: an idle one, a new one while fewer than `size` are open, or the first one
    /// given back within `wait`.
    pub fn get(&self) -> Result<Pooled<'_>, StoreError> {
        let deadline = Instant::now() + self.wait;
        let mut state = self.lock();
        loop {
            while let Some(client) = state.idle.pop() {
                if !client.is_closed() {
                    return Ok(Pooled { pool: self, client: Some(client) });
                }
                state.open -= 1;
            }
            if state.open < self.size {
                state.open += 1;
                drop(state);
                return match connect(&self.connector) {
                    Ok(client) => Ok(Pooled { pool: self, client: Some(client) }),
                    Err(e) => {
                        self.lock().open -= 1;
                        self.freed.notify_one();
                        Err(e)
                    }
                };
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(StoreError::Unavailable(format!(
                    "PostgreSQL: all {} connections stayed busy for {} ms (--database-pool, --database-timeout-ms)",
                    self.size,
                    self.wait.as_millis()
                )));
            }
            state = self.freed.wait_timeout(state, deadline - now).unwrap_or_else(|p| p.into_inner()).0;
        }
    }
}

/// A new connection with the store's session settings.
pub(super) fn connect(connector: &Connector) -> Result<Client, StoreError> {
    let mut client = connector
        .config
        .connect(NoTls)
        .map_err(|e| StoreError::Unavailable(format!("PostgreSQL: cannot connect: {}", describe_error(&e))))?;
    client
        .batch_execute(&connector.setup)
        .map_err(|e| StoreError::Unavailable(format!("PostgreSQL: cannot set up a session: {}", describe_error(&e))))?;
    Ok(client)
}

impl Pooled<'_> {
    /// Closes the connection instead of giving it back (its state is unknown after an error);
    /// it is not to be used again.
    pub fn close(&mut self) {
        self.client = None;
    }
}

impl Deref for Pooled<'_> {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.client.as_ref().expect("a lent connection is held until it is dropped")
    }
}

impl DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut Client {
        self.client.as_mut().expect("a lent connection is held until it is dropped")
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        match self.client.take() {
            Some(client) if !client.is_closed() => state.idle.push(client),
            _ => state.open -= 1,
        }
        drop(state);
        self.pool.freed.notify_one();
    }
}
