#!/usr/bin/env python3
"""Import-layer check for the tracksuit crate (`runtime/src`).

Each top-level module (`src/foo.rs`, `src/foo/`, or `mod foo;` in lib.rs) must be in LAYERS
below, and may reference only modules of its own layer or lower (lib.rs alone is exempt).
Module references must not form cycles, within a layer or across layers. `client` may use
only protocol, peer, transport and the support (layer 0) modules. `host` may name only the
server's host interface (HOST_MAY_USE: the one entry `serve` and what it takes and gives).
Outside lib.rs, `crate::Name` where Name is not a module (a root re-export like
`crate::Server`) is refused. Outside protocol/error.rs (and tests), no code builds an
`ErrorObject` from a code (`ErrorObject::new(` or an `ErrorObject { code .. }` literal).

References are `crate::` / `$crate::` paths (each top-level name of a grouped
`use crate::{a::X, b::{Y}}` counts) and `super::` paths that climb to the crate root
(inline `mod x { .. }` blocks are tracked). Comments and string / char literals are blanked
first; `#[cfg(test)]` code counts too. `crate::some_macro!` is allowed (exported macros
live at the root).

Usage: python3 scripts/check_layers.py [ROOT]     (ROOT defaults to runtime/src)
       python3 scripts/check_layers.py --self-test
Exit status: 0 clean, 1 violations or a failed self-test, 2 bad usage.
"""
import pathlib
import re
import sys
import tempfile

# Top-level module -> layer, lowest first. Layer 8 is the crate root: lib.rs (exempt from
# every rule), its inline `__private` re-exports, and private.rs behind them.
LAYERS = {
    "capacity": 0, "on_demand": 0, "seal": 0, "events": 0, "caller": 0,
    "idempotency": 0, "telemetry": 0, "json": 0,  # support: leaf helpers (telemetry: feature otel)
    "protocol": 1,                               # wire types
    "peer": 2,                                   # JSON-RPC engine (incl. peer::sync)
    "transport": 3, "client": 3,                 # framing; a client on peer + transport
    "context": 4,                                # what a handler sees
    "authoring": 5, "sampling": 5, "elicitation": 5, "branch": 5, "handoff": 5,  # features
    "skills": 5, "apps": 5,                      # extensions: Skills, MCP Apps
    "server": 6, "task": 6,                      # registries, dispatch, tasks
    "host": 7,                                   # stdio and Streamable HTTP hosts
    "proxy": 7,                                  # a remote server's items, via client + server
    "__private": 8, "private": 8,                # crate root
    "guide": 8,                                  # rustdoc guides (no code)
}
CLIENT_MAY_USE = {"protocol", "peer", "transport"} | {m for m, n in LAYERS.items() if n == 0}
# The server's host interface: the only `crate::server::*` items a host names. Every message
# reaches the server through one function, `serve` (where it came from: a `Scope`; what the
# host has left to do: `Served`, a POST's `Streamed` with its boxed `PostWork`), after the era checks that need the
# request's headers (admit, requested_version, is_modern, RequestMeta). A host makes a
# connection's session (ServerSession) and holds the server (Server, ServerHandle).
HOST_MAY_USE = {"Server", "ServerHandle", "ServerSession", "serve", "Scope", "Served", "Streamed",
                "PostWork",
                "RequestMeta", "admit", "requested_version", "is_modern",
                "MODERN_PROTOCOL_VERSIONS"}
# Every JSON-RPC error is built by protocol/error.rs (its constructors name the codes):
# nowhere else may code write `ErrorObject::new(` or an `ErrorObject { code .. }` literal.
# Tests (tests.rs files, code after `#[cfg(test)]`) and docs (comments) may.
ERROR_HOME = ("protocol", "error.rs")
ERROR_BUILD = re.compile(r"\bErrorObject\s*(?:::\s*new\s*\(|\{\s*code\b)")
SERVER_PATH = re.compile(r"(?<![\w$])\$?crate\s*::\s*server\s*::\s*")

RAW_STR = re.compile(r'(?<!\w)b?r(#*)"')
TOKEN = re.compile(r"(?P<mod>\bmod\s+\w+\s*\{)|[{}]|(?<![\w$])\$?crate\s*::\s*"
                   r"|(?<![\w:])(?:self\s*::\s*)?(?:super\s*::\s*)+")
IDENT = re.compile(r"\s*(\*|[A-Za-z_]\w*)(\s*!)?")


def strip(src):
    """`src` with comments and string / char literals blanked (line numbers kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c, raw = src[i], RAW_STR.match(src, i)
        if src.startswith("//", i):                        # also /// and //! doc lines
            j = n if src.find("\n", i) < 0 else src.find("\n", i)
        elif src.startswith("/*", i):                      # block comments nest in Rust
            depth, j = 1, i + 2
            while j < n and depth:
                step = src[j:j + 2]
                depth += (step == "/*") - (step == "*/")
                j += 2 if step in ("/*", "*/") else 1
        elif raw:                                          # r"..", r#".."#, br".."
            end = src.find('"' + raw.group(1), raw.end())
            j = n if end < 0 else end + 1 + len(raw.group(1))
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
        elif c == "'" and src[i + 1:i + 2] == "\\":        # '\n', '\'', '\u{..}'
            j = src.find("'", i + 3) + 1 or n
        elif c == "'" and src[i + 2:i + 3] == "'":         # 'a', '"' (not a lifetime)
            j = i + 3
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", src[i:j]))
        i = j
    return "".join(out)


def parse_tree(text, pos):
    """Top-level names of the path or use-tree at `pos`: ([(offset, name, macro?)], end)."""
    if not (g := re.compile(r"\s*\{").match(text, pos)):
        m = IDENT.match(text, pos)
        return ([(m.start(1), m.group(1), bool(m.group(2)))], m.end()) if m else ([], pos)
    names, depth, i, expect = [], 1, g.end(), True
    while i < len(text) and depth:
        c = text[i]
        if c in "{}":
            depth += 1 if c == "{" else -1
        elif c == "," and depth == 1:
            expect = True
        elif depth == 1 and expect and not c.isspace():
            expect = False
            if m := IDENT.match(text, i):
                names.append((m.start(1), m.group(1), bool(m.group(2))))
                i = m.end()
                continue
        i += 1
    return names, i


def references(src):
    """Yield (line, name, is_macro, number of supers, inline mod depth) per path."""
    text = strip(src)
    depth, mods, pos = 0, [], 0                            # mods: depths of open inline mods
    while m := TOKEN.search(text, pos):
        tok, pos = m.group(0), m.end()
        if m.group("mod"):
            depth += 1
            mods.append(depth)
        elif tok in "{}":
            if tok == "}" and mods and mods[-1] == depth:
                mods.pop()
            depth += 1 if tok == "{" else -1
        else:
            names, pos = parse_tree(text, pos)
            for off, name, is_macro in names:
                yield text.count("\n", 0, off) + 1, name, is_macro, tok.count("super"), len(mods)


def check(root, shown="runtime/src"):
    """Return (violations, number of modules, references checked) for the crate at `root`."""
    root, errors, edges, count = pathlib.Path(root), [], {}, 0
    host_lines = set()                                     # (file, line) checked for host

    def where(f, line=None):
        return f"{shown}/{f.relative_to(root).as_posix()}" + (f":{line}" if line else "")

    found = {}                                             # top-level module -> where found
    for p in sorted(root.iterdir()):
        if (p.is_dir() and any(p.rglob("*.rs"))) or (p.suffix == ".rs" and p.name != "lib.rs"):
            found.setdefault(p.stem, where(p))
    if (lib := root / "lib.rs").exists():
        text = strip(lib.read_text())
        for m in re.finditer(r"\bmod\s+(\w+)\s*;", text):
            found.setdefault(m.group(1), where(lib, text.count("\n", 0, m.start()) + 1))
    errors += [f"{found[m]}: module {m} is not in the layer table: add it to the layer table"
               for m in sorted(set(found) - set(LAYERS))]
    modules = set(found) | set(LAYERS)

    for f in sorted(root.rglob("*.rs")):
        path = list(f.relative_to(root).with_suffix("").parts)
        if path[-1] == "mod" or path == ["lib"]:
            path.pop()                                     # foo/mod.rs is foo; lib.rs is root
        top = path[0] if path else None                    # None: the crate root
        for line, name, is_macro, supers, inline in references(f.read_text()):
            if (supers and supers != len(path) + inline) or name in ("self", "super", "crate"):
                continue                                   # stays inside the module
            count += 1
            if top is None or is_macro or name == top:
                continue
            if name not in modules:
                errors.append(f"{where(f, line)}: module {top} references crate::{name}, "
                              "which is not a module: use the module path")
                continue
            a, b = LAYERS.get(top), LAYERS.get(name)
            if a is None or b is None:
                continue                                   # reported as unknown above
            edges.setdefault(top, {}).setdefault(name, where(f, line))
            bad_client = top == "client" and name not in CLIENT_MAY_USE
            if top == "host" and name == "server" and (f, line) not in host_lines:
                host_lines.add((f, line))                  # every path of the line at once
                errors += [f"{where(f, line)}: module host names crate::server::{item}, which "
                           "is not in the server's host interface (HOST_MAY_USE)"
                           for item in server_items(f.read_text(), line)
                           if item not in HOST_MAY_USE]
            if b > a or bad_client:
                errors.append(f"{where(f, line)}: module {top} (layer {a}) imports {name} "
                              f"(layer {b})" + (" — client may only import " + ", ".join(
                                  sorted(CLIENT_MAY_USE)) if bad_client else ""))
    return errors + cycles(edges) + error_builders(root, where), len(found), count


def error_builders(root, where):
    """Where code outside protocol/error.rs builds an `ErrorObject` from a code."""
    out = []
    for f in sorted(root.rglob("*.rs")):
        rel = f.relative_to(root).parts
        if rel == ERROR_HOME or rel[-1] == "tests.rs":
            continue
        text = strip(f.read_text())
        end = text.find("#[cfg(test)]")
        for m in ERROR_BUILD.finditer(text if end < 0 else text[:end]):
            out.append(f"{where(f, text.count(chr(10), 0, m.start()) + 1)}: builds an "
                       "ErrorObject from a code: use (or add) a constructor in protocol/error.rs")
    return out


def server_items(src, line):
    """The top-level names after each `crate::server::` on `line` of `src`."""
    text = strip(src)
    return [name for m in SERVER_PATH.finditer(text) if text.count("\n", 0, m.start()) + 1 == line
            for _, name, _ in parse_tree(text, m.end())[0]]


def components(edges):
    """Groups of two or more modules that all reach each other (strongly connected)."""
    reach = {}
    for v in edges:
        seen, todo = set(), [v]
        while todo:
            new = set(edges.get(todo.pop(), {})) - seen
            seen |= new
            todo += new
        reach[v] = seen
    groups = {frozenset(w for w in reach if v in reach[w] and w in reach[v]) for v in reach}
    return sorted((set(g) for g in groups if len(g) > 1), key=sorted)


def cycles(edges):
    """One report per cycle group: of each layer's own graph, then of the whole graph."""
    out = []
    for layer in sorted(set(LAYERS.values())):
        sub = {a: {b: s for b, s in bs.items() if LAYERS[b] == layer}
               for a, bs in edges.items() if LAYERS[a] == layer}
        out += [cycle(sub, g, f"within layer {layer}", lambda a, b: True)
                for g in components(sub)]
    for g in components(edges):
        if len(layers := sorted({LAYERS[m] for m in g})) > 1:  # shown through an upward edge
            out.append(cycle(edges, g, "across layers " + ", ".join(map(str, layers)),
                             lambda a, b: LAYERS[b] > LAYERS[a]))
    return out


def cycle(edges, group, kind, pick):
    """`a -> b -> .. -> a`: the first edge a -> b picked, then the shortest way back to a."""
    a, b = min((a, b) for a in group for b in edges.get(a, {}) if b in group and pick(a, b))
    paths, queue = {b: [a, b]}, [b]
    while a not in paths:                                  # breadth-first from b
        v = queue.pop(0)
        for w in sorted(edges.get(v, {})):
            if w in group and w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    path = paths[a]
    sites = ", ".join(edges[x][y] for x, y in zip(path, path[1:]))
    rest = ", ".join(sorted(group - set(path)))
    return f"cycle {kind}: {' -> '.join(path)} [{sites}]" + (f" (group also: {rest})" * bool(rest))


def self_test():
    """Build small synthetic crates and check what the checker reports on them."""
    clean = {  # each case adds or replaces files
        "lib.rs": "pub mod protocol;\nmod capacity;\npub use server::Server;\n",
        "capacity.rs": '/// [`x`](crate::host)\n//! crate::host\n/* crate::{host} */\n'
                       'const S: &str = "crate::host";\nconst R: &str = r#"crate::host"#;\n'
                       "fn f<'a>(c: char) -> bool { c == '\"' || c == '\\'' }\n"
                       "#[cfg(test)]\nmod tests { use super::*; }\n",
        "protocol/mod.rs": "use crate::capacity::X;\nuse crate::{capacity::{Y, Z}};\n",
        "protocol/tools.rs": "use super::X;\nuse super::super::capacity;\n",
        "peer/mod.rs": "use crate::protocol::{A, B};\nuse super::capacity::C;\n",
        "client/mod.rs": "use crate::{peer::P, transport::T, on_demand::O};\n",
        "transport.rs": "use crate::peer::P;\n", "task/mod.rs": "use crate::capacity::X;\n",
        "server/mod.rs": "/// [`S`](crate::Server)\nfn f() { crate::crate_info!() }\n",
        "server/session.rs": "use super::super::task::T;\nmod tests { use super::super::S; }\n",
    }
    cases = [  # (name, files added, one substring per expected report)
        ("clean crate passes", {}),
        ("upward import", {"protocol/meta.rs": "use crate::server::Server;\n"},
         "src/protocol/meta.rs:1: module protocol (layer 1) imports server (layer 6)"),
        ("cross-layer cycle", {"protocol/meta.rs": "use crate::server::S;\n",
                               "server/mod.rs": "use crate::protocol::A;\n"},
         "protocol (layer 1) imports server (layer 6)",
         "cycle across layers 1, 6: protocol -> server -> protocol"),
        ("intra-layer cycle", {"sampling.rs": "use crate::branch::B;\n",
                               "branch.rs": "fn f() { crate::sampling::s() }\n"},
         "cycle within layer 5: branch -> sampling -> branch"),
        ("grouped use crate::{...}", {"peer/mod.rs": "use crate::{protocol::A, host::{B, C}};"},
         "src/peer/mod.rs:1: module peer (layer 2) imports host (layer 7)"),
        ("super::super upward", {"transport/io.rs": "use super::S;\nuse super::super::context::C;"},
         "src/transport/io.rs:2: module transport (layer 3) imports context (layer 4)"),
        ("client imports context", {"client/mod.rs": "use crate::context::Ctx;\n"},
         "module client (layer 3) imports context (layer 4) — client may only"),
        ("unknown top-level module", {"widgets.rs": "use crate::protocol::A;\n"},
         "src/widgets.rs: module widgets is not in the layer table"),
        ("root re-export from a module", {"task/mod.rs": "use crate::Server;\n"},
         "src/task/mod.rs:1: module task references crate::Server, which is not a module"),
        ("host past the server's interface",
         {"host/http.rs": "use crate::server::{ServerHandle, table::answer};\n"
                          "fn f() { crate::server::admit(); crate::server::Registry::new() }\n"},
         "src/host/http.rs:1: module host names crate::server::table",
         "src/host/http.rs:2: module host names crate::server::Registry"),
        ("an error built outside protocol/error.rs",
         {"peer/mod.rs": "fn f() -> ErrorObject { ErrorObject::new(-32601, \"x\") }\n"
                         "fn g() -> ErrorObject {\n ErrorObject { code: 1, message: m, data: None }\n}\n"
                         "#[cfg(test)]\nmod tests { fn t() { ErrorObject::new(1, \"ok\"); } }\n",
          "protocol/error.rs": "pub fn new(c: i64) -> ErrorObject { ErrorObject { code: c } }\n"},
         "src/peer/mod.rs:1: builds an ErrorObject from a code",
         "src/peer/mod.rs:3: builds an ErrorObject from a code"),
    ]
    failed = 0
    for name, files, *expect in cases:
        with tempfile.TemporaryDirectory() as tmp:
            for rel, text in {**clean, **files}.items():
                (pathlib.Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
                (pathlib.Path(tmp) / rel).write_text(text)
            errors = check(tmp, "src")[0]
        ok = len(errors) == len(expect) and all(any(x in e for e in errors) for x in expect)
        failed += not ok
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": got {errors}"))
    print(f"self-test: {len(cases) - failed}/{len(cases)} passed")
    return 1 if failed else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(__doc__[__doc__.index("Usage"):].split("\nExit")[0], file=sys.stderr)
        return 2
    default = pathlib.Path(__file__).resolve().parents[1] / "runtime/src"
    errors, modules, count = check(argv[0] if argv else default,
                                   argv[0].rstrip("/") if argv else "runtime/src")
    for e in errors:
        print(e)
    verdict = f"{len(errors)} violation(s)" if errors else "ok"
    print(f"check_layers: {verdict}, {modules} modules, {count} references checked")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
