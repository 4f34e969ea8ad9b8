# Sourced by the PostgreSQL test scripts: `start_postgres` starts a throwaway PostgreSQL
# server (Debian's `postgresql` package, installed if missing) in a temporary directory on
# a free loopback port, exports TRACKSUIT_TEST_DATABASE_URL (and TRACKSUIT_TEST_PG_STOP /
# TRACKSUIT_TEST_PG_START, shell commands that stop and restart it), and stops it and removes
# the directory on exit (`stop_postgres`, called by the caller's EXIT trap).
# initdb refuses to run as root: as root, the server runs as the `postgres` user.

pg_bin=
pg_dir=
pg_as=()

find_pg_bin() {
    local d
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && pg_bin="$d"
    done
    [ -n "$pg_bin" ]
}

start_postgres() {
    if ! find_pg_bin; then
        echo "--- installing postgresql (Debian package)"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
        find_pg_bin || { echo "postgresql installed but no initdb found" >&2; return 1; }
    fi
    pg_dir=$(mktemp -d /tmp/tracksuit-pg.XXXXXX)
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        chown postgres "$pg_dir"
        pg_as=(runuser -u postgres --)
    fi
    local port
    port=${TRACKSUIT_PG_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
    "${pg_as[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U tracksuit --auth=trust \
        --encoding=UTF8 --no-locale >"$pg_dir/initdb.log" 2>&1 \
        || { cat "$pg_dir/initdb.log" >&2; return 1; }
    # Loopback only, socket in the temp dir, no fsync (a throwaway database).
    local options="-p $port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 60 \
        -o "$options" start >/dev/null \
        || { cat "$pg_dir/server.log" >&2; return 1; }
    export TRACKSUIT_TEST_DATABASE_URL="postgres://tracksuit@127.0.0.1:$port/postgres"
    # For the tests that take the database down and bring it back (tests/postgres_fencing.rs):
    # shell commands stopping it (fast: connections are cut) and starting it again.
    export TRACKSUIT_TEST_PG_STOP="${pg_as[*]} $pg_bin/pg_ctl -D $pg_dir/data -m fast -w stop"
    export TRACKSUIT_TEST_PG_START="${pg_as[*]} $pg_bin/pg_ctl -D $pg_dir/data -l $pg_dir/server.log -w -t 60 -o '$options' start"
    echo "--- PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($pg_dir)"
}

stop_postgres() {
    if [ -n "$pg_dir" ] && [ -d "$pg_dir/data" ]; then
        "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    [ -n "$pg_dir" ] && rm -rf "$pg_dir"
    pg_dir=
}
