#!/usr/bin/env bash
# Drives the conformance example with real MCP 2026-07-28 clients nobody here wrote, over
# Streamable HTTP and stdio: the TypeScript SDK v2 client (tests/interop/node2), the Python
# `mcp` 2.x client (tests/interop/python2) and the official Rust SDK's client (rmcp, in its
# own crate outside the workspace: tests/interop/rmcp). Each suite lives in its directory
# with a run.sh that installs its pinned client and takes the example binaries' directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cargo build --quiet -p tracksuit-examples --bin conformance --bin tictactoe --bin ledger
bin="$root/target/debug"
echo "--- the ledger demo (tracksuit's own client, both eras; fails on a double delete)"
"$bin/ledger"
for suite in node2 python2 rmcp; do
    runner="tests/interop/$suite/run.sh"
    if [ -x "$runner" ]; then
        echo "--- $suite"
        "$runner" "$bin"
    fi
done
