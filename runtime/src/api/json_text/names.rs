//! The member names of the objects being written, to find a name written twice in one object
//! (a value keeps one). Held inline up to a few objects deep and a few names each: results are
//! mostly small, and this is written for every one.

use std::ops::Range;

/// Names held inline before the rest go to the heap.
const INLINE: usize = 8;

/// The spans of the member names of the open objects, in the compact text, innermost last.
#[derive(Default)]
pub(super) struct Names {
    spans: Stack<(usize, usize)>,
    /// Where each open object's names start in `spans`.
    objects: Stack<usize>,
}

impl Names {
    pub(super) fn open(&mut self) {
        self.objects.push(self.spans.len());
    }

    pub(super) fn add(&mut self, span: Range<usize>) {
        self.spans.push((span.start, span.end));
    }

    /// Closes the innermost object: false when it has a name twice.
    pub(super) fn close(&mut self, text: &[u8]) -> bool {
        let start = self.objects.pop().unwrap_or_default();
        let names = &mut self.spans.as_mut_slice()[start..];
        let once = names.len() < 2 || {
            names.sort_unstable_by(|a, b| text[a.0..a.1].cmp(&text[b.0..b.1]));
            names.windows(2).all(|w| text[w[0].0..w[0].1] != text[w[1].0..w[1].1])
        };
        self.spans.truncate(start);
        once
    }
}

/// A stack whose first [`INLINE`] items need no allocation.
struct Stack<T> {
    inline: [T; INLINE],
    len: usize,
    spilled: Vec<T>,
}

impl<T: Copy + Default> Default for Stack<T> {
    fn default() -> Self {
        Stack { inline: [T::default(); INLINE], len: 0, spilled: Vec::new() }
    }
}

impl<T: Copy + Default> Stack<T> {
    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, item: T) {
        match self.len < INLINE && self.spilled.is_empty() {
            true => self.inline[self.len] = item,
            false => {
                if self.spilled.is_empty() {
                    self.spilled.extend_from_slice(&self.inline);
                }
                self.spilled.push(item);
            }
        }
        self.len += 1;
    }

    fn pop(&mut self) -> Option<T> {
        let last = self.len.checked_sub(1)?;
        let item = self.as_mut_slice()[last];
        self.truncate(last);
        Some(item)
    }

    fn truncate(&mut self, len: usize) {
        self.len = len.min(self.len);
        if !self.spilled.is_empty() {
            self.spilled.truncate(self.len);
        }
    }

    fn as_mut_slice(&mut self) -> &mut [T] {
        match self.spilled.is_empty() {
            true => &mut self.inline[..self.len],
            false => &mut self.spilled,
        }
    }
}
