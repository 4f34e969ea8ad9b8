#!/usr/bin/env bash
# A/B of the tracksuit twin: the working tree against an older revision, in the same run.
#
#   scripts/bench-ab.sh [REV] [driver args...]     REV defaults to origin/main or main
#
# Builds bench/ here and at REV (in a temporary git worktree under target/, release), then
# runs this tree's driver with the old twin standing in for the TypeScript twin (a wrapper
# drops the script argument), so the report's "TS SDK" column is the old tracksuit and
# "tracksuit ÷ TS SDK" is new ÷ old. The floor (in-process) is compared by running each
# revision's driver with `--skip stdio,http,idle,hold,robust`. Nothing else should run on
# the machine meanwhile; the report goes to target/bench-ab.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-main}
shift || true
old="$root/target/bench-ab-old"

if [ ! -d "$old" ]; then
    git -C "$root" worktree add --detach "$old" "$rev" >&2
else
    git -C "$old" checkout --detach --quiet "$rev"
fi
echo "--- building the old twin at $(git -C "$old" rev-parse --short HEAD) and the new one" >&2
(cd "$old/bench" && cargo build --release --quiet --bins)
(cd "$root/bench" && cargo build --release --quiet --bins)

wrapper="$root/target/bench-ab-old-twin.sh"
cat > "$wrapper" <<EOF
#!/bin/sh
# Stands in for \`node <script>\`: drops the script argument, runs the old twin.
shift
exec "$old/bench/target/release/tracksuit_twin" "\$@"
EOF
chmod +x "$wrapper"

# A twin left over from an interrupted run keeps its port and would be measured instead.
if pgrep -f 'tracksuit_twin|rmcp_twin' >/dev/null; then
    echo "a twin is still running (pgrep -af twin); stop it first" >&2
    exit 1
fi

cd "$root/bench"
for which in new old; do
    driver=target/release/driver
    [ "$which" = old ] && driver="$old/bench/target/release/driver"
    echo "--- floor, $which" >&2
    "$driver" --tracksuit target/release/tracksuit_twin --rmcp target/release/rmcp_twin \
        --ts unused --skip stdio,http,idle,hold,robust --out "$root/target/bench-ab-floor-$which.md" 2>&1 |
        grep '\[bench\] floor' >&2
done
echo "--- load, new (tracksuit) against old (the TS SDK column) and rmcp" >&2
target/release/driver --tracksuit target/release/tracksuit_twin --rmcp target/release/rmcp_twin \
    --node "$wrapper" --ts old --skip floor,idle,hold,robust --out "$root/target/bench-ab.md" "$@"
echo "--- wrote target/bench-ab.md (\"TS SDK\" = tracksuit at $rev)" >&2
