"""An MCP server built on the official Python SDK's MCPServer (FastMCP before mcp 2), not on
tooltable: what golden-sessions/tests/python_sdk.rs records and replays with the golden command.

    python server.py             serves stdio
    python server.py http PORT   serves Streamable HTTP at http://127.0.0.1:PORT/mcp

GREET_DESCRIPTION, when set, is the greet tool's description: the server after a change.
"""

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-greeter", version="1.0.0", instructions="Greets people and adds numbers.")


@server.tool(description=os.environ.get("GREET_DESCRIPTION", "Greets someone by name."))
def greet(name: str) -> str:
    return f"Hello, {name}!"


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
