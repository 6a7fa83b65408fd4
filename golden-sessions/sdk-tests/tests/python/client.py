"""A host built on the official Python SDK's client: connects to a server, lists its tools and
calls some, as a host would; golden-sessions/tests/python_sdk.rs records what it says through
the golden command, and so were the sessions of golden-sessions/<server>/ named from_python_sdk.

    python client.py MODE stdio [--name NAME] [--call TOOL=JSON]... -- COMMAND ARGS...
    python client.py MODE http [--name NAME] [--bearer TOKEN] [--call TOOL=JSON]... URL

MODE is `legacy` (the initialize handshake, revision 2025-11-25) or `auto` (revision
2026-07-28: server/discover, no handshake). Each `--call` calls a tool with those arguments, in
order; without one, `greet` (NAME) and `add` (2 and 40) are called if listed. Prints each
call's result as JSON.
"""

import argparse
import json
import os
import sys

import anyio
from mcp import StdioServerParameters
from mcp.client.client import Client


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["legacy", "auto"])
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("--name", default="Ada")
    parser.add_argument("--bearer")
    parser.add_argument("--call", action="append", default=[], metavar="TOOL=JSON")
    parser.add_argument("url", nargs="?")
    # Everything after the first `--` is the server's command line, its own `--` included.
    own, command = (sys.argv[1:sys.argv.index("--")], sys.argv[sys.argv.index("--") + 1 :]) if "--" in sys.argv else (sys.argv[1:], [])
    args = parser.parse_intermixed_args(own)
    if args.transport == "stdio":
        # The server gets this environment, as a host passes a server the `env` it is configured with.
        server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    else:
        server = args.url
        if args.bearer:
            import httpx2 as httpx  # the SDK's own HTTP client

            from mcp.client.streamable_http import streamable_http_client

            server = streamable_http_client(server, http_client=httpx.AsyncClient(headers={"Authorization": f"Bearer {args.bearer}"}))
    async with Client(server, mode=args.mode, cache=None) as client:
        tools = await client.list_tools()
        names = [tool.name for tool in tools.tools]
        calls = [(call.split("=", 1)[0], json.loads(call.split("=", 1)[1])) for call in args.call]
        for name, arguments in calls or [("greet", {"name": args.name}), ("add", {"a": 2, "b": 40})]:
            if name in names:
                result = await client.call_tool(name, arguments)
                print(json.dumps({"tool": name, "result": result.model_dump(mode="json", exclude_none=True)}))


anyio.run(main)
