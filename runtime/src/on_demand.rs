//! A background loop started when there is something to watch and ended when there is not:
//! the HTTP transport's idle-session sweeper and the task engine's expiry sweeper, so an
//! idle server still lets go of what timed out, and a server with nothing to watch runs no
//! timer at all.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the loop runs; see [`OnDemand::start`] and [`OnDemand::should_end`].
#[derive(Debug, Default)]
pub(crate) struct OnDemand {
    running: AtomicBool,
}

impl OnDemand {
    /// Calls `spawn` (which starts the loop) unless the loop already runs.
    pub(crate) fn start(&self, spawn: impl FnOnce()) {
        if !self.running.swap(true, Ordering::AcqRel) {
            spawn();
        }
    }

    /// Asked by the loop between rounds: whether it should end, given `idle` (it has
    /// nothing left to watch). Work added while it was deciding either finds it still
    /// running or starts a new one, never neither.
    pub(crate) fn should_end(&self, idle: impl Fn() -> bool) -> bool {
        if !idle() {
            return false;
        }
        self.running.store(false, Ordering::Release);
        // Work added between the check and the store saw the loop running and did not start
        // another: look again, and carry on unless a new loop has started meanwhile.
        idle() || self.running.swap(true, Ordering::AcqRel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn starts_once_and_ends_only_when_idle() {
        let on = OnDemand::default();
        let spawned = Cell::new(0);
        on.start(|| spawned.set(spawned.get() + 1));
        on.start(|| spawned.set(spawned.get() + 1));
        assert_eq!(spawned.get(), 1, "already running");
        assert!(!on.should_end(|| false), "work left: carry on");
        assert!(on.should_end(|| true), "nothing left: end");
        on.start(|| spawned.set(spawned.get() + 1));
        assert_eq!(spawned.get(), 2, "started again once it ended");
    }

    #[test]
    fn work_arriving_while_it_decides_keeps_it_running() {
        let on = OnDemand::default();
        on.start(|| {});
        // Idle at the first look, busy at the second: the loop must go on.
        let looks = Cell::new(0);
        let idle = || {
            looks.set(looks.get() + 1);
            looks.get() == 1
        };
        assert!(!on.should_end(idle));
        let spawned = Cell::new(false);
        on.start(|| spawned.set(true));
        assert!(!spawned.get(), "it still counts as running");
    }
}
