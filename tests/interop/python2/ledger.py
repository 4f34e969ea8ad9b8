"""Drives the tracksuit `ledger` example (SQLite) with the official Python `mcp` 2.x client in
MCP 2026-07-28 and 2025-11-25: `dedupe` deletes each duplicate once and the handoff tool
`transfer` moves the money once, in both eras (counted in the database), and the SDK
re-sending a final round 20 times at once gets the first result and changes nothing.

Usage:
  python ledger.py --url http://127.0.0.1:PORT/mcp
  python ledger.py --stdio CMD [ARGS...]
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.client.stdio import StdioServerParameters

import client as common
from client import LEGACY, MODERN, Recorder, check, step, text_of

DONE = "2 duplicate(s) deleted"
MOVED = "moved 120 from alice to bob"


class YesMan(Recorder):
    """Answers yes to every question."""

    async def on_elicit(self, ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicitations.append((ctx.request_id, {}))
        return types.ElicitResult(action="accept", content={"yes": True})


async def stats(client: Client) -> dict[str, Any]:
    return (await client.call_tool("ledger_stats", {})).structured_content or {}


async def resend(
    label: str, client: Client, tool: str, arguments: dict[str, Any], final: common.Round, answers: dict[str, Any], expected: str
) -> None:
    """Sends `tool`'s final round again 20 times at once through the SDK's session: the same
    result each time, and the ledger exactly as it was."""
    before = await stats(client)
    results: list[Any] = []

    async def again() -> None:
        results.append(
            await client.session.call_tool(
                tool, arguments, input_responses=answers, request_state=final.sent_state, allow_input_required=True
            )
        )

    async with anyio.create_task_group() as tg:
        for _ in range(20):
            tg.start_soon(again)
    same = [r for r in results if isinstance(r, types.CallToolResult) and text_of(r) == expected]
    odd = next((r for r in results if r not in same), None)
    check(f"{label}: 20 concurrent re-sends of the final round get the first result", len(same) == 20, f"{len(same)} {odd!r}")
    after = await stats(client)
    check(f"{label}: and change nothing", after == before, f"{before} → {after}")


async def call(label: str, client: Client, rec: YesMan, tool: str, arguments: dict[str, Any], expected: str, rounds: int) -> None:
    """Calls `tool`, checks its text and (2026-07-28) its rounds, and re-sends its final round."""
    rec.rounds.clear()
    sent: list[dict[str, Any]] = []
    inner = client.session.call_tool

    async def keep(name: str, args: Any = None, *a: Any, **kw: Any) -> Any:
        sent.append(dict(kw.get("input_responses") or {}))
        return await inner(name, args, *a, **kw)

    client.session.call_tool = keep  # type: ignore[method-assign]
    try:
        result = await client.call_tool(tool, arguments)
    finally:
        client.session.call_tool = inner  # type: ignore[method-assign]
    taken = list(rec.rounds)
    check(f"{label}: {tool} answers {expected!r}", text_of(result) == expected and not result.is_error, text_of(result))
    if client.protocol_version == MODERN:
        print(f"     {tool} rounds: {rec.describe_rounds()}", flush=True)
        check(f"{label}: {tool} took {rounds} rounds", len(taken) == rounds, len(taken))
        if taken:
            await resend(f"{label} {tool}", client, tool, arguments, taken[-1], sent[-1], expected)


async def ledger(server: Any, mode: str, label: str) -> None:
    rec = YesMan()
    async with common.connect(server, mode, rec) as client:
        want = LEGACY if mode == "legacy" else mode
        check(f"{label}: negotiated {want}", client.protocol_version == want, client.protocol_version)
        await client.call_tool("ledger_reset", {})
        rec.instrument(client)
        await call(label, client, rec, "dedupe", {}, DONE, 3)
        check(f"{label}: the user was asked twice", len(rec.elicitations) == 2, len(rec.elicitations))
        s = await stats(client)
        check(f"{label}: two DELETEs ran, three entries left", s.get("deletes") == 2 and s.get("entries") == 3, s)
        await call(label, client, rec, "transfer", {"from": "alice", "to": "bob", "amount": 120}, MOVED, 2)
        s = await stats(client)
        balances = s.get("balances", {})
        check(
            f"{label}: one transfer ran (after once)",
            s.get("transfers") == 1 and balances.get("alice") == 380 and balances.get("bob") == 220,
            s,
        )


async def main() -> int:
    argv = sys.argv[1:]
    if len(argv) == 2 and argv[0] == "--url":
        make = lambda: argv[1]  # noqa: E731
        where = "http"
    elif len(argv) >= 2 and argv[0] == "--stdio":
        make = lambda: StdioServerParameters(command=argv[1], args=argv[2:])  # noqa: E731
        where = "stdio"
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for mode in (MODERN, "legacy"):
        await step(f"{where} {mode}", ledger, make(), mode, f"ledger {where} {mode}")
    print(f"ledger {where}: {common.failures} failed", flush=True)
    return 1 if common.failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
