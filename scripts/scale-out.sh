#!/usr/bin/env bash
# Three tracksuit replicas (examples/src/bin/replica.rs, feature `postgres`) behind HAProxy,
# sharing a throwaway PostgreSQL and one TRACKSUIT_STATE_KEYS secret. Two HAProxy fronts:
# round-robin without stickiness (the modern, stateless revision) and sticky on
# Mcp-Session-Id (2025-11-25 sessions) — the configuration docs/scaling.md shows. Replicas
# log the `journey` tool's phases under the work directory (before.log / after.log), so the
# SIGKILL check counts them across processes. The checks
# (tests/scale/client.py, plain HTTP; tests/scale/sdk.py, the Python `mcp` 2.x client) are
# described there. Installs haproxy and postgresql (Debian) when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=lib/postgres.sh
source scripts/lib/postgres.sh
# shellcheck source=lib/haproxy.sh
source scripts/lib/haproxy.sh

need_haproxy

cargo build --quiet -p tracksuit-examples --features postgres --bin replica
replica_bin="$root/target/debug/replica"

work=$(mktemp -d /tmp/tracksuit-scale.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
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

start_postgres
TRACKSUIT_STATE_KEYS="$(head -c 32 /dev/urandom | base64)"
export TRACKSUIT_STATE_KEYS
lease_ms=3000

servers=
pid_map=
for n in 1 2 3; do
    port=$(free_port)
    "$replica_bin" --port "$port" --name "r$n" --lease-ms "$lease_ms" --trust-user-header \
        --database-url "$TRACKSUIT_TEST_DATABASE_URL" --log-dir "$work" 2>"$work/r$n.log" &
    pid=$!
    pids+=("$pid")
    wait_port "$port" "$pid" "replica r$n"
    servers+="    server r$n 127.0.0.1:$port check inter 200ms fall 1 rise 2"$'\n'
    pid_map+="${pid_map:+,}r$n=$pid"
done

front=$(free_port)
sticky=$(free_port)
cat >"$work/haproxy.cfg" <<CFG
global
    maxconn 512

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # a connection refused by a dead replica is retried on another; no idle server
    # connection is reused, so a request never goes out on a killed replica's stale
    # connection (a 502 HAProxy does not retry, seen once in CI)
    retries 2
    option redispatch 1
    http-reuse never
    # SSE: forward each event at once (no MSG_MORE / Nagle batching of small writes)
    option http-no-delay

# MCP 2026-07-28: stateless; any replica serves any request.
frontend mcp_modern
    bind 127.0.0.1:$front
    default_backend replicas_round_robin

backend replicas_round_robin
    balance roundrobin
    http-response set-header X-Served-By %[srv_name]
$servers
# MCP 2025-11-25: a session lives in one replica; pin it by Mcp-Session-Id.
frontend mcp_sessions
    bind 127.0.0.1:$sticky
    default_backend replicas_sticky

backend replicas_sticky
    balance roundrobin
    stick-table type string len 128 size 100k expire 1h
    stick on req.hdr(mcp-session-id)
    stick store-response res.hdr(mcp-session-id)
    http-response set-header X-Served-By %[srv_name]
$servers
CFG
"$haproxy" -c -q -f "$work/haproxy.cfg"
"$haproxy" -db -f "$work/haproxy.cfg" 2>"$work/haproxy.log" &
hpid=$!
pids+=("$hpid")
wait_port "$front" "$hpid" "haproxy"
wait_port "$sticky" "$hpid" "haproxy"
echo "--- haproxy $("$haproxy" -v | head -1 | awk '{print $3}'): round-robin on $front, sticky on $sticky; replicas $pid_map"

status=0
echo "--- the Python mcp 2.x client through the round-robin front"
venv="$root/.tools/venv-mcp2"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/interop/python2/requirements.txt
"$venv/bin/python" tests/scale/sdk.py --url "http://127.0.0.1:$front/mcp" || status=1
echo "--- plain HTTP: rounds, listen streams, extension tasks across replicas, replicas killed mid-task"
python3 tests/scale/client.py --front "$front" --sticky "$sticky" --pids "$pid_map" --lease-ms "$lease_ms" --log-dir "$work" || status=1
if [ "$status" != 0 ]; then
    for f in "$work"/*.log; do echo "--- $f"; tail -20 "$f"; done
fi
exit $status
