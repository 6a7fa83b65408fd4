//! Noticing a client that hangs up while an event stream that ends with it is open. The server
//! serves half-closed connections (a client that shuts its write side down still gets the answers
//! to what it sent), so hyper does not read a connection while it writes a response, and a client
//! gone in the middle of an event stream would be noticed only when a write to it fails: at the
//! next keepalive, or the one after. A stream that has no answer to wait for (a 2026-07-28 listen)
//! watches for the hangup instead: while it does, the end of the connection's input is its client
//! gone, and the connection ends at once, dropping the stream.

use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// A connection's hangup watch, which its requests find in their extensions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hangup {
    /// The streams watching, on this connection.
    watching: Arc<AtomicUsize>,
}

impl Hangup {
    /// Until the guard drops, the connection ends as soon as its client closes its side of it.
    pub(crate) fn watch(&self) -> Watching {
        self.watching.fetch_add(1, Ordering::AcqRel);
        Watching(Arc::clone(&self.watching))
    }

    fn is_watched(&self) -> bool {
        self.watching.load(Ordering::Acquire) > 0
    }
}

/// A stream watching for its client's hangup (see [`Hangup::watch`]).
#[derive(Debug)]
pub(crate) struct Watching(Arc<AtomicUsize>);

impl Drop for Watching {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A connection whose client's hangup ends it while a stream watches for it, and the watch its
/// requests are given.
pub(crate) fn watched(stream: TcpStream) -> (Watched, Hangup) {
    let hangup = Hangup::default();
    (Watched { stream, hangup: hangup.clone() }, hangup)
}

/// A connection that ends once its input does, while a stream watches for that. hyper flushes the
/// connection each time it is woken, so the check is made there: waiting for input to peek at,
/// it wakes the connection when the client hangs up. Bytes the client sent after its request (a
/// request pipelined behind the stream) hide the end behind them; the keepalive notices then.
#[derive(Debug)]
pub(crate) struct Watched {
    stream: TcpStream,
    hangup: Hangup,
}

impl Watched {
    /// An error once the client has hung up while a stream watches; nothing to say otherwise.
    fn hung_up(&self, cx: &mut Context<'_>) -> io::Result<()> {
        if !self.hangup.is_watched() {
            return Ok(());
        }
        let mut byte = [MaybeUninit::uninit()];
        match self.stream.poll_peek(cx, &mut ReadBuf::uninit(&mut byte)) {
            Poll::Ready(Ok(0)) => Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "the client hung up while an event stream that ends with it was open",
            )),
            Poll::Ready(Err(e)) => Err(e),
            Poll::Ready(Ok(_)) | Poll::Pending => Ok(()),
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Watched {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Err(e) = this.hung_up(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut this.stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Weak;
    use std::time::Duration;

    use hyper::server::conn::http1;
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;
    use crate::http::body::{self, StreamOwner};
    use crate::http::event_channel;

    /// Serves one connection as the server does (half-closed connections kept), answering its
    /// request with an event stream that never ends by itself, watching for the hangup or not.
    /// The stream's owner, whose weak handle tells when the stream is dropped, and the client,
    /// which has read the response's head.
    async fn open_stream(watch: bool) -> (Weak<()>, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let (io, hangup) = watched(stream);
        let owner = Arc::new(());
        let dropped = Arc::downgrade(&owner);
        let (events, receiver) = event_channel::channel(1024);
        let receiver = std::sync::Mutex::new(Some(receiver));
        let service = service_fn(move |_| {
            let stream_owner = StreamOwner(Arc::new((Arc::clone(&owner), watch.then(|| hangup.watch()))));
            let events = receiver.lock().unwrap().take().expect("one request");
            let response = body::owned_event_stream(events, Duration::from_secs(60), Some(stream_owner));
            async move { Ok::<_, std::convert::Infallible>(response) }
        });
        tokio::spawn(async move {
            let _events = events;
            let _ = http1::Builder::new().half_close(true).serve_connection(TokioIo::new(io), service).await;
        });
        client.write_all(b"GET / HTTP/1.1\r\nhost: test\r\n\r\n").await.unwrap();
        let mut head = [0u8; 256];
        let n = client.read(&mut head).await.unwrap();
        assert!(String::from_utf8_lossy(&head[..n]).starts_with("HTTP/1.1 200"));
        (dropped, client)
    }

    async fn dropped_within(stream: &Weak<()>, wait: Duration) -> bool {
        tokio::time::timeout(wait, async {
            while stream.strong_count() > 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .is_ok()
    }

    #[tokio::test]
    async fn a_watching_stream_ends_when_its_client_hangs_up() {
        let (stream, client) = open_stream(true).await;
        assert!(!dropped_within(&stream, Duration::from_millis(100)).await, "open while the client is there");
        drop(client);
        assert!(dropped_within(&stream, Duration::from_secs(2)).await, "dropped at once, no keepalive written");
    }

    #[tokio::test]
    async fn a_stream_that_does_not_watch_outlives_a_half_close() {
        let (stream, mut client) = open_stream(false).await;
        client.shutdown().await.unwrap();
        assert!(!dropped_within(&stream, Duration::from_millis(300)).await, "its client may still be reading");
    }
}
