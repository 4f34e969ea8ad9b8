#!/usr/bin/env bash
# `cargo tracksuit dev` end to end, under a real terminal (tmux): a scratch crate with one
# tool (`greet`), depending on this tracksuit by path, is served by `cargo tracksuit dev`,
# started as its stdio server by the TypeScript SDK client — v1 in a 2025-11-25 session
# (tests/interop/node/devloop.mjs), then v2 pinned to 2026-07-28 (tests/interop/node2/devloop.mjs).
# Each edits the tool's source and must see `notifications/tools/list_changed` and the new
# schema on its one connection, the compiler's error on the terminal for a broken edit while
# the last good build still answers, and the fix served (tests/interop/devloop/scenario.mjs).
# The scratch crate builds into target/dev-loop, kept between runs so rebuilds are quick.
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
# A tmux server of our own (its own socket): nothing else's sessions or environment.
session="tracksuit-devloop-$$"
tmx() { tmux -L "$session" "$@"; }
cleanup() {
    tmx kill-server 2>/dev/null || true
    rm -rf "$scratch"
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
export CARGO_TARGET_DIR="$root/target/dev-loop"
echo "--- building the scratch crate (first run: tracksuit and its dependencies)"
cargo build --quiet --manifest-path "$scratch/Cargo.toml"

# Runs `node SCRIPT` in a fresh tmux session (its stderr, and so cargo's and the
# compiler's output, on the terminal; its PASS/FAIL lines in a log), waits for it to exit
# (with a deadline), prints the log and returns its status.
run_in_tmux() { # label script
    local log="$scratch/$1.log" status="$scratch/$1.status" deadline=$((SECONDS + 240))
    tmx new-session -d -s "$session" -x 160 -y 48 -e "PATH=$PATH" -e "CARGO_TARGET_DIR=$CARGO_TARGET_DIR" \
        "node '$2' '$bin' '$scratch' '$session' > '$log'; echo \$? > '$status'; sleep 600"
    while [ ! -s "$status" ]; do
        if [ $SECONDS -gt $deadline ]; then
            echo "FAIL $1: no result within 240 s; the terminal showed:" >&2
            tmx capture-pane -p -J -S - -t "$session" | tail -40 >&2
            return 1
        fi
        sleep 0.2
    done
    cat "$log"
    local code
    code=$(cat "$status")
    if [ "$code" != 0 ]; then
        echo "--- the terminal ($1):" >&2
        tmx capture-pane -p -J -S - -t "$session" | tail -60 >&2
    fi
    tmx kill-session -t "$session" 2>/dev/null || true
    return "$code"
}

echo "--- cargo tracksuit dev + TypeScript SDK v1 client (2025-11-25 session), in tmux"
cp "$scratch/src/main.rs" "$scratch/v1.rs"
run_in_tmux session tests/interop/node/devloop.mjs
echo "--- cargo tracksuit dev + TypeScript SDK v2 client (2026-07-28), in tmux"
cp "$scratch/v1.rs" "$scratch/src/main.rs"
run_in_tmux stateless tests/interop/node2/devloop.mjs
