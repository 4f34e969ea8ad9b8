#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios (conformance 0.2.0-alpha.12)
# against tracksuit's client: `examples/src/bin/conformance_client.rs` over Streamable HTTP,
# for every non-auth client scenario of 2025-11-25 and of 2026-07-28 and the Skills
# extension's client scenarios in both eras. Fails unless every
# scenario reports 0 failed and 0 warnings and the client exits 0.
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

# The non-auth client scenarios, per spec version (`conformance list` names them; the
# auth/* scenarios are not run here), and the Skills extension's client scenarios (SEP-2640),
# which are on no spec timeline: run in both eras with --force.
scenarios_2025=(initialize tools_call elicitation-sep1034-client-defaults sse-retry
    json-schema-2020-12-preservation)
scenarios_2026=(tools_call request-metadata sep-2322-client-request-state
    http-standard-headers http-custom-headers http-invalid-tool-headers
    json-schema-ref-no-deref json-schema-2020-12-preservation)
scenarios_ext=(sep-2640-client-no-prefetch sep-2640-client-verify-digest
    sep-2640-client-verify-size sep-2640-client-verify-frontmatter)

status=0
total_passed=0
run_scenario() { # spec-version scenario [extra suite flags]
    local spec=$1 scenario=$2
    shift 2
    local dir="$out/$spec/$scenario"
    rm -rf "$dir"; mkdir -p "$dir"
    set +e
    PATH="$(dirname "$node22"):$PATH" "$node22" "$suite" client --command "$client" \
        --scenario "$scenario" --spec-version "$spec" "$@" -o "$dir/results" >"$dir/output.txt" 2>&1
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
    printf '%-11s %-38s %3s passed, %s failed, %s warnings (exit %s)\n' \
        "$spec" "$scenario" "$passed" "$failed" "$warnings" "$rc"
    total_passed=$((total_passed + passed))
    if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$warnings" -ne 0 ] || [ "$passed" -eq 0 ] \
        || [ "$exited" -ne 0 ]; then
        echo "  FAILED (see $dir/output.txt)"
        status=1
    fi
}

for s in "${scenarios_2025[@]}"; do run_scenario 2025-11-25 "$s"; done
for s in "${scenarios_2026[@]}"; do run_scenario 2026-07-28 "$s"; done
for s in "${scenarios_ext[@]}"; do
    run_scenario 2025-11-25 "$s" --force
    run_scenario 2026-07-28 "$s" --force
done
runs=$(( ${#scenarios_2025[@]} + ${#scenarios_2026[@]} + 2 * ${#scenarios_ext[@]} ))
echo "conformance client $v: $total_passed checks passed over $runs scenario runs"
exit $status
