#!/usr/bin/env bash
# `cargo tracksuit dev` end to end, under a real terminal (tmux): a scratch crate with one
# tool (`greet`), depending on this tracksuit by path, is served by `cargo tracksuit dev`,
# started as its stdio server by the TypeScript SDK client — v1 in a 2025-11-25 session
# (tests/interop/node/devloop.mjs), then v2 pinned to 2026-07-28 (tests/interop/node2/devloop.mjs).
# Then the same two with `cargo tracksuit dev --port` running in the terminal and the clients
# connecting over Streamable HTTP.
# Each edits the tool's source and must see `notifications/tools/list_changed` and the new
# schema on its one connection, the compiler's error on the terminal for a broken edit while
# the last good build still answers, and the fix served (tests/interop/devloop/scenario.mjs).
# The scratch crate builds into this workspace's target directory: the dependencies it
# shares with the workspace (same versions, features and profile) are built once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lib/node.sh

if ! command -v tmux >/dev/null; then
    echo "installing tmux (Debian package)"
    apt-get update -qq && apt-get install -y -qq tmux >/dev/null
fi
node22=$(ensure_node22 "$root/.tools")
export PATH="$(dirname "$node22"):$PATH"
for dir in node node2; do
    (cd "tests/interop/$dir" && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)
done

cargo build --quiet -p cargo-tracksuit
bin="$root/target/debug/cargo-tracksuit"

scratch=$(mktemp -d)
# Logs and the pristine source live outside the crate: the dev loop watches the crate.
work=$(mktemp -d)
# A tmux server of our own (its own socket): nothing else's sessions or environment.
session="tracksuit-devloop-$$"
tmx() { tmux -L "$session" "$@"; }
cleanup() {
    tmx kill-server 2>/dev/null || true
    rm -rf "$scratch" "$work"
}
trap cleanup EXIT
trap "exit 130" INT TERM

# The scratch crate: its own workspace, the same lock file and profile as this one, so the
# dependencies it shares with tracksuit resolve offline to the versions tested here.
mkdir -p "$scratch/src"
cat > "$scratch/Cargo.toml" <<EOF
[package]
name = "devloop-server"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
tracksuit = { path = "$root/runtime" }
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false

[workspace]
EOF
cp Cargo.lock "$scratch/Cargo.lock"
node --input-type=module -e "
import { writeFileSync } from 'node:fs';
import { sourceVersions } from '$root/tests/interop/devloop/scenario.mjs';
writeFileSync('$scratch/src/main.rs', sourceVersions.GOOD_V1);"
export CARGO_TARGET_DIR="$root/target"
echo "--- building the scratch crate (first run: tracksuit and its dependencies)"
cargo build --quiet --manifest-path "$scratch/Cargo.toml"

# Waits (with a deadline) for "$status" to be written, then prints "$log" and returns the
# status; on failure shows the terminal.
await_result() { # label log status
    local deadline=$((SECONDS + 240))
    while [ ! -s "$3" ]; do
        if [ $SECONDS -gt $deadline ]; then
            echo "FAIL $1: no result within 240 s; the terminal showed:" >&2
            tmx capture-pane -p -J -S - -t "$session" | tail -40 >&2
            return 1
        fi
        sleep 0.2
    done
    cat "$2"
    local code
    code=$(cat "$3")
    if [ "$code" != 0 ]; then
        echo "--- the terminal ($1):" >&2
        tmx capture-pane -p -J -S - -t "$session" | tail -60 >&2
    fi
    tmx kill-session -t "$session" 2>/dev/null || true
    return "$code"
}

# stdio: `node SCRIPT stdio` runs in the terminal and starts `cargo tracksuit dev` as its
# stdio server (whose stderr, cargo's and the compiler's output, is the terminal).
stdio_run() { # label script
    local log="$work/$1.log" status="$work/$1.status"
    cp "$work/v1.rs" "$scratch/src/main.rs"
    tmx new-session -d -s "$session" -x 160 -y 48 -e "PATH=$PATH" -e "CARGO_TARGET_DIR=$CARGO_TARGET_DIR" \
        "node '$2' stdio '$bin' '$scratch' '$session' > '$log'; echo \$? > '$status'; sleep 600"
    await_result "$1" "$log" "$status"
}

# HTTP: `cargo tracksuit dev --port` runs in the terminal; `node SCRIPT http URL` connects.
http_run() { # label script
    local log="$work/$1.log" status="$work/$1.status" port
    cp "$work/v1.rs" "$scratch/src/main.rs"
    port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
    tmx new-session -d -s "$session" -x 160 -y 48 -e "PATH=$PATH" -e "CARGO_TARGET_DIR=$CARGO_TARGET_DIR" \
        "'$bin' tracksuit dev --port $port --manifest-path '$scratch/Cargo.toml'; sleep 600"
    local deadline=$((SECONDS + 120))
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        if [ $SECONDS -gt $deadline ]; then
            echo "FAIL $1: cargo tracksuit dev did not listen on $port" >&2
            tmx capture-pane -p -J -S - -t "$session" | tail -40 >&2
            return 1
        fi
        sleep 0.1
    done
    (node "$2" http "http://127.0.0.1:$port/mcp" "$scratch" "$session" > "$log"; echo $? > "$status") || true
    await_result "$1" "$log" "$status"
}

cp "$scratch/src/main.rs" "$work/v1.rs"
echo "--- cargo tracksuit dev (stdio) + TypeScript SDK v1 client (2025-11-25 session), in tmux"
stdio_run session-stdio tests/interop/node/devloop.mjs
echo "--- cargo tracksuit dev (stdio) + TypeScript SDK v2 client (2026-07-28), in tmux"
stdio_run stateless-stdio tests/interop/node2/devloop.mjs
echo "--- cargo tracksuit dev --port (in tmux) + TypeScript SDK v1 client over HTTP (2025-11-25 session)"
http_run session-http tests/interop/node/devloop.mjs
echo "--- cargo tracksuit dev --port (in tmux) + TypeScript SDK v2 client over HTTP (2026-07-28)"
http_run stateless-http tests/interop/node2/devloop.mjs
