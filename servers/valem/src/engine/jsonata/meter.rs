//! The bytes an evaluation holds, counted by the process's allocator on the thread that runs
//! it: `jsonata-core` has no memory limit, so the meter cancels the evaluation (through its
//! cancel token, which the engine checks at every step) once it holds more than its budget.
//! Only a thread inside [`measure`] pays more than a thread-local read per allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use jsonata_core::evaluator::CancelToken;

/// The system allocator, counting for the thread that is measuring.
pub struct Metered;

thread_local! {
    /// The token of the evaluation being measured on this thread; null when none is.
    static TOKEN: Cell<*const CancelToken> = const { Cell::new(std::ptr::null()) };
    /// Bytes allocated minus bytes freed since the measure began.
    static HELD: Cell<isize> = const { Cell::new(0) };
    static LIMIT: Cell<isize> = const { Cell::new(isize::MAX) };
    static TRIPPED: Cell<bool> = const { Cell::new(false) };
}

fn count(delta: isize) {
    let _ = TOKEN.try_with(|token| {
        let token = token.get();
        if token.is_null() {
            return;
        }
        let held = HELD.get() + delta;
        HELD.set(held);
        if held > LIMIT.get() && !TRIPPED.get() {
            TRIPPED.set(true);
            // SAFETY: `measure` keeps the token alive, and clears the pointer, around `run`.
            unsafe { (*token).cancel() };
        }
    });
}

// SAFETY: every call is passed to `System` unchanged; only the bookkeeping is added, and it
// neither allocates nor unwinds.
unsafe impl GlobalAlloc for Metered {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        new
    }
}

/// Runs `run` with `token` cancelled once the thread holds more than `limit` new bytes;
/// also says whether that happened.
pub fn measure<T>(limit: usize, token: &CancelToken, run: impl FnOnce() -> T) -> (T, bool) {
    struct Reset(*const CancelToken);
    impl Drop for Reset {
        fn drop(&mut self) {
            TOKEN.set(self.0);
        }
    }
    let outer = TOKEN.replace(token);
    let outer_state =
        (HELD.replace(0), LIMIT.replace(isize::try_from(limit).unwrap_or(isize::MAX)), TRIPPED.replace(false));
    let reset = Reset(outer);
    let out = run();
    let tripped = TRIPPED.get();
    drop(reset);
    HELD.set(outer_state.0);
    LIMIT.set(outer_state.1);
    TRIPPED.set(outer_state.2);
    (out, tripped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_past_its_budget_cancels_its_token() {
        let token = CancelToken::new();
        let (len, tripped) = measure(1 << 20, &token, || vec![0u8; 4 << 20].len());
        assert_eq!(len, 4 << 20);
        assert!(tripped && token.is_cancelled());
        let calm = CancelToken::new();
        let (_, tripped) = measure(1 << 20, &calm, || vec![0u8; 1024].len());
        assert!(!tripped && !calm.is_cancelled());
    }
}
