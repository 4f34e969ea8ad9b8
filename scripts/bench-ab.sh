#!/usr/bin/env bash
# A/B of the tracksuit twin: the working tree against an older revision, in the same run.
#
#   scripts/bench-ab.sh [REV] [driver args...]     REV defaults to origin/main or main
#
# Builds bench/ here and at REV (in a temporary git worktree under target/, release), then
# runs this tree's driver with the old twin standing in for the TypeScript twin (a wrapper
# drops the script argument), so the report's "TS SDK" column is the old tracksuit and
# "tracksuit ÷ TS SDK" is new ÷ old. The driver leaves the TS SDK out of the MCP 2026-07-28
# rows, so those are compared by running them for old, new, old, new (each against the same
# rmcp twin; target/bench-ab-modern-*.md, summarised at the end). The floor (in-process) is
# compared by running each revision's driver with the floor alone. Nothing else should run
# on the machine meanwhile; the report goes to target/bench-ab.md.
#
# HEAD_TO_HEAD=N adds N head-to-head runs of the 2026-07-28 rows (see the end).
#
# OTEL=1 compares, instead of two revisions, this tree's twin with `OtelLayer` on
# (`tracksuit_twin_otel`: an SDK tracer provider with no exporter; TWIN_OTEL=noop for the
# global no-op providers) as "new" against its plain twin as "old", both from one build with
# the `otel` feature; REV is ignored and the floor is not run.
#
# PIN=1 runs every driver on CPU 0 and every server twin on CPU 1 (`taskset`): on a shared
# two-core machine one binary's CPU per call then moves by about ±7 % between runs instead
# of ±15–25 %, which is what a 5 % question needs. ROUNDS (default 2) sets how many times
# the 2026-07-28 rows alternate old and new.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-main}
shift || true
old="$root/target/bench-ab-old"
new_bin="$root/bench/target/release/tracksuit_twin"
old_bin="$old/bench/target/release/tracksuit_twin"

if [ "${OTEL:-0}" = 1 ]; then
    rev="this tree without OtelLayer"
    echo "--- building the twins with and without OtelLayer" >&2
    (cd "$root/bench" && cargo build --release --quiet --bins --features otel)
    old_bin=$new_bin
    new_bin="$root/bench/target/release/tracksuit_twin_otel"
else
    if [ ! -d "$old" ]; then
        git -C "$root" worktree add --detach "$old" "$rev" >&2
    else
        git -C "$old" checkout --detach --quiet "$rev"
    fi
    echo "--- building the old twin at $(git -C "$old" rev-parse --short HEAD) and the new one" >&2
    (cd "$old/bench" && cargo build --release --quiet --bins)
    (cd "$root/bench" && cargo build --release --quiet --bins)
fi

pin=
driver_pin=()
if [ "${PIN:-0}" = 1 ]; then
    pin="taskset -c 1"
    driver_pin=(taskset -c 0)
fi
wrapper="$root/target/bench-ab-old-twin.sh"
cat > "$wrapper" <<EOF
#!/bin/sh
# Stands in for \`node <script>\`: drops the script argument, runs the old twin.
shift
exec $pin "$old_bin" "\$@"
EOF
chmod +x "$wrapper"
# The twins as the driver starts them: pinned with PIN=1, as they are otherwise.
twin_of() { # name binary
    local script="$root/target/bench-ab-$1.sh"
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$pin" "$2" > "$script"
    chmod +x "$script"
    echo "$script"
}
new_twin=$(twin_of new-twin "$new_bin")
old_twin=$(twin_of old-twin-direct "$old_bin")
rmcp_twin=$(twin_of rmcp-twin "$root/bench/target/release/rmcp_twin")

# A twin left over from an interrupted run keeps its port and would be measured instead.
if pgrep -f 'tracksuit_twin|rmcp_twin' >/dev/null; then
    echo "a twin is still running (pgrep -af twin); stop it first" >&2
    exit 1
fi

cd "$root/bench"
floor=(new old)
[ "${OTEL:-0}" = 1 ] && floor=() # the floor is in process: no twin to swap
for which in "${floor[@]}"; do
    driver=target/release/driver
    [ "$which" = old ] && driver="$old/bench/target/release/driver"
    echo "--- floor, $which" >&2
    "${driver_pin[@]}" "$driver" --tracksuit "$new_twin" --rmcp "$rmcp_twin" \
        --ts unused --skip stdio,http,modern,idle,hold,robust --out "$root/target/bench-ab-floor-$which.md" 2>&1 |
        grep '\[bench\] floor' >&2
done
echo "--- load, new (tracksuit) against old (the TS SDK column) and rmcp" >&2
"${driver_pin[@]}" target/release/driver --tracksuit "$new_twin" --rmcp "$rmcp_twin" \
    --node "$wrapper" --ts old --skip floor,idle,hold,robust --out "$root/target/bench-ab.md" "$@"
echo "--- wrote target/bench-ab.md (\"TS SDK\" = tracksuit at $rev)" >&2

# The 2026-07-28 rows: old and new twin alternately, each against rmcp in the same run.
# A longer earlier run's files would be summarised with this one's: gone first.
rm -f "$root"/target/bench-ab-modern-{old,new}-*.md
rounds=${ROUNDS:-2}
for round in $(seq 1 "$rounds"); do
    for which in old new; do
        twin=$new_twin
        [ "$which" = old ] && twin=$old_twin
        echo "--- 2026-07-28 rows, $which ($round of $rounds)" >&2
        "${driver_pin[@]}" target/release/driver --tracksuit "$twin" --rmcp "$rmcp_twin" --ts unused \
            --skip stdio,http,floor,idle,hold,robust \
            --out "$root/target/bench-ab-modern-$which-$round.md" >/dev/null 2>&1
    done
done
echo "--- 2026-07-28 rows: tracksuit ÷ rmcp throughput, then tracksuit CPU per call" >&2
shopt -s nullglob # ROUNDS=0 leaves none
for f in "$root"/target/bench-ab-modern-{old,new}-*.md; do
    echo "$(basename "$f" .md):" >&2
    awk '/^## Throughput/{t=1} /^## Latency/{t=0} t && /(HTTP|stdio) 2026/' "$f" |
        awk -F'|' '{printf "  %-32s %-13s %s\n", $2, $3, $7}' >&2
    awk '/^## Server CPU/{c=1} /^$/{if (c==2) c=0} c && /(HTTP|stdio) 2026/{c=2; print}' "$f" |
        awk -F'|' '{printf "  %-32s %-13s cpu %s\n", $2, $3, $4}' >&2
done

# HEAD_TO_HEAD=N (default 0): the 2026-07-28 rows N more times with the two tracksuit twins
# as the two columns of one driver run (old in the rmcp slot, then swapped), so both are
# measured in the same run with interleaved repetitions, as the 2025 rows are. Between
# separate driver runs the 1-client rows move by ±10 %; head to head they agree within a
# few %. Summarised as the median over the 2N runs of each run's new ÷ old CPU per call and
# throughput.
h2h=${HEAD_TO_HEAD:-0}
rm -f "$root"/target/bench-ab-h2h-*.md
for round in $(seq 1 "$h2h"); do
    echo "--- 2026-07-28 rows head to head ($round of $h2h)" >&2
    "${driver_pin[@]}" target/release/driver --tracksuit "$new_twin" --rmcp "$old_twin" --ts unused \
        --skip stdio,http,floor,idle,hold,robust,http-floor \
        --out "$root/target/bench-ab-h2h-new-old-$round.md" >/dev/null 2>&1
    "${driver_pin[@]}" target/release/driver --tracksuit "$old_twin" --rmcp "$new_twin" --ts unused \
        --skip stdio,http,floor,idle,hold,robust,http-floor \
        --out "$root/target/bench-ab-h2h-old-new-$round.md" >/dev/null 2>&1
done
if [ "$h2h" -gt 0 ]; then
    echo "--- 2026-07-28 rows head to head: new ÷ old, medians of $((2 * h2h)) runs" >&2
    python3 - "$root"/target/bench-ab-h2h-*.md >&2 <<'PY'
import re, statistics, sys
cpu, thr = {}, {}
for path in sys.argv[1:]:
    new_first = "-new-old-" in path
    text = open(path).read()
    for section, into, pattern in (
        ("## Server CPU", cpu, r"\| ((?:HTTP|stdio) 2026[^|]*) \| (\w+) \| ([\d.]+) (µs|ms)[^|]*\| ([\d.]+) (µs|ms)"),
        ("## Throughput", thr, r"\| ((?:HTTP|stdio) 2026[^|]*) \| (\w+) \| (\d+)() \| (\d+)()"),
    ):
        for m in re.finditer(pattern, text[text.index(section):]):
            a = float(m.group(3)) * (1000 if m.group(4) == "ms" else 1)
            b = float(m.group(5)) * (1000 if m.group(6) == "ms" else 1)
            new, old = (a, b) if new_first else (b, a)
            into.setdefault((m.group(1).strip(), m.group(2)), []).append((new, old))
# Each run's new ÷ old, then the median of those: steadier on a noisy machine than the
# ratio of the two medians (shown after it), since both twins of a run share its noise.
med = statistics.median
for key, pairs in cpu.items():
    c = med([n / o for n, o in pairs])
    c_of_medians = med([n for n, _ in pairs]) / med([o for _, o in pairs])
    t = thr.get(key, [(1, 1)])
    t = med([n / o for n, o in t])
    print(f"  {key[0]:<42} {key[1]:<13} cpu {c:.2f} (medians {c_of_medians:.2f})  throughput {t:.2f}")
PY
fi
