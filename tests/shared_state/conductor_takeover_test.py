"""Conductor sessions across replicas (docs/deploy.md#conductor-sessions):
two `toolwire serve --redis` replicas, a real redis-server and a mock
upstream, all started here on 127.0.0.1. The device talks straight to each
replica's port, so which replica it lands on is the test's choice.

One test goes through HAProxy (round-robin, so the resume's new connection
lands on the other replica): the WebSocket upgrade path of a deployment.

usage: conductor_takeover_test.py TOOLWIRE_BINARY REDIS_SERVER HAPROXY [TestName...]
"""
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conductor"))

from conductor_client import WAIT, Device, Server, tool  # noqa: E402
from mock_upstream import MockUpstream, take  # noqa: E402

BINARY = None
REDIS = None
HAPROXY = None
LEASE_MS = 1000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Redis:
    def __init__(self, port):
        self.port = port
        self.proc = subprocess.Popen(
            [REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
             "no", "--protected-mode", "no"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            line = self.proc.stdout.readline()
            if "Ready to accept connections" in line:
                return
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise RuntimeError("redis-server did not start")

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        self.proc.stdout.close()


class Balancer:
    """HAProxy in the foreground, round-robin over the replicas."""

    def __init__(self, dirname, backends):
        self.port = free_port()
        cfg = os.path.join(dirname, "haproxy.cfg")
        with open(cfg, "w") as f:
            f.write("global\n  maxconn 200\ndefaults\n  mode http\n  timeout connect 2s\n"
                    "  timeout client 30s\n  timeout server 30s\n  timeout tunnel 60s\n"
                    f"frontend fe\n  bind 127.0.0.1:{self.port}\n  default_backend be\n"
                    "backend be\n  balance roundrobin\n")
            for i, port in enumerate(backends):
                f.write(f"  server r{i} 127.0.0.1:{port}\n")
        self.proc = subprocess.Popen([HAPROXY, "-db", "-f", cfg], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while time.monotonic() < end:  # HAProxy says nothing once it listens: try it
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                self.url = f"ws://127.0.0.1:{self.port}/v1/conductor"
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.02)
        self.stop()
        raise RuntimeError("haproxy did not start")

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)


def metric(server, name):
    with urllib.request.urlopen(http_base(server) + "/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return 0.0


def port_of(server):
    return int(server.url.split(":")[2].split("/")[0])


def http_base(server):
    return server.url.replace("ws://", "http://").replace("/v1/conductor", "")


def wait_ready(server, want=200, limit=10.0):
    """Polls GET /ready (bounded): 200 once the replica is connected to Redis."""
    end = time.monotonic() + limit
    status = None
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(http_base(server) + "/ready", timeout=2) as r:
                status = r.status
        except urllib.error.HTTPError as e:
            status = e.code
        except OSError:
            status = None
        if status == want:
            return
        time.sleep(0.05)
    raise AssertionError(f"/ready stayed {status}, wanted {want}")


def kill(server):
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(timeout=10)


def resume_payload(d, last_seen):
    return {"tools": [tool("get_battery")],
            "resume": {"sessionId": d.session_id, "token": d.token, "lastEventId": last_seen}}


def tool_messages(body):
    return [m for m in body["messages"] if m.get("role") == "tool"]


class TakeoverTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.mock = MockUpstream()
        self.redis_port = free_port()
        self.redis = Redis(self.redis_port)
        cfg = os.path.join(self.dir.name, "gateway.yaml")
        with open(cfg, "w") as f:
            f.write(f"""upstreams:
  mock: {{profile: openai_compatible, base_url: "{self.mock.base_url}", max_attempts: 1}}
routes:
  - model: assistant
    upstreams: [mock]
conductor:
  model: assistant
  resume_grace_ms: 20000
mcp_endpoint:
  tools: {{workspace: "{self.dir.name}", builtins: [read]}}
redis:
  url: redis://127.0.0.1:{self.redis_port}/0
  conductor_lease_ms: {LEASE_MS}
""")
        self.a = Server(BINARY, "--config", cfg)
        self.b = Server(BINARY, "--config", cfg)
        wait_ready(self.a)
        wait_ready(self.b)

    def tearDown(self):
        for s in (self.a, self.b):
            s.stop()
        if self.redis:
            self.redis.stop()
        self.mock.stop()
        self.dir.cleanup()
        self.assertTrue(self.mock.failures.empty())

    def run_async(self, coro, timeout=60):
        asyncio.run(asyncio.wait_for(coro, timeout))

    async def body(self):
        return await asyncio.to_thread(take, self.mock.bodies)

    async def turn_to_pending_call(self):
        """A session on A whose turn waits for get_battery: (device, call, events)."""
        self.mock.expect(lambda h, b: h.stream_tool_calls([("call_1", "get_battery", {})]))
        d = await Device.connect(self.a.url)
        await d.start([tool("get_battery")])
        await d.send("transcript.final", {"text": "how is my battery?"})
        got = await d.until("tool.call")
        first = await self.body()
        self.assertEqual(first["messages"][-1]["content"], "how is my battery?")
        return d, got[-1]["payload"], got

    async def finish_on(self, d2, call, d_events):
        """The result sent again on the new replica completes the turn there."""
        self.mock.expect(lambda h, b: h.stream_text("Your battery is at 87%."))
        await d2.send("tool.result", {"callId": call["callId"], "result": "87%"})
        final = (await d2.until("assistant.speech.final"))[-1]["payload"]["text"]
        self.assertEqual(final, "Your battery is at 87%.")
        second = await self.body()
        # The model saw the call once and its result once.
        results = tool_messages(second)
        self.assertEqual(len(results), 1, second["messages"])
        self.assertEqual(results[0]["tool_call_id"], "call_1")
        self.assertIn("87%", json.dumps(results[0]["content"]))
        calls = [c for m in second["messages"] for c in (m.get("tool_calls") or [])]
        self.assertEqual([c["id"] for c in calls], ["call_1"])
        self.assertEqual(second["messages"][0]["content"], "how is my battery?")
        # Nothing asked the device for that call again.
        # (a replay may show the old tool.call event again; no new one is sent)
        again = [e["id"] for e in d2.seen if e["type"] == "tool.call"]
        self.assertLessEqual(set(again), {e["id"] for e in d_events if e["type"] == "tool.call"})
        self.assertLessEqual(len(again), 1)
        await d2.until("state", pred=lambda e: e["payload"]["state"] == "idle")
        self.assertTrue(self.mock.bodies.empty())

    def test_sigkill_while_device_call_pending_turn_finishes_on_other_replica(self):
        async def go():
            d, call, got = await self.turn_to_pending_call()
            last_seen = got[0]["id"]
            missed = [e["id"] for e in got[1:]]
            kill(self.a)
            d2 = await Device.connect(self.b.url)
            d2.session_id = d.session_id
            await d2.send("session.start", resume_payload(d, last_seen))
            ready = (await d2.until("session.ready", timeout=3 * LEASE_MS / 1000 + WAIT))
            self.assertEqual([e["type"] for e in ready], ["session.ready"])
            self.assertTrue(ready[-1]["payload"]["resumed"])
            self.assertEqual(ready[-1]["payload"]["sessionId"], d.session_id)
            replayed = [(await d2.next())["id"] for _ in missed]
            self.assertEqual(replayed, missed)
            # Taken over, the call is pending on B: its console lists it there.
            await d2.until("state", pred=lambda e: e["payload"]["state"] == "thinking")
            with urllib.request.urlopen(http_base(self.b) + "/v1/conductor/sessions",
                                        timeout=WAIT) as r:
                listed = json.loads(r.read())["sessions"]
            mine = [x for x in listed if x["session_id"] == d.session_id]
            self.assertEqual(len(mine), 1, listed)
            self.assertEqual([(c["call_id"], c["name"]) for c in mine[0]["pending_calls"]],
                             [(call["callId"], "get_battery")])
            await self.finish_on(d2, call, got)
            # The session goes on there: a second turn, with the first in its history.
            self.mock.expect(lambda h, b: h.stream_text("Still 87%."))
            await d2.send("transcript.final", {"text": "and now?"})
            await d2.until("assistant.speech.final")
            third = await self.body()
            self.assertEqual(len(tool_messages(third)), 1)
            self.assertEqual(third["messages"][-1]["content"], "and now?")
            await d2.close()
            await d.ws.close()
        self.run_async(go())

    def test_resume_on_other_replica_while_owner_alive_moves_the_turn(self):
        async def go():
            d, call, got = await self.turn_to_pending_call()
            d2 = await Device.connect(self.b.url)
            d2.session_id = d.session_id
            await d2.send("session.start", resume_payload(d, got[-1]["id"]))
            ready = (await d2.until("session.ready", timeout=3 * LEASE_MS / 1000 + WAIT))
            self.assertTrue(ready[-1]["payload"]["resumed"])
            # The old replica let go and closed its side.
            await asyncio.wait_for(d.ws.wait_closed(), WAIT)
            self.assertEqual(d.ws.close_code, 4000)
            await self.finish_on(d2, call, got)
            await d2.close()
        self.run_async(go())

    def test_wrong_token_refused_on_other_replica(self):
        async def go():
            d, call, got = await self.turn_to_pending_call()
            d2 = await Device.connect(self.b.url)
            await d2.send("session.start", {"tools": [], "resume": {
                "sessionId": d.session_id, "token": "0" * 48, "lastEventId": 0}})
            err = (await d2.until("error"))[-1]["payload"]
            self.assertEqual(err["code"], "invalid_resume_token", err)
            await d2.close()
            # The session stays where it was.
            self.mock.expect(lambda h, b: h.stream_text("87% it is."))
            await d.send("tool.result", {"callId": call["callId"], "result": "87%"})
            final = (await d.until("assistant.speech.final"))[-1]["payload"]["text"]
            self.assertEqual(final, "87% it is.")
            await self.body()
            await d.close()
        self.run_async(go())

    def test_redis_restarted_mid_session(self):
        async def go():
            d, call, got = await self.turn_to_pending_call()
            self.redis.stop()
            self.redis = None
            wait_ready(self.b, want=503)
            # Redis down: a takeover cannot be made, and says so.
            d2 = await Device.connect(self.b.url)
            await d2.send("session.start", resume_payload(d, got[-1]["id"]))
            out = await d2.until("session.ready")
            self.assertEqual(out[0]["type"], "error")
            self.assertEqual(out[0]["payload"]["code"], "session_expired")
            self.assertIn("unavailable", out[0]["payload"]["message"])
            self.assertNotEqual(out[-1]["payload"]["sessionId"], d.session_id)
            await d2.close()
            # The owner's turn goes on meanwhile, and its next round too.
            self.mock.expect(lambda h, b: h.stream_tool_calls([("call_2", "get_battery", {})]))
            await d.send("tool.result", {"callId": call["callId"], "result": "87%"})
            call2 = (await d.until("tool.call"))[-1]["payload"]
            self.assertEqual(call2["callId"], "call_2")
            await self.body()
            # Redis back, empty: the owner writes the session again (its lease
            # renewal finds it gone), and then another replica can take it.
            self.redis = Redis(self.redis_port)
            wait_ready(self.a)
            wait_ready(self.b)
            end = time.monotonic() + 3 * LEASE_MS / 1000 + WAIT
            while True:
                d3 = await Device.connect(self.b.url)
                d3.session_id = d.session_id
                await d3.send("session.start", resume_payload(d, d.seen[-1]["id"]))
                out = await d3.until("session.ready", timeout=3 * LEASE_MS / 1000 + WAIT)
                if out[-1]["payload"]["resumed"]:
                    break
                self.assertEqual(out[0]["payload"]["code"], "session_expired")
                await d3.close()
                self.assertLess(time.monotonic(), end, "the session never came back to Redis")
                await asyncio.sleep(0.1)  # a bounded retry, not a synchronisation
            self.mock.expect(lambda h, b: h.stream_text("Done."))
            await d3.send("tool.result", {"callId": "call_2", "result": "86%"})
            await d3.until("assistant.speech.final")
            body = await self.body()
            self.assertEqual([m["tool_call_id"] for m in tool_messages(body)],
                             ["call_1", "call_2"])
            await d3.close()
        self.run_async(go(), timeout=90)

    def test_resume_through_haproxy_lands_on_other_replica(self):
        lb = Balancer(self.dir.name, [port_of(self.a), port_of(self.b)])

        async def go():
            self.mock.expect(lambda h, b: h.stream_tool_calls([("call_1", "get_battery", {})]))
            d = await Device.connect(lb.url)
            await d.start([tool("get_battery")])
            await d.send("transcript.final", {"text": "how is my battery?"})
            got = await d.until("tool.call")
            await self.body()
            await d.close()
            d2 = await Device.connect(lb.url)  # round-robin: the other replica
            d2.session_id = d.session_id
            await d2.send("session.start", resume_payload(d, got[0]["id"]))
            ready = await d2.until("session.ready", timeout=3 * LEASE_MS / 1000 + WAIT)
            self.assertTrue(ready[-1]["payload"]["resumed"])
            replayed = [(await d2.next())["id"] for _ in got[1:]]
            self.assertEqual(replayed, [e["id"] for e in got[1:]])
            await self.finish_on(d2, got[-1]["payload"], got)
            await d2.close()
        try:
            self.run_async(go())
        finally:
            lb.stop()
        takeovers = (metric(self.a, "toolwire_conductor_takeovers_total") +
                     metric(self.b, "toolwire_conductor_takeovers_total"))
        self.assertEqual(takeovers, 1)

    def test_mcp_session_opened_on_one_replica_is_served_by_the_other(self):
        def rpc(server, body, sid=None, method="POST"):
            headers = {"content-type": "application/json",
                       "accept": "application/json, text/event-stream"}
            if sid:
                headers["mcp-session-id"] = sid
            req = urllib.request.Request(http_base(server) + "/mcp", method=method,
                                         data=json.dumps(body).encode() if body else None,
                                         headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=WAIT) as r:
                    text = r.read().decode()
                    return r.status, r.headers.get("mcp-session-id"), text
            except urllib.error.HTTPError as e:
                return e.code, None, e.read().decode()

        with open(os.path.join(self.dir.name, "note.txt"), "w") as f:
            f.write("shared across replicas\n")
        status, sid, text = rpc(self.a, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                         "params": {"protocolVersion": "2025-03-26",
                                                    "capabilities": {},
                                                    "clientInfo": {"name": "t", "version": "1"}}})
        self.assertEqual(status, 200, text)
        self.assertTrue(sid)
        # The very next requests go to the other replica.
        status, _, _ = rpc(self.b, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        self.assertEqual(status, 202)
        status, _, text = rpc(self.b, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                       "params": {"name": "read",
                                                  "arguments": {"path": "note.txt"}}}, sid)
        self.assertEqual(status, 200, text)
        self.assertIn("shared across replicas", text)
        # The negotiated version came along: batches are allowed in 2025-03-26.
        status, _, text = rpc(self.b, [{"jsonrpc": "2.0", "id": 3, "method": "ping"}], sid)
        self.assertEqual(status, 200, text)
        # An unknown id is still 404 there; DELETE ends it everywhere.
        status, _, _ = rpc(self.b, {"jsonrpc": "2.0", "id": 4, "method": "ping"}, "f" * 32)
        self.assertEqual(status, 404)
        status, _, _ = rpc(self.b, None, sid, method="DELETE")
        self.assertEqual(status, 200)
        status, _, _ = rpc(self.b, {"jsonrpc": "2.0", "id": 5, "method": "ping"}, sid)
        self.assertEqual(status, 404)


if __name__ == "__main__":
    BINARY = sys.argv[1]
    REDIS = sys.argv[2]
    HAPROXY = sys.argv[3]
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:], verbosity=2)
