"""Vanished clients (issue 21, item 4) and the upstream idle limit on whole
answers (item 8a).

After a request that closes its connection (HTTP/1.0, `Connection: close`)
the gateway reads no further request, yet a client that leaves while the
upstream is still working must be noticed: the upstream call is cancelled at
once (the upstream sees its connection closed), not at the upstream's own
timeout. And --upstream-idle-ms bounds a non-stream answer too: an upstream
that never answers gets the caller a 504 in its dialect.
"""
import json
import socket
import time
import unittest

import harness
from harness import Gateway, Upstream, chat_body, read_response, take

GONE_WITHIN = 3.0  # seconds from the client's close to the upstream's


def raw_request(gw, path, body, version="HTTP/1.1", extra=b""):
    s = socket.create_connection((gw.host, gw.port), timeout=harness.WAIT)
    data = json.dumps(body).encode()
    s.sendall(b"POST %s %s\r\nhost: x\r\ncontent-type: application/json\r\n%s"
              b"content-length: %d\r\n\r\n%s" % (path.encode(), version.encode(), extra, len(data),
                                                 data))
    return s


def hold_until_closed(h, body):
    """The upstream thinks forever (a non-stream answer that never comes)."""
    h.wait_closed(hold=harness.WAIT)


def stream_then_hold(h, body):
    """The upstream starts a stream, sends one event, then thinks."""
    h.start_stream()
    h.event(harness.chunk({"role": "assistant", "content": "thinking"}))
    h.wait_closed(hold=harness.WAIT)


class VanishedClientTest(unittest.TestCase):
    def setUp(self):
        self.up = Upstream()
        self.gw = Gateway("--upstream", f"openai_compatible={self.up.base_url}")

    def tearDown(self):
        self.gw.stop()
        self.up.stop()

    def leave_while_upstream_works(self, version, extra, stream):
        self.up.expect(stream_then_hold if stream else hold_until_closed)
        s = raw_request(self.gw, "/v1/chat/completions", chat_body(stream=stream), version, extra)
        take(self.up.bodies)  # the upstream has the request
        if stream:
            # The answer has begun: its head reached the client.
            s.settimeout(harness.WAIT)
            self.assertIn(b" 200 ", s.recv(4096))
        t0 = time.monotonic()
        s.close()
        closed = take(self.up.closed, timeout=harness.WAIT + 2)
        self.assertIsNotNone(closed, "the upstream call was held after the client left")
        self.assertLess(closed - t0, GONE_WITHIN)
        self.assertTrue(self.gw.alive())

    def test_http10_whole(self):
        self.leave_while_upstream_works("HTTP/1.0", b"", stream=False)

    def test_http10_stream(self):
        self.leave_while_upstream_works("HTTP/1.0", b"", stream=True)

    def test_connection_close_whole(self):
        self.leave_while_upstream_works("HTTP/1.1", b"connection: close\r\n", stream=False)

    def test_connection_close_stream(self):
        self.leave_while_upstream_works("HTTP/1.1", b"connection: close\r\n", stream=True)

    def test_keep_alive_whole_still_noticed(self):
        self.leave_while_upstream_works("HTTP/1.1", b"", stream=False)

    def test_connection_close_answer_still_arrives(self):
        # The watch must not disturb a client that stays: its answer comes.
        self.up.expect(lambda h, body: h.json(200, harness.completion("hello")))
        s = raw_request(self.gw, "/v1/chat/completions", chat_body(), "HTTP/1.1",
                        b"connection: close\r\n")
        status, headers, body = read_response(s)
        s.close()
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body)["choices"][0]["message"]["content"], "hello")


class UpstreamIdleWholeTest(unittest.TestCase):
    def setUp(self):
        self.up = Upstream()
        self.gw = Gateway("--upstream", f"openai_compatible={self.up.base_url}",
                          "--upstream-idle-ms", "300")

    def tearDown(self):
        self.gw.stop()
        self.up.stop()

    def test_openai_whole_answer_504(self):
        self.up.expect(hold_until_closed)
        t0 = time.monotonic()
        status, _, body = self.gw.request("POST", "/v1/chat/completions", chat_body())
        elapsed = time.monotonic() - t0
        self.assertEqual(status, 504, body)
        self.assertLess(elapsed, 1.5)
        err = json.loads(body)["error"]
        self.assertIn("timed out", err["message"])
        self.assertIsNotNone(take(self.up.closed), "the upstream call was not cancelled")

    def test_anthropic_whole_answer_504(self):
        self.up.expect(hold_until_closed)
        t0 = time.monotonic()
        status, _, body = self.gw.request(
            "POST", "/v1/messages",
            {"model": "mock", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]},
            headers={"anthropic-version": "2023-06-01"})
        self.assertEqual(status, 504, body)
        self.assertLess(time.monotonic() - t0, 1.5)
        j = json.loads(body)
        self.assertEqual(j["type"], "error")
        self.assertIn("timed out", j["error"]["message"])

    def test_slow_but_timely_answer_passes(self):
        # An answer inside the limit is not cut.
        self.up.expect(lambda h, body: h.json(200, harness.completion("fine")))
        status, _, body = self.gw.request("POST", "/v1/chat/completions", chat_body())
        self.assertEqual(status, 200, body)


if __name__ == "__main__":
    harness.run()
