//! Latency samples and the figures reported from them.

use std::time::Duration;

/// What one load run measured.
#[derive(Debug, Clone, Default)]
pub struct RunFigures {
    /// Calls completed in the measured window.
    pub calls: u64,
    /// Wall time of the measured window.
    pub elapsed: Duration,
    /// Median call latency.
    pub p50: Duration,
    /// 99th percentile call latency.
    pub p99: Duration,
    /// Server CPU time (user + system) spent in the window.
    pub server_cpu: Duration,
    /// Server resident set size at the end of the window.
    pub server_rss_kib: u64,
}

impl RunFigures {
    /// Calls per second.
    pub fn throughput(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }

    /// Server CPU time per call.
    pub fn cpu_per_call(&self) -> Duration {
        if self.calls == 0 {
            return Duration::ZERO;
        }
        self.server_cpu / self.calls as u32
    }
}

/// Collected per-call latencies, in nanoseconds.
#[derive(Debug, Default)]
pub struct Latencies(Vec<u64>);

impl Latencies {
    /// Room for `n` samples.
    pub fn with_capacity(n: usize) -> Self {
        Latencies(Vec::with_capacity(n))
    }

    /// Records one call.
    pub fn record(&mut self, d: Duration) {
        self.0.push(d.as_nanos() as u64);
    }

    /// Adds another collection.
    pub fn extend(&mut self, other: Latencies) {
        self.0.extend(other.0);
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True without samples.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `q` quantile (0.0..=1.0).
    pub fn quantile(&mut self, q: f64) -> Duration {
        if self.0.is_empty() {
            return Duration::ZERO;
        }
        self.0.sort_unstable();
        let i = ((self.0.len() as f64 - 1.0) * q).round() as usize;
        Duration::from_nanos(self.0[i.min(self.0.len() - 1)])
    }
}
