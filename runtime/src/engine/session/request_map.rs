//! The calls in flight of a session by their request ids: a few at a time, so a list searched
//! in order, which neither hashes an id nor allocates a node per call (the list keeps its room
//! between calls).

use crate::engine::jsonrpc::RequestId;

/// Entries by request id, each id once.
pub(crate) struct RequestMap<T>(Vec<(RequestId, T)>);

impl<T> Default for RequestMap<T> {
    fn default() -> Self {
        RequestMap(Vec::new())
    }
}

impl<T> RequestMap<T> {
    fn position(&self, id: &RequestId) -> Option<usize> {
        self.0.iter().position(|(key, _)| key == id)
    }

    pub(crate) fn contains_key(&self, id: &RequestId) -> bool {
        self.position(id).is_some()
    }

    pub(crate) fn get_mut(&mut self, id: &RequestId) -> Option<&mut T> {
        self.0.iter_mut().find(|(key, _)| key == id).map(|(_, value)| value)
    }

    /// Adds `value` under `id`, replacing (and returning) the one it had.
    pub(crate) fn insert(&mut self, id: RequestId, value: T) -> Option<T> {
        match self.get_mut(&id) {
            Some(old) => Some(std::mem::replace(old, value)),
            None => {
                self.0.push((id, value));
                None
            }
        }
    }

    pub(crate) fn remove(&mut self, id: &RequestId) -> Option<T> {
        self.position(id).map(|i| self.0.swap_remove(i).1)
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T> IntoIterator for RequestMap<T> {
    type Item = (RequestId, T);
    type IntoIter = std::vec::IntoIter<(RequestId, T)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_each_id_once() {
        let mut map = RequestMap::default();
        let (one, two) = (RequestId::Number(1), RequestId::String("1".into()));
        assert_eq!(map.insert(one.clone(), 'a'), None);
        assert_eq!(map.insert(two.clone(), 'b'), None);
        assert_eq!(map.insert(one.clone(), 'c'), Some('a'));
        assert_eq!((map.len(), map.contains_key(&two)), (2, true));
        *map.get_mut(&two).unwrap() = 'd';
        assert_eq!(map.remove(&one), Some('c'));
        assert_eq!(map.remove(&one), None);
        assert_eq!(map.into_iter().collect::<Vec<_>>(), [(two, 'd')]);
    }
}
