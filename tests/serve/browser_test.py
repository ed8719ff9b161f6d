#!/usr/bin/env python3
"""Browser test of `faultline serve`: headless chromium driven over the DevTools protocol.

Starts `faultline serve` on a free loopback port with a temporary --data directory, opens the
upload page in headless chromium, puts a sample bundle into the page's file input
(DOM.setFileInputFiles), waits for the report page, and checks that the expected root cause is
shown. Screenshots of the report and of the list go to the build directory.

Python standard library only: the WebSocket client below is the minimum the protocol needs.

usage: browser_test.py FAULTLINE SOURCE_DIR BUILD_DIR CHROMIUM
exit: 0 pass, 1 fail, 77 skip
"""
import base64
import hashlib
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request

SKIP = 77
SAMPLE = "seed-driver-reboot-pending"
EXPECTED_ID = "driver.reboot_pending"
# Guards against a hung browser or server; not a performance assertion.
DEADLINE_S = 300


def log(*a):
    print("browser_test:", *a, flush=True)


class WebSocket:
    """A minimal RFC 6455 client: text frames out (masked), text/continuation/ping/close in."""

    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, url, timeout=60):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        path = u.path + ("?" + u.query if u.query else "")
        req = (f"GET {path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("websocket: connection closed during the handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise RuntimeError("websocket: handshake refused: " + lines[0])
        want = base64.b64encode(hashlib.sha1((key + self.GUID).encode()).digest()).decode()
        accept = [l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("sec-websocket-accept:")]
        if accept != [want]:
            raise RuntimeError("websocket: bad Sec-WebSocket-Accept")

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise RuntimeError("websocket: connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send_frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def recv(self):
        parts = []
        while True:
            b0, b1 = self._read(2)
            fin, opcode, n = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            if opcode == 0x8:
                raise RuntimeError("websocket: closed by the browser")
            parts.append(payload)
            if fin:
                return b"".join(parts).decode()

    def close(self):
        try:
            self._send_frame(0x8, b"")
            self.sock.close()
        except OSError:
            pass


class DevTools:
    def __init__(self, ws_url):
        self.ws = WebSocket(ws_url)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("page script error: " + json.dumps(r["exceptionDetails"])[:400])
        return r["result"].get("value")

    def navigate(self, url, deadline):
        """Opens url and waits until that document has loaded (not an earlier one)."""
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.call("Page.navigate", url=url)
        path = urllib.parse.urlparse(url).path

        def loaded():
            try:
                return self.eval("location.pathname === %s && document.readyState === 'complete'" % json.dumps(path))
            except RuntimeError:
                return False  # between two documents

        wait_for(loaded, "page " + path, deadline)

    def problems(self):
        """Script exceptions and CSP/network errors the page reported so far."""
        out = []
        for e in self.events:
            if e["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(e["params"]["exceptionDetails"])[:300])
            elif e["method"] == "Log.entryAdded":
                entry = e["params"]["entry"]
                if entry.get("level") == "error":
                    out.append(f"{entry.get('source')}: {entry.get('text')}")
        return out


class PageError(Exception):
    pass


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(pred, what, deadline, step=0.25):
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(step)
    raise RuntimeError("timed out waiting for " + what)


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    faultline, source, build, chromium = sys.argv[1:]
    sample = os.path.join(source, "samples", SAMPLE)
    if not os.path.isdir(sample):
        log(f"SKIP: {sample} is missing")
        return SKIP
    deadline = time.time() + DEADLINE_S
    work = tempfile.mkdtemp(prefix="faultline-browser-")
    procs = []
    failures = []
    cdp = None
    try:
        bundle = os.path.join(work, SAMPLE + ".tar.gz")
        with tarfile.open(bundle, "w:gz") as t:
            t.add(sample, arcname=SAMPLE)

        server_log = open(os.path.join(work, "serve.log"), "w+")
        port = free_port()
        srv = subprocess.Popen(
            [faultline, "serve", "--listen", f"127.0.0.1:{port}", "--data", os.path.join(work, "data"),
             "-j", "1", "--cache-dir", os.path.join(build, "serve-browser-cache")],
            stdout=server_log, stderr=subprocess.STDOUT)
        procs.append(srv)
        base = f"http://127.0.0.1:{port}"

        def server_up():
            if srv.poll() is not None:
                raise RuntimeError("faultline serve exited with " + str(srv.returncode))
            try:
                with urllib.request.urlopen(base + "/api/bundles", timeout=5) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_for(server_up, "the server", deadline)

        profile = os.path.join(work, "chromium-profile")
        os.makedirs(profile)
        browser_log = open(os.path.join(work, "chromium.log"), "w+")
        chrome = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", "--window-size=1280,900", "about:blank"],
            stdout=browser_log, stderr=subprocess.STDOUT)
        procs.append(chrome)
        active = os.path.join(profile, "DevToolsActivePort")

        def devtools_port():
            if chrome.poll() is not None:
                browser_log.seek(0)
                raise RuntimeError("chromium exited: " + browser_log.read()[-2000:])
            if os.path.exists(active):
                lines = open(active).read().split("\n")
                if lines and lines[0].strip().isdigit():
                    return int(lines[0])
            return None

        dport = wait_for(devtools_port, "chromium's DevTools port", deadline)
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{dport}/json/list", timeout=30))
        pages = [t for t in targets if t.get("type") == "page"]
        if not pages:
            req = urllib.request.Request(f"http://127.0.0.1:{dport}/json/new?about:blank", method="PUT")
            pages = [json.load(urllib.request.urlopen(req, timeout=30))]
        cdp = DevTools(pages[0]["webSocketDebuggerUrl"])
        for domain in ("Page", "Runtime", "Log", "DOM"):
            cdp.call(domain + ".enable")
        cdp.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)

        # 1. the upload page
        cdp.navigate(base + "/", deadline)
        if cdp.eval("document.querySelector('input[type=file]') !== null") is not True:
            failures.append("the upload page has no file input")
            raise RuntimeError("no file input")
        root = cdp.call("DOM.getDocument")["root"]["nodeId"]
        node = cdp.call("DOM.querySelector", nodeId=root, selector="input[type=file]")["nodeId"]
        cdp.call("DOM.setFileInputFiles", files=[bundle], nodeId=node)
        log("file set in the input; waiting for upload, analysis and the report page")

        # 2. progress, polling, then the report page
        def report_shown():
            try:
                state = cdp.eval(
                    "JSON.stringify({path: location.pathname, ready: document.readyState,"
                    " bar: !!document.getElementById('faultline-serve-bar'),"
                    " err: (document.querySelector('#msg.err, #error') || {}).textContent || ''})")
            except RuntimeError:
                return False  # between two documents
            s = json.loads(state) if state else {}
            if s.get("err"):
                raise PageError("the page reports an error: " + s["err"])
            return s.get("path", "").startswith("/bundles/") and s.get("ready") == "complete" and s.get("bar")

        wait_for(report_shown, "the report page", deadline, step=0.5)
        html = cdp.eval("document.documentElement.outerHTML") or ""
        # the report itself, without the bar the server adds on top (which names the verdict too)
        report_html = cdp.eval(
            "(function () { const d = document.documentElement.cloneNode(true);"
            " const bar = d.querySelector('#faultline-serve-bar'); if (bar) bar.remove();"
            " return d.outerHTML; })()") or ""
        text = cdp.eval("document.body.innerText") or ""
        log(f"report page {cdp.eval('location.pathname')}: {len(html)} bytes of html")
        shot = cdp.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        with open(os.path.join(build, "serve_browser_report.png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        if EXPECTED_ID not in report_html:
            failures.append(f"the report does not name the root cause {EXPECTED_ID}")
        bar = cdp.eval("(document.getElementById('faultline-serve-bar') || {}).innerText || ''") or ""
        if EXPECTED_ID not in bar:
            failures.append(f"the bar above the report does not name the verdict {EXPECTED_ID}")
        for label in ("Markdown", "JSON", "SQLite database"):
            if label not in text:
                failures.append(f"the report page has no '{label}' download link")
        if not re.search(r'href="/api/bundles/[0-9a-f]{32}/db', html):
            failures.append("the report page has no database download link")

        # 3. the list of analyses shows the verdict
        cdp.navigate(base + "/bundles", deadline)
        listing = cdp.eval("document.getElementById('analyses') ? document.getElementById('analyses').innerText : ''") or ""
        if SAMPLE + ".tar.gz" not in listing:
            failures.append("the list of analyses does not show the upload")
        if EXPECTED_ID not in listing:
            failures.append(f"the list of analyses does not show the verdict {EXPECTED_ID}")
        if "done" not in listing:
            failures.append("the list of analyses does not show the status done")
        shot = cdp.call("Page.captureScreenshot", format="png")
        with open(os.path.join(build, "serve_browser_list.png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))

        # 4. nothing the page did was blocked (CSP) or threw
        for p in cdp.problems():
            failures.append("page problem: " + p)
        cdp.ws.close()
    except Exception as e:  # noqa: BLE001 - the test reports any failure with its cause
        failures.append(f"{type(e).__name__}: {e}")
        if cdp is not None:
            try:  # what the page showed when it failed
                shot = cdp.call("Page.captureScreenshot", format="png")
                with open(os.path.join(build, "serve_browser_failure.png"), "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
                failures.append(f"screenshot of the failure: {build}/serve_browser_failure.png")
            except Exception:  # noqa: BLE001
                pass
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if failures:
            serve_log = os.path.join(work, "serve.log")
            if os.path.exists(serve_log):
                log("server log:\n" + open(serve_log).read()[-3000:])
        shutil.rmtree(work, ignore_errors=True)

    if failures:
        for f in failures:
            log("FAIL: " + f)
        return 1
    log(f"PASS: report shows {EXPECTED_ID}; screenshots in {build}/serve_browser_report.png and serve_browser_list.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
