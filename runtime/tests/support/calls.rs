// Each test binary uses a part of the helpers.
#![allow(dead_code)]

//! What the tests of calls share, the runtime's and the transport's: the call log as a test
//! reads it (a `tracing` subscriber for this thread that keeps the `tooltable::calls` events'
//! lines), and a tool result's failure.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tracing::subscriber::DefaultGuard;

/// The body of a `tools/call` answer's failure (its `structuredContent`); null when it is none.
pub fn failure(answer: &Value) -> Value {
    match answer["result"]["isError"] == true {
        true => answer["result"]["structuredContent"].clone(),
        false => Value::Null,
    }
}

/// The lines written since [`CallLogLines::capture`], until it drops.
pub struct CallLogLines {
    written: Written,
    _subscriber: DefaultGuard,
}

#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<u8>>>);

impl Write for Written {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl CallLogLines {
    /// Keeps the call log's events of this thread (in a current-thread test, the runtime's tasks
    /// too) from now on.
    pub fn capture() -> Self {
        let written = Written::default();
        let writer = written.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter("tooltable::calls=info")
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .without_time()
            .finish();
        CallLogLines { written, _subscriber: tracing::subscriber::set_default(subscriber) }
    }

    /// The lines as written.
    pub fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.written.0.lock().unwrap()).lines().map(str::to_owned).collect()
    }

    /// Each line's fields less `ms`, which varies (checked to be a number of milliseconds), e.g.
    /// `tool=echo transport=stdio era=handshake outcome=ok`.
    pub fn fields(&self) -> Vec<String> {
        self.lines()
            .iter()
            .map(|line| {
                let fields = line.strip_prefix(" INFO tooltable::calls: ").unwrap_or_else(|| panic!("{line}"));
                let (fields, ms) = fields.rsplit_once(" ms=").expect("ms comes last");
                assert!(ms.parse::<f64>().is_ok_and(|ms| ms >= 0.0), "{line}");
                fields.to_owned()
            })
            .collect()
    }
}
