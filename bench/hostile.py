#!/usr/bin/env python3
"""A normal client's latency beside hostile connections, against a server binary's `serve`.

Usage: bench/hostile.py SERVER_BIN [HOSTILE] [REQUESTS] [SERVER_FD_LIMIT]
(defaults: 1000 hostile, 200 requests, the server inherits this script's descriptor limit)

Starts `SERVER_BIN serve --listen 127.0.0.1:0`, measures REQUESTS sequential `GET /add?a=1&b=2`
on fresh connections alone, then again while HOSTILE connections are open (a quarter each:
silent, slow headers, a short Content-Length, endless chunks), and prints both. Loopback only;
bounded in count, and in time by the server's own timeouts (it ends within a minute). With
SERVER_FD_LIMIT below HOSTILE the server runs out of descriptors unless it caps its connections.
"""

import resource
import socket
import statistics
import subprocess
import sys
import time


def start(binary, fd_limit):
    def limit():
        if fd_limit:
            resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))

    server = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True, preexec_fn=limit
    )
    # Warnings may come first (a fixture's root `allOf`, say): the address is on the `listening` line.
    line = next((l for l in server.stderr if l.startswith("listening on ")), "")
    if not line.startswith("listening on http://"):
        server.kill()
        sys.exit(f"{binary} did not start: {line!r}")
    host, port = line.split()[2].removeprefix("http://").split("/")[0].rsplit(":", 1)
    return server, (host, int(port))


def request(addr):
    """The seconds one request took, or None when it was not answered 200 within 2 s."""
    started = time.perf_counter()
    try:
        with socket.create_connection(addr, timeout=2) as s:
            s.sendall(f"GET /add?a=1&b=2 HTTP/1.1\r\nhost: {addr[0]}:{addr[1]}\r\nconnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
    except OSError:
        return None
    if not answer.startswith(b"HTTP/1.1 200") or b'"sum":3' not in answer:
        return None
    return time.perf_counter() - started


def requests(addr, n):
    """The times of up to `n` requests, giving up after 5 unanswered; and how many were not."""
    times, failed = [], 0
    while len(times) + failed < n and failed < 5:
        t = request(addr)
        if t is None:
            failed += 1
        else:
            times.append(t)
    return times, failed


def hostile(addr, kind):
    """A hostile connection, or None when the server did not take it within 2 s."""
    try:
        s = socket.create_connection(addr, timeout=2)
    except OSError:
        return None
    host = f"{addr[0]}:{addr[1]}"
    openings = [
        b"",
        b"GET /add HTTP/1.1\r\nx-slow: ",
        f"POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{{".encode(),
        f"POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n1\r\n \r\n".encode(),
    ]
    s.sendall(openings[kind])
    return s


def summary(result):
    times, failed = result
    if not times:
        return f"no request answered ({failed} tried)"
    ms = sorted(t * 1000 for t in times)
    return (f"p50 {statistics.median(ms):.2f} ms, p99 {ms[int(0.99 * (len(ms) - 1))]:.2f} ms, "
            f"max {ms[-1]:.2f} ms ({len(ms)} answered, {failed} not)")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    n_hostile = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    n_requests = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    fd_limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server, addr = start(binary, fd_limit)
    try:
        alone = requests(addr, n_requests)
        held = []
        for i in range(n_hostile):
            s = hostile(addr, i % 4)
            if s is None:
                break  # the server takes no more connections
            held.append(s)
        time.sleep(0.5)
        besieged = requests(addr, n_requests)
        print(f"alone:                          {summary(alone)}")
        print(f"beside {len(held)} hostile connections: {summary(besieged)}")
        for s in held:
            s.close()
    finally:
        server.terminate()
        server.wait(timeout=15)


if __name__ == "__main__":
    main()
