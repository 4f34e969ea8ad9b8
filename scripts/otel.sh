#!/usr/bin/env bash
# OpenTelemetry (feature `otel`, issue #34 item 3): lints the feature, runs its unit and doc
# tests and tests/otel.rs (the SDK's in-memory exporters), then the end-to-end check
# (tests/otel/check.py): the official Python MCP client instrumented with the official
# OpenTelemetry SDK calls the `otel` example in both eras; the example exports OTLP/HTTP to
# a loopback receiver decoding it with `opentelemetry-proto`, and a real Prometheus server
# (Debian's `prometheus`, installed if missing) scrapes its /metrics. Ports are picked free
# at run time; every wait has a deadline and returns as soon as its condition holds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

echo "--- cargo clippy --features otel (-D warnings)"
cargo clippy --quiet -p tracksuit -p tracksuit-tests -p tracksuit-examples --all-targets \
    --features tracksuit/otel,tracksuit-tests/otel,tracksuit-examples/otel -- -D warnings
cargo clippy --quiet -p tracksuit --no-default-features --features otel --all-targets -- -D warnings

echo "--- tracksuit unit and doc tests of the feature"
cargo test --quiet -p tracksuit --features otel --lib -- telemetry otel
cargo test --quiet -p tracksuit --features otel --doc -- otel Telemetry telemetry
echo "--- docs/otel.md doctests, tests/otel.rs (in-memory exporters)"
cargo test --quiet -p tracksuit-tests --features otel --doc
cargo test --quiet -p tracksuit-tests --features otel --test otel

echo "--- end to end: Python MCP client + OpenTelemetry SDK, OTLP receiver, Prometheus"
cargo build --quiet -p tracksuit-examples --features otel --bin otel
if ! command -v prometheus >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null
fi
venv="$root/.tools/venv-otel"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/otel/requirements.txt
"$venv/bin/python" tests/otel/check.py "$root/target/debug/otel"
