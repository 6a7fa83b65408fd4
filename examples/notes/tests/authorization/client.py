"""A machine client built on the official Python SDK (mcp 2.x): it knows only the server's URL
and its own client credentials, and finds everything else through the SDK's OAuth discovery
(the server's 401 challenge, its protected resource metadata, the authorization server's
metadata), gets its token with the client_credentials grant (ClientCredentialsOAuthProvider)
and calls tools with it. The SDK chooses the scopes to ask for as the specification says (those
of the challenge, else every scope the resource metadata lists), whatever the provider was
configured with, so the client must be allowed every scope the server lists.

    python client.py MODE URL ISSUER CLIENT_ID CLIENT_SECRET [TOOL JSON]...

MODE is `legacy` (the initialize handshake, revision 2025-11-25) or `auto` (revision
2026-07-28: server/discover, no handshake). Each TOOL is called with its JSON arguments, in
order; each call prints one line of JSON, {"tool", "result"}. A refusal, at connecting or at a
call, exits non-zero.
"""

import json
import sys

import anyio
import httpx2 as httpx  # the SDK's own HTTP client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class Memory:
    """Tokens and client information for this run only."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


async def main() -> None:
    mode, url, issuer, client_id, client_secret, *calls = sys.argv[1:]
    provider = ClientCredentialsOAuthProvider(
        server_url=url, storage=Memory(), client_id=client_id, client_secret=client_secret, issuer=issuer
    )
    server = streamable_http_client(url, http_client=httpx.AsyncClient(auth=provider))
    async with Client(server, mode=mode, cache=None) as client:
        for tool, arguments in zip(calls[::2], calls[1::2]):
            result = await client.call_tool(tool, json.loads(arguments))
            print(json.dumps({"tool": tool, "result": result.model_dump(mode="json", exclude_none=True)}), flush=True)


anyio.run(main)
