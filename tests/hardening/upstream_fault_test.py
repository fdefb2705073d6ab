"""Upstream faults are the upstream's, not the client's (issue 21, item 5).

A scripted upstream answers garbage, invalid UTF-8, an oversize body, 401,
429 with retry-after, 500, a reset in the middle of its answer, or nothing at
all; the client must get 502/503/504 in its own dialect (OpenAI Chat and
Anthropic Messages ingress), a message that says the upstream failed (by its
configured name), never the upstream's address, and the upstream's
retry-after when the gateway gives up. A retry-after-ms longer than the
client's own deadline (x-stainless-timeout) is not waited for.
"""
import json
import os
import socket
import struct
import tempfile
import time
import unittest

import harness
from harness import Gateway, Upstream, completion

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"


def chat(model, stream=False):
    return {"model": model, "messages": [{"role": "user", "content": "hi"}], "stream": stream}


def messages(model, stream=False):
    return {"model": model, "max_tokens": 16, "stream": stream,
            "messages": [{"role": "user", "content": "hi"}]}


INGRESS = [(CHAT, chat), (MESSAGES, messages)]


def error_of(path, body):
    """(type, message, code) of an error body in the ingress dialect; asserts its shape."""
    j = json.loads(body)
    if path == MESSAGES:
        assert j.get("type") == "error", body
        return j["error"]["type"], j["error"]["message"], None
    e = j["error"]
    assert set(e) == {"message", "type", "param", "code"}, body
    return e["type"], e["message"], e["code"]


def raw_head(handler, status, headers, body=b""):
    lines = [f"HTTP/1.1 {status} X"] + [f"{k}: {v}" for k, v in headers.items()]
    handler.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    handler.wfile.flush()


def reset(handler):
    """Closes the upstream's socket with a TCP reset (SO_LINGER 0)."""
    sock = handler.connection
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.close_connection = True
    sock.close()


class UpstreamFaults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.up = Upstream()
        cls.dir = tempfile.TemporaryDirectory()
        cfg = os.path.join(cls.dir.name, "gateway.yaml")
        with open(cfg, "w") as f:
            f.write(f"""
upstreams:
  primary:
    profile: openai_compatible
    base_url: {cls.up.base_url}
    max_attempts: 1
  hasty:
    profile: openai_compatible
    base_url: {cls.up.base_url}
    max_attempts: 1
    timeout_ms: 800
  patient:
    profile: openai_compatible
    base_url: {cls.up.base_url}
    max_attempts: 3
routes:
  - model: "fault-*"
    upstreams: [primary]
  - model: "wait-*"
    upstreams: [patient]
  - model: "slow-*"
    upstreams: [hasty]
""")
        cls.gw = Gateway("--config", cfg)

    @classmethod
    def tearDownClass(cls):
        cls.gw.stop()
        cls.up.stop()
        cls.dir.cleanup()

    def tearDown(self):
        # What a test queued and the gateway did not take must not answer the next one.
        while not self.up.handlers.empty():
            self.up.handlers.get_nowait()

    def no_address(self, body, headers):
        text = body.decode("utf-8", "replace") + json.dumps(headers)
        self.assertNotIn(f"127.0.0.1:{self.up.port}", text)
        self.assertNotIn(str(self.up.port), text)
        self.assertNotIn("127.0.0.1", text)

    def check_fault(self, answer, status, want_in_message=(), stream=False, model="fault-m",
                    name="primary"):
        for path, body in INGRESS:
            with self.subTest(path=path):
                self.up.expect(answer)
                st, headers, resp = self.gw.request("POST", path, body(model, stream))
                self.assertEqual(st, status, resp)
                self.no_address(resp, headers)
                type_, message, code = error_of(path, resp)
                self.assertNotIn(type_, ("invalid_request_error", "rate_limit_error",
                                         "authentication_error", "permission_error"), resp)
                self.assertNotEqual(code, "invalid_api_key", resp)
                self.assertIn(f"upstream '{name}'", message)
                for part in want_in_message:
                    self.assertIn(part, message)
                if path == MESSAGES:
                    want = {502: "api_error", 503: "overloaded_error", 504: "timeout_error"}
                    self.assertEqual(type_, want[status], resp)

    def test_garbage_body_is_bad_gateway(self):
        self.check_fault(lambda h, b: h.json(200, b"this is not json {"), 502)

    def test_invalid_utf8_is_bad_gateway(self):
        bad = (b'{"id":"x","object":"chat.completion","created":1,"model":"m","choices":'
               b'[{"index":0,"message":{"role":"assistant","content":"\xff\xfe bad"},'
               b'"finish_reason":"stop"}]}')
        self.check_fault(lambda h, b: h.json(200, bad), 502)

    def test_oversize_answer_is_bad_gateway(self):
        size = (64 << 20) + 1024

        def huge(h, body):
            raw_head(h, 200, {"content-type": "application/json", "content-length": str(size)})
            piece = b" " * (1 << 20)
            sent = 0
            try:
                while sent < size:
                    n = min(len(piece), size - sent)
                    h.wfile.write(piece[:n])
                    sent += n
                h.wfile.flush()
            except OSError:
                pass  # the gateway stopped reading: what it should do
            h.close_connection = True

        self.check_fault(huge, 502, ["larger than 64 MiB"])

    def test_upstream_401_is_not_the_clients_key(self):
        refused = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                             "param": None, "code": "invalid_api_key"}}
        self.check_fault(lambda h, b: h.json(401, refused), 502, ["401", "key was refused"])

    def test_upstream_500_is_bad_gateway(self):
        boom = {"error": {"message": "boom", "type": "server_error", "param": None, "code": None}}
        self.check_fault(lambda h, b: h.json(500, boom, {"x-should-retry": "false"}), 502, ["500"])

    def test_upstream_429_is_unavailable_with_its_retry_after(self):
        slow = {"error": {"message": "Rate limit reached", "type": "requests",
                          "param": None, "code": "rate_limit_exceeded"}}
        for path, body in INGRESS:
            for stream in (False, True):
                with self.subTest(path=path, stream=stream):
                    # 120 s is more than the gateway waits (max_retry_after): it gives up at once.
                    self.up.expect(lambda h, b: h.json(429, slow, {"retry-after": "120"}))
                    st, headers, resp = self.gw.request("POST", path, body("fault-m", stream))
                    self.assertEqual(st, 503, resp)
                    self.assertEqual(headers.get("retry-after"), "120", headers)
                    type_, message, _ = error_of(path, resp)
                    self.assertNotEqual(type_, "rate_limit_error", resp)
                    self.assertIn("upstream 'primary'", message)
                    self.assertIn("429", message)
                    self.no_address(resp, headers)

    def test_reset_mid_answer_names_no_address(self):
        def cut(h, body):
            raw_head(h, 200, {"content-type": "application/json", "content-length": "4000"},
                     b'{"id":"chatcmpl-x","object":')
            reset(h)

        self.check_fault(cut, 502)

    def test_reset_mid_stream_ends_the_stream_naming_no_address(self):
        def cut(h, body):
            h.start_stream()
            h.event(harness.chunk({"role": "assistant", "content": ""}))
            h.event(harness.chunk({"content": "partial"}))
            reset(h)

        for path, body in INGRESS:
            with self.subTest(path=path):
                self.up.expect(cut)
                st, headers, resp = self.gw.request("POST", path, body("fault-m", True))
                self.assertEqual(st, 200, resp)  # the stream had begun
                self.assertIn(b"partial", resp)
                self.assertIn(b"upstream 'primary'", resp)
                self.assertNotIn(b"invalid_request_error", resp)
                self.assertNotIn(b"rate_limit_error", resp)
                self.no_address(resp, headers)

    def test_silent_upstream_is_gateway_timeout(self):
        # No answer within the upstream's timeout_ms (its whole-exchange deadline).
        self.check_fault(lambda h, b: h.wait_closed(hold=5), 504, model="slow-m", name="hasty")

    def test_retry_after_ms_longer_than_the_clients_deadline_is_not_waited(self):
        # The upstream asks for 8 s; the client (an SDK) says it waits 1 s.
        self.up.expect(lambda h, b: h.json(429, {"error": {"message": "slow down"}},
                                           {"retry-after-ms": "8000"}))
        self.up.expect(lambda h, b: h.json(200, completion("late")))
        t0 = time.monotonic()
        st, headers, resp = self.gw.request("POST", CHAT, chat("wait-m"),
                                            headers={"x-stainless-timeout": "1"})
        took = time.monotonic() - t0
        self.assertEqual(st, 503, resp)
        self.assertLess(took, 4.0)
        self.assertEqual(headers.get("retry-after"), "8", headers)
        self.no_address(resp, headers)


if __name__ == "__main__":
    harness.run()
