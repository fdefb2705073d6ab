"""A mock OpenAI-compatible upstream for the conductor tests.

POST /v1/chat/completions on 127.0.0.1 (port 0). Each request is answered by
the next handler the test queued (`expect(fn)`); `fn(req, body)` gets the
parsed request and writes the answer with `req.stream_text`,
`req.stream_tool_calls` or `req.stream_then_hold`. Every wait is bounded.
"""
import http.server
import json
import queue
import select
import threading
import time

WAIT = 10.0


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the gateway's client pools connections

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
        mock = self.server.mock
        mock.bodies.put(body)
        try:
            fn = mock.handlers.get(timeout=WAIT)
        except queue.Empty:
            self.send_error(500, "the test queued no answer")
            return
        try:
            fn(self, body)
        except Exception as e:  # noqa: BLE001 — surfaced to the test
            mock.failures.put(repr(e))
            raise

    # --- answers -----------------------------------------------------------
    def _start_stream(self):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def _event(self, obj):
        data = ("data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n").encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end(self):
        self._event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    @staticmethod
    def _chunk(delta, finish=None):
        return {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0,
                "model": "mock", "choices": [{"index": 0, "delta": delta,
                                              "finish_reason": finish}]}

    def stream_text(self, text):
        self._start_stream()
        self._event(self._chunk({"role": "assistant", "content": text}))
        self._event(self._chunk({}, "stop"))
        self._end()

    def stream_tool_calls(self, calls):
        """calls: [(id, name, arguments dict)]"""
        self._start_stream()
        self._event(self._chunk({"role": "assistant", "content": None}))
        for i, (cid, name, args) in enumerate(calls):
            self._event(self._chunk({"tool_calls": [{
                "index": i, "id": cid, "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}]}))
        self._event(self._chunk({}, "tool_calls"))
        self._end()

    def stream_then_hold(self, first_text, hold=20.0):
        """Sends one text chunk, then holds the stream open until the client
        closes the connection (recorded in mock.closed) or `hold` runs out."""
        self._start_stream()
        self._event(self._chunk({"role": "assistant", "content": first_text}))
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
                    self.server.mock.closed.put(time.monotonic())
                    self.close_connection = True
                    return
        self.server.mock.closed.put(None)  # never closed: the test fails on this
        self._event(self._chunk({}, "stop"))
        self._end()


class MockUpstream:
    def __init__(self):
        self.handlers = queue.Queue()
        self.bodies = queue.Queue()
        self.closed = queue.Queue()
        self.failures = queue.Queue()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.mock = self
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

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
