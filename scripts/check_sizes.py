#!/usr/bin/env python3
"""Size limits of the tracksuit crate (runtime/src): no file over 800 lines, and no function
outside test code over 80 lines (signature to closing brace, as rustfmt lays it out).

Test code is a file named `tests.rs` or `tests_*.rs`, and an inline `#[cfg(test)] mod .. {`
block at column 0 with everything after it (the tests at a file's end). Exit status: 0 within the
limits, 1 otherwise.

Usage: python3 scripts/check_sizes.py [ROOT]      (ROOT defaults to runtime/src)
"""
import pathlib
import re
import sys

MAX_FILE, MAX_FN = 800, 80
FN = re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
                r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)")


def long_functions(lines):
    """(name, first line, length) of each function over the limit."""
    out = []
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        indent = m.group(1)
        j = i
        # A declaration without a body (a trait's) ends with `;` before any `{`.
        while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
            j += 1
        if j >= len(lines) or "{" not in lines[j] or lines[j].rstrip().endswith("}"):
            continue
        end = next((k for k in range(j + 1, len(lines)) if lines[k].rstrip() == indent + "}"),
                   None)
        if end is not None and end - i + 1 > MAX_FN:
            out.append((m.group(2), i + 1, end - i + 1))
    return out


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "runtime/src")
    problems = []
    for path in sorted(root.rglob("*.rs")):
        lines = path.read_text().splitlines()
        if len(lines) > MAX_FILE:
            problems.append(f"{path}: {len(lines)} lines (over {MAX_FILE})")
        if path.name == "tests.rs" or path.name.startswith("tests_"):
            continue
        cut = next((k for k, l in enumerate(lines) if l.startswith("#[cfg(test)]")
                    and k + 1 < len(lines) and lines[k + 1].rstrip().endswith("{")), len(lines))
        for name, first, length in long_functions(lines[:cut]):
            problems.append(f"{path}:{first}: fn {name} is {length} lines (over {MAX_FN})")
    for p in problems:
        print(p)
    print(f"check_sizes: {'ok' if not problems else f'{len(problems)} over the limits'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
