//! The stdio transport: newline-delimited JSON-RPC on stdin and stdout, UTF-8, one message a line.
//! Only protocol messages reach stdout; diagnostics go to stderr.
//!
//! The calling thread reads stdin with blocking reads and hands each line to the session; a call
//! that finishes at once (most do) is answered from that thread, straight onto stdout, so a round
//! trip pays the syscalls of a plain read-and-write loop and nothing more. Calls that wait run on
//! the tokio runtime and write their answers the same way.
//!
//! [`cli::main`](crate::cli::main) serves a server this way for the command `mcp`; a `main` of
//! its own does it with [`serve_stdio`]:
//!
//! ```no_run
//! use tooltable::Server;
//! use tooltable_transports::stdio::{StdioOptions, serve_stdio};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let server = Server::builder(()).info("notes", "1.0.0").build()?;
//!     let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
//!     serve_stdio(&server, &StdioOptions::default(), runtime.handle())?;
//!     Ok(())
//! }
//! ```

mod fd;
mod lines;
mod output;

use std::io::BufReader;
use std::time::Duration;

use tooltable::Server;
use tooltable::transport::jsonrpc::{self, RpcError};
use tooltable::transport::{Destination, Outbox, Outgoing, RequestContext, Session};

use lines::{Line, LineReader};
use output::LineSink;

/// Settings of the stdio transport. Defaults: lines of at most 4 MiB, 64 MiB of answers waiting
/// for the client, 10 s for the calls still running at end of input.
///
/// ```
/// use tooltable_transports::stdio::StdioOptions;
///
/// let options = StdioOptions { max_line_bytes: 64 * 1024, ..StdioOptions::default() };
/// assert_eq!(options.max_unread_output, 64 * 1024 * 1024);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioOptions {
    /// The longest line accepted, in bytes; a longer one is answered with an error and skipped.
    pub max_line_bytes: usize,
    /// How many bytes of answers may wait for the client to read them before stdin is no longer
    /// read: past it the server waits for the client to catch up, so a client that writes and
    /// never reads cannot grow the server's memory without end.
    pub max_unread_output: usize,
    /// At end of input, how long calls still running may take to answer before they are aborted.
    pub drain: Duration,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            max_line_bytes: 4 * 1024 * 1024,
            max_unread_output: 64 * 1024 * 1024,
            drain: Duration::from_secs(10),
        }
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What every message over stdio comes with: the transport, and no principal (the client is
/// whoever started the process).
const STDIO: RequestContext = RequestContext::new(tooltable::context::Transport::Stdio);

/// Serves one session on the process's stdin and stdout until stdin ends, blocking the calling
/// thread, which reads stdin and answers the calls that finish at once. Calls that wait run on
/// `runtime`, which must have worker threads of its own (a multi-thread runtime).
pub fn serve_stdio<S: Send + Sync + 'static>(
    server: &Server<S>,
    options: &StdioOptions,
    runtime: &tokio::runtime::Handle,
) -> std::io::Result<()> {
    if runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread {
        // Its tasks would run only inside its own block_on, which nobody calls while stdin is read.
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "serve_stdio needs a multi-thread runtime: the calls that wait run on its workers",
        ));
    }
    let output = LineSink::open(1)?;
    let session = std::sync::Arc::new(Session::new(server, output.clone()));
    stop_on_hangup(&output, &session);
    let read = {
        let _spawn_here = runtime.enter();
        let input = BufReader::with_capacity(64 * 1024, fd::BlockingReader(0));
        read_lines(&session, input, options, &output)
    };
    runtime.block_on(session.drain(options.drain));
    drop(session);
    read.and(output.finish(options.drain))
}

/// Once the client closes stdout, nobody can read an answer: the calls in flight are stopped at
/// once, and reading stops at the next line (or the end of input).
fn stop_on_hangup<S: Send + Sync + 'static>(output: &LineSink, session: &std::sync::Arc<Session<S>>) {
    let session = std::sync::Arc::downgrade(session);
    output.on_hangup(move || {
        tracing::warn!("stdout is closed; stopping the calls in flight");
        if let Some(session) = session.upgrade() {
            session.close();
        }
    });
}

/// Hands each line to the session until the end of input.
fn read_lines<S: Send + Sync + 'static>(
    session: &Session<S>,
    input: impl std::io::BufRead,
    options: &StdioOptions,
    output: &LineSink,
) -> std::io::Result<()> {
    let max_line_bytes = options.max_line_bytes;
    let mut reader = LineReader::new(input, max_line_bytes);
    let mut first = true;
    loop {
        output.wait_for_room(options.max_unread_output);
        if output.is_broken() {
            // Nobody can read an answer any more: stop reading, and stop the calls in flight.
            tracing::warn!("stdout is closed; stopping");
            session.close();
            break;
        }
        let Some(line) = reader.next()? else { break };
        match line {
            Line::Message(mut bytes) => {
                if std::mem::take(&mut first) {
                    bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
                }
                if !bytes.iter().all(u8::is_ascii_whitespace) {
                    session.handle_bytes(bytes, &STDIO);
                }
            }
            Line::TooLong { len, head } => {
                first = false;
                tracing::warn!(bytes = len, "skipped an over-long line");
                let e = RpcError::invalid_request(format!(
                    "message of {len}+ bytes exceeds the line limit of {max_line_bytes} bytes; it was skipped"
                ));
                // Answered with the request's id when its start names one, so no client waits on it.
                match tooltable::transport::jsonrpc::request_id_of_prefix(head.strip_prefix(BOM).unwrap_or(head)) {
                    Some(id) => {
                        output.send(Outgoing::message(jsonrpc::error(Some(&id), &e), Destination::Response(id)))
                    }
                    None => session.reject(&e),
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::os::fd::FromRawFd;

    use super::*;

    /// A pipe: the reading end as a file, the writing end as a descriptor.
    fn pipe() -> (std::fs::File, libc::c_int) {
        let mut fds = [0; 2];
        // SAFETY: pipe writes two descriptors into the array we own.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the read end is ours alone from here on.
        (unsafe { std::fs::File::from_raw_fd(fds[0]) }, fds[1])
    }

    fn pings(n: usize) -> String {
        (0..n).map(|i| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n")).collect()
    }

    /// A sink on a pipe whose reader has gone, once it has noticed, nothing written to it yet;
    /// then `check`, then the pipe closed.
    fn after_hangup(check: impl FnOnce(&LineSink)) {
        let (read_end, write_end) = pipe();
        let output = LineSink::open(write_end).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        output.on_hangup(move || tx.send(()).unwrap_or_default());
        drop(read_end);
        rx.recv_timeout(Duration::from_secs(10)).expect("the hangup is noticed with nothing written");
        assert!(output.is_broken());
        check(&output);
        // SAFETY: the write end is ours; the sink is done with it.
        unsafe { libc::close(write_end) };
    }

    #[test]
    fn a_closed_stdout_is_noticed_before_any_write() {
        after_hangup(|output| assert!(output.finish(Duration::from_secs(1)).is_ok(), "no answer was lost"));
    }

    #[test]
    fn an_answer_after_the_hangup_is_reported_lost() {
        after_hangup(|output| {
            output.send(Outgoing::message("{}".into(), Destination::Session));
            let e = output.finish(Duration::from_secs(1)).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        });
    }

    #[test]
    fn reading_stops_once_stdout_is_gone() {
        let (read_end, write_end) = pipe();
        drop(read_end);
        let server = Server::builder(()).build().unwrap();
        let output = LineSink::open(write_end).unwrap();
        let session = Session::new(&server, output.clone());
        let input = pings(1000);
        let mut cursor = std::io::Cursor::new(input.as_bytes());
        read_lines(&session, &mut cursor, &StdioOptions::default(), &output).unwrap();
        assert!(output.is_broken());
        assert!((cursor.position() as usize) < input.len() / 2, "read {} of {} bytes", cursor.position(), input.len());
        // SAFETY: the write end is ours; the sink is done with it.
        unsafe { libc::close(write_end) };
    }

    /// What the session writes for `input`, one JSON value a line.
    fn answers(input: &str) -> Vec<serde_json::Value> {
        let (mut read_end, write_end) = pipe();
        let server = Server::builder(()).build().unwrap();
        let output = LineSink::open(write_end).unwrap();
        let session = Session::new(&server, output.clone());
        read_lines(&session, std::io::Cursor::new(input.as_bytes()), &StdioOptions::default(), &output).unwrap();
        drop(session);
        output.finish(Duration::from_secs(1)).unwrap();
        // SAFETY: the write end is ours; closing it ends what the read end sees.
        unsafe { libc::close(write_end) };
        let mut written = String::new();
        read_end.read_to_string(&mut written).unwrap();
        written.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    #[test]
    fn a_batch_of_revision_2025_03_26_is_answered_with_one_line() {
        let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}"#;
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
        let lines = answers(&format!("{initialize}\n{batch}\n"));
        let responses = lines.iter().filter(|l| l.get("method").is_none()).collect::<Vec<_>>();
        assert_eq!(responses.len(), 2, "the handshake's answer, then the batch's: {lines:?}");
        assert_eq!(
            responses[1],
            &serde_json::json!([
                { "jsonrpc": "2.0", "id": 1, "result": {} },
                { "jsonrpc": "2.0", "id": 2, "result": {} },
            ])
        );
    }

    #[test]
    fn an_over_long_line_is_answered_with_its_id() {
        let (mut read_end, write_end) = pipe();
        let server = Server::builder(()).build().unwrap();
        let output = LineSink::open(write_end).unwrap();
        let session = Session::new(&server, output.clone());
        let long = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}\n",
            "x".repeat(500)
        );
        let options = StdioOptions { max_line_bytes: 100, ..StdioOptions::default() };
        read_lines(&session, std::io::Cursor::new(long.as_bytes()), &options, &output).unwrap();
        drop(session);
        output.finish(Duration::from_secs(1)).unwrap();
        // SAFETY: the write end is ours; closing it ends what the read end sees.
        unsafe { libc::close(write_end) };
        let mut written = String::new();
        read_end.read_to_string(&mut written).unwrap();
        let answer: serde_json::Value = serde_json::from_str(written.trim()).unwrap();
        assert_eq!(answer["id"], 7, "{written}");
        assert_eq!(answer["error"]["code"], -32600);
        assert!(answer["error"]["message"].as_str().unwrap().contains("line limit of 100 bytes"));
    }
}
