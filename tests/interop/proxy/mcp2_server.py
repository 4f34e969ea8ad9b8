"""An MCPServer (the Python `mcp` 2.x package) run over stdio as a remote that speaks MCP
2026-07-28 behind tracksuit's proxy (scripts/proxy.sh, examples/src/bin/proxy_peer.rs).

Its questions are resolvers (`Resolve`): on 2026-07-28 the SDK answers `input_required`
and resumes when the client retries with `inputResponses` / `requestState`.
Tools: `add`, `ask` (elicitation), `sample` (sampling), `slow` (progress).
"""

from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve, Sample
from mcp_types import CreateMessageResult, SamplingMessage, TextContent

mcp = MCPServer("mcp2-remote")


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("Your name?", Name)


def ask_model() -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text="hi"))
    return Sample([message], max_tokens=10)


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool()
def ask(name: Annotated[Name, Resolve(ask_name)]) -> str:
    """Asks the user's name."""
    return f"hello {name.name}"


@mcp.tool()
def sample(answer: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Asks the client's model."""
    return f"model said {answer.content.text}"


@mcp.tool()
async def slow(steps: int, ctx: Context) -> str:
    """Reports progress at each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"{steps} steps"


if __name__ == "__main__":
    mcp.run()
