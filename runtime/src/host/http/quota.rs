//! How many 2025-11-25 sessions one principal may hold open at once.
//!
//! Each session holds a [`Slot`] for its owner until the session is dropped (expired,
//! deleted, or closed), so the count is of sessions that still hold memory.

use crate::peer::sync::lock;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Open sessions by owner (the principal's binding key), against a cap.
pub(super) struct SessionQuota {
    per_owner: Mutex<HashMap<String, usize>>,
    max_per_owner: usize,
}

impl SessionQuota {
    pub(super) fn new(max_per_owner: usize) -> Arc<Self> {
        Arc::new(SessionQuota {
            per_owner: Mutex::default(),
            max_per_owner,
        })
    }

    /// A slot for a new session of `owner`, unless it holds its most already. A session
    /// without an owner (no authentication) counts only against the server-wide cap.
    pub(super) fn admit(self: &Arc<Self>, owner: Option<&str>) -> Option<Slot> {
        if let Some(owner) = owner {
            let mut per_owner = lock(&self.per_owner);
            let held = per_owner.entry(owner.to_owned()).or_default();
            if *held >= self.max_per_owner {
                return None;
            }
            *held += 1;
        }
        Some(Slot {
            quota: self.clone(),
            owner: owner.map(str::to_owned),
        })
    }

    /// How many sessions `owner` holds.
    #[cfg(test)]
    fn held(&self, owner: &str) -> usize {
        lock(&self.per_owner).get(owner).copied().unwrap_or(0)
    }
}

/// One open session's place in its owner's quota, given back when dropped.
pub(super) struct Slot {
    quota: Arc<SessionQuota>,
    owner: Option<String>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let Some(owner) = &self.owner else { return };
        let mut per_owner = lock(&self.quota.per_owner);
        if let Some(held) = per_owner.get_mut(owner) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                per_owner.remove(owner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_counted_per_owner_and_given_back() {
        let quota = SessionQuota::new(2);
        let a1 = quota.admit(Some("a")).expect("first");
        let a2 = quota.admit(Some("a")).expect("second");
        assert!(quota.admit(Some("a")).is_none(), "over the cap");
        let b = quota.admit(Some("b")).expect("another owner");
        let anonymous: Vec<_> = (0..5).filter_map(|_| quota.admit(None)).collect();
        assert_eq!(anonymous.len(), 5, "no owner, no per-owner cap");
        drop(a1);
        assert_eq!(quota.held("a"), 1);
        let _a3 = quota.admit(Some("a")).expect("room again");
        drop((a2, b));
        assert_eq!(quota.held("b"), 0);
    }
}
