"""A FastMCP server (the Python `mcp` package) run over stdio as the remote behind
tracksuit's proxy (scripts/proxy.sh, examples/src/bin/proxy_peer.rs).

Tools: `add`, `slow` (progress), `hang` (reports progress once, then waits until cancelled; `cancellations` counts
the cancellations that reached it), `ask` (elicitation), `sample` (sampling), `pid` (the process id, after an optional nap), `grow` (adds
a tool and sends `notifications/tools/list_changed`), `fail` (raises: an
`isError` result). Prompts `greet` and `broken` (a JSON-RPC error), a resource and a
resource template.
"""

import os

import anyio
from pydantic import BaseModel

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import SamplingMessage, TextContent

mcp = FastMCP("fastmcp-remote")
cancelled = 0


class Name(BaseModel):
    name: str


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool()
async def slow(steps: int, ctx: Context) -> str:
    """Reports progress at each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"{steps} steps"


@mcp.tool()
async def hang(ctx: Context) -> str:
    """Reports progress once ("started"), then waits until cancelled."""
    global cancelled
    await ctx.report_progress(0, None, "started")
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        cancelled += 1
        raise
    return "never"


@mcp.tool()
async def pid(nap: float = 0) -> int:
    """This process's id, after napping `nap` seconds (so calls overlap)."""
    await anyio.sleep(nap)
    return os.getpid()


@mcp.tool()
def cancellations() -> int:
    """How many `hang` calls were cancelled."""
    return cancelled


@mcp.tool()
async def ask(ctx: Context) -> str:
    """Asks the user's name."""
    answer = await ctx.elicit(message="Your name?", schema=Name)
    if answer.action != "accept":
        return f"no name ({answer.action})"
    return f"hello {answer.data.name}"


@mcp.tool()
async def sample(ctx: Context) -> str:
    """Asks the client's model."""
    message = SamplingMessage(role="user", content=TextContent(type="text", text="hi"))
    result = await ctx.session.create_message(messages=[message], max_tokens=10)
    return f"model said {result.content.text}"


@mcp.tool()
async def grow(name: str, ctx: Context) -> str:
    """Adds a tool called `name` and says the list changed."""
    mcp.add_tool(lambda: "grown here", name=name, description="Added at run time.")
    await ctx.session.send_tool_list_changed()
    return f"grew {name}"


@mcp.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("bad input")


@mcp.prompt()
def greet(name: str) -> str:
    """Greets someone."""
    return f"Say hello to {name}"


@mcp.prompt()
def broken() -> str:
    """Always fails: FastMCP answers with a JSON-RPC error (code 0)."""
    raise ValueError("this prompt is broken")


@mcp.resource("memo://motd")
def motd() -> str:
    """The message of the day."""
    return "Welcome"


@mcp.resource("memo://notes/{id}")
def note(id: str) -> str:
    """A note."""
    return f"note {id}"


if __name__ == "__main__":
    mcp.run()
