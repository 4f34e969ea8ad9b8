//! The tracksuit twin with jemalloc as the global allocator, for the robustness run's
//! "does memory come back after a burst" comparison (glibc malloc keeps freed memory).
//! Built with `--features jemalloc`; the driver runs it with a 1 s decay
//! (`_RJEM_MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0`).

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[path = "tracksuit_twin.rs"]
#[allow(dead_code)]
mod twin;

fn main() -> std::io::Result<()> {
    twin::serve(false)
}
