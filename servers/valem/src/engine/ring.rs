//! A bounded log that drops its oldest entries: the history (50) and the traces (500).

use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct Ring<T> {
    items: VecDeque<T>,
    capacity: usize,
}

impl<T> Ring<T> {
    pub fn new(capacity: usize) -> Self {
        Ring { items: VecDeque::with_capacity(capacity.min(64)), capacity }
    }

    /// Appends `item`; gives back the oldest entry when it made room.
    pub fn push(&mut self, item: T) -> Option<T> {
        let dropped = if self.items.len() == self.capacity { self.items.pop_front() } else { None };
        self.items.push_back(item);
        dropped
    }

    /// Removes and gives back the oldest entry.
    pub fn pop_oldest(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    /// Oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.items.iter()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_the_newest() {
        let mut r = super::Ring::new(3);
        let dropped: Vec<Option<i32>> = (0..5).map(|i| r.push(i)).collect();
        assert_eq!(dropped, [None, None, None, Some(0), Some(1)]);
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), [2, 3, 4]);
    }
}
