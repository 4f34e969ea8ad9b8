#!/usr/bin/env bash
# The official Python `mcp` 2.x client (tests/interop/python2/requirements.txt) against the
# conformance example, speaking MCP 2026-07-28 and 2025-11-25, over Streamable HTTP and stdio.
# Usage: run.sh <dir with the example binaries>   (e.g. target/debug)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin_dir=$(cd "${1:?usage: run.sh <dir with the example binaries>}" && pwd)
binary="$bin_dir/conformance"
[ -x "$binary" ] || { echo "no conformance binary in $bin_dir" >&2; exit 2; }

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

# Streamable HTTP: a free port, then wait until the server accepts connections.
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$binary" --port "$port" &
server_pid=$!
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    kill -0 "$server_pid" 2>/dev/null || { echo "conformance exited before listening on $port" >&2; exit 1; }
    sleep 0.05
done

status=0
echo "--- python mcp 2.x, Streamable HTTP (port $port)"
"$python" "$here/client.py" --url "http://127.0.0.1:$port/mcp" || status=1
cleanup
server_pid=

echo "--- python mcp 2.x, stdio"
"$python" "$here/client.py" --stdio "$binary" --stdio || status=1
exit $status
