//! An insertion-ordered map from names to registered items, with stable pages.

use std::collections::HashMap;

/// Items by key, in insertion order (replacing keeps the original position).
pub(crate) struct Registry<T> {
    order: Vec<String>,
    items: HashMap<String, T>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            order: Vec::new(),
            items: HashMap::new(),
        }
    }
}

impl<T> Registry<T> {
    pub(crate) fn insert(&mut self, key: String, item: T) {
        if self.items.insert(key.clone(), item).is_none() {
            self.order.push(key);
        }
    }

    pub(crate) fn remove(&mut self, key: &str) -> bool {
        if self.items.remove(key).is_some() {
            self.order.retain(|k| k != key);
            true
        } else {
            false
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        self.items.get(key)
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(String::as_str)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &T> {
        self.order.iter().filter_map(|k| self.items.get(k))
    }

    /// The items from position `offset` on, each with its position.
    pub(crate) fn from(&self, offset: usize) -> impl Iterator<Item = (usize, &T)> {
        let rest = self.order.get(offset..).unwrap_or_default();
        rest.iter()
            .enumerate()
            .filter_map(move |(i, k)| self.items.get(k).map(|item| (offset + i, item)))
    }

    /// The items, in order, taken out.
    pub(crate) fn into_values(mut self) -> impl Iterator<Item = T> {
        let order = std::mem::take(&mut self.order);
        order.into_iter().filter_map(move |k| self.items.remove(&k))
    }
}
