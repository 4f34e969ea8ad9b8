#!/usr/bin/env bash
# tracksuit's proxy (feature `proxy`) in front of servers nobody here wrote: the TypeScript
# SDK's simpleStreamableHttp example over Streamable HTTP, its progressExample over stdio,
# a FastMCP server (the Python `mcp` 1.x package) over stdio, and a Python `mcp` 2.x
# MCPServer speaking 2026-07-28 over stdio. examples/src/bin/proxy_peer.rs
# serves them through one tracksuit server and checks, as a 2025-11-25 and as a 2026-07-28
# caller: listing, calls, progress, cancellation reaching the remote, elicitation and
# sampling relayed, list_changed relayed, errors mapped. Installs the pinned SDKs locally.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cargo build --quiet -p tracksuit-examples --bin proxy_peer

(cd tests/interop/node && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)
venv="$root/.tools/venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/interop/python/requirements.txt
# The Python `mcp` 2.x server speaks MCP 2026-07-28 (its questions as `input_required`).
venv2="$root/.tools/venv-mcp2"
if [ ! -x "$venv2/bin/python" ]; then
    python3 -m venv "$venv2"
fi
"$venv2/bin/pip" install --quiet --disable-pip-version-check -r tests/interop/python2/requirements.txt

examples="$root/tests/interop/node/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server"
ts_port="${PROXY_TS_PORT:-4238}"
log="$root/target/proxy-ts-server.log"
MCP_PORT="$ts_port" node "$examples/simpleStreamableHttp.js" >"$log" 2>&1 &
ts=$!
trap 'kill "$ts" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$ts_port") 2>/dev/null && break
    sleep 0.1
done

NODE="$(command -v node)" \
PYTHON="$venv/bin/python" \
PROXY_TS_URL="http://127.0.0.1:$ts_port/mcp" \
PROXY_TS_PROGRESS="$examples/progressExample.js" \
PROXY_FASTMCP="$root/tests/interop/proxy/fastmcp_server.py" \
PYTHON2="$venv2/bin/python" \
PROXY_MCP2="$root/tests/interop/proxy/mcp2_server.py" \
PROXY_PORT="${PROXY_PORT:-4239}" \
    "$root/target/debug/proxy_peer" 2>"$root/target/proxy-peer.err" \
    || { echo "--- stderr (proxy and stdio remotes)"; tail -30 "$root/target/proxy-peer.err";
         echo "--- TypeScript server log"; tail -20 "$log"; exit 1; }
