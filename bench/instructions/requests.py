#!/usr/bin/env python3
"""The requests bench/instructions.sh counts: `tools/call` add_numbers {"a":1,"b":2} as the SDKs
write it, over stdio (a file of messages for a server's stdin) and over HTTP (sent one after the
other on one keep-alive connection, every answer checked).

  requests.py stdio ORDER N            # prints the stdio input: initialize, initialized, N calls
  requests.py http KIND ORDER PORT N   # sends N requests of KIND to 127.0.0.1:PORT

ORDER: `python` (jsonrpc and id first, as the Python SDK writes a request) or `typescript` (method
and params first, jsonrpc and id last: the TypeScript SDK, which Claude Code, the Inspector,
VS Code, Cursor and Gemini CLI embed). KIND: `session` (2025-11-25, after initialize), `stateless`
(2026-07-28, empty capabilities), `stateless-sdk` (2026-07-28 with the TypeScript SDK v2's
`_meta`: clientInfo and capabilities), `session-named` (the session's call with the `Mcp-Name`
header a 2026-07-28 call sends too: as many MCP headers as `stateless`, so the two differ in what the
server does, not in what hyper reads), `rest` (GET /add), `floor` (the session's POST, to a floor
that answers any POST alike).
"""

import socket
import sys

ARGUMENTS = '{"name":"add_numbers","arguments":{"a":1,"b":2}%s}'
EMPTY_META = (
    ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientCapabilities":{}}'
)
SDK_META = (
    ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"mcp-check-ts","version":"1.0.0"},'
    '"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":false}}}'
)
INITIALIZE = (
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s",'
    '"capabilities":{},"clientInfo":{"name":"instructions","version":"1"}}}'
)
INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def call(order, request_id, meta=""):
    params = ARGUMENTS % meta
    if order == "python":
        return '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}' % (request_id, params)
    if order == "typescript":
        return '{"method":"tools/call","params":%s,"jsonrpc":"2.0","id":%d}' % (params, request_id)
    sys.exit(f"unknown order {order!r}: python or typescript")


class Connection:
    """One keep-alive HTTP/1.1 connection; answers read by Content-Length or chunks."""

    def __init__(self, port):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def _fill(self, until):
        while not until():
            chunk = self.sock.recv(65536)
            if not chunk:
                sys.exit("the server closed the connection")
            self.buffer += chunk

    def _take(self, n):
        self._fill(lambda: len(self.buffer) >= n)
        taken, self.buffer = self.buffer[:n], self.buffer[n:]
        return taken

    def _line(self):
        self._fill(lambda: b"\r\n" in self.buffer)
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def send(self, method, path, body=None, headers=()):
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers)
        data = body.encode() if body is not None else b""
        if body is not None:
            head += f"Content-Length: {len(data)}\r\n"
        self.sock.sendall(head.encode() + b"\r\n" + data)
        status = self._line().decode()
        fields = {}
        while line := self._line():
            name, value = line.decode().split(":", 1)
            fields[name.strip().lower()] = value.strip()
        if "content-length" in fields:
            return status, fields, self._take(int(fields["content-length"]))
        body = b""
        if fields.get("transfer-encoding") == "chunked":
            while size := int(self._line(), 16):
                body += self._take(size)
                self._line()
            self._line()
        return status, fields, body


JSON = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")]


def http(kind, order, port, n):
    connection = Connection(port)
    meta = ""
    if kind in ("session", "session-named"):
        _, fields, _ = connection.send("POST", "/mcp", INITIALIZE % "2025-11-25", JSON)
        headers = JSON + [("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Session-Id", fields["mcp-session-id"])]
        connection.send("POST", "/mcp", INITIALIZED, headers)
        if kind == "session-named":
            headers.append(("Mcp-Name", "add_numbers"))
    elif kind in ("stateless", "stateless-sdk"):
        meta = SDK_META if kind == "stateless-sdk" else EMPTY_META
        headers = JSON + [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "add_numbers"),
        ]
    elif kind == "floor":
        headers = JSON + [("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Session-Id", "0" * 32)]
    elif kind != "rest":
        sys.exit(f"unknown kind {kind!r}")
    for i in range(1, n + 1):
        if kind == "rest":
            status, _, answer = connection.send("GET", "/add?a=1&b=2")
        else:
            status, _, answer = connection.send("POST", "/mcp", call(order, i, meta), headers)
        if b'"sum":3' not in answer:
            sys.exit(f"request {i}: unexpected answer {status} {answer[:300]!r}")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "stdio":
        order, n = sys.argv[2], int(sys.argv[3])
        print(INITIALIZE % "2025-06-18")
        print(INITIALIZED)
        for i in range(1, n + 1):
            print(call(order, i))
    elif len(sys.argv) == 6 and sys.argv[1] == "http":
        http(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
