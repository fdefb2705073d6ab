"""The conductor in front of a real HTTP upstream (a mock OpenAI-compatible
server, tests/conductor/mock_upstream.py) and configured by YAML: device tools
from the `conductor:` section, server tools of the route mixed with device
tools in one model turn, barge-in cancelling an upstream request in flight,
per-key frame limits, and gateway shutdown with live sessions.

usage: upstream_test.py TOOLWIRE_BINARY [TestName...]
"""
import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import websockets

from conductor_client import WAIT, Device, Server, tool
from mock_upstream import MockUpstream, take

BINARY = None

PHOTO_SCHEMA = {"type": "object", "properties": {"camera": {"enum": ["front", "back"]}},
                "required": ["camera"]}
KEY_A, KEY_B, KEY_C = "conductor-key-a", "conductor-key-b", "conductor-key-c"


def write_config(dirname, base_url, extra_conductor=""):
    with open(os.path.join(dirname, "note.txt"), "w") as f:
        f.write("server-side content\n")
    da = hashlib.sha256(KEY_A.encode()).hexdigest()
    db = hashlib.sha256(KEY_B.encode()).hexdigest()
    dc = hashlib.sha256(KEY_C.encode()).hexdigest()
    cfg = os.path.join(dirname, "gateway.yaml")
    with open(cfg, "w") as f:
        f.write(f"""keys:
  - {{name: a, sha256: "sha256:{da}"}}
  - {{name: b, sha256: "sha256:{db}"}}
  - {{name: c, sha256: "sha256:{dc}", models: ["other-*"]}}
upstreams:
  mock: {{profile: openai_compatible, base_url: "{base_url}", max_attempts: 1}}
routes:
  - model: assistant
    upstreams: [mock]
    tools: {{mode: server, builtins: [read], workspace: "{dirname}"}}
conductor:
  model: assistant
  resume_grace_ms: 5000
{extra_conductor}  device_tools:
    assistant:
      - name: agent.photo
        description: Take a photo
        parameters: {json.dumps(PHOTO_SCHEMA)}
""")
    return cfg


def tool_names(body):
    return sorted(t["function"]["name"] for t in body.get("tools", []))


def check_history(test, messages):
    """Every assistant tool call has exactly one tool result after it."""
    open_calls = {}
    for m in messages:
        for c in m.get("tool_calls") or []:
            open_calls[c["id"]] = c["function"]["name"]
        if m["role"] == "tool":
            test.assertIn(m["tool_call_id"], open_calls, messages)
            del open_calls[m["tool_call_id"]]
    test.assertEqual(open_calls, {}, messages)


class UpstreamConductorTest(unittest.TestCase):
    EXTRA = ""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.mock = MockUpstream()
        cfg = write_config(cls.tmp.name, cls.mock.base_url, cls.EXTRA)
        cls.server = Server(BINARY, "--config", cfg)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.mock.stop()
        cls.tmp.cleanup()

    def run_async(self, coro, timeout=60):
        asyncio.run(asyncio.wait_for(coro, timeout))

    def tearDown(self):
        self.assertTrue(self.mock.failures.empty(), self.mock.failures.queue)

    async def connect(self, key=KEY_A):
        return await Device.connect(self.server.url,
                                    extra_headers={"Authorization": f"Bearer {key}"})

    async def body(self):
        return await asyncio.to_thread(take, self.mock.bodies)

    def test_server_and_device_tools_in_one_model_turn(self):
        async def go():
            d = await self.connect()
            ready = await d.start([tool("get_battery")], options={"uiCalls": False})
            # The configured device tool comes first, as declared (dots kept).
            self.assertEqual(ready["payload"]["tools"], ["agent.photo", "get_battery"])
            self.mock.expect(lambda h, b: h.stream_tool_calls([
                ("call_r", "read", {"path": "note.txt"}),
                ("call_p", "agent__photo", {"camera": "front"}),
                ("call_b", "get_battery", {})]))
            self.mock.expect(lambda h, b: h.stream_text("all three done"))
            await d.send("transcript.final", {"text": "photo, battery and the note"})
            first = await self.body()
            # The upstream sees wire names only (no dots), and the server tool.
            self.assertEqual(tool_names(first), ["agent__photo", "get_battery", "read"])
            self.assertEqual(first["model"], "assistant")  # conductor.model, no model in start
            photo = next(t for t in first["tools"] if t["function"]["name"] == "agent__photo")
            self.assertEqual(photo["function"]["parameters"], PHOTO_SCHEMA)
            # Both device calls arrive (sent together); the server call never does.
            calls = {}
            while len(calls) < 2:
                ev = (await d.until("tool.call"))[-1]["payload"]
                calls[ev["name"]] = ev
            self.assertEqual(sorted(calls), ["agent.photo", "get_battery"])
            self.assertEqual(json.loads(calls["agent.photo"]["arguments"]), {"camera": "front"})
            await d.send("tool.result", {"callId": calls["get_battery"]["callId"], "result": "87%"})
            await d.send("tool.result", {"callId": calls["agent.photo"]["callId"],
                                         "result": {"file": "photo.jpg"}})
            second = await self.body()
            msgs = second["messages"]
            check_history(self, msgs)
            assistant = next(m for m in msgs if m.get("tool_calls"))
            self.assertEqual([c["function"]["name"] for c in assistant["tool_calls"]],
                             ["read", "agent__photo", "get_battery"])
            results = {m["tool_call_id"]: m["content"] for m in msgs if m["role"] == "tool"}
            self.assertIn("server-side content", json.dumps(results["call_r"]))
            self.assertIn("photo.jpg", json.dumps(results["call_p"]))
            self.assertIn("87%", json.dumps(results["call_b"]))
            got = await d.until("assistant.speech.final")
            self.assertEqual(got[-1]["payload"]["text"], "all three done")
            self.assertNotIn("read", [e["payload"].get("name") for e in d.seen
                                      if e["type"] == "tool.call"])
            await d.close()
        self.run_async(go())

    def test_barge_in_cancels_the_upstream_request_in_flight(self):
        async def go():
            d = await self.connect()
            await d.start([tool("get_battery")], options={"uiCalls": False})
            # Turn 1: two device calls; one answered, then barge-in.
            self.mock.expect(lambda h, b: h.stream_tool_calls([
                ("call_p", "agent__photo", {"camera": "back"}),
                ("call_b", "get_battery", {})]))
            await d.send("transcript.final", {"text": "photo and battery"})
            await self.body()
            calls = {}
            while len(calls) < 2:
                ev = (await d.until("tool.call"))[-1]["payload"]
                calls[ev["name"]] = ev["callId"]
            await d.send("tool.result", {"callId": calls["agent.photo"], "result": "img.png"})
            await d.send("session.cancel")
            await d.until("state", pred=lambda e: e["payload"]["state"] == "idle")
            # Turn 2 streams slowly; barge-in while its request is in flight.
            self.mock.expect(lambda h, b: h.stream_then_hold("Let me think"))
            await d.send("transcript.final", {"text": "second question"})
            second = await self.body()
            msgs = second["messages"]
            check_history(self, msgs)  # the pending call got a result: cancelled
            results = {m["tool_call_id"]: json.dumps(m["content"]) for m in msgs
                       if m["role"] == "tool"}
            self.assertIn("img.png", results["call_p"])
            self.assertIn("cancel", results["call_b"].lower())
            self.assertEqual(msgs[-1], {"role": "user", "content": "second question"})
            got = await d.until("assistant.speech.partial")
            self.assertEqual(got[-1]["payload"]["text"], "Let me think")
            t_cancel = time.monotonic()
            self.mock.expect(lambda h, b: h.stream_text("third answer"))
            await d.send("session.cancel")
            await d.send("transcript.final", {"text": "third question"})
            # The upstream sees its connection closed: the request was cancelled.
            closed_at = await asyncio.to_thread(take, self.mock.closed, 15)
            self.assertIsNotNone(closed_at, "the upstream request was never cancelled")
            self.assertLess(closed_at - t_cancel, 5.0)
            third = await self.body()
            msgs = third["messages"]
            check_history(self, msgs)
            self.assertEqual(msgs[-1], {"role": "user", "content": "third question"})
            # The half turn that was cut is not in the history.
            self.assertNotIn("Let me think", json.dumps(msgs))
            got = await d.until("assistant.speech.final")
            self.assertEqual(got[-1]["payload"]["text"], "third answer")
            self.assertNotIn("upstream_error", [e["payload"].get("code") for e in got
                                                if e["type"] == "error"])
            await d.close()
        self.run_async(go())


class KeyLimitTest(UpstreamConductorTest):
    """key_frames_per_second: one bucket for all sessions of a key."""
    EXTRA = ("  key_frames_per_second: 0.001\n  key_frame_burst: 12\n"
             "  max_frame_bytes: 4096\n  allowed_origins: [\"https://app.example\"]\n")

    # Only this class's own test runs here.
    test_server_and_device_tools_in_one_model_turn = None
    test_barge_in_cancels_the_upstream_request_in_flight = None

    def test_frame_size_origins_and_key_models_from_the_file(self):
        async def go():
            with self.assertRaises(websockets.InvalidStatusCode) as cm:
                await Device.connect(self.server.url, origin="https://evil.example")
            self.assertEqual(cm.exception.status_code, 403)
            d = await Device.connect(self.server.url, origin="https://app.example",
                                     extra_headers={"x-api-key": KEY_B})
            with self.assertRaises(websockets.ConnectionClosed) as cm:
                await d.ws.send("x" * 4097)
                await d.next()
            self.assertEqual(cm.exception.code, 1009)
            # Key c may use other-* only; the conductor's default model is not one.
            c = await self.connect(KEY_C)
            await c.send("session.start", {"tools": []})
            err = (await c.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "forbidden_model")
            self.assertIn("'assistant'", err["message"])
            await c.close()
        self.run_async(go())

    def test_per_key_frame_limit_is_shared_by_the_keys_sessions(self):
        async def go():
            # Key a: 12 frames in its bucket, refilled once in 1000 s.
            a1 = await Device.connect(self.server.url)
            await a1.start([], apiKey=KEY_A)  # session.start is charged once the key is known
            for _ in range(8):
                await a1.send("ping")
            pongs = 0
            while pongs < 8:
                ev = await a1.next()
                self.assertNotEqual(ev["type"], "error", ev)
                pongs += ev["type"] == "pong"
            # A second session of key a has its own session bucket, but not
            # its own key bucket: it runs dry within the remaining frames.
            a2 = await self.connect(KEY_A)
            await a2.start([])
            limited = None
            for i in range(8):
                await a2.send("ping")
                ev = await a2.next()
                if ev["type"] == "error":
                    limited = ev["payload"]
                    break
            self.assertIsNotNone(limited, "key a's second session was never limited")
            self.assertEqual(limited["code"], "rate_limited")
            self.assertTrue(limited["retryable"])
            self.assertIn("key 'a'", limited["message"])
            # Key b is not limited by key a's use.
            b = await self.connect(KEY_B)
            await b.start([])
            for _ in range(8):
                await b.send("ping")
                ev = await b.next()
                self.assertEqual(ev["type"], "pong", ev)
            for d in (a1, a2, b):
                await d.close()
        self.run_async(go())


class ShutdownTest(unittest.TestCase):
    """SIGTERM with live sessions: every client gets 1001, the upstream call in
    flight is cancelled, the process exits 0 within a bound."""

    def test_shutdown_with_live_sessions(self):
        tmp = tempfile.TemporaryDirectory()
        mock = MockUpstream()
        cfg = write_config(tmp.name, mock.base_url)
        server = Server(BINARY, "--config", cfg, "--drain-ms", "3000")

        async def connect():
            return await Device.connect(server.url,
                                        extra_headers={"Authorization": f"Bearer {KEY_A}"})

        async def go():
            streaming = await connect()
            await streaming.start([])
            mock.expect(lambda h, b: h.stream_then_hold("thinking about it"))
            await streaming.send("transcript.final", {"text": "a long answer"})
            await streaming.until("assistant.speech.partial")
            waiting = await connect()
            await waiting.start([tool("get_battery")])
            mock.expect(lambda h, b: h.stream_tool_calls([("call_b", "get_battery", {})]))
            await waiting.send("transcript.final", {"text": "battery"})
            await waiting.until("tool.call")
            idle = await connect()
            await idle.start([])
            bare = await connect()  # no session yet
            t0 = time.monotonic()
            os.kill(server.proc.pid, signal.SIGTERM)
            for name, d in (("streaming", streaming), ("waiting", waiting), ("idle", idle),
                            ("bare", bare)):
                with self.assertRaises(websockets.ConnectionClosed) as cm:
                    while True:
                        await d.next()
                self.assertEqual(cm.exception.code, 1001, f"{name}: {cm.exception}")
            closed = await asyncio.to_thread(take, mock.closed, 15)
            self.assertIsNotNone(closed, "the upstream request in flight was never cancelled")
            rc = await asyncio.to_thread(server.proc.wait, 15)
            self.assertEqual(rc, 0, server.proc.stderr.read())
            self.assertLess(time.monotonic() - t0, 10.0)

        try:
            asyncio.run(asyncio.wait_for(go(), 60))
        finally:
            server.stop()
            mock.stop()
            tmp.cleanup()


class ReplayConductorTest(unittest.TestCase):
    """A conductor turn recorded against the mock upstream (--record), then
    replayed with the mock gone (--replay): the device gets the same tool
    call and the same answer."""

    def turn(self, server):
        async def go():
            d = await Device.connect(server.url,
                                     extra_headers={"Authorization": f"Bearer {KEY_A}"})
            await d.start([tool("get_battery")], options={"uiCalls": False})
            await d.send("transcript.final", {"text": "how is my battery?"})
            call = (await d.until("tool.call"))[-1]["payload"]
            await d.send("tool.result", {"callId": call["callId"], "result": "87%"})
            final = (await d.until("assistant.speech.final"))[-1]["payload"]["text"]
            await d.close()
            return call["name"], json.loads(call["arguments"]), final
        return asyncio.run(asyncio.wait_for(go(), 60))

    def test_record_then_replay_without_the_upstream(self):
        with tempfile.TemporaryDirectory() as tmp:
            rec = os.path.join(tmp, "recording")
            mock = MockUpstream()
            cfg = write_config(tmp, mock.base_url)
            mock.expect(lambda h, b: h.stream_tool_calls([("call_b", "get_battery", {})]))
            mock.expect(lambda h, b: h.stream_text("Your battery is at 87%."))
            server = Server(BINARY, "--config", cfg, "--record", rec, "--data-dir", tmp)
            try:
                recorded = self.turn(server)
            finally:
                server.stop()
                mock.stop()
            self.assertEqual(recorded, ("get_battery", {}, "Your battery is at 87%."))
            self.assertEqual(len(os.listdir(rec)), 2)  # two model calls
            for name in os.listdir(rec):
                with open(os.path.join(rec, name)) as f:
                    self.assertNotIn(KEY_A, f.read())
            server = Server(BINARY, "--config", cfg, "--replay", rec, "--data-dir", tmp)
            try:
                self.assertEqual(self.turn(server), recorded)
            finally:
                server.stop()


if __name__ == "__main__":
    BINARY = sys.argv[1]
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
