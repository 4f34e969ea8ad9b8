#!/usr/bin/env bash
# The official Python `mcp` 2.x client (tests/interop/python2/requirements.txt) against the
# conformance and ledger examples, speaking MCP 2026-07-28 and 2025-11-25, over Streamable HTTP and stdio.
# Usage: run.sh <dir with the example binaries>   (e.g. target/debug)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin_dir=$(cd "${1:?usage: run.sh <dir with the example binaries>}" && pwd)

venv="$root/.tools/venv-mcp2"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
python="$venv/bin/python"

server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT

# Starts `$1 --port N` on a free port and waits until it accepts connections; sets $port.
start_http() {
    port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$1" --port "$port" &
    server_pid=$!
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        kill -0 "$server_pid" 2>/dev/null || { echo "$1 exited before listening on $port" >&2; exit 1; }
        sleep 0.05
    done
}

status=0
for pair in client.py:conformance ledger.py:ledger; do
    script=${pair%%:*}
    binary="$bin_dir/${pair##*:}"
    [ -x "$binary" ] || { echo "no ${pair##*:} binary in $bin_dir" >&2; exit 2; }
    start_http "$binary"
    echo "--- python mcp 2.x, $script, Streamable HTTP (port $port)"
    "$python" "$here/$script" --url "http://127.0.0.1:$port/mcp" || status=1
    cleanup
    server_pid=
    echo "--- python mcp 2.x, $script, stdio"
    "$python" "$here/$script" --stdio "$binary" --stdio || status=1
done
exit $status
