#!/usr/bin/env bash
# Drives the conformance example with real clients nobody here wrote: the TypeScript SDK
# client (tests/interop/node) and the Python `mcp` client (tests/interop/python), each over
# stdio and Streamable HTTP. Installs the pinned clients locally.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cargo build --quiet -p tracksuit-examples --bin conformance --bin sampling --bin tictactoe --bin tasks
binary="$root/target/debug/conformance"

echo "--- TypeScript SDK client ($(node --version))"
(cd tests/interop/node && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)
node tests/interop/node/client.mjs "$binary"
node tests/interop/node/sampling.mjs "$root/target/debug/sampling"
node tests/interop/node/elicitation.mjs "$binary"
node tests/interop/node/mount.mjs "$binary"
node tests/interop/node/tictactoe.mjs "$root/target/debug/tictactoe"
node tests/interop/node/tasks.mjs "$root/target/debug/tasks"

echo "--- Python mcp client"
venv="$root/.tools/venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/interop/python/requirements.txt
"$venv/bin/python" tests/interop/python/client.py "$binary"

echo "--- tracksuit's client against the TypeScript SDK's task server (2025-11-25 tasks with input)"
# The SDK's own example server (simpleTaskInteractive), installed above with the pinned SDK.
cargo build --quiet -p tracksuit-examples --bin task_peer_client
port="${TASK_PEER_PORT:-4231}"
PORT="$port" node tests/interop/node/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleTaskInteractive.js \
    >"$root/target/task-peer-server.log" 2>&1 &
peer=$!
trap 'kill "$peer" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
"$root/target/debug/task_peer_client" "http://127.0.0.1:$port/mcp" \
    || { tail -20 "$root/target/task-peer-server.log"; exit 1; }
kill "$peer" 2>/dev/null || true
