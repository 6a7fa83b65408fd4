//! The stdio transport: newline-delimited JSON-RPC on stdin and stdout, UTF-8, one message a line.
//! Only protocol messages reach stdout; diagnostics go to stderr.

mod lines;
mod pipe;

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;
use tooltable::jsonrpc::RpcError;
use tooltable::{Outgoing, Route, Server, Session};

use lines::{Line, LineReader};

/// Settings of the stdio transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioOptions {
    /// The longest line accepted, in bytes; a longer one is answered with an error and skipped.
    pub max_line_bytes: usize,
    /// At end of input, how long calls still running may take to answer before they are aborted.
    pub drain: Duration,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions { max_line_bytes: 32 * 1024 * 1024, drain: Duration::from_secs(10) }
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Serves one session on the process's stdin and stdout until stdin ends.
pub async fn serve_stdio<S: Send + Sync + 'static>(server: &Server<S>, options: &StdioOptions) -> std::io::Result<()> {
    match (pipe::Pipe::open(0), pipe::Pipe::open(1)) {
        (Some(input), Some(output)) => serve(server, input, output, options).await,
        (Some(input), None) => serve(server, input, tokio::io::stdout(), options).await,
        (None, Some(output)) => serve(server, tokio::io::stdin(), output, options).await,
        (None, None) => serve(server, tokio::io::stdin(), tokio::io::stdout(), options).await,
    }
}

/// Serves one session over any byte streams (stdin and stdout, or an in-memory pipe in tests).
pub async fn serve<S, R, W>(server: &Server<S>, input: R, output: W, options: &StdioOptions) -> std::io::Result<()>
where
    S: Send + Sync + 'static,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (session, outgoing) = Session::new(server);
    let writer = tokio::spawn(write_lines(outgoing, output));
    let mut reader = LineReader::new(BufReader::with_capacity(64 * 1024, input), options.max_line_bytes);
    let mut first = true;
    while let Some(line) = reader.next().await? {
        match line {
            Line::Message(mut bytes) => {
                if std::mem::take(&mut first) {
                    bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
                }
                if !bytes.iter().all(u8::is_ascii_whitespace) {
                    session.handle_bytes(bytes);
                }
            }
            Line::TooLong(n) => {
                first = false;
                tracing::warn!(bytes = n, "skipped an over-long line");
                let e = RpcError::invalid_request(format!(
                    "message of {n}+ bytes exceeds the line limit of {} bytes; it was skipped",
                    options.max_line_bytes
                ));
                session.reject(&e);
            }
        }
    }
    session.drain(options.drain).await;
    drop(session);
    writer.await.map_err(std::io::Error::other)?
}

/// Writes each message as one line; flushes when no more are queued, so bursts share a write.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
    output: W,
) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(64 * 1024, output);
    while let Some(msg) = rx.recv().await {
        write_line(&mut out, &msg).await?;
        while let Ok(msg) = rx.try_recv() {
            write_line(&mut out, &msg).await?;
        }
        out.flush().await?;
    }
    out.flush().await
}

async fn write_line<W: AsyncWrite + Unpin>(out: &mut BufWriter<W>, msg: &Outgoing) -> std::io::Result<()> {
    // A pipe has no streams to close or let go of.
    if matches!(msg.route, Route::CloseStream(_) | Route::Cancelled(_)) {
        return Ok(());
    }
    out.write_all(msg.json.as_bytes()).await?;
    out.write_all(b"\n").await
}
