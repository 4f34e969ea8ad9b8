#!/usr/bin/env bash
# The whole test suite: formatting, lints, cargo tests (unit, integration, doc), the
# official conformance suite, interop with the TypeScript and Python SDK clients, the
# client over HTTPS (HAProxy terminating TLS, tests/client_https.rs), the
# PostgreSQL store and scale-out tests (real PostgreSQL and HAProxy, started here), and a
# real (small, local) model answering sampling through tracksuit-providers.
# This is the command README.md names and .ci/run calls.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# A clean run reuses nothing incrementally; incremental caches would only cost disk (4 GB).
export CARGO_INCREMENTAL=0

section() { printf '\n=== %s ===\n' "$*"; }
start=$(date +%s)
# A clean build needs about 11 GB; a run that dies of a full disk should say so up front.
df -h . | sed 's/^/disk: /' || true

section "cargo fmt --check"
cargo fmt --all -- --check

section "layers: no upward import, no cycle (scripts/check_layers.py)"
python3 scripts/check_layers.py --self-test
python3 scripts/check_layers.py
section "sizes: no runtime file over 800 lines, no function over 80 (scripts/check_sizes.py)"
python3 scripts/check_sizes.py

section "cargo clippy (-D warnings)"
cargo clippy --workspace --all-targets --quiet -- -D warnings
# A stdio-only build (no `http`) must be as clean as the default one, its tests included.
cargo clippy -p tracksuit --no-default-features --all-targets --quiet -- -D warnings

section "cargo doc (-D warnings: no broken intra-doc link, all features)"
RUSTDOCFLAGS="-D warnings" cargo doc -p tracksuit --no-deps --all-features --quiet

section "cargo test (tests/client_https.rs starts HAProxy with openssl-made certificates)"
# shellcheck source=lib/haproxy.sh
source scripts/lib/haproxy.sh
need_haproxy
cargo test --workspace --quiet

section "PostgreSQL task store and event bus (a throwaway PostgreSQL server)"
./scripts/postgres.sh

section "scale-out: three replicas behind HAProxy on one PostgreSQL"
./scripts/scale-out.sh

section "official conformance suite"
./scripts/conformance.sh

section "derived tool schemas: ajv strict mode and the strict profile (scripts/schemas.sh)"
./scripts/schemas.sh

section "official conformance suite, client scenarios (tracksuit's client, both eras)"
./scripts/conformance-client.sh

section "interop: TypeScript and Python SDK clients"
./scripts/interop.sh

section "proxy: TypeScript SDK and FastMCP servers behind tracksuit's proxy, callers in both eras"
./scripts/proxy.sh

section "interop, MCP 2026-07-28: TypeScript v2, Python 2.x and rmcp clients"
./scripts/interop-2026.sh

section "cargo tracksuit dev under tmux: edits seen by connected TypeScript SDK clients (both eras)"
./scripts/dev-loop.sh

section "MCP Apps in headless Chromium: the TicTacToe App played by clicking cells"
./scripts/apps.sh

section "OpenTelemetry: Python MCP client + OpenTelemetry SDK, an OTLP receiver on opentelemetry-proto, Prometheus"
./scripts/otel.sh

section "interop, authorization: oidc-provider and the TypeScript SDK client's OAuth flow"
./scripts/interop-auth.sh

section "a real model in the loop: SmolLM2-135M on llama.cpp through tracksuit-providers"
./tests/interop/model/run.sh

section "all green in $(( $(date +%s) - start ))s"
