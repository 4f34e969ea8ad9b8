#!/usr/bin/env bash
# Runs the official MCP conformance suite (two pinned versions; the newer one for both
# protocol eras, 2025-11-25 and 2026-07-28, and for the tasks extension's scenarios, which
# the suite lists apart as [extension] and runs one by one, as it does the skills extension's)
# against the conformance example
# server over Streamable HTTP, on one endpoint. Fails unless every run reports 0 failed and
# 0 warnings.
#
# Installs what it needs into .tools/ (Node 22 from the npm registry, the suites).
#
# The suite's next release: its scenarios are in open pull requests (json-rpc-batch-rejection
# #381, cancellation and progress-notifications #450, sep-2350-server-scope-challenge #481),
# installable only from GitHub or pkg.pr.new, which CI cannot reach; tests/conformance_next.rs
# encodes their checks against the same fixtures. Where a build of them can be installed, set
# CONFORMANCE_NEXT to its npm spec (e.g. https://pkg.pr.new/@modelcontextprotocol/conformance@481
# or github:modelcontextprotocol/conformance#<sha>) and this runs them too, the scope
# challenge against a second instance (`conformance --scope-challenge`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools="$root/.tools"
out="$root/target/conformance"
port="${CONFORMANCE_PORT:-8001}"
mkdir -p "$tools" "$out"

# shellcheck source=lib/node.sh
source scripts/lib/node.sh
node22=$(ensure_node22 "$tools")
echo "node for the suite: $("$node22" --version)"

versions=(0.1.16 0.2.0-alpha.12)
for v in "${versions[@]}"; do
    if [ ! -f "$tools/conformance-$v/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
        echo "installing @modelcontextprotocol/conformance@$v"
        npm_install "$tools/conformance-$v" "@modelcontextprotocol/conformance@$v"
    fi
done

cargo build --quiet -p tracksuit-examples --bin conformance
wait_port() { # port: until the server listens (at most 10 s)
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then break; fi
        sleep 0.1
    done
}
"$root/target/debug/conformance" --port "$port" >"$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
wait_port "$port"

status=0
suite() { # version args... (runs the suite's CLI)
    local v=$1; shift
    PATH="$(dirname "$node22"):$PATH" "$node22" \
        "$tools/conformance-$v/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@"
}
tally() { # label results-dir exit-code
    local label=$1 results=$2 rc=$3
    # Count statuses from the saved checks, so warnings are caught even where the
    # summary line does not print them.
    local tally
    tally=$(python3 - "$results" <<'PY'
import json, pathlib, sys
counts = {"SUCCESS": 0, "FAILURE": 0, "WARNING": 0}
for f in pathlib.Path(sys.argv[1]).rglob("checks.json"):
    for check in json.loads(f.read_text()):
        s = check.get("status")
        if s in counts:
            counts[s] += 1
            if s != "SUCCESS":
                print(f"  {s}: {f.parent.name}: {check.get('name')}: {check.get('errorMessage', '')}", file=sys.stderr)
print(f"{counts['SUCCESS']} {counts['FAILURE']} {counts['WARNING']}")
PY
)
    read -r passed failed warnings <<<"$tally"
    echo "conformance $label: $passed passed, $failed failed, $warnings warnings (exit $rc)"
    if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$warnings" -ne 0 ] || [ "$passed" -eq 0 ]; then
        echo "conformance $label: FAILED (see $results/..)"
        status=1
    fi
}
run_suite() { # version extra-args...
    local v=$1; shift
    local dir="$out/$v${2:+-$2}"
    rm -rf "$dir"; mkdir -p "$dir"
    echo "--- conformance $v server --suite all $*"
    set +e
    suite "$v" server --url "http://127.0.0.1:$port/mcp" --suite all "$@" -o "$dir/results" >"$dir/output.txt" 2>&1
    local rc=$?
    set -e
    grep -E "passed, [0-9]+ failed|warning" "$dir/output.txt" | grep -v "^npm warn" || true
    tally "$v" "$dir/results" "$rc"
}
run_extension() { # version extension-prefix [extra args]: every [extension] scenario named prefix-*
    local v=$1 prefix=$2; shift 2
    local dir="$out/$v-$prefix${1:+-$(echo "$*" | tr -c 'a-z0-9-\n' '_')}"
    rm -rf "$dir"; mkdir -p "$dir"
    local scenarios
    scenarios=$(suite "$v" list --server | sed -nE "s/^ *- ($prefix-[a-z0-9-]+) \[extension\].*/\1/p")
    echo "--- conformance $v server --scenario <each of $(echo "$scenarios" | wc -w) $prefix-* extension scenarios> $*"
    local rc=0 one
    for scenario in $scenarios; do
        set +e
        suite "$v" server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" "$@" \
            -o "$dir/results" >"$dir/$scenario.txt" 2>&1
        one=$?
        set -e
        echo "  $scenario: $(grep -E "^Passed:" "$dir/$scenario.txt" || echo "no summary") (exit $one)"
        [ "$one" -eq 0 ] || rc=$one
    done
    if [ -z "$scenarios" ]; then
        echo "conformance $v: no $prefix-* extension scenarios listed"
        status=1
        return
    fi
    tally "$v $prefix extension${*:+ ($*)}" "$dir/results" "$rc"
}

run_suite 0.1.16
run_suite 0.2.0-alpha.12 --spec-version 2025-11-25
run_suite 0.2.0-alpha.12 --spec-version 2026-07-28
run_extension 0.2.0-alpha.12 tasks
# Skills (SEP-2640): on the modern wire, and forced onto 2025-11-25 (the extension serves both).
run_extension 0.2.0-alpha.12 sep-2640-skills
run_extension 0.2.0-alpha.12 sep-2640-skills --spec-version 2025-11-25 --force

# A stateless endpoint (no sessions; each 2025-11-25 POST served on its own): every
# scenario that needs nothing of a session — no server→client request (elicitation,
# sampling), no subscription, no GET stream or session lifecycle.
stateless_port=$((port + 2))
"$root/target/debug/conformance" --port "$stateless_port" --stateless >"$out/server-stateless.log" 2>&1 &
stateless_server=$!
trap 'kill $server $stateless_server 2>/dev/null || true' EXIT
wait_port "$stateless_port"
stateless_dir="$out/stateless"; rm -rf "$stateless_dir"; mkdir -p "$stateless_dir"
stateless_scenarios="server-initialize ping logging-set-level completion-complete json-schema-2020-12
tools-list tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource
tools-call-mixed-content tools-call-error tools-call-with-logging tools-call-with-progress
resources-list resources-read-text resources-read-binary resources-templates-read prompts-list
prompts-get-simple prompts-get-with-args prompts-get-embedded-resource prompts-get-with-image
dns-rebinding-protection"
echo "--- conformance 0.2.0-alpha.12 server --scenario <each of $(echo "$stateless_scenarios" | wc -w) scenarios> --spec-version 2025-11-25, stateless endpoint"
stateless_rc=0
for scenario in $stateless_scenarios; do
    set +e
    suite 0.2.0-alpha.12 server --url "http://127.0.0.1:$stateless_port/mcp" --scenario "$scenario" \
        --spec-version 2025-11-25 -o "$stateless_dir/results" >"$stateless_dir/$scenario.txt" 2>&1
    one=$?
    set -e
    [ "$one" -eq 0 ] || { stateless_rc=$one; echo "  $scenario: exit $one"; }
done
tally "0.2.0-alpha.12 2025-11-25 stateless" "$stateless_dir/results" "$stateless_rc"

if [ -n "${CONFORMANCE_NEXT:-}" ]; then
    if [ ! -f "$tools/conformance-next/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
        npm_install "$tools/conformance-next" "@modelcontextprotocol/conformance@$CONFORMANCE_NEXT"
    fi
    next_port=$((port + 1))
    "$root/target/debug/conformance" --port "$next_port" --scope-challenge >"$out/server-next.log" 2>&1 &
    next_server=$!
    trap 'kill $server $stateless_server $next_server 2>/dev/null || true' EXIT
    wait_port "$next_port"
    for scenario in json-rpc-batch-rejection cancellation progress-notifications; do
        dir="$out/next-$scenario"; rm -rf "$dir"; mkdir -p "$dir"
        set +e
        suite next server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" -o "$dir/results" >"$dir/output.txt" 2>&1
        rc=$?
        set -e
        tally "next $scenario" "$dir/results" "$rc"
    done
    dir="$out/next-scope-challenge"; rm -rf "$dir"; mkdir -p "$dir"
    set +e
    suite next server --url "http://127.0.0.1:$next_port/mcp" --scenario sep-2350-server-scope-challenge \
        -o "$dir/results" >"$dir/output.txt" 2>&1
    rc=$?
    set -e
    tally "next sep-2350-server-scope-challenge" "$dir/results" "$rc"
fi
exit $status
