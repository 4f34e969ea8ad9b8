"""The official Python `mcp` 2.x client (tests/interop/python2/requirements.txt) through the
round-robin HAProxy front of scripts/scale-out.sh: it drives a two-question call's rounds
itself (MCP 2026-07-28, sealed requestState), each round on whichever replica HAProxy picks,
and the call completes.

Usage: sdk.py --url http://127.0.0.1:PORT/mcp
Prints PASS/FAIL per check, then "N passed, M failed"; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import sys

import anyio
import mcp_types as types
from mcp import Client
from mcp.client import ClientRequestContext

results = {"passed": 0, "failed": 0}


def check(name: str, ok: bool, detail: object = "") -> None:
    results["passed" if ok else "failed"] += 1
    print(f"{'PASS' if ok else 'FAIL'} {name}{'' if ok else f': {detail}'}", flush=True)


async def run(url: str) -> None:
    words = iter(["alpha", "beta"])
    asked: list[str] = []

    async def on_elicit(ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(getattr(params, "message", "?"))
        return types.ElicitResult(action="accept", content={"word": next(words, "?")})

    client = Client(
        url,
        mode="2026-07-28",
        client_info=types.Implementation(name="tracksuit-scale-py2", version="0.1.0"),
        elicitation_callback=on_elicit,
    )
    finishers = set()
    with anyio.fail_after(60):
        async with client:
            for _ in range(3):
                words = iter(["alpha", "beta"])
                asked.clear()
                result = await client.call_tool("two_words", {})
                text = result.content[0].text if result.content else ""
                check("sdk: the two-question call completes through the balancer", text.startswith("alpha beta"), text)
                check("sdk: both questions reached the client", asked == ["First word?", "Second word?"], asked)
                finishers.add(text.rsplit("finished on ", 1)[-1].rstrip(")"))
    check("sdk: calls finished on different replicas", len(finishers) >= 2, finishers)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    args = ap.parse_args()
    try:
        anyio.run(run, args.url)
    except Exception as e:  # a raise is a failed check, not a crash
        check(f"sdk: raised {type(e).__name__}", False, e)
    print(f"{results['passed']} passed, {results['failed']} failed", flush=True)
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
