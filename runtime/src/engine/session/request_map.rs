//! The calls in flight of a session by their request ids. Most sessions have a few at a time:
//! then a list searched in order, which neither hashes an id nor allocates a node per call (the
//! list keeps its room between calls). Past [`FEW`] the entries move to an ordered map, so a
//! client holding thousands of calls open does not make each of its lookups a walk over them all.

use std::collections::BTreeMap;

use crate::engine::jsonrpc::RequestId;

/// The most entries kept as a list.
const FEW: usize = 32;

/// Entries by request id, each id once.
pub(crate) enum RequestMap<T> {
    Few(Vec<(RequestId, T)>),
    Many(BTreeMap<RequestId, T>),
}

impl<T> Default for RequestMap<T> {
    fn default() -> Self {
        RequestMap::Few(Vec::new())
    }
}

impl<T> RequestMap<T> {
    pub(crate) fn contains_key(&self, id: &RequestId) -> bool {
        match self {
            RequestMap::Few(list) => list.iter().any(|(key, _)| key == id),
            RequestMap::Many(map) => map.contains_key(id),
        }
    }

    pub(crate) fn get_mut(&mut self, id: &RequestId) -> Option<&mut T> {
        match self {
            RequestMap::Few(list) => list.iter_mut().find(|(key, _)| key == id).map(|(_, value)| value),
            RequestMap::Many(map) => map.get_mut(id),
        }
    }

    /// Adds `value` under `id`, replacing (and returning) the one it had.
    pub(crate) fn insert(&mut self, id: RequestId, value: T) -> Option<T> {
        if let Some(old) = self.get_mut(&id) {
            return Some(std::mem::replace(old, value));
        }
        match self {
            RequestMap::Few(list) if list.len() < FEW => list.push((id, value)),
            RequestMap::Few(list) => {
                let mut map: BTreeMap<_, _> = std::mem::take(list).into_iter().collect();
                map.insert(id, value);
                *self = RequestMap::Many(map);
            }
            RequestMap::Many(map) => {
                map.insert(id, value);
            }
        }
        None
    }

    /// Takes the entry of `id` out. A map back down to a list's size stays a map: a client that
    /// had that many calls open once may again.
    pub(crate) fn remove(&mut self, id: &RequestId) -> Option<T> {
        match self {
            RequestMap::Few(list) => list.iter().position(|(key, _)| key == id).map(|i| list.swap_remove(i).1),
            RequestMap::Many(map) => map.remove(id),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            RequestMap::Few(list) => list.len(),
            RequestMap::Many(map) => map.len(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> IntoIterator for RequestMap<T> {
    type Item = (RequestId, T);
    type IntoIter = std::vec::IntoIter<(RequestId, T)>;

    fn into_iter(self) -> Self::IntoIter {
        match self {
            RequestMap::Few(list) => list.into_iter(),
            RequestMap::Many(map) => map.into_iter().collect::<Vec<_>>().into_iter(),
        }
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

    #[test]
    fn many_entries_move_to_a_map_and_keep_every_id_once() {
        let mut map = RequestMap::default();
        for n in 0..1000 {
            assert_eq!(map.insert(RequestId::Number(n), n), None);
        }
        assert!(matches!(map, RequestMap::Many(_)));
        assert_eq!(map.insert(RequestId::Number(7), -7), Some(7));
        assert_eq!(map.remove(&RequestId::Number(999)), Some(999));
        assert_eq!((map.len(), map.contains_key(&RequestId::Number(999))), (999, false));
        let mut ids: Vec<_> = map.into_iter().map(|(_, value)| value).collect();
        ids.sort();
        assert_eq!(ids.len(), 999);
        assert_eq!(ids[0], -7);
    }
}
