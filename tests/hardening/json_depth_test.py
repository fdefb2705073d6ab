"""Issue 21, defect 1: JSON nested past the limit at every entry point.

A conductor frame nested 100,000 deep (200 KB, under the frame size limit)
once killed the whole process. Every entry point now refuses JSON nested
more than 1,023 levels with an error in its own protocol, and the gateway
goes on serving: HTTP bodies of every dialect, conductor frames of every
type, MCP messages, YAML configuration, tool schemas.

usage: json_depth_test.py TOOLWIRE_BINARY
"""
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conductor"))
import harness  # noqa: E402
from harness import Gateway, GatewayCase, deep  # noqa: E402

import websockets  # noqa: E402

N = 100_000  # the depth that crashed the conductor
OK_DEPTH = 1000  # under the limit: must be handled (accepted or refused), never crash


def nested_obj(n):
    return '{"a":' * n + "1" + "}" * n


class HttpBodies(GatewayCase):
    """Every dialect's model-call endpoint, with the deep value in a message
    and in a tool's schema: 400 in the dialect's error shape."""

    ROUTES = [
        ("/v1/chat/completions", "openai"),
        ("/v1/messages", "anthropic"),
        ("/v1/responses", "openai"),
        ("/v1beta/models/m:generateContent", "gemini"),
        ("/model/m/converse", "bedrock"),
    ]

    def bodies(self, path, depth):
        d = deep(depth)
        if path.startswith("/v1beta"):
            return [
                '{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"x":' + d + "}",
                '{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":'
                '[{"name":"t","parameters":' + nested_obj(depth) + "}]}]}",
            ]
        if path.startswith("/model/"):
            return [
                '{"messages":[{"role":"user","content":[{"text":"hi"}]}],"x":' + d + "}",
                '{"messages":[{"role":"user","content":[{"text":"hi"}]}],"toolConfig":{"tools":'
                '[{"toolSpec":{"name":"t","inputSchema":{"json":' + nested_obj(depth) + "}}}]}}",
            ]
        if path == "/v1/responses":
            return [
                '{"model":"m","input":' + d + "}",
                '{"model":"m","input":"hi","tools":[{"type":"function","name":"t","parameters":'
                + nested_obj(depth) + "}]}",
            ]
        if path == "/v1/messages":
            return [
                '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":' + d + "}]}",
                '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],'
                '"tools":[{"name":"t","input_schema":' + nested_obj(depth) + "}]}",
            ]
        return [
            '{"model":"m","messages":[{"role":"user","content":' + d + "}]}",
            '{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function",'
            '"function":{"name":"t","parameters":' + nested_obj(depth) + "}}]}",
        ]

    def test_too_deep_is_400_in_the_dialect(self):
        for path, shape in self.ROUTES:
            for body in self.bodies(path, N):
                with self.subTest(path=path, size=len(body)):
                    status, headers, raw = self.gw.request(
                        "POST", path, body, {"content-type": "application/json"})
                    self.assertEqual(status, 400, raw[:300])
                    err = json.loads(raw)
                    if shape == "anthropic":
                        self.assertEqual(err["type"], "error")
                        self.assertEqual(err["error"]["type"], "invalid_request_error")
                    elif shape == "gemini":
                        self.assertEqual(err["error"]["status"], "INVALID_ARGUMENT")
                    elif shape == "bedrock":
                        self.assertIn("message", err)
                    else:
                        self.assertEqual(err["error"]["type"], "invalid_request_error")
                    self.assertIn("deep", json.dumps(err))
        self.assertTrue(self.gw.alive())

    def test_deep_but_under_the_limit_never_crashes(self):
        for path, _ in self.ROUTES:
            for body in self.bodies(path, OK_DEPTH):
                with self.subTest(path=path):
                    status, _, raw = self.gw.request(
                        "POST", path, body, {"content-type": "application/json"})
                    self.assertLess(status, 500, raw[:300])
        self.assertTrue(self.gw.alive())
        status, _, _ = self.gw.request("GET", "/health")
        self.assertEqual(status, 200)


class ConductorFrames(unittest.TestCase):
    """Every client frame type with a payload nested 100,000 deep: an `error`
    event `invalid_json`, the connection and the process go on."""

    @classmethod
    def setUpClass(cls):
        cls.gw = Gateway()
        cls.url = f"ws://127.0.0.1:{cls.gw.port}/v1/conductor"

    @classmethod
    def tearDownClass(cls):
        cls.gw.stop()

    async def expect(self, ws, type_):
        while True:
            ev = json.loads(await asyncio.wait_for(ws.recv(), harness.WAIT))
            if ev["type"] == type_:
                return ev

    def frames(self, session_id):
        d = deep(N)
        return {
            "session.start (tool parameters)":
                '{"id":"f1","type":"session.start","payload":{"tools":[{"name":"t","parameters":'
                + nested_obj(N) + "}]}}",
            "tool.result (result)":
                '{"id":"f2","type":"tool.result","sessionId":"' + session_id
                + '","payload":{"callId":"c1","result":' + d + "}}",
            "transcript.final": '{"id":"f3","type":"transcript.final","sessionId":"' + session_id
                + '","payload":{"text":"hi","x":' + d + "}}",
            "session.cancel": '{"id":"f4","type":"session.cancel","sessionId":"' + session_id
                + '","payload":' + d + "}",
            "ping": '{"id":"f5","type":"ping","payload":{"x":' + d + "}}",
            "envelope": d,
        }

    def test_every_frame_type(self):
        async def go():
            async with websockets.connect(self.url, max_size=None) as ws:
                await ws.send(json.dumps({"id": "s", "type": "session.start",
                                          "payload": {"tools": []}}))
                ready = await self.expect(ws, "session.ready")
                sid = ready["payload"]["sessionId"]
                for name, text in self.frames(sid).items():
                    with self.subTest(frame=name):
                        self.assertLess(len(text), 1024 * 1024)  # under the frame limit
                        await ws.send(text)
                        err = await self.expect(ws, "error")
                        self.assertEqual(err["payload"]["code"], "invalid_json", err)
                        self.assertIn("deep", err["payload"]["message"])
                        await ws.send(json.dumps({"id": "p", "type": "ping", "payload": {}}))
                        await self.expect(ws, "pong")
        asyncio.run(go())
        self.assertTrue(self.gw.alive())

    def test_tool_schema_just_under_the_limit(self):
        async def go():
            async with websockets.connect(self.url, max_size=None) as ws:
                await ws.send('{"id":"s","type":"session.start","payload":{"tools":[{"name":"t",'
                              '"parameters":' + nested_obj(OK_DEPTH) + "}]}}")
                ev = json.loads(await asyncio.wait_for(ws.recv(), harness.WAIT))
                self.assertIn(ev["type"], ("session.ready", "error"))
                await ws.send(json.dumps({"id": "p", "type": "ping", "payload": {}}))
                await self.expect(ws, "pong")
        asyncio.run(go())
        self.assertTrue(self.gw.alive())


class McpMessages(GatewayCase):
    HEADERS = {"content-type": "application/json",
               "accept": "application/json, text/event-stream"}

    def test_deep_message_is_a_parse_error(self):
        body = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":' + deep(N) + "}"
        status, _, raw = self.gw.request("POST", "/mcp", body, self.HEADERS)
        self.assertEqual(status, 400, raw[:300])
        err = json.loads(raw)
        self.assertEqual(err["error"]["code"], -32700)
        self.assertIn("deep", err["error"]["message"])
        self.assertTrue(self.gw.alive())

    def test_deep_tool_arguments_are_refused(self):
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}}}
        status, headers, raw = self.gw.request("POST", "/mcp", init, self.HEADERS)
        self.assertEqual(status, 200, raw[:300])
        sid = headers.get("mcp-session-id")
        h = dict(self.HEADERS)
        if sid:
            h["mcp-session-id"] = sid
        h["mcp-protocol-version"] = "2025-03-26"
        self.gw.request("POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, h)
        body = ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read",'
                '"arguments":{"path":' + deep(OK_DEPTH) + "}}}")
        status, _, raw = self.gw.request("POST", "/mcp", body, h)
        self.assertLess(status, 500, raw[:300])
        self.assertTrue(self.gw.alive())


class YamlConfig(unittest.TestCase):
    def check(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(text)
        try:
            return subprocess.run([harness.BINARY, "serve", "--check-config", f.name],
                                  capture_output=True, text=True, timeout=30)
        finally:
            os.unlink(f.name)

    def test_deep_yaml_is_an_error_not_a_crash(self):
        r = self.check("listen: 127.0.0.1:0\nlimits: " + "[" * N + "]" * N + "\n")
        self.assertGreater(r.returncode, 0, r.stderr)  # an exit code, not a signal
        self.assertTrue(r.stderr.strip())

    def test_deep_json_in_yaml_tool_parameters(self):
        cfg = ('upstreams:\n  s: {profile: scripted}\nroutes:\n  - {model: "*", upstreams: [s]}\n'
               'conductor:\n  device_tools:\n    "*":\n      - name: t\n        parameters: \''
               + nested_obj(N) + "'\n")
        r = self.check(cfg)
        self.assertGreater(r.returncode, 0, r.stderr[-500:])
        self.assertIn("deep", r.stderr)


if __name__ == "__main__":
    harness.run()
