//! stdin and stdout read and written on the runtime's own thread: a pipe is put in non-blocking
//! mode and registered with the reactor, so no message pays a hop through tokio's blocking pool.
//! Anything that cannot be polled (a regular file, say) falls back to tokio's stdin and stdout.

use std::io;
use std::os::fd::RawFd;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A borrowed standard descriptor in non-blocking mode; its flags are restored on drop.
pub struct Pipe {
    fd: AsyncFd<RawFd>,
    saved_flags: libc::c_int,
}

impl Pipe {
    /// Wraps `fd` (0 or 1) when it can be polled; `None` otherwise, with the descriptor untouched.
    pub fn open(fd: RawFd) -> Option<Pipe> {
        // SAFETY: fcntl on a descriptor this process owns for its lifetime (0 or 1); no memory is passed.
        let saved_flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if saved_flags < 0 {
            return None;
        }
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd, libc::F_SETFL, saved_flags | libc::O_NONBLOCK) } < 0 {
            return None;
        }
        // SAFETY: 0 and 1 stay open for the life of the process, so the registration never outlives
        // its descriptor; it is deregistered when the Pipe drops.
        match unsafe { AsyncFd::register(fd) } {
            Ok(fd) => Some(Pipe { fd, saved_flags }),
            Err(_) => {
                // SAFETY: as above; puts back the flags read before.
                unsafe { libc::fcntl(fd, libc::F_SETFL, saved_flags) };
                None
            }
        }
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        // SAFETY: as in `open`.
        unsafe { libc::fcntl(*self.fd.get_ref(), libc::F_SETFL, self.saved_flags) };
    }
}

fn check(n: isize) -> io::Result<usize> {
    if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
}

impl AsyncRead for Pipe {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let unfilled_len = unfilled.len();
            let result = guard.try_io(|fd| {
                // SAFETY: reads at most `unfilled.len()` bytes into memory we hold exclusively.
                check(unsafe { libc::read(*fd.get_ref(), unfilled.as_mut_ptr().cast(), unfilled.len()) })
            });
            match result {
                Ok(Ok(n)) => {
                    // A short read drained the pipe: wait for the reactor rather than pay a read
                    // that only says EAGAIN (edge-triggered, so data arriving now still wakes us).
                    if n > 0 && n < unfilled_len {
                        guard.clear_ready();
                    }
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
}

impl AsyncWrite for Pipe {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_write_ready(cx))?;
            // SAFETY: writes at most `data.len()` bytes from a slice we borrow.
            match guard.try_io(|fd| check(unsafe { libc::write(*fd.get_ref(), data.as_ptr().cast(), data.len()) })) {
                Ok(result) => return Poll::Ready(result),
                Err(_would_block) => continue,
            }
        }
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
