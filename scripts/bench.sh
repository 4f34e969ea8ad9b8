#!/usr/bin/env bash
# The performance and robustness harness: builds bench/ in release mode, runs the load
# driver against the tracksuit, rmcp and TypeScript SDK twins (stdio, Streamable HTTP in
# 2025-11-25 sessions, and sessionless MCP 2026-07-28 requests with a 3-round MRTR call —
# the TypeScript SDK does not speak 2026-07-28 and sits those rows out),
# the HTTP floor of the 1-client 2026-07-28 calls (axum + serde_json, no MCP work), the
# in-process floor, idle-session memory, 10 000 held sessions, the robustness run, and
# the 50-tool build-time comparison, then writes docs/performance.md. The robustness run
# is repeated against the same twin built with jemalloc (`--features jemalloc`).
#
#   scripts/bench.sh                 everything (about 15 minutes on 2 cores)
#   BENCH_SKIP_BUILDTIME=1 scripts/bench.sh --scale-down 10   a quick look
#
# Extra arguments go to the driver (`--skip stdio,http,modern,stdio-modern,http-floor,floor,idle,hold,robust`,
# `--scale-down N`, `--repeat N` runs per load scenario (default 3, median shown),
# `--robust-rounds N` (default 10)). Nothing else should run on the machine meanwhile.
# The task rows (scripts/bench-tasks.sh: PostgreSQL and HAProxy started there) are
# appended last; BENCH_SKIP_TASKS=1 leaves them out.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/bench"

echo "--- building the driver and the Rust twins (release)" >&2
cargo build --release --quiet --bins --features jemalloc
echo "--- installing the TypeScript twin (pinned @modelcontextprotocol/sdk)" >&2
(cd ts && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rmcp_version=$(awk '/^name = "rmcp"$/{getline; print $3}' Cargo.lock | tr -d '"')
ts_version=$(node -p 'require("./ts/node_modules/@modelcontextprotocol/sdk/package.json").version')
{
    echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') — $(nproc) cores available"
    echo "Memory: $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo); kernel $(uname -r)"
    echo "Toolchain: $(rustc -V); Node.js $(node -v)"
    echo "Peers: rmcp $rmcp_version (crates.io, features server/macros/transport-io/transport-streamable-http-server/request-state, TCP_NODELAY set on accepted sockets, JSON rather than SSE bodies for its sessionless 2026-07-28 answers); @modelcontextprotocol/sdk $ts_version (McpServer + StreamableHTTPServerTransport on node:http)"
    echo "tracksuit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- runtime macros || echo ' + uncommitted changes'), default features"
    echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC')"
} > "$work/machine.txt"

extra=()
if [ "${BENCH_SKIP_BUILDTIME:-0}" != 1 ]; then
    echo "--- build time of a generated 50-tool server (tracksuit vs rmcp)" >&2
    bash buildtime/run.sh > "$work/buildtime.txt"
    extra+=(--buildtime "$work/buildtime.txt")
fi
if [ -f "$root/fuzz/last-run.txt" ]; then
    extra+=(--fuzz "$root/fuzz/last-run.txt")
fi

echo "--- load, floor, memory and robustness runs" >&2
./target/release/driver \
    --tracksuit target/release/tracksuit_twin \
    --tracksuit-jemalloc target/release/tracksuit_twin_jemalloc \
    --rmcp target/release/rmcp_twin \
    --ts ts/server.mjs \
    --http-floor target/release/http_floor \
    --machine "$work/machine.txt" \
    --out "$root/docs/performance.md" \
    "${extra[@]}" "$@"

# The task rows (tasks extension; in-memory, SQLite, PostgreSQL; 1 vs 3 replicas behind
# HAProxy), appended as a section of their own.
if [ "${BENCH_SKIP_TASKS:-0}" != 1 ]; then
    echo "--- task rows (scripts/bench-tasks.sh)" >&2
    bash "$root/scripts/bench-tasks.sh" "$work/tasks.md"
    { echo; cat "$work/tasks.md"; } >> "$root/docs/performance.md"
fi
