#!/usr/bin/env bash
# The whole test suite: formatting, lints, cargo tests (unit, integration, doc), the
# official conformance suite, and interop with the TypeScript and Python SDK clients.
# This is the command README.md names and .ci/run calls.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

section() { printf '\n=== %s ===\n' "$*"; }
start=$(date +%s)

section "cargo fmt --check"
cargo fmt --all -- --check

section "layers: no upward import, no cycle (scripts/check_layers.py)"
python3 scripts/check_layers.py --self-test
python3 scripts/check_layers.py

section "cargo clippy (-D warnings)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

section "cargo test"
cargo test --workspace --quiet

section "official conformance suite"
./scripts/conformance.sh

section "official conformance suite, client scenarios (tracksuit's client, both eras)"
./scripts/conformance-client.sh

section "interop: TypeScript and Python SDK clients"
./scripts/interop.sh

section "interop, MCP 2026-07-28: TypeScript v2, Python 2.x and rmcp clients"
./scripts/interop-2026.sh

section "all green in $(( $(date +%s) - start ))s"
