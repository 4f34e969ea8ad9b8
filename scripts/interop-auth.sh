#!/usr/bin/env bash
# tracksuit as an OAuth 2.1 resource server against an authorization server nobody here
# wrote: oidc-provider (npm) on loopback with resource indicators, tokens by the
# client-credentials grant and by authorization code + PKCE, the TypeScript SDK client's
# OAuth discovery flow, every kind of bad token, and per-caller visibility
# (`--hide-unauthorized`: the SDK client without the scope does not see the tool)
# (tests/interop/auth/run.mjs).
# Then tracksuit as an OAuth *client* (the `oauth_client` example) against oidc-provider in
# front of the `auth` example, both eras: dynamic registration, code + PKCE through the
# provider's login and consent, refresh on expiry and on a refused token, step-up, client
# credentials (secret, private_key_jwt), counted at the provider; and against the
# TypeScript SDK's demo authorization server; and the provider bridge's example client
# (real_model --http --oauth) authorizing through its loopback user agent
# (tests/interop/auth/client.mjs).
# Installs the pinned npm packages locally; ports are picked free at run time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# oidc-provider 9 supports Node 22 LTS and later: the one scripts/conformance.sh installs.
# shellcheck source=lib/node.sh
source scripts/lib/node.sh
node22=$(ensure_node22 "$root/.tools")

cargo build --quiet -p tracksuit-examples --bin auth --bin oauth_client
cargo build --quiet -p tracksuit-providers --example real_model
echo "--- oidc-provider + TypeScript SDK client ($("$node22" --version))"
(cd tests/interop/auth && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)
"$node22" tests/interop/auth/run.mjs "$root/target/debug/auth"
echo "--- the tracksuit OAuth client against oidc-provider and the TypeScript SDK's demo authorization server"
"$node22" tests/interop/auth/client.mjs "$root/target/debug/auth" "$root/target/debug/oauth_client" \
    "$root/target/debug/examples/real_model"
