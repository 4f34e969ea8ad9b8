//! Giving back the capacity a collection grew for a burst once most of it stands empty.
//!
//! A `HashMap` or `Vec` keeps its peak capacity after its entries are removed: the server's
//! session list, the HTTP session map or the task store, grown for a thousand concurrent
//! sessions, would hold that memory for the life of the process, and the long-lived
//! allocations pin freed pages around them so the allocator cannot return those either.
//! Call [`ReleaseSpare::release_spare`] after removing entries: it shrinks a collection to
//! twice its length once three quarters of it are empty, so a collection that shrinks
//! has to lose half its entries again before it is reallocated (no thrashing on churn).

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

/// Collections small enough are never shrunk: reallocating them gains nothing.
const KEEP: usize = 32;

/// Shrinks a collection whose capacity is mostly unused.
pub(crate) trait ReleaseSpare {
    /// Shrinks to twice the length (at least [`KEEP`]) once at most a quarter is in use.
    fn release_spare(&mut self);
}

/// The capacity to shrink to, if it is time to.
fn shrunk(len: usize, capacity: usize) -> Option<usize> {
    (capacity > KEEP && len.saturating_mul(4) <= capacity).then(|| (len * 2).max(KEEP))
}

/// Removes `key` from `map`, then releases spare capacity.
pub(crate) fn remove<K, V, S, Q>(map: &mut HashMap<K, V, S>, key: &Q) -> Option<V>
where
    K: Eq + Hash + Borrow<Q>,
    Q: Eq + Hash + ?Sized,
    S: BuildHasher,
{
    let removed = map.remove(key);
    map.release_spare();
    removed
}

impl<K: Eq + Hash, V, S: BuildHasher> ReleaseSpare for HashMap<K, V, S> {
    fn release_spare(&mut self) {
        if let Some(to) = shrunk(self.len(), self.capacity()) {
            self.shrink_to(to);
        }
    }
}

impl<T> ReleaseSpare for Vec<T> {
    fn release_spare(&mut self) {
        if let Some(to) = shrunk(self.len(), self.capacity()) {
            self.shrink_to(to);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_emptied_after_a_burst_gives_its_capacity_back() {
        let mut map: HashMap<u32, [u8; 64]> = (0..10_000).map(|i| (i, [0; 64])).collect();
        let peak = map.capacity();
        map.retain(|k, _| *k < 5_000);
        map.release_spare();
        // (a hash map's reported capacity dips a little as removals leave tombstones)
        assert!(map.capacity() > peak * 3 / 4, "half full: kept");
        map.retain(|k, _| *k < 100);
        map.release_spare();
        assert!(map.capacity() < peak / 10, "{} of {peak}", map.capacity());
        assert!(map.capacity() >= 200, "room for twice the entries left");
        assert_eq!(map.len(), 100);
        map.clear();
        map.release_spare();
        assert!(map.capacity() <= 2 * KEEP, "{}", map.capacity());
    }

    #[test]
    fn a_vec_shrinks_only_when_three_quarters_empty() {
        let mut v: Vec<u64> = (0..1_000).collect();
        v.truncate(300);
        v.release_spare();
        assert_eq!(v.capacity(), 1_000);
        v.truncate(250);
        v.release_spare();
        assert_eq!(v.capacity(), 500);
        let mut small: Vec<u64> = Vec::with_capacity(KEEP);
        small.release_spare();
        assert_eq!(small.capacity(), KEEP, "small ones are left alone");
    }
}
