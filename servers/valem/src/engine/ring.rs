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

    pub fn push(&mut self, item: T) {
        if self.items.len() == self.capacity {
            self.items.pop_front();
        }
        self.items.push_back(item);
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
        (0..5).for_each(|i| r.push(i));
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), [2, 3, 4]);
    }
}
