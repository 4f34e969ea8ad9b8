#!/usr/bin/env bash
# Every derived tool schema of the example servers through ajv (draft 2020-12) in strict
# mode, and, with TRACKSUIT_STRICT_SCHEMAS=1, through the strict-profile rules
# (tests/schemas/check.mjs). Installs its pinned ajv from tests/schemas/package-lock.json.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Node 22 in .tools/ (scripts/lib/node.sh).
# shellcheck source=lib/node.sh
source scripts/lib/node.sh
node22=$(ensure_node22 "$root/.tools")

cargo build --quiet -p tracksuit-examples --bin conformance --bin sampling --bin tictactoe --bin tasks
(cd tests/schemas && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)
"$node22" tests/schemas/check.mjs "$root/target/debug"
