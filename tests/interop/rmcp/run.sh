#!/usr/bin/env bash
# The official Rust SDK's client (crates.io rmcp =3.11.0, this directory's own crate and
# workspace) against the conformance example, speaking MCP 2026-07-28 and 2025-11-25, over
# Streamable HTTP and stdio.
# Usage: run.sh <dir with the example binaries>   (e.g. target/debug)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin_dir=$(cd "${1:?usage: run.sh <dir with the example binaries>}" && pwd)
binary="$bin_dir/conformance"
[ -x "$binary" ] || { echo "no conformance binary in $bin_dir" >&2; exit 2; }

# Own target dir (the crate is outside the main workspace); debug is enough.
export CARGO_TARGET_DIR="${RMCP_INTEROP_TARGET_DIR:-$here/target}"
nice -n 10 cargo build --quiet --locked --manifest-path "$here/Cargo.toml"
client="$CARGO_TARGET_DIR/debug/tracksuit-interop-rmcp"

server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT

# Streamable HTTP: a free port, then wait until the server accepts connections.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
"$binary" --port "$port" &
server_pid=$!
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    kill -0 "$server_pid" 2>/dev/null || { echo "conformance exited before listening on $port" >&2; exit 1; }
    sleep 0.05
done

status=0
echo "--- rmcp 3.11.0, Streamable HTTP (port $port)"
"$client" --url "http://127.0.0.1:$port/mcp" || status=1
cleanup
server_pid=

echo "--- rmcp 3.11.0, stdio"
"$client" --stdio "$binary" --stdio || status=1
exit $status
