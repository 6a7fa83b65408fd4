//! The standard descriptors through plain syscalls: reads that block (one `read` per message,
//! where a reactor adds an `epoll_wait`), and writes that never do.

use std::io;
use std::os::fd::RawFd;

fn check(n: isize) -> io::Result<usize> {
    if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
}

/// Retries `f` while it is interrupted by a signal.
fn retrying(mut f: impl FnMut() -> isize) -> io::Result<usize> {
    loop {
        match check(f()) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            result => return result,
        }
    }
}

/// Waits until `fd` is ready for `events` (`libc::POLLIN`, `libc::POLLOUT`), or `timeout_ms` passes
/// (-1: no limit). Hang-ups and errors count as ready: the next read or write reports them.
pub(super) fn wait(fd: RawFd, events: libc::c_short, timeout_ms: libc::c_int) -> io::Result<()> {
    let mut poll = libc::pollfd { fd, events, revents: 0 };
    // SAFETY: one pollfd we own, for the duration of the call.
    retrying(|| unsafe { libc::poll(&mut poll, 1, timeout_ms) } as isize).map(drop)
}

/// Waits up to `timeout_ms` for `fd` to hang up or fail (a pipe whose reader is gone, a closed
/// terminal or socket); true when it has. Nothing else wakes it: no readiness is asked for.
pub(super) fn hung_up(fd: RawFd, timeout_ms: libc::c_int) -> io::Result<bool> {
    let mut poll = libc::pollfd { fd, events: 0, revents: 0 };
    // SAFETY: one pollfd we own, for the duration of the call.
    retrying(|| unsafe { libc::poll(&mut poll, 1, timeout_ms) } as isize)?;
    Ok(poll.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0)
}

/// Writes what the descriptor takes now; `WouldBlock` when it takes nothing.
pub(super) fn write(fd: RawFd, data: &[u8]) -> io::Result<usize> {
    // SAFETY: writes at most `data.len()` bytes from a slice we borrow.
    retrying(|| unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) })
}

/// A descriptor read with blocking reads. Should it be in non-blocking mode (it shares its open
/// file with a non-blocking standard output: a terminal, a socket), a read that would block
/// waits in `poll` instead.
pub(super) struct BlockingReader(pub RawFd);

impl io::Read for BlockingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            // SAFETY: reads at most `buf.len()` bytes into memory we hold exclusively.
            match retrying(|| unsafe { libc::read(self.0, buf.as_mut_ptr().cast(), buf.len()) }) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => wait(self.0, libc::POLLIN, -1)?,
                result => return result,
            }
        }
    }
}

/// A borrowed descriptor switched to non-blocking mode; its flags are put back on drop.
pub(super) struct NonBlocking {
    fd: RawFd,
    saved_flags: libc::c_int,
}

impl NonBlocking {
    pub(super) fn set(fd: RawFd) -> io::Result<NonBlocking> {
        // SAFETY: fcntl on a descriptor the caller keeps open; no memory is passed.
        let saved_flags = check(unsafe { libc::fcntl(fd, libc::F_GETFL) } as isize)? as libc::c_int;
        // SAFETY: as above.
        check(unsafe { libc::fcntl(fd, libc::F_SETFL, saved_flags | libc::O_NONBLOCK) } as isize)?;
        Ok(NonBlocking { fd, saved_flags })
    }

    pub(super) fn fd(&self) -> RawFd {
        self.fd
    }
}

impl Drop for NonBlocking {
    fn drop(&mut self) {
        // SAFETY: as in `set`; puts back the flags read there.
        unsafe { libc::fcntl(self.fd, libc::F_SETFL, self.saved_flags) };
    }
}
