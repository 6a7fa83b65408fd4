//! Connections as resources: a cap with a clear refusal, accept errors backed off and logged once
//! per burst, a write-stall timeout for clients that stop reading what they asked for, and the
//! hangup of a client whose event stream waits for nothing else.

mod hangup;

pub(crate) use hangup::{Hangup, watched};

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Sleep;

/// Descriptors kept free of connections for everything else the process opens (files, the
/// listener), besides those of the refusals being written, so the cap is reached before the
/// descriptor limit is.
const RESERVED_DESCRIPTORS: usize = 64;
/// Refused connections waiting for their client to close; past this one is closed at once, its
/// answer given only if the socket took it without waiting.
const MAX_REFUSALS: usize = 64;
/// How long one refused connection may linger.
const REFUSAL_TIMEOUT: Duration = Duration::from_secs(1);

/// Pauses between failed accepts: doubling from 10 ms to 1 s, so a full descriptor table is
/// neither spun on nor logged every few milliseconds.
#[derive(Debug, Default)]
pub(super) struct Backoff {
    failures: u32,
}

impl Backoff {
    const FIRST: Duration = Duration::from_millis(10);
    const MAX: Duration = Duration::from_secs(1);

    /// The pause after one more failure, and whether this failure starts a burst (the one logged).
    pub(super) fn failed(&mut self) -> (Duration, bool) {
        let pause = Self::FIRST.saturating_mul(1 << self.failures.min(10)).min(Self::MAX);
        self.failures = self.failures.saturating_add(1);
        (pause, self.failures == 1)
    }

    /// Ends a burst; returns how many failures it had.
    pub(super) fn succeeded(&mut self) -> u32 {
        std::mem::take(&mut self.failures)
    }
}

/// The next connection, retrying failed accepts (out of descriptors and the like) with backoff.
pub(super) async fn accept(listener: &TcpListener, backoff: &mut Backoff) -> (TcpStream, SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(accepted) => {
                let failures = backoff.succeeded();
                if failures > 0 {
                    tracing::warn!(failures, "accepting connections again");
                }
                return accepted;
            }
            Err(e) => {
                let (pause, first) = backoff.failed();
                if first {
                    tracing::warn!("accept failed: {e}; retrying with backoff (logged once until an accept succeeds)");
                }
                tokio::time::sleep(pause).await;
            }
        }
    }
}

/// The connection cap actually applied: `requested`, lowered to what the descriptor limit leaves.
pub(super) fn effective_cap(requested: usize) -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return requested;
    }
    let available =
        usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX).saturating_sub(RESERVED_DESCRIPTORS + MAX_REFUSALS);
    if available < requested {
        tracing::warn!(
            requested,
            applied = available.max(1),
            "the descriptor limit (ulimit -n) lowers the connection cap"
        );
    }
    requested.min(available).max(1)
}

/// Answers a connection over the cap with a 503 and closes it, without holding up accepts.
pub(super) struct Refusals {
    lingering: Arc<Semaphore>,
    response: Arc<[u8]>,
}

impl Refusals {
    pub(super) fn new(cap: usize) -> Self {
        let body = serde_json::json!({
            "error": format!("the server is at its limit of {cap} open connections; retry later")
        })
        .to_string();
        let response = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             retry-after: 1\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        Refusals { lingering: Arc::new(Semaphore::new(MAX_REFUSALS)), response: response.into_bytes().into() }
    }

    pub(super) fn refuse(&self, stream: TcpStream) {
        // The answer is small: the socket nearly always takes it at once. What the client already
        // sent is read first, so that closing is a clean end rather than a reset that can discard
        // the answer before the client reads it.
        let mut sink = [0u8; 4096];
        while matches!(stream.try_read(&mut sink), Ok(1..)) {}
        let written = stream.try_write(&self.response).is_ok_and(|n| n == self.response.len());
        if written {
            // SAFETY: shutdown on the descriptor the stream owns; no memory is passed.
            unsafe { libc::shutdown(std::os::fd::AsRawFd::as_raw_fd(&stream), libc::SHUT_WR) };
        }
        // Then wait a little for the client to close; with too many refusals lingering, close now.
        let Ok(permit) = Arc::clone(&self.lingering).try_acquire_owned() else { return };
        let response = (!written).then(|| Arc::clone(&self.response));
        tokio::spawn(async move {
            let _permit = permit;
            let _ = tokio::time::timeout(REFUSAL_TIMEOUT, linger(stream, response)).await;
        });
    }
}

/// Writes the refusal if it was not yet, then reads until the client closes.
async fn linger(mut stream: TcpStream, unwritten: Option<Arc<[u8]>>) -> io::Result<()> {
    if let Some(response) = unwritten {
        stream.write_all(&response).await?;
        stream.shutdown().await?;
    }
    let mut sink = [0u8; 1024];
    while stream.read(&mut sink).await? > 0 {}
    Ok(())
}

/// A stream whose writes fail once they have made no progress for `limit`: a client that stops
/// reading its responses (or its event stream) is let go instead of holding memory forever.
pub(super) struct StallGuard<T> {
    inner: T,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> StallGuard<T> {
    pub(super) fn new(inner: T, limit: Duration) -> Self {
        StallGuard { inner, limit, stalled: None }
    }

    /// Passes a write's result through, starting or clearing the stall timer.
    fn watch<R>(&mut self, cx: &mut Context<'_>, polled: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let limit = self.limit;
        let timer = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing for {limit:?}"),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for StallGuard<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallGuard<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.watch(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.watch(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_flush(cx);
        this.watch(cx, polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_failures_back_off_and_log_once_per_burst() {
        let mut b = Backoff::default();
        let burst: Vec<(Duration, bool)> = (0..10).map(|_| b.failed()).collect();
        assert_eq!(burst[0], (Duration::from_millis(10), true));
        assert_eq!(burst[1], (Duration::from_millis(20), false));
        assert!(burst.iter().skip(1).all(|(_, logged)| !logged), "only the first failure is logged");
        assert_eq!(burst[9].0, Duration::from_secs(1), "the pause is capped");
        assert_eq!(b.succeeded(), 10);
        assert_eq!(b.failed(), (Duration::from_millis(10), true), "a new burst is logged again");
    }

    #[test]
    fn the_cap_leaves_room_under_the_descriptor_limit() {
        assert_eq!(effective_cap(1), 1);
        assert!(effective_cap(usize::MAX) < usize::MAX);
    }

    #[tokio::test]
    async fn a_write_nobody_reads_fails_after_the_stall_limit() {
        let (client, server) = tokio::io::duplex(16);
        let mut guarded = StallGuard::new(server, Duration::from_millis(50));
        let started = tokio::time::Instant::now();
        let e = guarded.write_all(&[0u8; 1024]).await.expect_err("the client never reads");
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(50));
        drop(client);
    }
}
