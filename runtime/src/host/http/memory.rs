//! Handing memory freed after a burst back to the operating system.
//!
//! glibc malloc keeps what a thread frees in that thread's arena and returns only the top of
//! each arena, so a server that peaked at a thousand sessions stays resident near that peak
//! long after the sessions are gone (in the robustness benchmark: 11 MiB before a burst,
//! 58 MiB after it, with 1 MiB of it in use). `malloc_trim(0)` walks every arena and gives
//! whole free pages back. The Streamable HTTP transport asks for it once a burst of sessions
//! has subsided ([`BurstWatch`]); with another allocator or C library it does nothing.

use std::sync::Mutex;
use std::time::Duration;

/// Fewer open sessions than this at the peak is not a burst worth trimming after: their
/// memory is a couple of MiB at most.
pub(crate) const BURST_SESSIONS: usize = 64;

/// Decides when a burst of sessions has subsided: the open count fell to a quarter of its
/// peak since the last release.
#[derive(Debug, Default)]
pub(crate) struct BurstWatch {
    state: Mutex<Watch>,
}

#[derive(Debug, Default)]
struct Watch {
    /// Most sessions open at once since the last release.
    peak: usize,
    /// A release is scheduled.
    pending: bool,
}

impl BurstWatch {
    /// A session opened; `open` are open now.
    pub(crate) fn opened(&self, open: usize) {
        let mut w = crate::peer::sync::lock(&self.state);
        w.peak = w.peak.max(open);
    }

    /// Sessions closed; `open` are left. True when a release should be scheduled (the
    /// caller then calls [`BurstWatch::released`] once it has run).
    #[must_use]
    pub(crate) fn closed(&self, open: usize) -> bool {
        let mut w = crate::peer::sync::lock(&self.state);
        let subsided = !w.pending && w.peak >= BURST_SESSIONS && open <= w.peak / 4;
        if subsided {
            w.pending = true;
        }
        subsided
    }

    /// The scheduled release ran; `open` sessions are open now, the new peak.
    pub(crate) fn released(&self, open: usize) {
        let mut w = crate::peer::sync::lock(&self.state);
        w.pending = false;
        w.peak = open;
    }
}

/// After a burst, the open count must hold still for this long before memory is given back
/// (so what the closing sessions free is included)...
const QUIET: Duration = Duration::from_secs(1);
/// ...and the watch ends after this many periods.
const PATIENCE: usize = 30;
/// Once nothing is open: released again after these pauses, for what the last sessions'
/// stragglers (tasks finishing, connections closing, records reaching their ttl) free later.
const TAIL: [Duration; 2] = [Duration::from_secs(2), Duration::from_secs(4)];

/// Gives memory back as a burst subsides, `open` being open when it was noticed: each time
/// the count (`count()`, `None` once the watched endpoint is gone) has held still for a
/// second, again if it falls further, and twice more once it reaches zero; it ends there,
/// when the count rises (a new burst), or after 30 periods.
pub(crate) async fn release_as_burst_subsides(open: usize, count: impl Fn() -> Option<usize>) {
    let mut last = open;
    let mut released_at = None;
    for _ in 0..PATIENCE {
        tokio::time::sleep(QUIET).await;
        let Some(now) = count() else {
            return;
        };
        if now < last {
            last = now;
            continue;
        }
        if released_at != Some(now) {
            release_off_the_workers().await;
            released_at = Some(now);
        }
        if now == 0 {
            for wait in TAIL {
                tokio::time::sleep(wait).await;
                release_off_the_workers().await;
            }
            return;
        }
        if now > last {
            return;
        }
    }
}

/// [`release_free_memory`] on a blocking thread: it locks each arena in turn.
async fn release_off_the_workers() {
    let _ = tokio::task::spawn_blocking(release_free_memory).await;
}

/// Asks the allocator to return free memory to the operating system: `malloc_trim(0)` under
/// glibc; nothing elsewhere. It locks each arena in turn, so run it off the async workers
/// (`spawn_blocking`) and not on every request.
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: malloc_trim takes no pointers and has no preconditions; it only releases pages
    // glibc holds free, and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_follows_a_burst_once_it_has_subsided() {
        let w = BurstWatch::default();
        for open in 1..=1_000 {
            w.opened(open);
        }
        assert!(!w.closed(600), "still busy");
        assert!(w.closed(250), "down to a quarter of the peak");
        assert!(!w.closed(100), "one release at a time");
        w.released(100);
        assert!(w.closed(25), "what was still open was a burst too");
        w.released(10);
        assert!(!w.closed(0), "ten sessions are no burst");
    }

    #[test]
    fn small_servers_never_trim() {
        let w = BurstWatch::default();
        for open in 1..BURST_SESSIONS {
            w.opened(open);
        }
        assert!(!w.closed(0));
    }

    #[test]
    fn releasing_is_harmless_at_any_time() {
        release_free_memory();
        let v: Vec<u8> = vec![1; 1 << 20];
        drop(v);
        release_free_memory();
    }
}
