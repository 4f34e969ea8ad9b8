"""Drives the tracksuit `ledger` example (SQLite) with the official Python `mcp` 2.x client in
MCP 2026-07-28 and 2025-11-25: `dedupe` deletes each duplicate once in both eras (counted in
the database), and the SDK re-sending the final round 20 times at once gets the first result
and deletes nothing more.

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


class YesMan(Recorder):
    """Answers yes to every question."""

    async def on_elicit(self, ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicitations.append((ctx.request_id, {}))
        return types.ElicitResult(action="accept", content={"yes": True})


async def stats(client: Client) -> dict[str, Any]:
    return (await client.call_tool("ledger_stats", {})).structured_content or {}


async def resend(label: str, client: Client, final: common.Round, answers: dict[str, Any]) -> None:
    """Sends the final round again 20 times at once through the SDK's session."""
    results: list[Any] = []

    async def again() -> None:
        results.append(
            await client.session.call_tool(
                "dedupe", {}, input_responses=answers, request_state=final.sent_state, allow_input_required=True
            )
        )

    async with anyio.create_task_group() as tg:
        for _ in range(20):
            tg.start_soon(again)
    same = [r for r in results if isinstance(r, types.CallToolResult) and text_of(r) == DONE]
    odd = next((r for r in results if r not in same), None)
    check(f"{label}: 20 concurrent re-sends of the final round get the first result", len(same) == 20, f"{len(same)} {odd!r}")
    s = await stats(client)
    check(f"{label}: and delete nothing more", s.get("deletes") == 2 and s.get("entries") == 3, s)


async def dedupe(server: Any, mode: str, label: str) -> None:
    rec = YesMan()
    async with common.connect(server, mode, rec) as client:
        want = LEGACY if mode == "legacy" else mode
        check(f"{label}: negotiated {want}", client.protocol_version == want, client.protocol_version)
        await client.call_tool("ledger_reset", {})
        rec.instrument(client)
        sent: list[dict[str, Any]] = []
        inner = client.session.call_tool

        async def keep(name: str, arguments: Any = None, *a: Any, **kw: Any) -> Any:
            sent.append(dict(kw.get("input_responses") or {}))
            return await inner(name, arguments, *a, **kw)

        client.session.call_tool = keep  # type: ignore[method-assign]
        result = await client.call_tool("dedupe", {})
        client.session.call_tool = inner  # type: ignore[method-assign]
        rounds = list(rec.rounds)
        check(f"{label}: dedupe deletes both duplicates", text_of(result) == DONE and not result.is_error, text_of(result))
        check(f"{label}: the user was asked twice", len(rec.elicitations) == 2, len(rec.elicitations))
        s = await stats(client)
        check(f"{label}: two DELETEs ran, three entries left", s.get("deletes") == 2 and s.get("entries") == 3, s)
        if mode == MODERN:
            print(f"     rounds: {rec.describe_rounds()}", flush=True)
            check(f"{label}: three rounds", len(rounds) == 3, len(rounds))
            if rounds:
                await resend(label, client, rounds[-1], sent[-1])


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
        await step(f"{where} {mode}", dedupe, make(), mode, f"ledger {where} {mode}")
    print(f"ledger {where}: {common.failures} failed", flush=True)
    return 1 if common.failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
