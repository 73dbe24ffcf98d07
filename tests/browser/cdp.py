#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol (through a pipe,
--remote-debugging-pipe: no port, no websocket, standard library only).

    cdp.py [--no-js] PAGE STEPS.json

opens PAGE (a file), waits until its script marks it ready
(<html data-ready="1">), then runs the steps in order and prints one JSON
object: {"ready_ms", "results": {name: value}, "errors": [...]}, where
errors are the console errors, uncaught exceptions and error log entries
the page produced. A step is {"name", "eval": JS expression (awaited)},
{"screenshot": PATH} or {"key": KEY} (a key press sent to the page).
With --no-js the page's scripts are disabled and the steps run once the
document has loaded (the steps' own expressions still run).
Exit 3 when no Chromium is found.
"""
import json, os, shutil, subprocess, sys, tempfile, time

KEYS = {"ArrowDown": 40, "ArrowUp": 38, "Enter": 13, "Tab": 9, "/": 191}


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Pipe:
    def __init__(self, exe, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def child():
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        args = [exe, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--hide-scrollbars", "--mute-audio",
                "--user-data-dir=" + profile, "--window-size=1280,900", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child, pass_fds=(3, 4),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self.read(60)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})

    def read(self, timeout):
        deadline = time.time() + timeout
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        m = json.loads(raw)
        if "method" in m:
            self.events.append(m)
        return m

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def errors_of(events):
    out = []
    for e in events:
        p = e.get("params", {})
        if e["method"] == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + (d.get("exception", {}).get("description") or d.get("text", "")))
        elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: " + p["entry"].get("text", ""))
    return out


def main():
    args = sys.argv[1:]
    no_js = "--no-js" in args
    args = [a for a in args if a != "--no-js"]
    page, steps = args[0], json.load(open(args[1]))
    exe = browser()
    if not exe:
        print("no Chromium found (install the Debian package `chromium`)", file=sys.stderr)
        return 3
    profile = tempfile.mkdtemp(prefix="memlint-cdp-")
    cdp = Pipe(exe, profile)
    try:
        target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            cdp.send(domain + ".enable", session=s)

        def evaluate(expr):
            r = cdp.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                              "awaitPromise": True}, session=s)
            if "exceptionDetails" in r:
                raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
            return r["result"].get("value")

        if no_js:
            cdp.send("Emulation.setScriptExecutionDisabled", {"value": True}, session=s)
        cdp.send("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=s)
        deadline = time.time() + 120
        ready = None
        while time.time() < deadline:
            try:
                ready = evaluate("document.readyState === 'complete' && "
                                 "document.URL.startsWith('file:') && -1") if no_js else evaluate(
                    "document.documentElement.dataset.ready === '1' && "
                    "Number(document.documentElement.dataset.readyMs)")
            except RuntimeError:
                ready = None
            if ready:
                break
            time.sleep(0.02)
        results = {}
        for step in steps:
            if "eval" in step:
                results[step["name"]] = evaluate(step["eval"])
            elif "screenshot" in step:
                shot = cdp.send("Page.captureScreenshot", {"format": "png"}, session=s)
                import base64
                with open(step["screenshot"], "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            elif "key" in step:
                k = step["key"]
                code = KEYS.get(k, 0)
                for t in ("rawKeyDown", "keyUp"):
                    params = {"type": t, "key": k, "windowsVirtualKeyCode": code}
                    if t == "rawKeyDown" and len(k) == 1:
                        params = {"type": "keyDown", "key": k, "text": k, "windowsVirtualKeyCode": code}
                    cdp.send("Input.dispatchKeyEvent", params, session=s)
            elif "sleep" in step:
                time.sleep(step["sleep"])
        print(json.dumps({"ready_ms": ready, "results": results, "errors": errors_of(cdp.events)}))
        return 0
    finally:
        cdp.close()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
