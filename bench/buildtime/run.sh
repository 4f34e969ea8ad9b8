#!/usr/bin/env bash
# Build-time comparison: the same 50-tool stdio server written with tracksuit and with rmcp.
#
# Generates both crates into a fresh temp dir (outside the repo, each its own workspace,
# each seeded with a copy of bench/Cargo.lock so dependency versions match the bench crate)
# and measures, per crate, in the dev profile:
#   clean_s        `cargo build` from an empty target dir, dependencies included
#   own_s          `cargo build` after `cargo clean -p <crate>`: dependencies already built, so
#                  this is the crate's own compile (macro expansion, type checking, codegen, link)
#   incremental_s  `cargo build` after changing a string literal in one tool's body
# own_s and incremental_s are the median of BUILDTIME_RUNS (default 3) runs.
#
# Output (stdout): an env line, then one line per crate (wall seconds; *_cpu_s are user +
# system seconds of cargo and the compilers, less sensitive to other load on the machine):
#   buildtime-env rustc="..." tools=50 runs=3 jobs=default cores=2 tracksuit_default_features=1
#     tracksuit_rev=<HEAD> loadavg_before=...
#   buildtime tracksuit clean_s=... own_s=... incremental_s=... clean_cpu_s=... own_cpu_s=...
#     incremental_cpu_s=... own_samples=a,b,c incremental_samples=a,b,c binary_mb=... dep_rebuilds=0
#     loadavg_after=...   (all on one line; dep_rebuilds > 0 means something besides the
#     generated crate was recompiled in the incremental/own runs, e.g. the runtime was edited)
#   buildtime rmcp ...
# Progress goes to stderr. The machine should be otherwise idle: other builds inflate the
# wall times (and, less so, the CPU times).
#
# Environment:
#   BUILDTIME_JOBS   passed to cargo as -j (default: cargo's own, all cores)
#   BUILDTIME_RUNS   repetitions of own_s and incremental_s (default 3)
#   BUILDTIME_TOOLS  tools per server (default 50)
#   BUILDTIME_ONLY   "tracksuit" or "rmcp" to measure just one
#   BUILDTIME_TRACKSUIT_DEFAULT_FEATURES=0
#                    build tracksuit with default-features = false (no Streamable HTTP
#                    stack: closer to the rmcp crate, which has only transport-io)
#   BUILDTIME_KEEP=1 keep the temp dir (sources, logs, target dirs) and print its path
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_dir=$(cd "$script_dir/.." && pwd)
repo_root=$(cd "$bench_dir/.." && pwd)
runtime_dir="$repo_root/runtime"
lockfile="$bench_dir/Cargo.lock"

tools=${BUILDTIME_TOOLS:-50}
runs=${BUILDTIME_RUNS:-3}
only=${BUILDTIME_ONLY:-}
# The tool whose body the incremental runs change: the middle one (25 of 50), or the next if
# that one is a Json tool (no string literal to edit).
edit_tool=$(( (tools + 1) / 2 ))
if (( edit_tool % 3 == 2 )); then
  edit_tool=$(( edit_tool + 1 ))
fi
jobs_args=()
if [[ -n "${BUILDTIME_JOBS:-}" ]]; then
  jobs_args=(-j "$BUILDTIME_JOBS")
fi
tracksuit_dep="tracksuit = { path = \"$runtime_dir\" }"
if [[ "${BUILDTIME_TRACKSUIT_DEFAULT_FEATURES:-1}" == "0" ]]; then
  tracksuit_dep="tracksuit = { path = \"$runtime_dir\", default-features = false }"
fi

[[ -f "$runtime_dir/Cargo.toml" ]] || { echo "no tracksuit runtime at $runtime_dir" >&2; exit 1; }
[[ -f "$lockfile" ]] || { echo "no $lockfile" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tracksuit-buildtime.XXXXXX")
cleanup() {
  if [[ "${BUILDTIME_KEEP:-0}" == "1" ]]; then
    echo "kept $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

log() { echo "[buildtime] $*" >&2; }

# Pads a tool number to two digits (three past 99) so names sort and stay distinct.
num() { printf '%02d' "$1"; }

# Which of three tool shapes tool $1 has: 0 = three args -> String, 1 = two args -> String,
# 2 = two integers -> Json (structured output with its own output struct).
kind() { echo $(( $1 % 3 )); }

# --- tracksuit crate -------------------------------------------------------------------

gen_tracksuit() {
  local dir=$1 i n
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<EOF
[package]
name = "buildtime-tracksuit"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
$tracksuit_dep
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
EOF
  {
    echo "//! Generated: $tools tools on tracksuit, served over stdio."
    echo
    echo "use tracksuit::{Json, Server, mcp_tool};"
    for ((i = 1; i <= tools; i++)); do
      n=$(num "$i")
      echo
      case $(kind "$i") in
        0) cat <<EOF
/// Clips text $n to a length, optionally in upper case.
#[mcp_tool]
async fn clip_$n(
    /// The text to clip.
    text_$n: String,
    /// Largest number of characters kept.
    limit_$n: u64,
    /// Upper-case the result.
    upper_$n: bool,
) -> String {
    let clipped: String = text_$n.chars().take(limit_$n as usize).collect();
    let clipped = if upper_$n { clipped.to_uppercase() } else { clipped };
    format!("tool $i rev 0: {clipped}")
}
EOF
        ;;
        1) cat <<EOF
/// Greets name $n a number of times.
#[mcp_tool]
async fn greet_$n(
    /// Who to greet.
    name_$n: String,
    /// How many greetings.
    times_$n: u32,
) -> String {
    let greeting = format!("hello {name_$n}! ");
    format!("tool $i rev 0: {}", greeting.repeat(times_$n.min(16) as usize))
}
EOF
        ;;
        2) cat <<EOF
/// The output of tool $n.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Total$n {
    /// left + right, saturating.
    total_$n: i64,
}

/// Adds two integers (tool $n).
#[mcp_tool]
async fn add_$n(
    /// The left operand.
    left_$n: i64,
    /// The right operand.
    right_$n: i64,
) -> Json<Total$n> {
    Json(Total$n { total_$n: left_$n.saturating_add(right_$n) })
}
EOF
        ;;
      esac
    done
    echo
    echo "#[tokio::main]"
    echo "async fn main() -> std::io::Result<()> {"
    echo "    Server::new(tracksuit::crate_info!())"
    for ((i = 1; i <= tools; i++)); do
      n=$(num "$i")
      case $(kind "$i") in
        0) echo "        .tool(clip_$n)" ;;
        1) echo "        .tool(greet_$n)" ;;
        2) echo "        .tool(add_$n)" ;;
      esac
    done
    echo "        .serve_stdio()"
    echo "        .await"
    echo "}"
  } >"$dir/src/main.rs"
}

# --- rmcp crate ------------------------------------------------------------------------

gen_rmcp() {
  local dir=$1 i n
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<EOF
[package]
name = "buildtime-rmcp"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
rmcp = { version = "3.11", features = ["server", "macros", "transport-io"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
EOF
  {
    echo "//! Generated: $tools tools on rmcp, served over stdio."
    echo
    echo "use rmcp::handler::server::router::tool::ToolRouter;"
    echo "use rmcp::handler::server::wrapper::Parameters;"
    echo "use rmcp::model::{ServerCapabilities, ServerConfig};"
    echo "use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};"
    # Argument and output structs.
    for ((i = 1; i <= tools; i++)); do
      n=$(num "$i")
      echo
      case $(kind "$i") in
        0) cat <<EOF
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Clip${n}Args {
    /// The text to clip.
    text_$n: String,
    /// Largest number of characters kept.
    limit_$n: u64,
    /// Upper-case the result.
    upper_$n: bool,
}
EOF
        ;;
        1) cat <<EOF
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greet${n}Args {
    /// Who to greet.
    name_$n: String,
    /// How many greetings.
    times_$n: u32,
}
EOF
        ;;
        2) cat <<EOF
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add${n}Args {
    /// The left operand.
    left_$n: i64,
    /// The right operand.
    right_$n: i64,
}

/// The output of tool $n.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Total$n {
    /// left + right, saturating.
    total_$n: i64,
}
EOF
        ;;
      esac
    done
    cat <<'EOF'

#[derive(Debug, Clone)]
struct Tools {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Tools {
    fn new() -> Self {
        Tools {
            tool_router: Self::tool_router(),
        }
    }
EOF
    for ((i = 1; i <= tools; i++)); do
      n=$(num "$i")
      echo
      case $(kind "$i") in
        0) cat <<EOF
    /// Clips text $n to a length, optionally in upper case.
    #[tool]
    async fn clip_$n(
        &self,
        Parameters(Clip${n}Args { text_$n, limit_$n, upper_$n }): Parameters<Clip${n}Args>,
    ) -> String {
        let clipped: String = text_$n.chars().take(limit_$n as usize).collect();
        let clipped = if upper_$n { clipped.to_uppercase() } else { clipped };
        format!("tool $i rev 0: {clipped}")
    }
EOF
        ;;
        1) cat <<EOF
    /// Greets name $n a number of times.
    #[tool]
    async fn greet_$n(
        &self,
        Parameters(Greet${n}Args { name_$n, times_$n }): Parameters<Greet${n}Args>,
    ) -> String {
        let greeting = format!("hello {name_$n}! ");
        format!("tool $i rev 0: {}", greeting.repeat(times_$n.min(16) as usize))
    }
EOF
        ;;
        2) cat <<EOF
    /// Adds two integers (tool $n).
    #[tool]
    async fn add_$n(
        &self,
        Parameters(Add${n}Args { left_$n, right_$n }): Parameters<Add${n}Args>,
    ) -> Json<Total$n> {
        Json(Total$n { total_$n: left_$n.saturating_add(right_$n) })
    }
EOF
        ;;
      esac
    done
    cat <<'EOF'
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Tools::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
EOF
  } >"$dir/src/main.rs"
}

# --- measuring -------------------------------------------------------------------------

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
join() { local IFS=,; echo "$*"; }

# Runs `cargo build` in $1 with its log in $2; prints "<wall seconds> <cpu seconds>", CPU
# being user + system time of cargo and the compilers it ran ("na" without /usr/bin/time).
timed_build() {
  local dir=$1 logfile=$2 start end cpu=na
  local -a cmd=(cargo build ${jobs_args[@]+"${jobs_args[@]}"})
  start=$(now)
  if [[ -x /usr/bin/time ]]; then
    cmd=(/usr/bin/time -f '%U %S' -o "$logfile.time" "${cmd[@]}")
  fi
  if ! (cd "$dir" && "${cmd[@]}" >"$logfile" 2>&1); then
    echo "cargo build failed in $dir; last lines of $logfile:" >&2
    tail -n 40 "$logfile" >&2
    return 1
  fi
  end=$(now)
  if [[ -f "$logfile.time" ]]; then
    cpu=$(awk 'END { printf "%.2f", $1 + $2 }' "$logfile.time")
  fi
  echo "$(elapsed "$start" "$end") $cpu"
}

# Checks the built server answers initialize and lists all its tools over stdio.
smoke_test() {
  local binary=$1 listed
  # Input stays open a moment: a server may stop at end of input before answering.
  listed=$(
    {
      printf '%s\n' \
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"buildtime","version":"0"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
      sleep 1
    } | timeout 20 "$binary" 2>/dev/null \
      | grep '"id":1' | grep -o '"inputSchema"' | wc -l
  ) || true
  if [[ "$listed" -ne "$tools" ]]; then
    echo "smoke test: $binary listed $listed tools, expected $tools" >&2
    return 1
  fi
}

measure() {
  local name=$1 dir="$work/$1" crate="buildtime-$1" clean clean_cpu t k
  local -a own=() own_cpu=() inc=() inc_cpu=()
  "gen_$name" "$dir"
  cp "$lockfile" "$dir/Cargo.lock"
  export CARGO_TARGET_DIR="$dir/target"
  log "$name: fetching (untimed)"
  (cd "$dir" && cargo fetch >"$dir/fetch.log" 2>&1) || { tail -n 40 "$dir/fetch.log" >&2; return 1; }

  log "$name: clean build (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  t=$(timed_build "$dir" "$dir/build-clean.log")
  read -r clean clean_cpu <<<"$t"
  log "$name: clean build ${clean}s wall, ${clean_cpu}s cpu"
  smoke_test "$CARGO_TARGET_DIR/debug/$crate"

  local marker="tool $edit_tool rev"
  grep -q "\"$marker 0: " "$dir/src/main.rs" || { echo "no '$marker 0' literal to edit" >&2; return 1; }
  for ((k = 1; k <= runs; k++)); do
    sed -i "s/\"$marker [0-9]*: /\"$marker $k: /" "$dir/src/main.rs"
    grep -q "\"$marker $k: " "$dir/src/main.rs" || { echo "edit $k did not apply" >&2; return 1; }
    t=$(timed_build "$dir" "$dir/build-incremental-$k.log")
    inc+=("${t% *}")
    inc_cpu+=("${t#* }")
    log "$name: incremental build $k: ${t% *}s wall, ${t#* }s cpu"
  done

  for ((k = 1; k <= runs; k++)); do
    (cd "$dir" && cargo clean -p "$crate" >/dev/null 2>&1)
    t=$(timed_build "$dir" "$dir/build-own-$k.log")
    own+=("${t% *}")
    own_cpu+=("${t#* }")
    log "$name: own build $k: ${t% *}s wall, ${t#* }s cpu"
  done
  smoke_test "$CARGO_TARGET_DIR/debug/$crate"
  local binary_mb
  binary_mb=$(awk -v b="$(stat -c %s "$CARGO_TARGET_DIR/debug/$crate")" 'BEGIN { printf "%.1f", b / 1048576 }')
  unset CARGO_TARGET_DIR

  # Incremental and own runs should compile only the generated crate. Anything else (say
  # the tracksuit runtime, edited in the repo mid-run) inflates those figures.
  local foreign
  foreign=$(cat "$dir"/build-incremental-*.log "$dir"/build-own-*.log \
    | grep -E '^ *Compiling ' | grep -vc "Compiling $crate " || true)
  if [[ "$foreign" -gt 0 ]]; then
    log "$name: WARNING: $foreign dependency rebuild(s) during the incremental/own runs:"
    grep -hE '^ *Compiling ' "$dir"/build-incremental-*.log "$dir"/build-own-*.log \
      | grep -v "Compiling $crate " | sort | uniq -c >&2
  fi

  echo "buildtime $name clean_s=$clean own_s=$(median "${own[@]}") incremental_s=$(median "${inc[@]}")" \
    "clean_cpu_s=$clean_cpu own_cpu_s=$(median "${own_cpu[@]}") incremental_cpu_s=$(median "${inc_cpu[@]}")" \
    "own_samples=$(join "${own[@]}") incremental_samples=$(join "${inc[@]}")" \
    "binary_mb=$binary_mb dep_rebuilds=$foreign loadavg_after=$(cut -d' ' -f1 /proc/loadavg)"
}

log "work dir $work; $tools tools; $runs runs; jobs ${BUILDTIME_JOBS:-default}; $(rustc --version)"
echo "buildtime-env rustc=\"$(rustc --version | cut -d' ' -f2)\" tools=$tools runs=$runs jobs=${BUILDTIME_JOBS:-default} cores=$(nproc) tracksuit_default_features=${BUILDTIME_TRACKSUIT_DEFAULT_FEATURES:-1} tracksuit_rev=$(git -C "$repo_root" rev-parse --short HEAD 2>/dev/null || echo unknown) loadavg_before=$(cut -d' ' -f1 /proc/loadavg)"
for name in tracksuit rmcp; do
  if [[ -z "$only" || "$only" == "$name" ]]; then
    measure "$name"
  fi
done
