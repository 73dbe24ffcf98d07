"""Times `memlint mcp` over raw JSON-RPC on pipes: process start to the
initialize answer, and the round trip of `memory_search` next to a
`memlint search` process for the same query (medians of RUNS rounds,
alternating, after one warm-up of each).

Usage: mcp_timing.py MEMLINT WORKSPACE QUERY [RUNS]
"""

import json
import statistics
import subprocess
import sys
import time

BIN, ROOT, QUERY = sys.argv[1], sys.argv[2], sys.argv[3]
RUNS = int(sys.argv[4]) if len(sys.argv) > 4 else 7

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}}


def send(proc, message):
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def answer(proc, want_id):
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed its output")
        message = json.loads(line)
        if message.get("id") == want_id:
            return message


def start():
    t0 = time.perf_counter()
    proc = subprocess.Popen([BIN, "--root", ROOT, "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    send(proc, INIT)
    answer(proc, 1)
    started = time.perf_counter() - t0
    send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return proc, started


def tool_search(proc, n):
    t0 = time.perf_counter()
    send(proc, {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": "memory_search", "arguments": {"query": QUERY}}})
    reply = answer(proc, n)
    assert not reply["result"].get("isError"), reply
    return time.perf_counter() - t0


def cli_search():
    t0 = time.perf_counter()
    subprocess.run([BIN, "--root", ROOT, "search", QUERY, "--format", "json"],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


starts = []
for _ in range(RUNS):
    proc, started = start()
    starts.append(started)
    proc.stdin.close()
    proc.wait()

proc, _ = start()
tool_search(proc, 2)
cli_search()
tools, clis = [], []
for i in range(RUNS):
    tools.append(tool_search(proc, 10 + i))
    clis.append(cli_search())
proc.stdin.close()
proc.wait()

ms = lambda xs: statistics.median(xs) * 1000
print(f"start to initialized: {ms(starts):.1f} ms (median of {RUNS})")
print(f"memory_search round trip: {ms(tools):.1f} ms; memlint search: {ms(clis):.1f} ms; "
      f"ratio {statistics.median(tools) / statistics.median(clis):.2f}x (target <= 2x)")
