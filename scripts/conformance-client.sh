#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios (conformance 0.2.0-alpha.12)
# against tracksuit's client: `examples/src/bin/conformance_client.rs` over Streamable HTTP,
# for every client scenario of 2025-11-25 and of 2026-07-28 (the auth/* ones through the
# `oauth` feature), the 2025-03-26 and 2025-06-18 auth scenarios, the auth extension
# scenarios (client credentials with a secret and with a private-key JWT, DPoP with and
# without nonces, enterprise-managed authorization (ID-JAG), workload identity federation
# (JWT bearer)), and the Skills extension's client scenarios (SEP-2640) in both eras. Fails unless every scenario reports
# 0 failed and 0 warnings and the client exits 0 — except the scenarios whose server misbehaves on purpose
# (REFUSALS below), where the client must exit non-zero with an authorization error.
#
# Installs what it needs into .tools/ (Node 22 from the npm registry, the suite).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools="$root/.tools"
out="$root/target/conformance-client"
mkdir -p "$tools" "$out"

# shellcheck source=lib/node.sh
source scripts/lib/node.sh
node22=$(ensure_node22 "$tools")
v=0.2.0-alpha.12
suite="$tools/conformance-$v/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$suite" ]; then
    echo "installing @modelcontextprotocol/conformance@$v"
    npm_install "$tools/conformance-$v" "@modelcontextprotocol/conformance@$v"
fi

cargo build --quiet -p tracksuit-examples --bin conformance_client
client="$root/target/debug/conformance_client"

# The client scenarios, per spec version (`conformance list` names them); the auth
# extension scenarios run without a spec version. The Skills scenarios are on no spec
# timeline: run in both eras with --force.
auth_common=(auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
    auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported
    auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
    auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
    auth/pre-registration)
scenarios_2025_03=(auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback)
scenarios_2025_06=(auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
    auth/token-endpoint-auth-none)
scenarios_2025=(initialize tools_call elicitation-sep1034-client-defaults sse-retry
    json-schema-2020-12-preservation "${auth_common[@]}")
scenarios_2026=(tools_call request-metadata sep-2322-client-request-state
    http-standard-headers http-custom-headers http-invalid-tool-headers
    json-schema-ref-no-deref json-schema-2020-12-preservation "${auth_common[@]}"
    auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
    auth/authorization-server-migration auth/iss-supported auth/iss-not-advertised
    auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized
    auth/metadata-issuer-mismatch)
scenarios_extension=(auth/client-credentials-basic auth/client-credentials-jwt auth/dpop
    auth/dpop-nonce auth/enterprise-managed-authorization auth/wif-jwt-bearer)
scenarios_skills=(sep-2640-client-no-prefetch sep-2640-client-verify-digest
    sep-2640-client-verify-size sep-2640-client-verify-frontmatter)
# Scenarios whose server is wrong on purpose: the client must refuse (exit non-zero with an
# authorization error) and the suite's checks must still all pass.
REFUSALS=(auth/scope-retry-limit auth/resource-mismatch auth/iss-supported-missing
    auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized auth/metadata-issuer-mismatch)

status=0
total_passed=0
run_scenario() { # spec-version scenario [suite options]
    local spec=$1 scenario=$2
    shift 2
    local dir="$out/$spec/$scenario"
    rm -rf "$dir"; mkdir -p "$dir"
    local version=(--spec-version "$spec")
    [ "$spec" = extension ] && version=()
    set +e
    PATH="$(dirname "$node22"):$PATH" "$node22" "$suite" client --command "$client" \
        --scenario "$scenario" "${version[@]}" "$@" -o "$dir/results" >"$dir/output.txt" 2>&1
    local rc=$?
    set -e
    local tally
    tally=$(python3 - "$dir/results" <<'PY'
import json, pathlib, sys
counts = {"SUCCESS": 0, "FAILURE": 0, "WARNING": 0}
for f in pathlib.Path(sys.argv[1]).rglob("checks.json"):
    for check in json.loads(f.read_text()):
        s = check.get("status")
        if s in counts:
            counts[s] += 1
            if s != "SUCCESS":
                print(f"  {s}: {check.get('name')}: {check.get('errorMessage', '')}", file=sys.stderr)
print(f"{counts['SUCCESS']} {counts['FAILURE']} {counts['WARNING']}")
PY
)
    local passed failed warnings
    read -r passed failed warnings <<<"$tally"
    local exited=0
    grep -q "CLIENT EXITED WITH ERROR\|Client exited with code\|timed out" "$dir/output.txt" && exited=1
    if [[ " ${REFUSALS[*]} " == *" $scenario "* ]]; then
        # Refused as it must be: by the OAuth client, not by a crash or a timeout.
        exited=1
        grep -q "authorization failed" "$dir/output.txt" && ! grep -q "timed out" "$dir/output.txt" \
            && exited=0
    fi
    printf '%-11s %-38s %3s passed, %s failed, %s warnings (exit %s)\n' \
        "$spec" "$scenario" "$passed" "$failed" "$warnings" "$rc"
    total_passed=$((total_passed + passed))
    if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$warnings" -ne 0 ] || [ "$passed" -eq 0 ] \
        || [ "$exited" -ne 0 ]; then
        echo "  FAILED (see $dir/output.txt)"
        status=1
    fi
}

for s in "${scenarios_2025_03[@]}"; do run_scenario 2025-03-26 "$s"; done
for s in "${scenarios_2025_06[@]}"; do run_scenario 2025-06-18 "$s"; done
for s in "${scenarios_2025[@]}"; do run_scenario 2025-11-25 "$s"; done
for s in "${scenarios_2026[@]}"; do run_scenario 2026-07-28 "$s"; done
for s in "${scenarios_extension[@]}"; do run_scenario extension "$s"; done
for s in "${scenarios_skills[@]}"; do
    run_scenario 2025-11-25 "$s" --force
    run_scenario 2026-07-28 "$s" --force
done
runs=$(( ${#scenarios_2025_03[@]} + ${#scenarios_2025_06[@]} + ${#scenarios_2025[@]} \
    + ${#scenarios_2026[@]} + ${#scenarios_extension[@]} + 2 * ${#scenarios_skills[@]} ))
echo "conformance client $v: $total_passed checks passed over $runs scenario runs"
exit $status
