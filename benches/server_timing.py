"""Times `memlint server` on a workspace: start to the first diagnostics
of an opened decision (the first index load), then, for RUNS edits of the
buffer, the round trip of a pulled `textDocument/diagnostic` after a
`didChange` (the lint itself) and the delay of the pushed diagnostics after
a `didChange` (the lint plus the 150 ms debounce). Prints medians and the
server's resident memory (VmRSS) once idle.

Usage: server_timing.py MEMLINT WORKSPACE [RUNS]
"""

import json
import os
import statistics
import subprocess
import sys
import time

BIN, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 20


def start(pull):
    proc = subprocess.Popen([BIN, "server"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    caps = {"textDocument": {"diagnostic": {}}} if pull else {}
    request(proc, 1, "initialize",
            {"processId": None, "rootUri": "file://" + ROOT, "capabilities": caps})
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    return proc


def send(proc, msg):
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def read(proc):
    length = 0
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed its output")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))


def request(proc, rid, method, params):
    send(proc, {"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    while True:
        msg = read(proc)
        if msg.get("id") == rid and "method" not in msg:
            return msg
        if "method" in msg and "id" in msg:
            send(proc, {"jsonrpc": "2.0", "id": msg["id"], "result": None})


def pushed(proc, uri):
    while True:
        msg = read(proc)
        if "method" in msg and "id" in msg:
            send(proc, {"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif msg.get("method") == "textDocument/publishDiagnostics" \
                and msg["params"]["uri"] == uri:
            return msg["params"]["diagnostics"]


def decision():
    d = os.path.join(ROOT, "memory/decisions")
    name = sorted(os.listdir(d))[len(os.listdir(d)) // 2]
    path = os.path.join(d, name)
    with open(path, encoding="utf-8") as f:
        return "file://" + path, f.read()


def change(proc, uri, version, text):
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": uri, "version": version},
                           "contentChanges": [{"text": text}]}})


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    uri, text = decision()
    open_doc = {"textDocument": {"uri": uri, "languageId": "markdown",
                                 "version": 1, "text": text}}

    t0 = time.perf_counter()
    proc = start(pull=False)
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": open_doc})
    pushed(proc, uri)
    first = time.perf_counter() - t0
    push = []
    for i in range(RUNS):
        t = time.perf_counter()
        change(proc, uri, i + 2, text + "\nedit %d\n" % i)
        pushed(proc, uri)
        push.append(time.perf_counter() - t)
    time.sleep(1)
    rss = rss_kib(proc.pid)
    proc.kill()

    proc = start(pull=True)
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": open_doc})
    request(proc, 2, "textDocument/diagnostic", {"textDocument": {"uri": uri}})
    pull = []
    for i in range(RUNS):
        change(proc, uri, i + 2, text + "\nedit %d\n" % i)
        t = time.perf_counter()
        request(proc, 100 + i, "textDocument/diagnostic", {"textDocument": {"uri": uri}})
        pull.append(time.perf_counter() - t)
    proc.kill()

    ms = lambda xs: "%.1f ms" % (statistics.median(xs) * 1000)
    print("first diagnostics after start (index load): %.0f ms" % (first * 1000))
    print("pulled diagnostics after a change (median of %d): %s" % (RUNS, ms(pull)))
    print("pushed diagnostics after a change, debounce included (median): %s" % ms(push))
    print("idle resident memory: %.0f MiB" % (rss / 1024))


main()
