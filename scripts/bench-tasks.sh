#!/usr/bin/env bash
# The bench's task rows (issue #18, item 6): tasks of the MCP 2026-07-28 tasks extension
# over Streamable HTTP — create→complete throughput and `tasks/get` latency — with the
# in-memory, SQLite and PostgreSQL stores on one replica, and PostgreSQL with three
# replicas behind HAProxy (round-robin, the configuration of scripts/scale-out.sh).
# Builds bench/'s `task_bench` (release, feature `tasks`), starts a throwaway PostgreSQL
# (scripts/lib/postgres.sh) and HAProxy (Debian packages, installed when missing).
#
#   scripts/bench-tasks.sh [OUT.md]        writes the section to OUT.md (default: stdout)
#
# scripts/bench.sh runs it and puts the section into docs/performance.md.
# TASK_BENCH_SECONDS (default 5) and TASK_BENCH_CLIENTS (default 16) size each phase.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=lib/postgres.sh
source scripts/lib/postgres.sh
out=${1:-/dev/stdout}
seconds=${TASK_BENCH_SECONDS:-5}
clients=${TASK_BENCH_CLIENTS:-16}

if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
    echo "--- installing haproxy (Debian package)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
fi
haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)

echo "--- building task_bench (release, feature tasks)" >&2
(cd bench && cargo build --release --quiet --bin task_bench --features tasks)
bin="$root/bench/target/release/task_bench"

work=$(mktemp -d /tmp/tracksuit-bench-tasks.XXXXXX)
pids=()
stop_all() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
}
cleanup() {
    stop_all
    stop_postgres
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_port() { # port pid what
    local deadline=$((SECONDS + 30))
    until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
        kill -0 "$2" 2>/dev/null || { echo "$3 exited before listening on $1" >&2; return 1; }
        [ $SECONDS -lt $deadline ] || { echo "$3 not listening on $1 after 30 s" >&2; return 1; }
        sleep 0.05
    done
}
port=
serve() { # name args... ; sets $port
    local name=$1 pid
    shift
    port=$(free_port)
    "$bin" serve --port "$port" --name "$name" "$@" 2>"$work/$name.log" &
    pid=$!
    pids+=("$pid")
    wait_port "$port" "$pid" "task_bench serve $name" >&2
}
row() { # port label
    "$bin" load --port "$1" --label "$2" --clients "$clients" --seconds "$seconds"
}

start_postgres >&2
url=$TRACKSUIT_TEST_DATABASE_URL
rows=()

serve m1 --store memory
rows+=("$(row "$port" "in-memory, 1 replica")")
stop_all

serve s1 --store sqlite --path "$work/tasks.db"
rows+=("$(row "$port" "SQLite, 1 replica")")
stop_all

serve p1 --store postgres --database-url "$url"
rows+=("$(row "$port" "PostgreSQL, 1 replica")")
stop_all

servers=
for n in 1 2 3; do
    serve "r$n" --store postgres --database-url "$url"
    servers+="    server r$n 127.0.0.1:$port"$'\n'
done
front=$(free_port)
cat >"$work/haproxy.cfg" <<CFG
global
    maxconn 512

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    option http-no-delay

frontend mcp_modern
    bind 127.0.0.1:$front
    default_backend replicas

backend replicas
    balance roundrobin
$servers
CFG
"$haproxy" -db -f "$work/haproxy.cfg" 2>"$work/haproxy.log" &
hpid=$!
pids+=("$hpid")
wait_port "$front" "$hpid" haproxy >&2
rows+=("$(row "$front" "PostgreSQL, 3 replicas behind HAProxy")")
stop_all

{
    echo "## Tasks (tasks extension, MCP 2026-07-28)"
    echo
    echo "$clients clients, each on its own keep-alive HTTP/1.1 connection, sessionless 2026-07-28 requests declaring the tasks extension; ${seconds} s per phase after a 1 s warm-up (\`scripts/bench-tasks.sh\`, \`bench/src/bin/task_bench.rs\`). *Create→complete*: a client calls \`quick\` (a tool that answers at once, run as a task), then polls \`tasks/get\` without pause until it reads \`completed\`; tasks per second over all clients, and the time from the call to that read. *\`tasks/get\`*: the same clients read finished tasks. PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on loopback (fsync off, a throwaway cluster), its event bus on; with three replicas each request goes to the next replica (round-robin, no stickiness), so most polls land on a replica that does not run the task and read the store. Release build of \`task_bench\`; HAProxy $("$haproxy" -v | head -1 | awk '{print $3}')."
    echo
    echo "| store, replicas | create→complete (tasks/s) | create→complete p50 / p99 | tasks/get (req/s) | tasks/get p50 / p99 |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} >"$out"
