#!/usr/bin/env bash
# tracksuit as an OAuth 2.1 resource server against an authorization server nobody here
# wrote: oidc-provider (npm) on loopback with resource indicators, tokens by the
# client-credentials grant and by authorization code + PKCE, the TypeScript SDK client's
# OAuth discovery flow, and every kind of bad token (tests/interop/auth/run.mjs).
# Installs the pinned npm packages locally; ports are picked free at run time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cargo build --quiet -p tracksuit-examples --bin auth
echo "--- oidc-provider + TypeScript SDK client ($(node --version))"
(cd tests/interop/auth && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)
node tests/interop/auth/run.mjs "$root/target/debug/auth"
