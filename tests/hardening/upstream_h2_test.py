"""Issue 24, item 5: HTTP/2 to upstreams that speak it.

The upstream is Node's own HTTP/2 server over TLS (h2_upstream.mjs: ALPN
h2, HTTP/1.1 for clients that do not offer it), its certificate signed by a
test CA made at test time and trusted through --upstream-ca-file (or
upstream_client.ca_file in the YAML). With `--transport curl` the gateway's
calls reach it over HTTP/2, whole and streamed, and concurrent calls share
one connection; the default asio transport reaches the same upstream over
HTTP/1.1. An upstream whose certificate is not trusted is a 502 in the
caller's dialect, and a CA file that cannot be used stops `serve` at start.

usage: upstream_h2_test.py TOOLWIRE_BINARY
"""
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Gateway, chat_body  # noqa: E402
from tls_test import Pki  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class H2Upstream:
    """h2_upstream.mjs on 127.0.0.1, any free port; stopped by its PID."""

    def __init__(self, cert, key):
        self.proc = subprocess.Popen(["node", os.path.join(HERE, "h2_upstream.mjs"), cert, key],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        r, _, _ = select.select([self.proc.stdout], [], [], 20)
        line = self.proc.stdout.readline() if r else ""
        m = re.search(r"listening on https://127\.0\.0\.1:(\d+)", line)
        if not m:
            self.stop()
            raise RuntimeError("h2_upstream.mjs did not start: " + line)
        self.port = int(m.group(1))
        self.base_url = f"https://127.0.0.1:{self.port}/v1"

    def seen(self, ca):
        """What the upstream recorded, read with curl over HTTP/2."""
        out = subprocess.run(["curl", "-sS", "--max-time", "10", "--http2", "--cacert", ca,
                              f"https://127.0.0.1:{self.port}/seen"], capture_output=True,
                             timeout=30, check=True).stdout
        return json.loads(out)["requests"]

    def stop(self):
        harness.stop_process(self.proc)


def sse_text(body):
    """The text of an OpenAI chat stream's deltas."""
    text = ""
    for line in body.decode().splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            for c in json.loads(line[6:]).get("choices", []):
                text += c.get("delta", {}).get("content") or ""
    return text


class UpstreamOverHttp2(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pki = Pki()
        cert, key = cls.pki.server_cert("upstream")
        cls.up = H2Upstream(cert, key)
        cls.curl_gw = Gateway("--upstream", f"openai={cls.up.base_url}", "--transport", "curl",
                              "--upstream-ca-file", cls.pki.ca)
        cls.asio_gw = Gateway("--upstream", f"openai={cls.up.base_url}",
                              "--upstream-ca-file", cls.pki.ca)

    @classmethod
    def tearDownClass(cls):
        cls.curl_gw.stop()
        cls.asio_gw.stop()
        cls.up.stop()
        cls.pki.close()

    def versions_of(self, model):
        return [r["version"] for r in self.up.seen(self.pki.ca) if r["model"] == model]

    def test_curl_transport_calls_the_upstream_over_http2_whole_and_streamed(self):
        status, _, body = self.curl_gw.request("POST", "/v1/chat/completions",
                                               chat_body(model="whole-h2"))
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["choices"][0]["message"]["content"], "hello over h2")
        status, headers, body = self.curl_gw.request("POST", "/v1/chat/completions",
                                                     chat_body(model="streamed-h2", stream=True))
        self.assertEqual(status, 200, body)
        self.assertIn("text/event-stream", headers["content-type"])
        self.assertEqual(sse_text(body), "hello")
        self.assertTrue(body.decode().rstrip().endswith("data: [DONE]"), body)
        self.assertEqual(self.versions_of("whole-h2"), ["2.0"])
        self.assertEqual(self.versions_of("streamed-h2"), ["2.0"])

    def test_concurrent_calls_share_one_http2_connection(self):
        # The upstream answers none of the four until all four are in flight:
        # on one session, they were multiplexed onto one connection.
        n = 4
        results = [None] * n

        def call(i):
            results[i] = self.curl_gw.request("POST", "/v1/chat/completions",
                                              chat_body(model=f"barrier-{n}",
                                                        stream=bool(i % 2)),
                                              timeout=20)

        threads = [threading.Thread(target=call, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        for i, r in enumerate(results):
            self.assertIsNotNone(r, f"call {i} did not end")
            self.assertEqual(r[0], 200, r[2])
        seen = [r for r in self.up.seen(self.pki.ca) if r["model"] == f"barrier-{n}"]
        self.assertEqual(len(seen), n)
        self.assertEqual({r["version"] for r in seen}, {"2.0"})
        self.assertEqual(len({r["session"] for r in seen}), 1, seen)

    def test_asio_transport_reaches_the_same_upstream_over_http11(self):
        for stream in (False, True):
            status, _, body = self.asio_gw.request(
                "POST", "/v1/chat/completions", chat_body(model="asio-h1", stream=stream))
            self.assertEqual(status, 200, body)
        self.assertEqual(self.versions_of("asio-h1"), ["1.1", "1.1"])


class LibcurlOnlyWhenUsed(unittest.TestCase):
    # libcurl (and the twenty libraries it pulls in) is opened at its first
    # call: a gateway on the asio transport never maps it (about 3 MB less
    # resident memory), one on the curl transport does once it calls out.
    def maps_libcurl_after_a_request(self, *args):
        up = harness.Upstream(default=lambda h, body: h.json(200, harness.completion("hi")))
        gw = Gateway("--upstream", f"openai={up.base_url}", *args)
        try:
            status, _, body = gw.request("POST", "/v1/chat/completions", chat_body())
            self.assertEqual(status, 200, body)
            with open(f"/proc/{gw.pid}/maps") as f:
                return "libcurl" in f.read()
        finally:
            gw.stop()
            up.stop()

    def test_the_asio_transport_never_maps_libcurl(self):
        self.assertFalse(self.maps_libcurl_after_a_request())

    def test_the_curl_transport_opens_it_at_its_first_call(self):
        self.assertTrue(self.maps_libcurl_after_a_request("--transport", "curl"))


class UpstreamTrust(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pki = Pki()
        cert, key = cls.pki.server_cert("upstream")
        cls.up = H2Upstream(cert, key)
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.up.stop()
        cls.pki.close()
        cls.tmp.cleanup()

    def test_an_untrusted_upstream_certificate_is_a_502_for_either_transport(self):
        for transport in ("curl", "asio"):
            gw = Gateway("--upstream", f"openai={self.up.base_url}", "--transport", transport)
            try:
                status, _, body = gw.request("POST", "/v1/chat/completions", chat_body())
                self.assertEqual(status, 502, (transport, body))
                err = json.loads(body)["error"]
                self.assertTrue(err["message"], (transport, err))
                self.assertNotIn(str(self.up.port), err["message"], (transport, err))
                self.assertTrue(gw.alive())
            finally:
                gw.stop()
        self.assertEqual(self.up.seen(self.pki.ca), [])

    def test_the_yaml_upstream_client_section_does_what_the_flags_do(self):
        path = os.path.join(self.tmp.name, "gateway.yaml")
        with open(path, "w") as f:
            f.write(f"""
upstream_client:
  transport: curl
  ca_file: {self.pki.ca}
upstreams:
  h2:
    profile: openai
    base_url: {self.up.base_url}
routes:
  - model: "*"
    upstreams: [h2]
""")
        gw = Gateway("--config", path)
        try:
            status, _, body = gw.request("POST", "/v1/chat/completions",
                                         chat_body(model="from-yaml"))
            self.assertEqual(status, 200, body)
        finally:
            gw.stop()
        self.assertEqual([r["version"] for r in self.up.seen(self.pki.ca)
                          if r["model"] == "from-yaml"], ["2.0"])

    def test_a_ca_file_that_cannot_be_used_stops_serve_at_start(self):
        not_pem = os.path.join(self.tmp.name, "not.pem")
        with open(not_pem, "w") as f:
            f.write("not a certificate\n")
        for ca, says in ((os.path.join(self.tmp.name, "missing.pem"), "cannot read"),
                         (not_pem, "no PEM certificate")):
            r = subprocess.run([harness.BINARY, "serve", "--listen", "127.0.0.1:0", "--upstream",
                                f"openai={self.up.base_url}", "--upstream-ca-file", ca],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(ca, r.stderr)
            self.assertIn(says, r.stderr)


if __name__ == "__main__":
    harness.run()
