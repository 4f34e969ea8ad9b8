"""Drives a tracksuit server with the official Python `mcp` client over stdio and
Streamable HTTP: tools, sampling, elicitation, progress, logging and cancellation.

Usage: python client.py <path-to-conformance-binary>
"""

import socket
import subprocess
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.context import RequestContext

BINARY = sys.argv[1] if len(sys.argv) > 1 else ""
failures = 0


def check(name: str, ok: bool, detail: str = "") -> None:
    global failures
    print(f"{'PASS' if ok else 'FAIL'} {name}{' — ' + detail if detail else ''}", flush=True)
    if not ok:
        failures += 1


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Recorder:
    def __init__(self) -> None:
        self.sampling: list[types.CreateMessageRequestParams] = []
        self.logs: list[types.LoggingMessageNotificationParams] = []

    async def sampling_callback(
        self, context: RequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.sampling.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="scripted model reply"),
            model="scripted-model",
            stopReason="endTurn",
        )

    async def elicitation_callback(
        self, context: RequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"username": "pythonista", "email": "py@example.com"})

    async def logging_callback(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)


async def exercise(label: str, session: ClientSession, rec: Recorder) -> None:
    init = await session.initialize()
    check(f"{label}: initialize", init.serverInfo.name == "tracksuit-conformance", init.protocolVersion)
    tools = await session.list_tools()
    names = {t.name for t in tools.tools}
    for expected in ("test_simple_text", "test_sampling", "test_elicitation", "wait_for_cancel"):
        check(f"{label}: tools/list has {expected}", expected in names)

    simple = await session.call_tool("test_simple_text", {})
    check(f"{label}: simple text", text_of(simple) == "This is a simple text response for testing.", text_of(simple))

    sampled = await session.call_tool("test_sampling", {"prompt": "Name a colour"})
    last = rec.sampling[-1] if rec.sampling else None
    sent = last.messages[0].content.text if last and isinstance(last.messages[0].content, types.TextContent) else None
    check(f"{label}: sampling request reached the client", sent == "Name a colour" and last is not None and last.maxTokens == 100)
    check(f"{label}: sampling reply reached the tool", text_of(sampled) == "LLM response: scripted model reply", text_of(sampled))

    elicited = await session.call_tool("test_elicitation", {"message": "Who are you?"})
    check(f"{label}: elicitation accepted", "action=accept" in text_of(elicited) and "pythonista" in text_of(elicited), text_of(elicited))

    progress: list[tuple[float, float | None]] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append((p, total))

    await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    values = [p for p, _ in progress]
    check(
        f"{label}: progress notifications",
        len(values) == 3 and values == sorted(values) and all(t == 100 for _, t in progress),
        str(values),
    )

    before = len(rec.logs)
    await session.call_tool("test_tool_with_logging", {})
    # Notifications are dispatched on their own; give the last one a moment.
    for _ in range(20):
        if len(rec.logs) - before >= 3:
            break
        await anyio.sleep(0.05)
    got = [l.data for l in rec.logs[before:]]
    check(f"{label}: log notifications", got == ["Tool execution started", "Tool processing data", "Tool execution completed"], str(got))

    count_before = int(text_of(await session.call_tool("cancelled_count", {})))
    request_id = session._request_id  # the id the next request will carry
    async with anyio.create_task_group() as tg:

        async def slow() -> None:
            await session.call_tool("wait_for_cancel", {})

        tg.start_soon(slow)
        await anyio.sleep(0.3)
        await session.send_notification(
            types.ClientNotification(
                types.CancelledNotification(
                    method="notifications/cancelled",
                    params=types.CancelledNotificationParams(requestId=request_id, reason="interop test cancels"),
                )
            )
        )
        tg.cancel_scope.cancel()
    count_after = count_before
    for _ in range(50):
        count_after = int(text_of(await session.call_tool("cancelled_count", {})))
        if count_after != count_before:
            break
        await anyio.sleep(0.05)
    check(f"{label}: server dropped the cancelled call", count_after == count_before + 1, f"{count_before} -> {count_after}")
    again = await session.call_tool("test_simple_text", {})
    check(f"{label}: still serving after cancel", bool(text_of(again)))


def session_for(read, write, rec: Recorder) -> ClientSession:
    return ClientSession(
        read,
        write,
        sampling_callback=rec.sampling_callback,
        elicitation_callback=rec.elicitation_callback,
        logging_callback=rec.logging_callback,
    )


async def over_stdio() -> None:
    rec = Recorder()
    params = StdioServerParameters(command=BINARY, args=["--stdio"])
    async with stdio_client(params) as (read, write):
        async with session_for(read, write, rec) as session:
            await exercise("stdio", session, rec)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def over_http() -> None:
    port = free_port()
    server = subprocess.Popen([BINARY, "--port", str(port)])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        rec = Recorder()
        async with streamablehttp_client(f"http://127.0.0.1:{port}/mcp") as (read, write, get_session_id):
            async with session_for(read, write, rec) as session:
                await exercise("http", session, rec)
                check("http: session id assigned", bool(get_session_id()))
    finally:
        server.kill()
        server.wait()


async def main() -> None:
    if not BINARY:
        print("usage: client.py <conformance-binary>", file=sys.stderr)
        sys.exit(2)
    for run in (over_stdio, over_http):
        try:
            with anyio.fail_after(60):
                await run()
        except Exception as e:  # noqa: BLE001 - report and go on to the next transport
            check(f"{run.__name__}: no unexpected exception", False, repr(e))
    print("python interop: all checks passed" if failures == 0 else f"python interop: {failures} check(s) failed")
    sys.exit(0 if failures == 0 else 1)


anyio.run(main)
