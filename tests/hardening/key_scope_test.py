"""One gateway key never reaches another's stored conversations (issue 21,
item 6).

Two keys, A and B. A response stored for A (`previous_response_id`), an MCP
session A opened (`Mcp-Session-Id`) and a conductor session A started (its
resume token) are, to B, exactly what an id that was never issued is: the
same status, the same error, and nothing of A's conversation goes upstream.
"""
import asyncio
import hashlib
import json
import os
import re
import tempfile
import unittest

import harness
from harness import Gateway, Upstream, completion, take

KEY_A = "key-a-0123456789"
KEY_B = "key-b-9876543210"


def auth(key):
    return {"authorization": f"Bearer {key}"}


def sha(key):
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


class KeyScope(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.up = Upstream()
        cls.dir = tempfile.TemporaryDirectory()
        cfg = os.path.join(cls.dir.name, "gateway.yaml")
        with open(cfg, "w") as f:
            f.write(f"""
keys:
  - name: a
    sha256: "{sha(KEY_A)}"
  - name: b
    sha256: "{sha(KEY_B)}"
upstreams:
  mock:
    profile: openai_compatible
    base_url: {cls.up.base_url}
    max_attempts: 1
routes:
  - model: "*"
    upstreams: [mock]
mcp_endpoint:
  tools: {{workspace: {cls.dir.name}, builtins: [list]}}
conductor:
  enabled: true
  model: mock-model
""")
        cls.gw = Gateway("--config", cfg)

    @classmethod
    def tearDownClass(cls):
        cls.gw.stop()
        cls.up.stop()
        cls.dir.cleanup()

    def tearDown(self):
        while not self.up.handlers.empty():
            self.up.handlers.get_nowait()
        while not self.up.bodies.empty():
            self.up.bodies.get_nowait()

    # ---- /v1/responses: previous_response_id --------------------------------

    def respond(self, key, body):
        return self.gw.request("POST", "/v1/responses", body, headers=auth(key))

    def test_previous_response_of_another_key_is_unknown(self):
        self.up.expect(lambda h, b: h.json(200, completion("the secret is 42")))
        st, _, body = self.respond(KEY_A, {"model": "m", "input": "A's private question"})
        self.assertEqual(st, 200, body)
        rid = json.loads(body)["id"]
        take(self.up.bodies)

        st_b, _, body_b = self.respond(KEY_B, {"model": "m", "input": "go on",
                                               "previous_response_id": rid})
        unknown = "resp_" + "0" * 48
        st_u, _, body_u = self.respond(KEY_B, {"model": "m", "input": "go on",
                                               "previous_response_id": unknown})
        self.assertEqual(st_b, 400, body_b)
        self.assertEqual((st_b, body_b.replace(rid.encode(), b"ID")),
                         (st_u, body_u.replace(unknown.encode(), b"ID")))
        self.assertEqual(json.loads(body_b)["error"]["code"], "previous_response_not_found")
        self.assertTrue(self.up.bodies.empty(), "B's request went upstream")

        # A itself still continues it, and its conversation goes upstream.
        self.up.expect(lambda h, b: h.json(200, completion("sure")))
        st, _, body = self.respond(KEY_A, {"model": "m", "input": "go on",
                                           "previous_response_id": rid})
        self.assertEqual(st, 200, body)
        self.assertIn("A's private question", json.dumps(take(self.up.bodies)))

    # ---- refusals do not grow the metrics -----------------------------------

    def test_refused_callers_add_no_metric_series(self):
        """A caller without a valid key names whatever paths it likes; the
        401s are counted under the endpoint's fixed label, never its path."""
        def series():
            return {line.rpartition(" ")[0] for line in self.gw.metrics().splitlines()
                    if line.startswith("toolwire_requests_total{")}
        before = series()
        for i in range(40):
            for path in (f"/v1beta/models/m{i}:generateContent", f"/model/m{i}/converse",
                         f"/v1/chat/completions?x={i}"):
                st, _, _ = self.gw.request("POST", path, {"model": "m"},
                                           headers={"authorization": f"Bearer wrong-{i}"})
                self.assertEqual(st, 401, path)
        added = series() - before
        self.assertLessEqual(len(added), 6, sorted(added))
        self.assertFalse([s for s in added if "m1" in s or "x=" in s], sorted(added))

    # ---- /mcp: Mcp-Session-Id ------------------------------------------------

    def mcp(self, key, message, sid=None, method="POST"):
        headers = dict(auth(key))
        headers["accept"] = "application/json, text/event-stream"
        if sid:
            headers["mcp-session-id"] = sid
        return self.gw.request(method, "/mcp", message, headers=headers)

    def test_mcp_session_of_another_key_is_unknown(self):
        st, headers, body = self.mcp(KEY_A, {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}})
        self.assertEqual(st, 200, body)
        sid = headers["mcp-session-id"]
        self.mcp(KEY_A, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}

        other = self.mcp(KEY_B, listing, sid)
        unknown = self.mcp(KEY_B, listing, "0" * len(sid))
        self.assertEqual(other[0], 404, other[2])
        self.assertEqual((other[0], other[2]), (unknown[0], unknown[2]))
        # Nor can B end it: the same 404 as an unknown id.
        gone = self.mcp(KEY_B, None, sid, method="DELETE")
        gone_unknown = self.mcp(KEY_B, None, "0" * len(sid), method="DELETE")
        self.assertEqual((gone[0], gone[2]), (gone_unknown[0], gone_unknown[2]))
        self.assertEqual(gone[0], 404)

        st, _, body = self.mcp(KEY_A, listing, sid)
        self.assertEqual(st, 200, body)
        self.assertIn(b"tools", body)

    # ---- /v1/conductor: resume -----------------------------------------------

    def test_conductor_resume_of_another_key_is_unknown(self):
        try:
            import websockets  # noqa: F401 — Debian's python3-websockets
        except ImportError:
            self.skipTest("python3-websockets is not installed")
        sys_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conductor")
        import sys
        sys.path.insert(0, sys_path)
        from conductor_client import Device, tool

        url = f"ws://{self.gw.host}:{self.gw.port}/v1/conductor"

        async def go():
            a = await Device.connect(url)
            await a.start([tool("t1")], apiKey=KEY_A)

            async def resume(key, sid, token):
                d = await Device.connect(url)
                await d.send("session.start", {"tools": [tool("t1")], "apiKey": key,
                                               "resume": {"sessionId": sid, "token": token,
                                                          "lastEventId": 0}})
                got = await d.until("session.ready")
                await d.close()
                return got

            other = await resume(KEY_B, a.session_id, a.token)
            unknown_sid = "cs_" + "0" * 24
            unknown = await resume(KEY_B, unknown_sid, a.token)
            for got in (other, unknown):
                self.assertEqual(got[0]["type"], "error", got)
                self.assertEqual(got[0]["payload"]["code"], "session_expired", got)
                self.assertFalse(got[-1]["payload"]["resumed"], got)
                self.assertNotEqual(got[-1]["payload"]["sessionId"], a.session_id)
            norm = lambda got, sid: re.sub(re.escape(sid), "SID", got[0]["payload"]["message"])
            self.assertEqual(norm(other, a.session_id), norm(unknown, unknown_sid))
            # A wrong token with B's key tells nothing either.
            wrong = await resume(KEY_B, a.session_id, "0" * 48)
            self.assertEqual(wrong[0]["payload"]["code"], "session_expired", wrong)
            await a.close()

        asyncio.run(asyncio.wait_for(go(), 30))


if __name__ == "__main__":
    harness.run()
