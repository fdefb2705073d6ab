"""Shared pieces of the hardening suite: the real `toolwire serve` binary and
real peers on 127.0.0.1, every wait bounded, every process stopped by PID.

    gw = Gateway(binary, "--upstream", f"openai={up.base_url}")
    status, headers, body = gw.request("POST", "/v1/chat/completions", {...})
    gw.stop()

Each *_test.py file is a unittest module run by CTest as
`python3 FILE TOOLWIRE_BINARY` (see run()); BINARY is also in harness.BINARY.
"""
import http.client
import http.server
import json
import os
import queue
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest

WAIT = 10.0  # seconds any single expected event may take
BINARY = os.environ.get("TOOLWIRE_BINARY", "")


def run():
    """unittest.main for a test file: argv[1] is the toolwire binary."""
    global BINARY
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        BINARY = sys.argv.pop(1)
    if not BINARY or not os.path.exists(BINARY):
        sys.exit("usage: TEST.py TOOLWIRE_BINARY [unittest args]")
    unittest.main(verbosity=2)


class Gateway:
    """`toolwire serve` on 127.0.0.1, any free port."""

    def __init__(self, *args, binary=None, env=None, quiet=True, listen="127.0.0.1:0",
                 preexec_fn=None):
        cmd = [binary or BINARY, "serve", "--listen", listen]
        if quiet:
            cmd.append("--quiet")
        cmd += list(args)
        full_env = dict(os.environ)
        full_env.update(env or {})
        self._stderr = []
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=full_env, preexec_fn=preexec_fn)
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        deadline = time.monotonic() + 20
        line = ""
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not r:
                break
            line = self.proc.stdout.readline()
            m = re.search(r"listening on https?://([\d.]+):(\d+)", line)
            if m:
                self.host, self.port = m.group(1), int(m.group(2))
                threading.Thread(target=self._drain_stdout, daemon=True).start()
                return
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise RuntimeError("toolwire serve did not start: " + line + self.stderr())

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self._stderr.append(line)

    def _drain_stdout(self):
        for _ in self.proc.stdout:
            pass

    def stderr(self):
        return "".join(self._stderr)

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def rss_kb(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def open_fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def cpu_seconds(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def url(self, path=""):
        return f"http://{self.host}:{self.port}{path}"

    def request(self, method, path, body=None, headers=None, timeout=WAIT):
        """One request on a new connection: (status, headers dict, body bytes)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            data = body
            hdrs = dict(headers or {})
            if isinstance(body, (dict, list)):
                data = json.dumps(body).encode()
                hdrs.setdefault("content-type", "application/json")
            elif isinstance(body, str):
                data = body.encode()
            conn.request(method, path, body=data, headers=hdrs)
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    def connect(self, timeout=WAIT):
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        return s

    def metrics(self):
        status, _, body = self.request("GET", "/metrics")
        assert status == 200, status
        return body.decode()

    def metric(self, name, **labels):
        """The sum of a Prometheus counter/gauge over lines matching labels."""
        total = 0.0
        found = False
        for line in self.metrics().splitlines():
            if line.startswith("#") or not line.startswith(name):
                continue
            head, _, value = line.rpartition(" ")
            if head != name and not head.startswith(name + "{"):
                continue
            if all(f'{k}="{v}"' in head for k, v in labels.items()):
                total += float(value)
                found = True
        return total if found else None

    def stop(self):
        stop_process(self.proc)


def stop_process(proc):
    """SIGTERM by PID, SIGKILL after 15 s, then its pipes closed."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    for pipe in (proc.stdout, proc.stderr):
        try:
            pipe.close()
        except Exception:  # noqa: BLE001 — a drain thread may hold it
            pass


class GatewayCase(unittest.TestCase):
    """A test class sharing one gateway, started with `gateway_args`."""
    gateway_args = ()

    @classmethod
    def setUpClass(cls):
        cls.gw = Gateway(*cls.gateway_args)

    @classmethod
    def tearDownClass(cls):
        cls.gw.stop()


def send_and_drain(host, port, data):
    """Sends `data` on a new connection and reads until the server closes it
    (a reset counts as closed); bounded by WAIT per read."""
    with socket.create_connection((host, port), timeout=WAIT) as s:
        s.sendall(data)
        s.settimeout(WAIT)
        try:
            while s.recv(4096):
                pass
        except (ConnectionResetError, BrokenPipeError):
            pass


def read_response(sock, timeout=WAIT):
    """Reads one whole HTTP response from a raw socket (Content-Length or
    chunked or until close): (status, headers dict, body bytes)."""
    sock.settimeout(timeout)
    f = sock.makefile("rb")
    status_line = f.readline()
    if not status_line:
        raise ConnectionError("closed before a response")
    status = int(status_line.split()[1])
    headers = {}
    while True:
        line = f.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        k, _, v = line.decode("latin-1").partition(":")
        headers[k.strip().lower()] = v.strip()
    if "content-length" in headers:
        body = f.read(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        body = b""
        while True:
            size = int(f.readline().strip() or b"0", 16)
            if size == 0:
                f.readline()
                break
            body += f.read(size)
            f.readline()
    else:
        body = f.read()
    return status, headers, body


# ---- a scripted OpenAI-compatible upstream ---------------------------------

def chunk(delta, finish=None, model="mock"):
    return {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1,
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def completion(text="ok", model="mock", tool_calls=None):
    msg = {"role": "assistant", "content": text}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    return {"id": "chatcmpl-mock", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": msg,
                         "finish_reason": "tool_calls" if tool_calls else "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        up = self.server.upstream
        up.bodies.put(body)
        up.headers.put({k.lower(): v for k, v in self.headers.items()})
        fn = up.next_handler()
        if fn is None:
            self.send_error(500, "the test queued no answer")
            return
        try:
            fn(self, body)
        except (BrokenPipeError, ConnectionResetError):
            up.closed.put(time.monotonic())
            self.close_connection = True

    # -- answers --
    def json(self, status, obj, headers=None):
        data = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def start_stream(self):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def event(self, obj):
        data = ("data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n").encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self):
        self.event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def stream_text(self, *texts, finish="stop"):
        self.start_stream()
        self.event(chunk({"role": "assistant", "content": ""}))
        for t in texts:
            self.event(chunk({"content": t}))
        self.event(chunk({}, finish))
        self.end_stream()

    def wait_closed(self, hold=WAIT):
        """Holds the connection until the peer (the gateway) closes it; puts
        the time it did into upstream.closed (None: it never did)."""
        sock = self.connection
        end = time.monotonic() + hold
        while time.monotonic() < end:
            r, _, _ = select.select([sock], [], [], max(0.0, end - time.monotonic()))
            if r:
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    self.server.upstream.closed.put(time.monotonic())
                    self.close_connection = True
                    return True
        self.server.upstream.closed.put(None)
        self.close_connection = True
        return False


class Upstream:
    """POST on 127.0.0.1:port 0. Each request is answered by the next handler
    queued with expect(fn) — fn(handler, body) — or by `default` when none is
    queued."""

    def __init__(self, default=None):
        self.handlers = queue.Queue()
        self.bodies = queue.Queue()
        self.headers = queue.Queue()
        self.closed = queue.Queue()
        self.default = default
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.upstream = self
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def next_handler(self):
        try:
            return self.handlers.get_nowait()
        except queue.Empty:
            if self.default:
                return self.default
        try:
            return self.handlers.get(timeout=WAIT)
        except queue.Empty:
            return None

    def expect(self, fn):
        self.handlers.put(fn)

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def take(q, timeout=WAIT):
    """The next item of a queue within `timeout`, or an AssertionError."""
    try:
        return q.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError(f"nothing arrived within {timeout}s") from None


def wait_until(pred, timeout=WAIT, every=0.02, what="condition"):
    """Polls pred() until it is true, at most `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(every)
    raise AssertionError(f"{what} not reached within {timeout}s")


def deep(n, leaf="1"):
    """JSON text nested n arrays deep."""
    return "[" * n + leaf + "]" * n


def chat_body(model="mock", stream=False, **extra):
    b = {"model": model, "messages": [{"role": "user", "content": "hi"}], "stream": stream}
    b.update(extra)
    return b
