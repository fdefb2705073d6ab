"""Issue 24: HTTP/2 at the edge, on the same port as HTTP/1.1.

h2c with prior knowledge (curl --http2-prior-knowledge) and by Upgrade (curl
--http2 on http://), h2 over TLS by ALPN (curl --http2, with a test CA made
at test time), whole and streamed
chat completions, several streams multiplexed on one connection (h2load),
and flow control as backpressure: a client that never opens its window gets
no more than the window, and the upstream behind its stream is paused
instead of the gateway buffering it. Malformed frames close the connection, never the
server.

usage: http2_test.py TOOLWIRE_BINARY
"""
import http.client
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Gateway, Upstream, chat_body, completion  # noqa: E402
from slow_client_test import Counter, big_stream, wait_stalled  # noqa: E402
from tls_test import Pki  # noqa: E402

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def answer(h, body):
    if body and body.get("stream"):
        h.stream_text("hel", "lo")
    else:
        h.json(200, completion("hello over h2"))


def curl(*args):
    return subprocess.run(["curl", "-sS", "--max-time", "10", *args], capture_output=True,
                          timeout=30)


# ---- a raw HTTP/2 client: frames and HPACK literals by hand -----------------

def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream) + payload


def hpack_int(n, prefix_bits=7):
    limit = (1 << prefix_bits) - 1
    if n < limit:
        return bytes([n])
    out = [limit]
    n -= limit
    while n >= 128:
        out.append((n & 127) | 128)
        n >>= 7
    out.append(n)
    return bytes(out)


def hpack_literal(name, value):
    """Literal header field without indexing, new name, no Huffman."""
    return b"\x00" + hpack_int(len(name)) + name + hpack_int(len(value)) + value


def read_frame(sock):
    head = b""
    while len(head) < 9:
        chunk = sock.recv(9 - len(head))
        if not chunk:
            return None
        head += chunk
    length = struct.unpack(">I", b"\x00" + head[:3])[0]
    payload = b""
    while len(payload) < length:
        chunk = sock.recv(length - len(payload))
        if not chunk:
            return None
        payload += chunk
    return head[3], head[4], struct.unpack(">I", head[5:9])[0] & 0x7FFFFFFF, payload


def h2_post(sock, stream, path, body):
    fields = b"".join(hpack_literal(k, v) for k, v in (
        (b":method", b"POST"), (b":scheme", b"http"), (b":path", path),
        (b":authority", b"127.0.0.1"), (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode())))
    sock.sendall(frame(1, 0x4, stream, fields) + frame(0, 0x1, stream, body))


class Http2Plain(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.up = Upstream(default=answer)
        cls.gw = Gateway("--upstream", f"openai={cls.up.base_url}")
        cls.tmp = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        cls.gw.stop()
        cls.up.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def post(self, *extra, stream=False):
        return curl("--http2-prior-knowledge", "-w", "\n%{http_version} %{http_code}", *extra,
                    self.gw.url("/v1/chat/completions"), "-H", "content-type: application/json",
                    "--data-binary", json.dumps(chat_body(stream=stream)))

    def test_prior_knowledge_whole_answer(self):
        r = self.post()
        self.assertEqual(r.returncode, 0, r.stderr)
        body, _, tail = r.stdout.rpartition(b"\n")
        self.assertEqual(tail, b"2 200")
        self.assertEqual(json.loads(body)["choices"][0]["message"]["content"], "hello over h2")

    def test_prior_knowledge_streamed_answer(self):
        r = self.post(stream=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        body, _, tail = r.stdout.rpartition(b"\n")
        self.assertEqual(tail, b"2 200")
        text = "".join(json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
                       for line in body.decode().splitlines() if line.startswith("data: {"))
        self.assertEqual(text, "hello")
        self.assertIn(b"data: [DONE]", body)

    def test_upgrade_h2c_whole_and_streamed(self):
        # curl --http2 on http:// asks with Upgrade: h2c; the answer to that
        # request comes on stream 1 after the 101.
        for stream in (False, True):
            r = curl("--http2", "-v", "-w", "\n%{http_version} %{http_code}",
                     self.gw.url("/v1/chat/completions"), "-H", "content-type: application/json",
                     "--data-binary", json.dumps(chat_body(stream=stream)))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(b"101 Switching Protocols", r.stderr)
            body, _, tail = r.stdout.rpartition(b"\n")
            self.assertEqual(tail, b"2 200")
            self.assertIn(b"hel", body)

    def test_bad_upgrade_settings_stay_http11(self):
        conn = http.client.HTTPConnection(self.gw.host, self.gw.port, timeout=harness.WAIT)
        try:
            conn.request("GET", "/health", headers={"connection": "Upgrade, HTTP2-Settings",
                                                    "upgrade": "h2c", "http2-settings": "!!"})
            r = conn.getresponse()
            self.assertEqual((r.status, r.version), (200, 11))
            r.read()
        finally:
            conn.close()

    def test_http11_still_served_on_the_same_port(self):
        status, _, body = self.gw.request("POST", "/v1/chat/completions", chat_body())
        self.assertEqual(status, 200, body)

    def test_streams_multiplexed_on_one_connection(self):
        # h2load (nghttp2-client): 60 streamed requests, 6 at a time on one
        # connection.
        with open(os.path.join(self.tmp, "body.json"), "w") as f:
            json.dump(chat_body(stream=True), f)
        r = subprocess.run(["h2load", "-n", "60", "-c", "1", "-m", "6", "-d", f.name, "-H",
                            "content-type: application/json", self.gw.url("/v1/chat/completions")],
                           capture_output=True, timeout=60)
        out = r.stdout.decode()
        self.assertEqual(r.returncode, 0, out + r.stderr.decode())
        self.assertIn("60 succeeded, 0 failed, 0 errored, 0 timeout", out)
        self.assertIn("status codes: 60 2xx", out)

    def test_raw_frames_and_an_unknown_path(self):
        with socket.create_connection((self.gw.host, self.gw.port), timeout=harness.WAIT) as s:
            s.sendall(PREFACE + frame(4, 0, 0))
            h2_post(s, 1, b"/v1/nowhere", b"{}")
            status = None
            while status is None:
                f = read_frame(s)
                self.assertIsNotNone(f, "closed before an answer")
                if f[0] == 4 and not f[1] & 1:
                    s.sendall(frame(4, 1, 0))  # SETTINGS ACK
                if f[0] == 1 and f[2] == 1:
                    status = f[3]
            self.assertTrue(status)  # an HPACK-coded :status; the 404 itself is curl's to check
        r = curl("--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}",
                 self.gw.url("/v1/nowhere"))
        self.assertEqual(r.stdout, b"404")

    def test_malformed_frames_close_the_connection_not_the_server(self):
        for junk in (PREFACE + b"\x00\x00\x01\x07\x00\x00\x00\x00\x01x",  # GOAWAY on a stream
                     PREFACE + os.urandom(512),
                     PREFACE + frame(1, 0x4, 1, b"\xff" * 64)):  # an undecodable header block
            harness.send_and_drain(self.gw.host, self.gw.port, junk)
        self.assertTrue(self.gw.alive())
        self.assertEqual(self.post().returncode, 0)


class Http2Tls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pki = Pki()
        cert, key = cls.pki.server_cert("h2")
        cls.up = Upstream(default=answer)
        cls.gw = Gateway("--upstream", f"openai={cls.up.base_url}", "--tls-cert", cert,
                         "--tls-key", key)

    @classmethod
    def tearDownClass(cls):
        cls.gw.stop()
        cls.up.stop()
        cls.pki.close()

    def test_alpn_h2_whole_and_streamed(self):
        for stream in (False, True):
            r = curl("--http2", "--cacert", self.pki.ca, "-w", "\n%{http_version} %{http_code}",
                     f"https://127.0.0.1:{self.gw.port}/v1/chat/completions", "-H",
                     "content-type: application/json", "--data-binary",
                     json.dumps(chat_body(stream=stream)))
            self.assertEqual(r.returncode, 0, r.stderr)
            body, _, tail = r.stdout.rpartition(b"\n")
            self.assertEqual(tail, b"2 200")
            self.assertIn(b"hel", body)

    def test_curl_multiplexes_streams_over_tls(self):
        # (curl 7.88's --parallel with --http2-prior-knowledge fails its
        # transfers after the first; over TLS it multiplexes: h2load covers h2c.)
        url = f"https://127.0.0.1:{self.gw.port}/v1/chat/completions"
        r = curl("--http2", "--cacert", self.pki.ca, "--parallel", "-w",
                 "%{http_version} %{http_code} %{num_connects}\n", "-H",
                 "content-type: application/json", "--data-binary",
                 json.dumps(chat_body(stream=True)), *(["-o", "/dev/null", url] * 4))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.decode().split()
        self.assertEqual(lines[0::3], ["2"] * 4)
        self.assertEqual(lines[1::3], ["200"] * 4)
        self.assertEqual(sum(int(n) for n in lines[2::3]), 1, "more than one connection")

    def test_http11_client_still_served_over_tls(self):
        r = curl("--http1.1", "--cacert", self.pki.ca, "-o", "/dev/null", "-w",
                 "%{http_version}", f"https://127.0.0.1:{self.gw.port}/health")
        self.assertEqual(r.stdout, b"1.1", r.stderr)


class Http2FlowControl(unittest.TestCase):
    def test_closed_window_pauses_the_upstream(self):
        up = Upstream()
        gw = Gateway("--upstream", f"openai_compatible={up.base_url}", "--write-timeout-ms",
                     "120000")
        sock = None
        try:
            sent = Counter()
            up.expect(big_stream(96 << 20, sent))
            sock = socket.create_connection((gw.host, gw.port), timeout=harness.WAIT)
            sock.sendall(PREFACE + frame(4, 0, 0))
            h2_post(sock, 1, b"/v1/chat/completions", json.dumps(chat_body(stream=True)).encode())
            # Read what the server sends, never opening any window: it may
            # send 65,535 bytes of DATA (the default windows), no more.
            data = 0
            sock.settimeout(0.5)
            stalled = None
            end = time.monotonic() + 60
            while time.monotonic() < end:
                try:
                    f = read_frame(sock)
                except socket.timeout:
                    f = False
                if f is None:
                    self.fail("the gateway closed the connection")
                if f:
                    if f[0] == 4 and not f[1] & 1:
                        sock.sendall(frame(4, 1, 0))
                    if f[0] == 0:
                        data += len(f[3])
                    continue
                stalled = wait_stalled(sent)
                break
            self.assertIsNotNone(stalled)
            self.assertLessEqual(data, 65535, "more DATA than the window allowed")
            self.assertLess(stalled, 48 << 20, "the gateway kept reading the upstream")
            self.assertTrue(up.closed.empty(), "the upstream stream ran to its end or was cut")
            self.assertTrue(gw.alive())
        finally:
            if sock:
                sock.close()
            gw.stop()
            up.stop()


if __name__ == "__main__":
    harness.run()
