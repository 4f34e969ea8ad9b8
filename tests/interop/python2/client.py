"""Drives the tracksuit conformance example with the official Python `mcp` 2.x client
speaking MCP 2026-07-28 (stateless, multi round-trip requests), then with the same package
speaking 2025-11-25 (initialize handshake), and checks that the same tool code answers both.

Usage:
  python client.py --url http://127.0.0.1:PORT/mcp
  python client.py --stdio CMD [ARGS...]      (everything after --stdio is the server command)

Prints PASS/FAIL per check; exits 1 if any check failed or a step raised.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.client.stdio import StdioServerParameters

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TRIP_TEXT = "2 days in Lisbon: Belem, Alfama; booked=true"
INVALID_PLAN = "I think Lisbon is nice"
VALID_PLAN = json.dumps({"city": "Lisbon", "sights": ["Belem", "Alfama"]})
STEP_TIMEOUT = 60  # seconds per connection; the SDK has no read timeout by default

failures = 0
known = 0


def check(name: str, ok: bool, detail: Any = "", known_failure: str | None = None) -> bool:
    """Records one assertion. `known_failure` (a reason) marks a server bug that is reported,
    not counted."""
    global failures, known
    detail = f" — {detail}" if detail != "" else ""
    if ok:
        print(f"PASS {name}{detail}", flush=True)
    elif known_failure:
        known += 1
        print(f"KNOWN FAILURE {name}{detail} ({known_failure})", flush=True)
    else:
        failures += 1
        print(f"FAIL {name}{detail}", flush=True)
    return ok


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def leaves(e: BaseException) -> list[BaseException]:
    """The SDK's anyio task groups wrap errors in (nested) ExceptionGroups."""
    out: list[BaseException] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, BaseExceptionGroup):
            stack.extend(x.exceptions)
        else:
            out.append(x)
    return out


@dataclass
class Round:
    """One `tools/call` request the SDK's MRTR driver sent, and what came back."""

    sent_responses: list[str]  # keys of inputResponses carried by this request
    sent_state: str | None
    result_type: str  # "input_required" or "complete"
    asked: list[str] = field(default_factory=list)  # keys of inputRequests in the answer
    asked_methods: list[str] = field(default_factory=list)
    state: str | None = None


class Recorder:
    """The client's handlers (elicitation, sampling) plus a log of what reached them."""

    def __init__(self) -> None:
        self.elicitations: list[tuple[Any, dict[str, Any]]] = []  # (request key or id, properties)
        self.sampling: list[types.CreateMessageRequestParams] = []
        self.rounds: list[Round] = []

    async def on_elicit(self, ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        props = params.requested_schema.get("properties", {}) if isinstance(params, types.ElicitRequestFormParams) else {}
        self.elicitations.append((ctx.request_id, props))
        if "city" in props:  # trip_planner's keyed pick_destination
            return types.ElicitResult(action="accept", content={"city": "Lisbon"})
        if "ok" in props:  # trip_planner's Confirm form
            return types.ElicitResult(action="accept", content={"ok": True})
        if "name" in props:  # test_input_required_result_elicitation's user_name
            return types.ElicitResult(action="accept", content={"name": "Ada"})
        return types.ElicitResult(action="decline")

    async def on_sample(
        self, ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.sampling.append(params)
        # First answer is not JSON (the server must retry with feedback), then a valid plan.
        text = INVALID_PLAN if len(self.sampling) == 1 else VALID_PLAN
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=text),
            model="scripted-model",
            stop_reason="endTurn",
        )

    def instrument(self, client: Client) -> None:
        """Logs every `tools/call` round `Client.call_tool`'s MRTR driver sends: it goes
        through `client.session.call_tool(..., allow_input_required=True)`."""
        session = client.session
        inner = session.call_tool

        async def logged(name: str, arguments: Any = None, *a: Any, **kw: Any) -> Any:
            responses = kw.get("input_responses")
            r = Round(sorted(responses or {}), kw.get("request_state"), "?")
            self.rounds.append(r)
            result = await inner(name, arguments, *a, **kw)
            if isinstance(result, types.InputRequiredResult):
                r.result_type = "input_required"
                r.asked = sorted(result.input_requests or {})
                r.asked_methods = [result.input_requests[k].method for k in r.asked]
                r.state = result.request_state
            else:
                r.result_type = "complete"
            return result

        session.call_tool = logged  # type: ignore[method-assign]

    def describe_rounds(self) -> str:
        return "; ".join(
            f"#{i + 1} sent{r.sent_responses}→{r.result_type}{r.asked_methods and dict(zip(r.asked, r.asked_methods)) or ''}"
            for i, r in enumerate(self.rounds)
        )


def connect(server: Any, mode: str, rec: Recorder) -> Client:
    return Client(
        server,
        mode=mode,
        client_info=types.Implementation(name="tracksuit-interop-py2", version="0.1.0"),
        elicitation_callback=rec.on_elicit,
        sampling_callback=rec.on_sample,
    )


async def phase_counts(client: Client) -> dict[str, int]:
    return json.loads(text_of(await client.call_tool("phase_counts", {})))


async def trip(label: str, client: Client, rec: Recorder, modern: bool) -> str:
    """Calls trip_planner {days:2} and checks everything but the comparison between eras."""
    before = await phase_counts(client)
    rec.rounds.clear()
    started = time.monotonic()
    result = await client.call_tool("trip_planner", {"days": 2})
    took = time.monotonic() - started
    text = text_of(result)
    check(f"{label}: trip_planner result text", text == TRIP_TEXT and not result.is_error, repr(text))
    check(f"{label}: sampling handler called exactly twice", len(rec.sampling) == 2, len(rec.sampling))
    if len(rec.sampling) >= 2:
        n1, n2 = len(rec.sampling[0].messages), len(rec.sampling[1].messages)
        check(f"{label}: second sampling request carries the feedback (more messages)", n2 > n1, f"{n1} → {n2} messages")
        last = rec.sampling[1].messages[-1].content
        blocks = last if isinstance(last, list) else [last]
        feedback = "".join(b.text if isinstance(b, types.TextContent) else repr(b) for b in blocks)
        print(f"     feedback the model saw: {feedback!r}", flush=True)
    props = [sorted(p) for _, p in rec.elicitations]
    check(f"{label}: elicitations pick_destination then Confirm", props == [["city"], ["ok"]], props)
    if modern:
        print(f"     rounds: {rec.describe_rounds()}", flush=True)
        check(f"{label}: at least 3 rounds (tools/call requests)", len(rec.rounds) >= 3, len(rec.rounds))
        check(
            f"{label}: round 1 asks the keyed elicitation pick_destination",
            bool(rec.rounds) and "pick_destination" in rec.rounds[0].asked,
            rec.rounds[0].asked if rec.rounds else None,
        )
        echoed = all(
            later.sent_state == earlier.state and later.sent_responses == earlier.asked
            for earlier, later in zip(rec.rounds, rec.rounds[1:])
        )
        check(f"{label}: every retry echoes requestState and answers every key asked", echoed)
        check(
            f"{label}: only the last round completes",
            [r.result_type for r in rec.rounds] == ["input_required"] * (len(rec.rounds) - 1) + ["complete"],
            [r.result_type for r in rec.rounds],
        )
    after = await phase_counts(client)
    check(
        f"{label}: before/after phases ran exactly once",
        after == {"before": before["before"] + 1, "after": before["after"] + 1},
        f"{before} → {after}",
    )
    print(f"     trip_planner took {took * 1000:.0f} ms", flush=True)
    return text


async def modern(server: Any, label: str) -> str | None:
    rec = Recorder()
    async with connect(server, MODERN, rec) as client:
        check(f"{label}: negotiated protocol version (pinned)", client.protocol_version == MODERN, client.protocol_version)
        rec.instrument(client)

        tools = {t.name for t in (await client.list_tools()).tools}
        check(f"{label}: tools/list has trip_planner", "trip_planner" in tools, f"{len(tools)} tools")

        simple = await client.call_tool("test_simple_text", {})
        check(f"{label}: test_simple_text", text_of(simple) == "This is a simple text response for testing.", text_of(simple))

        rec.rounds.clear()
        hello = await client.call_tool("test_input_required_result_elicitation", {})
        check(f"{label}: keyed elicitation answered", text_of(hello) == "Hello, Ada!", text_of(hello))
        check(
            f"{label}: the elicitation came under the key user_name",
            len(rec.rounds) == 2 and rec.rounds[0].asked == ["user_name"] and rec.rounds[1].sent_responses == ["user_name"],
            rec.describe_rounds(),
        )
        rec.elicitations.clear()

        return await trip(label, client, rec, modern=True)


async def auto(server: Any, label: str) -> None:
    """`mode="auto"` (the SDK default) probes server/discover and silently falls back to
    initialize on anything it does not take as modern: it must land on 2026-07-28."""
    rec = Recorder()
    async with connect(server, "auto", rec) as client:
        info = client.session.server_info
        check(
            f"{label}: negotiated protocol version (auto, via server/discover)",
            client.protocol_version == MODERN,
            f"{client.protocol_version}, server {info.name if info else None}",
        )


async def legacy(server: Any, label: str) -> str | None:
    rec = Recorder()
    async with connect(server, "legacy", rec) as client:
        check(f"{label}: negotiated protocol version (initialize)", client.protocol_version == LEGACY, client.protocol_version)
        return await trip(label, client, rec, modern=False)


async def step(name: str, fn: Any, *args: Any) -> Any:
    try:
        with anyio.fail_after(STEP_TIMEOUT):
            return await fn(*args)
    except BaseException as e:  # noqa: BLE001 - any error is a failed step
        for leaf in leaves(e):
            err = getattr(leaf, "error", None)
            code = f" (code {err.code})" if err is not None and hasattr(err, "code") else ""
            check(f"{name}: completed without error", False, f"{type(leaf).__name__}{code}: {leaf}")
        return None


async def main() -> int:
    argv = sys.argv[1:]
    if len(argv) == 2 and argv[0] == "--url":
        server: Any = argv[1]
        where = "http"
        make = lambda: server  # noqa: E731
    elif len(argv) >= 2 and argv[0] == "--stdio":
        where = "stdio"
        make = lambda: StdioServerParameters(command=argv[1], args=argv[2:])  # noqa: E731
    else:
        print(__doc__, file=sys.stderr)
        return 2

    started = time.monotonic()
    modern_text = await step(f"{where} {MODERN}", modern, make(), f"{where} {MODERN}")
    await step(f"{where} auto", auto, make(), f"{where} auto")
    legacy_text = await step(f"{where} {LEGACY}", legacy, make(), f"{where} {LEGACY}")
    check(
        f"{where}: 2025-11-25 and 2026-07-28 give the same trip_planner text",
        modern_text is not None and modern_text == legacy_text,
        f"{modern_text!r} vs {legacy_text!r}",
    )
    print(
        f"{where}: {failures} failed, {known} known failure(s), {time.monotonic() - started:.1f} s",
        flush=True,
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
