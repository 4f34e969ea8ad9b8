#!/usr/bin/env bash
# MCP Apps in a real browser: headless Chromium (Debian's `chromium`) loads a host page built
# on the official ext-apps app-bridge and the TypeScript SDK client (tests/interop/apps),
# pointed at the tictactoe example, and plays a whole game by clicking cells in the App.
# Checks the outcome the server reports and saves target/apps/tictactoe-final.png.
#
# Installs what it needs: chromium (apt-get, when missing), Node 22 (into .tools/, as
# conformance.sh does) and the pinned npm packages (npm ci).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools="$root/.tools"

chromium=${CHROMIUM:-$(command -v chromium || true)}
if [ -z "$chromium" ]; then
    echo "installing chromium (apt-get)"
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
    chromium=$(command -v chromium)
fi
echo "browser: $("$chromium" --version 2>/dev/null | tail -1)"

# shellcheck source=lib/node.sh
source scripts/lib/node.sh
node22=$(ensure_node22 "$tools")
export PATH="$(dirname "$node22"):$PATH"

(cd tests/interop/apps && { npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund; })
cargo build --quiet -p tracksuit-examples --bin tictactoe
CHROMIUM="$chromium" node tests/interop/apps/run.mjs "$root/target/debug/tictactoe" "$root/target/apps/tictactoe-final.png"
