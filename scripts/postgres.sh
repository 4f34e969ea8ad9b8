#!/usr/bin/env bash
# The PostgreSQL task store and event bus (feature `postgres`) against a real PostgreSQL:
# starts a throwaway server (scripts/lib/postgres.sh; installs Debian's `postgresql` if
# missing), lints the feature, runs tests/postgres.rs with TRACKSUIT_TEST_DATABASE_URL set
# and checks that they ran (they fail, not skip, without the database). The fencing tests,
# which stop and restart the database, run FENCING_RUNS times (10 by default).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=lib/postgres.sh
source scripts/lib/postgres.sh
trap stop_postgres EXIT

echo "--- cargo clippy --features postgres (-D warnings)"
cargo clippy --quiet -p tracksuit -p tracksuit-tests -p tracksuit-examples --all-targets \
    --features tracksuit/postgres,tracksuit-tests/postgres,tracksuit-examples/postgres -- -D warnings

start_postgres

echo "--- tracksuit unit and doc tests with --features postgres"
cargo test --quiet -p tracksuit --features postgres
echo "--- docs/scaling.md doctests"
cargo test --quiet -p tracksuit-tests --features postgres --doc

echo "--- tests/postgres_rounds.rs (idempotent rounds across two replicas)"
cargo test --quiet -p tracksuit-tests --features postgres --test postgres_rounds

echo "--- tests/postgres_task_owners.rs (tasks bound to their 2025 session, stored-task quota)"
cargo test --quiet -p tracksuit-tests --features postgres --test postgres_task_owners

echo "--- tests/postgres_fencing.rs (the database stopped and restarted, a replica cut off), ${FENCING_RUNS:=10} runs"
cargo test --quiet -p tracksuit-tests --features postgres --test postgres_fencing --no-run
for run in $(seq 1 "$FENCING_RUNS"); do
    log=$(mktemp)
    began=$(date +%s.%N)
    if ! cargo test --quiet -p tracksuit-tests --features postgres --test postgres_fencing \
        -- --nocapture >"$log" 2>&1; then
        cat "$log" >&2
        echo "tests/postgres_fencing.rs: run $run of $FENCING_RUNS failed" >&2
        exit 1
    fi
    took=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$began" "$(date +%s.%N)")
    echo "run $run/$FENCING_RUNS passed in ${took}s: $(grep -Eo 'fencing [A-C]: .*' "$log" | tr '\n' ';')"
    rm -f "$log"
done

echo "--- tests/postgres.rs"
out=$(mktemp)
status=0
cargo test -p tracksuit-tests --features postgres --test postgres 2>&1 | tee "$out" | grep -E "^test |^test result" || status=1
passed=$(grep -Eo 'test result: ok\. [0-9]+ passed' "$out" | grep -Eo '[0-9]+' | head -1 || true)
rm -f "$out"
expected=14
if [ "$status" != 0 ] || [ -z "$passed" ] || [ "$passed" -lt "$expected" ]; then
    echo "tests/postgres.rs: expected at least $expected passing tests, got '${passed:-none}'" >&2
    exit 1
fi
echo "postgres: $passed passed, 0 failed"
