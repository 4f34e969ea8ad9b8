#!/usr/bin/env bash
# Every tool schema of the example servers, in every schema profile
# (TRACKSUIT_SCHEMA_PROFILE: portable, openai-strict, gemini-safe, raw; and
# TRACKSUIT_STRICT_SCHEMAS=1), through ajv (draft 2020-12) in strict mode, OpenAI's strict
# rules and the Gemini subset (tests/schemas/check.mjs); then real consumers of the
# conformance server's tools (tests/schemas/peers/convert.py): the OpenAI Agents SDK
# converts every tool in strict mode, LangChain's MCP adapters read every tool's args.
# Installs its pinned ajv from tests/schemas/package-lock.json and its pinned Python
# packages from tests/schemas/peers/requirements.txt (into .tools/venv-peers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Node 22 in .tools/ (scripts/lib/node.sh).
# shellcheck source=lib/node.sh
source scripts/lib/node.sh
node22=$(ensure_node22 "$root/.tools")

cargo build --quiet -p tracksuit-examples --bin conformance --bin sampling --bin tictactoe --bin tasks
(cd tests/schemas && npm ci --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --no-audit --no-fund)
"$node22" tests/schemas/check.mjs "$root/target/debug"

venv="$root/.tools/venv-peers"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/schemas/peers/requirements.txt
"$venv/bin/python" tests/schemas/peers/convert.py "$root/target/debug/conformance" "default profile"
TRACKSUIT_SCHEMA_PROFILE=openai-strict \
    "$venv/bin/python" tests/schemas/peers/convert.py "$root/target/debug/conformance" "openai-strict profile"
