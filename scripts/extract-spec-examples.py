#!/usr/bin/env python3
"""Extracts the JSON-RPC examples from the MCP spec pages into spec/<rev>/examples/.

Each example becomes `<page>-<n>.json` holding {"method": <method it belongs to>, "message": ...};
a response is attributed to the request shown before it on the same page.
Usage: scripts/extract-spec-examples.py <spec-dir> <out-dir>
"""
import json
import pathlib
import re
import sys

spec, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
count = 0
for page in sorted(spec.rglob("*.mdx")):
    last_method = None
    n = 0
    for block in re.findall(r"```json[^\n]*\n(.*?)```", page.read_text(), re.S):
        try:
            msg = json.loads(block)
        except json.JSONDecodeError:
            continue
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            continue
        if "method" in msg:
            method = msg["method"]
            if "id" in msg:
                last_method = method
        elif last_method is not None:
            method = last_method
        else:
            continue
        n += 1
        name = f"{page.stem}-{n}.json"
        (out / name).write_text(json.dumps({"page": str(page.relative_to(spec)), "method": method, "message": msg}, indent=2) + "\n")
        count += 1
print(f"{count} examples written to {out}")
