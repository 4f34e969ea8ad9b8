#!/usr/bin/env bash
# The TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in package-lock.json)
# against tracksuit's examples in MCP 2026-07-28, over Streamable HTTP and stdio.
# Usage: tests/interop/node2/run.sh <directory holding the conformance, tictactoe and ledger binaries>
set -euo pipefail
if [ $# -ne 1 ] || [ ! -x "$1/conformance" ] || [ ! -x "$1/tictactoe" ] || [ ! -x "$1/ledger" ]; then
    echo "usage: $0 <dir with the conformance, tictactoe and ledger binaries>" >&2
    exit 2
fi
bin=$(cd "$1" && pwd)
cd "$(dirname "$0")"

echo "TypeScript SDK v2 client $(node -p 'require("./package-lock.json").packages["node_modules/@modelcontextprotocol/client"].version') on node $(node --version)"
npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund

server=""
stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=""
    fi
}
trap stop_server EXIT
trap "exit 130" INT TERM

# Starts `$1 --port N` on a free port and waits until it accepts connections; sets $url.
start_http() {
    local port
    port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
    "$1" --port "$port" &
    server=$!
    for _ in $(seq 200); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            url="http://127.0.0.1:$port/mcp"
            return 0
        fi
        if ! kill -0 "$server" 2>/dev/null; then
            echo "$1 exited before listening on $port" >&2
            return 1
        fi
        sleep 0.05
    done
    echo "$1 did not listen on $port" >&2
    return 1
}

failed=0
for pair in client.mjs:conformance tictactoe.mjs:tictactoe ledger.mjs:ledger; do
    script=${pair%%:*}
    binary="$bin/${pair##*:}"
    echo "--- $script over Streamable HTTP"
    start_http "$binary"
    node "$script" --url "$url" || failed=$((failed + 1))
    stop_server
    echo "--- $script over stdio"
    node "$script" --stdio "$binary" || failed=$((failed + 1))
done
if [ "$failed" -ne 0 ]; then
    echo "node2 interop: $failed run(s) failed"
    exit 1
fi
echo "node2 interop: all runs passed"
