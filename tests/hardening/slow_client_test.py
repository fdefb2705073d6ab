"""Slow clients (issue 21, item 3): backpressure toward a client that does not
read, a write deadline for one that takes nothing, and every byte intact for
one that reads slowly.

A stream client that never reads must not make the gateway read the whole
upstream answer into memory: the gateway stops reading its upstream while
the client's queue is above --max-queued-bytes (TCP then stops the
upstream), and a client whose pending write takes no byte within
--write-timeout-ms is cut (its upstream cancelled) and counted in
toolwire_slow_clients_cut_total.

TOOLWIRE_SLOW_STREAM_MB sets the size of the never-read stream (default 96;
docs/benchmarks.md records a 300 MB run), TOOLWIRE_SLOW_GATEWAY_ARGS extra
`toolwire serve` arguments for that case (the benchmark's baseline:
`--max-queued-bytes 1073741824`, flow control out of the way).
"""
import json
import os
import socket
import threading
import time
import unittest

import harness
from harness import Gateway, Upstream, chat_body, take, wait_until

STREAM_MB = int(os.environ.get("TOOLWIRE_SLOW_STREAM_MB", "96"))
EXTRA_ARGS = os.environ.get("TOOLWIRE_SLOW_GATEWAY_ARGS", "").split()
EVENT_TEXT = 1000  # characters of content per upstream event


def sse_block(first, count):
    """`count` chunked-encoded SSE events, numbered from `first`."""
    out = []
    for i in range(first, first + count):
        text = "<%08d>" % i + "x" * (EVENT_TEXT - 10)
        data = ("data: " + json.dumps(harness.chunk({"content": text})) + "\n\n").encode()
        out.append(b"%x\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.n = 0

    def add(self, k):
        with self.lock:
            self.n += k

    def get(self):
        with self.lock:
            return self.n


def big_stream(total_bytes, sent, events=None):
    """An upstream handler: a stream of about total_bytes of numbered text
    events, written as fast as the gateway takes them; `sent` counts the
    bytes written. events: the number of events (overrides total_bytes)."""

    def handler(h, body):
        h.start_stream()
        h.event(harness.chunk({"role": "assistant", "content": ""}))
        per = 64
        n = events if events is not None else max(per, total_bytes // (EVENT_TEXT + 120))
        i = 0
        try:
            while i < n:
                k = min(per, n - i)
                block = sse_block(i, k)
                h.wfile.write(block)
                h.wfile.flush()
                sent.add(len(block))
                i += k
            h.event(harness.chunk({}, "stop"))
            h.end_stream()
        except (BrokenPipeError, ConnectionResetError, OSError):
            h.server.upstream.closed.put(time.monotonic())
            h.close_connection = True
            return
        h.server.upstream.closed.put(None)  # finished: the gateway read it all

    return handler


def stream_request(gw, rcvbuf=4096):
    """A raw client that asks for a stream and then never reads."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(harness.WAIT)
    s.connect((gw.host, gw.port))
    body = json.dumps(chat_body(stream=True)).encode()
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
              b"content-length: %d\r\n\r\n%s" % (len(body), body))
    return s


def wait_stalled(counter, quiet=0.5, timeout=60):
    """Waits until `counter` has not moved for `quiet` seconds (the upstream is
    blocked), at most `timeout`; returns its value."""
    end = time.monotonic() + timeout
    last, since = counter.get(), time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.05)
        v = counter.get()
        if v != last:
            last, since = v, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return v
    raise AssertionError(f"the upstream was never stopped (sent {last} bytes in {timeout}s)")


class SlowClientTest(unittest.TestCase):
    def setUp(self):
        self.up = Upstream()
        self.gw = None
        self.socks = []

    def tearDown(self):
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass
        if self.gw:
            self.gw.stop()
        self.up.stop()

    def start(self, *args):
        # Under AddressSanitizer (the sanitizer stage sets ASAN_OPTIONS) freed
        # memory waits in a quarantine of 256 MB by default: keep it small so
        # that RSS measures what the gateway holds.
        env = {}
        if "ASAN_OPTIONS" in os.environ:
            env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"] + ":quarantine_size_mb=4"
        self.gw = Gateway("--upstream", f"openai_compatible={self.up.base_url}", *args, env=env)
        return self.gw

    def test_clients_that_never_read_hold_the_upstream_and_bounded_memory(self):
        # Long write timeout: the clients stay connected while we measure.
        gw = self.start("--write-timeout-ms", "120000", *EXTRA_ARGS)
        total = STREAM_MB << 20
        counters = [Counter() for _ in range(3)]
        for c in counters:
            self.up.expect(big_stream(total, c))
        wait_until(lambda: gw.rss_kb() > 0)
        rss0 = gw.rss_kb()
        for _ in counters:
            self.socks.append(stream_request(gw))
        sent = [wait_stalled(c) for c in counters]
        rss1 = gw.rss_kb()
        growth_mb = (rss1 - rss0) / 1024
        print(f"\n  stream {STREAM_MB} MB x3: upstream sent {[s >> 20 for s in sent]} MB, "
              f"gateway RSS {rss0 >> 10} -> {rss1 >> 10} MB (+{growth_mb:.1f} MB)")
        self.assertTrue(self.up.closed.empty(), "an upstream stream ran to its end")
        for s in sent:
            # What TCP buffers hold (both ends of two connections; tcp_rmem's
            # maximum is often 32 MB), not the stream.
            self.assertLess(s, min(total * 0.75, 48 << 20), "the gateway kept reading the upstream")
        self.assertLess(growth_mb, 64, "gateway RSS grew by 64 MB or more for 3 clients")
        self.assertTrue(gw.alive())

    def test_curl_transport_pauses_too(self):
        # --transport curl: the transfer is paused (curl_easy_pause), so the
        # upstream is held back the same way.
        gw = self.start("--write-timeout-ms", "120000", "--transport", "curl")
        c = Counter()
        self.up.expect(big_stream(STREAM_MB << 20, c))
        self.socks.append(stream_request(gw))
        sent = wait_stalled(c)
        self.assertTrue(self.up.closed.empty(), "the upstream stream ran to its end or was cut")
        self.assertLess(sent, min((STREAM_MB << 20) * 0.75, 48 << 20))
        self.assertTrue(gw.alive())

    def test_client_that_never_drains_is_cut_at_the_write_deadline(self):
        gw = self.start("--write-timeout-ms", "500")
        before = gw.metric("toolwire_slow_clients_cut_total") or 0
        c = Counter()
        self.up.expect(big_stream(256 << 20, c))
        self.socks.append(stream_request(gw))
        t0 = time.monotonic()
        closed = take(self.up.closed, timeout=harness.WAIT)
        self.assertIsNotNone(closed, "the upstream stream ran to its end")
        # Nothing taken for 500 ms once the buffers are full: cut, upstream
        # cancelled, long before the 256 MB stream's end. (The bound leaves
        # room for a loaded machine: filling the buffers of both connections
        # from the Python upstream alone can take seconds then.)
        self.assertLess(closed - t0, 20.0)
        self.assertLess(c.get(), 200 << 20)
        wait_until(lambda: (gw.metric("toolwire_slow_clients_cut_total") or 0) >= before + 1,
                   what="toolwire_slow_clients_cut_total counted")
        # The client's connection is closed: reading it all ends in EOF or a reset.
        s = self.socks[0]
        s.settimeout(harness.WAIT)
        end = time.monotonic() + harness.WAIT
        gone = False
        while time.monotonic() < end:
            try:
                if not s.recv(1 << 20):
                    gone = True
                    break
            except (ConnectionResetError, OSError):
                gone = True
                break
        self.assertTrue(gone, "the slow client's connection was not closed")
        self.assertTrue(gw.alive())

    def test_client_that_reads_slowly_gets_every_byte(self):
        # A small queue mark and a deadline: the client reads in small bites
        # with pauses far shorter than the deadline, so it is paced, not cut.
        # (5 s, not less: on a loaded machine the reader itself can stall for
        # a second or two, and that would be a cut the test did not mean.)
        gw = self.start("--max-queued-bytes", "32768", "--write-timeout-ms", "5000")
        n_events = 3000  # ~3.4 MB on the wire
        c = Counter()
        self.up.expect(big_stream(0, c, events=n_events))
        s = stream_request(gw, rcvbuf=8192)
        self.socks.append(s)
        f = s.makefile("rb")
        status = f.readline()
        self.assertIn(b" 200 ", status)
        while f.readline() not in (b"\r\n", b""):
            pass
        raw = bytearray()
        deadline = time.monotonic() + 60
        chunks = 0
        while time.monotonic() < deadline:
            size_line = f.readline()
            size = int(size_line.strip() or b"0", 16)
            if size == 0:
                break
            raw += f.read(size)
            f.readline()
            chunks += 1
            if chunks % 32 == 0:
                # A slow reader (about 1 MB/s), whose pauses stay well under
                # the write deadline: paced, never cut.
                time.sleep(0.03)
        text = []
        done = False
        for line in bytes(raw).split(b"\n"):
            if not line.startswith(b"data: "):
                continue
            payload = line[6:]
            if payload == b"[DONE]":
                done = True
                continue
            for ch in json.loads(payload).get("choices", []):
                text.append((ch.get("delta") or {}).get("content") or "")
        self.assertTrue(done, "the stream did not end with [DONE]")
        expected = "".join("<%08d>" % i + "x" * (EVENT_TEXT - 10) for i in range(n_events))
        got = "".join(text)
        self.assertEqual(len(got), len(expected))
        self.assertEqual(got, expected)
        self.assertIsNone(take(self.up.closed), "the upstream was cut")
        self.assertEqual(gw.metric("toolwire_slow_clients_cut_total"), 0)


if __name__ == "__main__":
    harness.run()
