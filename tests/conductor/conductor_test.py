"""End-to-end tests of GET /v1/conductor against `toolwire serve` (scripted model).

usage: conductor_test.py TOOLWIRE_BINARY [TestName...]
"""
import asyncio
import json
import os
import sys
import unittest

import websockets

from conductor_client import Device, Server, frame, tool

BINARY = None


class ConductorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server(BINARY, "--conductor-grace-ms", "1500", "--conductor-ui-calls")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def run_async(self, coro, timeout=30):
        asyncio.run(asyncio.wait_for(coro, timeout))

    def test_full_turn_two_parallel_device_tools(self):
        async def go():
            d = await Device.connect(self.server.url)
            ready = await d.start([tool("get_battery"), tool("get_location")])
            self.assertEqual(ready["payload"]["tools"], ["get_battery", "get_location"])
            await d.send("transcript.final", {"text": "call get_battery and get_location"})
            # Both calls arrive before any result is sent: they are awaited together.
            calls = []
            while len(calls) < 2:
                ev = (await d.until("tool.call"))[-1]
                calls.append(ev["payload"])
            self.assertEqual(sorted(c["name"] for c in calls), ["get_battery", "get_location"])
            self.assertEqual(json.loads(calls[0]["arguments"]), {})
            answers = {"get_battery": "87%", "get_location": {"city": "Lyon"}}
            for c in reversed(calls):
                await d.send("tool.result", {"callId": c["callId"], "result": answers[c["name"]]})
            got = await d.until("assistant.speech.final")
            final = got[-1]["payload"]["text"]
            self.assertIn("87%", final)
            self.assertIn("Lyon", final)
            self.assertIn("assistant.speech.partial", [e["type"] for e in got])
            # The optional UI calls follow the answer; their results never reach the model.
            ui = []
            while len(ui) < 4:
                ev = (await d.until("tool.call"))[-1]
                ui.append(ev["payload"]["name"])
                await d.send("tool.result", {"callId": ev["payload"]["callId"], "result": "ok"})
            self.assertEqual(ui, ["convo.appendMessage", "convo.setState", "tts.speak",
                                  "convo.setState"])
            await d.until("state", pred=lambda e: e["payload"]["state"] == "idle")
            # No error came back for the UI results.
            await d.send("ping")
            rest = await d.until("pong")
            self.assertNotIn("error", [e["type"] for e in rest])
            for e in d.seen:
                for k in ("id", "type", "timestamp", "payload"):
                    self.assertIn(k, e)
            await d.close()
        self.run_async(go())

    def test_timeout_then_late_and_duplicate_results(self):
        async def go():
            d = await Device.connect(self.server.url)
            await d.start([tool("slow_tool"), tool("fast_tool")],
                          options={"toolTimeoutMs": 300})
            await d.send("transcript.final", {"text": "call slow_tool and fast_tool"})
            calls = {}
            while len(calls) < 2:
                ev = (await d.until("tool.call"))[-1]
                calls[ev["payload"]["name"]] = ev["payload"]["callId"]
            await d.send("tool.result", {"callId": calls["fast_tool"], "result": "fast done"})
            got = await d.until("assistant.speech.final")
            text = got[-1]["payload"]["text"]
            self.assertIn("fast done", text)
            self.assertIn("tool_result_timeout", text)
            # Late: the slow call timed out.
            await d.send("tool.result", {"callId": calls["slow_tool"], "result": "too late"})
            err = (await d.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "late_result")
            # Duplicate: the fast call was answered already.
            await d.send("tool.result", {"callId": calls["fast_tool"], "result": "again"})
            err = (await d.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "duplicate_result")
            await d.send("tool.result", {"callId": "no_such_call", "result": "?"})
            err = (await d.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "unknown_call")
            await d.close()
        self.run_async(go())

    def test_disconnect_resume_replay_and_completion(self):
        async def go():
            d = await Device.connect(self.server.url)
            await d.start([tool("take_photo")])
            await d.send("transcript.final", {"text": "use take_photo"})
            got = await d.until("tool.call")
            call = got[-1]["payload"]
            last_seen = got[0]["id"]  # the first event only: the rest must be replayed
            missed = [e["id"] for e in got[1:]]
            await d.close()
            d2 = await Device.connect(self.server.url)
            d2.session_id = d.session_id
            await d2.send("session.start", {"tools": [tool("take_photo")], "resume": {
                "sessionId": d.session_id, "token": d.token, "lastEventId": last_seen}})
            ready = (await d2.until("session.ready"))[-1]["payload"]
            self.assertTrue(ready["resumed"])
            self.assertEqual(ready["sessionId"], d.session_id)
            replayed = []
            while len(replayed) < len(missed):
                replayed.append((await d2.next())["id"])
            self.assertEqual(replayed, missed)
            # The call is still pending: its result completes the turn.
            await d2.send("tool.result", {"callId": call["callId"], "result": "photo.jpg"})
            final = (await d2.until("assistant.speech.final"))[-1]["payload"]["text"]
            self.assertIn("photo.jpg", final)
            await d2.close()
        self.run_async(go())

    def test_wrong_token_refused_and_expired_session_starts_fresh(self):
        async def go():
            d = await Device.connect(self.server.url)
            await d.start([tool("t1")])
            d2 = await Device.connect(self.server.url)
            await d2.send("session.start", {"tools": [], "resume": {
                "sessionId": d.session_id, "token": "0" * 48, "lastEventId": 0}})
            err = (await d2.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "invalid_resume_token")
            await d.close()
            await d2.close()
            await asyncio.sleep(2.0)  # past the 1.5 s grace period (the subject of the test)
            d3 = await Device.connect(self.server.url)
            await d3.send("session.start", {"tools": [tool("t1")], "resume": {
                "sessionId": d.session_id, "token": d.token, "lastEventId": 0}})
            got = await d3.until("session.ready")
            self.assertEqual(got[0]["type"], "error")
            self.assertEqual(got[0]["payload"]["code"], "session_expired")
            self.assertNotEqual(got[-1]["payload"]["sessionId"], d.session_id)
            self.assertFalse(got[-1]["payload"]["resumed"])
            await d3.close()
        self.run_async(go())

    def test_barge_in_cancels_turn_and_next_turn_runs(self):
        async def go():
            d = await Device.connect(self.server.url)
            await d.start([tool("long_task")], options={"uiCalls": False})
            await d.send("transcript.final", {"text": "run long_task"})
            call = (await d.until("tool.call"))[-1]["payload"]
            # Queued behind the running turn.
            await d.send("transcript.final", {"text": "hello"})
            await d.send("session.cancel")
            await d.until("state", pred=lambda e: e["payload"]["state"] == "idle")
            # The cancelled call's result is late now.
            await d.send("tool.result", {"callId": call["callId"], "result": "x"})
            err = (await d.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "late_result")
            # History stayed valid: the next turn runs.
            await d.send("transcript.final", {"text": "hello"})
            final = (await d.until("assistant.speech.final"))[-1]["payload"]["text"]
            self.assertIn("Hello", final)
            await d.close()
        self.run_async(go())

    def test_queued_transcript_runs_after_turn(self):
        async def go():
            d = await Device.connect(self.server.url)
            await d.start([tool("get_time")], options={"uiCalls": False, "partial": "delta"})
            await d.send("transcript.final", {"text": "call get_time"})
            call = (await d.until("tool.call"))[-1]["payload"]
            await d.send("transcript.final", {"text": "hello"})
            await d.send("tool.result", {"callId": call["callId"], "result": "12:00"})
            got = await d.until("assistant.speech.final")
            self.assertIn("12:00", got[-1]["payload"]["text"])
            got = await d.until("assistant.speech.final")
            self.assertIn("Hello", got[-1]["payload"]["text"])
            self.assertIn("assistant.text.delta", [e["type"] for e in got])
            await d.close()
        self.run_async(go())

    def test_invalid_and_binary_frames_keep_connection_open(self):
        async def go():
            d = await Device.connect(self.server.url)
            cases = [
                ("not json", "invalid_json"),
                (json.dumps({"type": "no.such.type", "payload": {}}), "unknown_type"),
                (json.dumps({"payload": {}}), "invalid_envelope"),
                (json.dumps({"type": "transcript.final", "payload": {"text": 5}}),
                 "schema_violation"),
                (json.dumps({"type": "transcript.final", "payload": {}}), "no_session"),
            ]
            for raw, code in cases[:-1]:
                await d.ws.send(raw)
                err = (await d.until("error"))[-1]["payload"]
                self.assertEqual(err["code"], code, raw)
                self.assertFalse(err["retryable"])
            await d.ws.send(b"\x00\x01binary")
            err = (await d.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "binary_frame")
            await d.start([tool("t")])
            await d.ws.send(json.dumps({"type": "transcript.final", "payload": {"text": 5}}))
            err = (await d.until("error"))[-1]["payload"]
            self.assertIn("/text", err["message"])
            await d.send("ping")
            await d.until("pong")
            await d.close()
        self.run_async(go())

    def test_flood_gets_rate_limited_then_closed_1008(self):
        async def go():
            d = await Device.connect(self.server.url)
            for _ in range(400):
                try:
                    await d.ws.send("{")
                except websockets.ConnectionClosed:
                    break
            codes = set()
            try:
                while True:
                    ev = await d.next()
                    codes.add(ev["payload"].get("code"))
            except websockets.ConnectionClosed as e:
                self.assertEqual(e.code, 1008)
            self.assertIn("rate_limited", codes)
        self.run_async(go())

    def test_example_device_completes_a_turn(self):
        import os, subprocess
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        out = subprocess.run([sys.executable, os.path.join(root, "examples", "conductor_device.py"),
                              self.server.url], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("tool.call get_battery", out.stdout)
        self.assertIn("Lyon", out.stdout)

    def test_dotted_tool_name_round_trips(self):
        async def go():
            d = await Device.connect(self.server.url)
            ready = await d.start([tool("agent.photo")], options={"uiCalls": False})
            self.assertEqual(ready["payload"]["tools"], ["agent.photo"])
            await d.send("transcript.final", {"text": "use agent.photo"})
            call = (await d.until("tool.call"))[-1]["payload"]
            self.assertEqual(call["name"], "agent.photo")  # the model saw agent__photo
            await d.send("tool.result", {"callId": call["callId"], "result": "img.png"})
            final = (await d.until("assistant.speech.final"))[-1]["payload"]["text"]
            self.assertIn("img.png", final)
            await d.close()
        self.run_async(go())

    def test_plain_http_get_is_426(self):
        import urllib.request, urllib.error
        url = self.server.url.replace("ws://", "http://")
        with self.assertRaises(urllib.error.HTTPError) as cm:
            urllib.request.urlopen(url, timeout=10)
        self.assertEqual(cm.exception.code, 426)


class AuthOriginAndSizeTest(unittest.TestCase):
    """A gateway with a key (YAML config), an origin allow-list and the frame limit."""
    KEY = "conductor-test-key"

    @classmethod
    def setUpClass(cls):
        import hashlib, tempfile
        digest = hashlib.sha256(cls.KEY.encode()).hexdigest()
        cls.tmp = tempfile.TemporaryDirectory()
        cfg = os.path.join(cls.tmp.name, "gateway.yaml")
        with open(cfg, "w") as f:
            f.write(f'keys:\n  - name: dev\n    sha256: "sha256:{digest}"\n'
                    'upstreams:\n  s: {profile: scripted}\n'
                    'routes:\n  - {model: "*", upstreams: [s]}\n')
        cls.server = Server(BINARY, "--config", cfg, "--conductor-origin", "https://app.example")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.tmp.cleanup()

    def run_async(self, coro, timeout=30):
        asyncio.run(asyncio.wait_for(coro, timeout))

    def test_key_in_session_start(self):
        async def go():
            d = await Device.connect(self.server.url)
            await d.send("session.start", {"tools": [tool("t")]})
            err = (await d.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "unauthenticated")
            with self.assertRaises(websockets.ConnectionClosed) as cm:
                await d.next()
            self.assertEqual(cm.exception.code, 1008)
            d = await Device.connect(self.server.url)
            ready = await d.start([tool("get_time")], apiKey=self.KEY)
            self.assertIn("resumeToken", ready["payload"])
            await d.send("transcript.final", {"text": "call get_time"})
            call = (await d.until("tool.call"))[-1]["payload"]
            await d.send("tool.result", {"callId": call["callId"], "result": "noon"})
            final = (await d.until("assistant.speech.final"))[-1]["payload"]["text"]
            self.assertIn("noon", final)
            await d.close()
        self.run_async(go())

    def test_key_in_header_and_bad_header_key(self):
        async def go():
            d = await Device.connect(self.server.url,
                                     extra_headers={"Authorization": f"Bearer {self.KEY}"})
            await d.start([tool("t")])
            await d.close()
            with self.assertRaises(websockets.InvalidStatusCode) as cm:
                await Device.connect(self.server.url, extra_headers={"x-api-key": "wrong"})
            self.assertEqual(cm.exception.status_code, 401)
        self.run_async(go())

    def test_origin_allow_list(self):
        async def go():
            with self.assertRaises(websockets.InvalidStatusCode) as cm:
                await Device.connect(self.server.url, origin="https://evil.example")
            self.assertEqual(cm.exception.status_code, 403)
            d = await Device.connect(self.server.url, origin="https://app.example")
            await d.start([tool("t")], apiKey=self.KEY)
            await d.close()
        self.run_async(go())

    def test_oversized_frame_closes_1009(self):
        async def go():
            d = await Device.connect(self.server.url)
            # The server may close while the 1 MiB frame is still being sent:
            # the close then surfaces from send() rather than from next().
            with self.assertRaises(websockets.ConnectionClosed) as cm:
                await d.ws.send("x" * (1024 * 1024 + 1))
                await d.next()
            self.assertEqual(cm.exception.code, 1009)
        self.run_async(go())


class ConductorTraceTest(unittest.TestCase):
    """A conductor turn is a trace: its model calls and the device's tool calls as spans."""

    def test_turn_trace_has_model_and_device_tool_spans(self):
        import tempfile, time, urllib.request
        with tempfile.TemporaryDirectory() as data:
            server = Server(BINARY, "--data-dir", data)
            try:
                async def go():
                    d = await Device.connect(server.url)
                    await d.start([tool("get_battery"), tool("get_location")])
                    await d.send("transcript.final", {"text": "call get_battery and get_location"})
                    calls = []
                    while len(calls) < 2:
                        calls.append((await d.until("tool.call"))[-1]["payload"])
                    for c in calls:
                        await d.send("tool.result", {"callId": c["callId"], "result": "fine"})
                    await d.until("assistant.speech.final")
                    await d.until("state", pred=lambda e: e["payload"]["state"] == "idle")
                    await d.close()
                    return calls
                calls = asyncio.run(asyncio.wait_for(go(), 30))
                base = server.url.replace("ws://", "http://").replace("/v1/conductor", "")
                # Written off the request path: polled, for at most 10 s.
                deadline = time.monotonic() + 10
                turns = []
                while not turns and time.monotonic() < deadline:
                    with urllib.request.urlopen(base + "/v1/traces", timeout=5) as r:
                        listed = json.load(r)["traces"]
                    turns = [t for t in listed if t["kind"] == "conductor_turn"]
                    if not turns:
                        time.sleep(0.05)
                self.assertEqual(len(turns), 1, listed)
                with urllib.request.urlopen(base + "/v1/traces/" + turns[0]["trace_id"],
                                            timeout=5) as r:
                    t = json.load(r)
                self.assertEqual(t["name"], "conductor")
                self.assertEqual(t["status"], 200)
                models = [s for s in t["spans"] if s["kind"] == "model_call"]
                tools = [s for s in t["spans"] if s["kind"] == "tool_call"]
                self.assertGreaterEqual(len(models), 2, t)
                self.assertEqual(models[0]["attributes"]["gen_ai.operation.name"], "chat")
                self.assertEqual(models[0]["attributes"]["toolwire.outcome"], "ok")
                self.assertEqual(sorted(s["attributes"]["gen_ai.tool.name"] for s in tools),
                                 ["get_battery", "get_location"])
                for s in tools:
                    a = s["attributes"]
                    self.assertEqual(a["toolwire.tool.runner"], "device")
                    self.assertEqual(a["toolwire.tool.outcome"], "ok")
                    self.assertIn(a["gen_ai.tool.call.id"], [c["callId"] for c in calls])
                    self.assertNotIn("gen_ai.tool.call.arguments", a)  # capture is off
            finally:
                server.stop()


class ConductorOtlpTest(unittest.TestCase):
    """A conductor turn exported over OTLP/HTTP, decoded by the official
    opentelemetry-proto definitions (tests/gateway_observe/otlp_receiver.mjs,
    run with node): an invoke_agent SERVER root, its model and device tool
    spans as children, one trace id."""

    def test_turn_reaches_the_collector(self):
        import select, shutil, signal, subprocess, time
        here = os.path.dirname(os.path.abspath(__file__))
        receiver = os.path.join(here, "..", "gateway_observe", "otlp_receiver.mjs")
        rx = subprocess.Popen([shutil.which("node") or "node", receiver],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            ready, _, _ = select.select([rx.stdout], [], [], 15)
            self.assertTrue(ready, "the receiver printed no port within 15 s")
            port = int(rx.stdout.readline())
            server = Server(BINARY, "--no-traces", "--otlp-endpoint", f"http://127.0.0.1:{port}")
            try:
                async def go():
                    d = await Device.connect(server.url)
                    await d.start([tool("get_battery")])
                    await d.send("transcript.final", {"text": "call get_battery"})
                    call = (await d.until("tool.call"))[-1]["payload"]
                    await d.send("tool.result", {"callId": call["callId"], "result": "fine"})
                    await d.until("assistant.speech.final")
                    await d.until("state", pred=lambda e: e["payload"]["state"] == "idle")
                    await d.close()
                asyncio.run(asyncio.wait_for(go(), 30))
            finally:
                server.stop()  # SIGTERM: the exporter sends what is queued (bounded), then exits
            os.kill(rx.pid, signal.SIGTERM)
            out, _ = rx.communicate(timeout=15)
        finally:
            if rx.poll() is None:
                os.kill(rx.pid, signal.SIGKILL)
                rx.wait(timeout=5)
        spans = []
        for line in out.splitlines():
            for rs in json.loads(line).get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    spans.extend(ss.get("spans", []))

        def attrs(s):
            return {kv["key"]: next(iter(kv["value"].values())) for kv in s.get("attributes", [])}
        roots = [s for s in spans if s["kind"] == "SPAN_KIND_SERVER"]
        self.assertEqual(len(roots), 1, spans)
        root = roots[0]
        self.assertEqual(root["name"], "invoke_agent conductor")
        self.assertEqual(attrs(root)["gen_ai.operation.name"], "invoke_agent")
        children = [s for s in spans if s is not root]
        models = [s for s in children if s["kind"] == "SPAN_KIND_CLIENT"]
        tools = [s for s in children if s["kind"] == "SPAN_KIND_INTERNAL"]
        self.assertGreaterEqual(len(models), 2, spans)
        self.assertEqual(len(tools), 1, spans)
        for s in children:
            self.assertEqual(s["traceId"], root["traceId"])
            self.assertEqual(s["parentSpanId"], root["spanId"])
        self.assertEqual(attrs(models[0])["gen_ai.operation.name"], "chat")
        self.assertEqual(tools[0]["name"], "execute_tool get_battery")
        a = attrs(tools[0])
        self.assertEqual(a["toolwire.tool.runner"], "device")
        self.assertEqual(a["gen_ai.tool.name"], "get_battery")


if __name__ == "__main__":
    BINARY = sys.argv[1]
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
