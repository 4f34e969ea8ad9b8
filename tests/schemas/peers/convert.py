"""Real consumers of tool schemas against a tracksuit server over stdio:

- the OpenAI Agents SDK converts every tool with its MCP utility in strict mode; the SDK
  falls back to a non-strict tool silently when `ensure_strict_json_schema` raises, so each
  resulting FunctionTool must say `strict_json_schema == True`;
- LangChain's MCP adapters load every tool, and each tool's `args` must be readable.

Both must see as many tools as `tools/list` has. No model is called.

usage: python convert.py <server binary> [label]   (the binary is started with --stdio)
"""

import asyncio
import os
import sys

from agents.mcp import MCPServerStdio
from agents.mcp.util import MCPUtil
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BINARY = sys.argv[1]
LABEL = sys.argv[2] if len(sys.argv) > 2 else "default profile"
# The server inherits this environment (TRACKSUIT_SCHEMA_PROFILE); the SDKs' stdio clients
# pass only a few variables unless told.
ENV = dict(os.environ)
failures: list[str] = []
# The conformance suite's JSON Schema 2020-12 test (SEP-1613) must reach clients of the
# default profile as written: `allOf` / `if` / `then` / `else` at its root, which strict mode
# cannot take. Clients of the openai-strict profile get it without them, and convert it.
NOT_STRICT_BY_DESIGN = {"default profile": {"json_schema_2020_12_tool"}}


def check(name: str, ok: bool, detail: str = "") -> None:
    print(f"{'PASS' if ok else 'FAIL'} [{LABEL}] {name}{' — ' + detail if detail else ''}", flush=True)
    if not ok:
        failures.append(name)


async def listed_count() -> int:
    """How many tools `tools/list` has, every page."""
    params = StdioServerParameters(command=BINARY, args=["--stdio"], env=ENV)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        count, cursor = 0, None
        while True:
            page = await session.list_tools(cursor=cursor)
            count += len(page.tools)
            cursor = page.nextCursor
            if not cursor:
                return count


async def openai_agents(expected: int) -> None:
    params = {"command": BINARY, "args": ["--stdio"], "env": ENV}
    async with MCPServerStdio(params=params, name="tracksuit", cache_tools_list=False) as server:
        tools = await server.list_tools()
        check("openai-agents: every tool listed", len(tools) == expected, f"{len(tools)} of {expected}")
        exempt = NOT_STRICT_BY_DESIGN.get(LABEL, set())
        not_strict = []
        for tool in tools:
            converted = MCPUtil.to_function_tool(tool, server, True)
            if converted.strict_json_schema is not True:
                not_strict.append(tool.name)
        unexpected = [n for n in not_strict if n not in exempt]
        check(
            "openai-agents: every tool converted in strict mode",
            not unexpected,
            f"{len(tools) - len(not_strict)}/{len(tools)} strict"
            + (f"; fell back (by design): {sorted(exempt & set(not_strict))}" if exempt & set(not_strict) else "")
            + (f"; fell back: {unexpected}" if unexpected else ""),
        )


async def langchain(expected: int) -> None:
    params = StdioServerParameters(command=BINARY, args=["--stdio"], env=ENV)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await load_mcp_tools(session)
        check("langchain: every tool loaded", len(tools) == expected, f"{len(tools)} of {expected}")
        unreadable = []
        for tool in tools:
            try:
                args = tool.args
                if not isinstance(args, dict):
                    unreadable.append(f"{tool.name}: args is {type(args).__name__}")
            except Exception as e:  # noqa: BLE001 - any failure to read args is the finding
                unreadable.append(f"{tool.name}: {e!r}")
        check("langchain: every tool's args read", not unreadable, "; ".join(unreadable))


async def main() -> None:
    expected = await listed_count()
    check("tools/list is not empty", expected > 0, f"{expected} tools")
    await openai_agents(expected)
    await langchain(expected)


asyncio.run(main())
if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
