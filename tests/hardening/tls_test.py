"""Issue 24: TLS at the edge (--tls-cert / --tls-key, `tls:` in the YAML).

A test CA and server certificates are made at test time with the openssl
command; clients trust only that CA. Covered: chat completions whole and
streamed over HTTPS (curl and Python's ssl), TLS 1.1 refused, the conductor
over wss://, the certificate reloaded on SIGHUP (new connections get the new
one, an open connection keeps working), bad handshakes that neither crash
nor hang the server (garbage, silence: bounded by the header timeout), and
configuration errors that name the files.

usage: tls_test.py TOOLWIRE_BINARY
"""
import asyncio
import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Gateway, Upstream, chat_body, completion, wait_until  # noqa: E402

import websockets  # noqa: E402


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


class Pki:
    """A CA and server certificates for 127.0.0.1 signed by it, in a temp dir."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj",
                "/CN=toolwire test CA", cwd=self.dir)
        self.ca = os.path.join(self.dir, "ca.pem")

    def server_cert(self, name):
        """name.pem / name.key: a certificate for 127.0.0.1 with CN=name."""
        ext = os.path.join(self.dir, name + ".ext")
        with open(ext, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name,
                cwd=self.dir)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", name + ".pem",
                cwd=self.dir)
        return os.path.join(self.dir, name + ".pem"), os.path.join(self.dir, name + ".key")

    def client_context(self):
        ctx = ssl.create_default_context(cafile=self.ca)
        return ctx

    def close(self):
        self.tmp.cleanup()


class TlsGateway(Gateway):
    """`toolwire serve` with TLS: harness.Gateway reads `listening on
    https://...` too; url() and requests use https."""

    def url(self, path=""):
        return f"https://{self.host}:{self.port}{path}"


def cn_of(der):
    """The CN of a DER certificate, through the openssl command."""
    out = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-subject"], input=der,
                         capture_output=True, check=True, timeout=30).stdout.decode()
    return out.strip().rsplit("CN", 1)[1].lstrip(" =")


def peer_cn(gw, ctx):
    with socket.create_connection((gw.host, gw.port), timeout=harness.WAIT) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
            return cn_of(s.getpeercert(binary_form=True))


class TlsServing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pki = Pki()
        cls.cert, cls.key = cls.pki.server_cert("one")
        cls.up = Upstream(default=lambda h, body: (
            h.stream_text("hel", "lo") if body and body.get("stream")
            else h.json(200, completion("hello over tls"))))
        cls.gw = TlsGateway("--upstream", f"openai={cls.up.base_url}", "--tls-cert", cls.cert,
                            "--tls-key", cls.key)
        cls.ctx = cls.pki.client_context()

    @classmethod
    def tearDownClass(cls):
        cls.gw.stop()
        cls.up.stop()
        cls.pki.close()

    def post(self, body, conn=None):
        own = conn is None
        conn = conn or http.client.HTTPSConnection(self.gw.host, self.gw.port, context=self.ctx,
                                                   timeout=harness.WAIT)
        try:
            conn.request("POST", "/v1/chat/completions", body=json.dumps(body),
                         headers={"content-type": "application/json"})
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            if own:
                conn.close()

    def curl(self, *args):
        return subprocess.run(["curl", "-sS", "--max-time", "10", "--cacert", self.pki.ca, *args],
                              capture_output=True, timeout=30)

    def test_listening_line_says_https(self):
        self.assertTrue(self.gw.alive())

    def test_chat_completion_whole(self):
        status, body = self.post(chat_body())
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["choices"][0]["message"]["content"], "hello over tls")

    def test_chat_completion_streamed(self):
        status, body = self.post(chat_body(stream=True))
        self.assertEqual(status, 200, body)
        text = "".join(
            json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
            for line in body.decode().splitlines()
            if line.startswith("data: {"))
        self.assertEqual(text, "hello")
        self.assertIn("data: [DONE]", body.decode())

    def test_keep_alive_connection_serves_several_requests(self):
        conn = http.client.HTTPSConnection(self.gw.host, self.gw.port, context=self.ctx,
                                           timeout=harness.WAIT)
        try:
            for stream in (False, True, False):
                status, _ = self.post(chat_body(stream=stream), conn)
                self.assertEqual(status, 200)
        finally:
            conn.close()

    def test_curl_over_https_whole_and_streamed(self):
        for stream in (False, True):
            r = self.curl(self.gw.url("/v1/chat/completions"), "-H", "content-type: application/json",
                          "--data-binary", json.dumps(chat_body(stream=stream)))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(b"hel", r.stdout)

    def test_alpn_picks_h2_else_http11(self):
        for flag, version in (("--http2", b"2"), ("--http1.1", b"1.1")):
            r = self.curl(flag, "-o", "/dev/null", "-w", "%{http_version}", self.gw.url("/health"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, version)

    def test_untrusted_certificate_is_refused_by_the_client(self):
        r = subprocess.run(["curl", "-sS", "--max-time", "10", self.gw.url("/health")],
                           capture_output=True, timeout=30)
        self.assertNotEqual(r.returncode, 0)

    def test_tls11_is_refused(self):
        warnings.simplefilter("ignore", DeprecationWarning)  # TLS 1.1 is the point here
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(self.pki.ca)
        ctx.set_ciphers("DEFAULT:@SECLEVEL=0")  # OpenSSL 3 clients refuse TLS 1.1 themselves
        ctx.minimum_version = ssl.TLSVersion.TLSv1_1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
        with socket.create_connection((self.gw.host, self.gw.port), timeout=harness.WAIT) as raw:
            with self.assertRaises(ssl.SSLError) as e:
                ctx.wrap_socket(raw, server_hostname="127.0.0.1")
        self.assertRegex(str(e.exception), "(?i)protocol version|unsupported protocol")
        # TLS 1.2 exactly is served.
        ctx12 = self.pki.client_context()
        ctx12.maximum_version = ssl.TLSVersion.TLSv1_2
        with socket.create_connection((self.gw.host, self.gw.port), timeout=harness.WAIT) as raw:
            with ctx12.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                self.assertEqual(s.version(), "TLSv1.2")
        self.assertTrue(self.gw.alive())

    def test_garbage_instead_of_a_handshake_is_closed(self):
        for junk in (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"\x16\x03\x01\xff\xff" + b"A" * 300,
                     os.urandom(2048)):
            harness.send_and_drain(self.gw.host, self.gw.port, junk)
        status, _ = self.post(chat_body())
        self.assertEqual(status, 200)

    def test_plain_http_to_the_tls_port_gets_no_answer_and_no_crash(self):
        conn = http.client.HTTPConnection(self.gw.host, self.gw.port, timeout=harness.WAIT)
        with self.assertRaises((http.client.HTTPException, ConnectionError, OSError)):
            conn.request("GET", "/health")
            conn.getresponse().read()
        conn.close()
        self.assertTrue(self.gw.alive())

    def test_conductor_over_wss(self):
        async def go():
            async with websockets.connect(f"wss://127.0.0.1:{self.gw.port}/v1/conductor",
                                          ssl=self.ctx, open_timeout=harness.WAIT) as ws:
                await ws.send(json.dumps({"type": "session.start", "id": "s1",
                                          "payload": {"tools": []}}))
                frames = []
                while not frames or frames[-1].get("type") != "session.ready":
                    frames.append(json.loads(await asyncio.wait_for(ws.recv(), harness.WAIT)))
                await ws.send(json.dumps({"type": "transcript.final", "id": "t1",
                                          "payload": {"text": "hi"}}))
                while frames[-1].get("type") != "assistant.speech.final":
                    frames.append(json.loads(await asyncio.wait_for(ws.recv(), harness.WAIT)))
                return frames
        frames = asyncio.run(go())
        self.assertIn(frames[-1]["payload"]["text"], ("hello", "hello over tls"), frames)


class TlsHandshakeDeadline(unittest.TestCase):
    """A client that connects and never sends its ClientHello is cut at the
    header timeout; the server keeps serving."""

    def test_silent_client_is_cut(self):
        pki = Pki()
        cert, key = pki.server_cert("quiet")
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("upstreams:\n  s: {profile: scripted}\nroutes:\n  - {model: '*', upstreams: [s]}\n"
                    f"tls: {{cert: {cert}, key: {key}}}\nlimits: {{header_timeout_ms: 300}}\n")
            cfg = f.name
        gw = TlsGateway("--config", cfg)
        try:
            with socket.create_connection((gw.host, gw.port), timeout=harness.WAIT) as s:
                s.settimeout(harness.WAIT)
                t0 = time.monotonic()
                try:
                    self.assertEqual(s.recv(1), b"")
                except ConnectionResetError:
                    pass
                self.assertLess(time.monotonic() - t0, harness.WAIT)
            self.assertEqual(peer_cn(gw, pki.client_context()), "quiet")
        finally:
            gw.stop()
            os.unlink(cfg)
            pki.close()


class TlsReload(unittest.TestCase):
    def test_sighup_serves_the_new_certificate_to_new_connections(self):
        pki = Pki()
        cert, key = pki.server_cert("first")
        up = Upstream(default=lambda h, body: h.json(200, completion("ok")))
        gw = TlsGateway("--upstream", f"openai={up.base_url}", "--tls-cert", cert, "--tls-key", key)
        ctx = pki.client_context()
        try:
            self.assertEqual(peer_cn(gw, ctx), "first")
            # A connection opened before the reload.
            old = http.client.HTTPSConnection(gw.host, gw.port, context=ctx, timeout=harness.WAIT)
            old.request("GET", "/health")
            old.getresponse().read()
            # New files in place, then SIGHUP.
            new_cert, new_key = pki.server_cert("second")
            os.replace(new_cert, cert)
            os.replace(new_key, key)
            os.kill(gw.pid, signal.SIGHUP)
            wait_until(lambda: peer_cn(gw, ctx) == "second", what="the new certificate served")
            self.assertIn("reloaded the TLS certificate", gw.stderr())
            # The old connection still works, with the old certificate.
            self.assertEqual(cn_of(old.sock.getpeercert(binary_form=True)), "first")
            old.request("POST", "/v1/chat/completions", body=json.dumps(chat_body()),
                        headers={"content-type": "application/json"})
            self.assertEqual(old.getresponse().status, 200)
            old.close()
            # A reload that fails keeps the current certificate.
            with open(key, "w") as f:
                f.write("not a key\n")
            os.kill(gw.pid, signal.SIGHUP)
            wait_until(lambda: "previous certificate stays in use" in gw.stderr(),
                       what="the failed reload reported")
            self.assertNotIn("not a key", gw.stderr())
            self.assertEqual(peer_cn(gw, ctx), "second")
        finally:
            gw.stop()
            up.stop()
            pki.close()


class TlsConfigErrors(unittest.TestCase):
    def run_serve(self, *args):
        return subprocess.run([harness.BINARY, "serve", "--listen", "127.0.0.1:0", "--quiet",
                               "--upstream", "scripted", *args],
                              capture_output=True, text=True, timeout=30)

    def test_cert_without_key_is_a_usage_error(self):
        r = self.run_serve("--tls-cert", "/nonexistent.pem")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--tls-cert needs --tls-key", r.stderr)

    def test_missing_files_are_named(self):
        r = self.run_serve("--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/k")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("/nonexistent/cert.pem", r.stderr)

    def test_key_of_another_certificate_is_refused_without_its_contents(self):
        pki = Pki()
        try:
            cert, _ = pki.server_cert("a")
            _, other_key = pki.server_cert("b")
            with open(other_key) as f:
                secret = f.read().splitlines()[1]
            r = self.run_serve("--tls-cert", cert, "--tls-key", other_key)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("mismatch", r.stderr)
            self.assertNotIn(secret, r.stderr)
        finally:
            pki.close()


if __name__ == "__main__":
    harness.run()
