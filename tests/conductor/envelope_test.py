"""The conductor on a route with `turn_protocol: envelope` (gateway config),
end to end against `toolwire serve` with a scripted upstream whose rules
answer JSON envelopes: `say` arrives as `assistant.say`, the device tool is
called, `send_chat` is the answer, `end_turn` ends the turn.

usage: envelope_test.py TOOLWIRE_BINARY
"""
import asyncio
import json
import os
import sys
import tempfile
import unittest

from conductor_client import Device, Server, tool

BINARY = None

SCRIPT = {
    "rules": [
        {"user_pattern": r'"id":"b1","type":"get_battery","status":"ok","output":"([^"]*)"',
         "reply": json.dumps({"toolCalls": [
             {"type": "end_turn"},
             {"type": "send_chat", "parameters": {"content": "Battery at $1"}, "priority": 1}]})},
        {"user_pattern": "battery",
         "reply": json.dumps({"toolCalls": [
             {"type": "get_battery", "id": "b1", "parameters": {}},
             {"type": "say", "parameters": {"utterance": "Let me check"}, "priority": 2}]})},
    ],
    "fallback": "not an envelope",
}


class EnvelopeRouteTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        script = os.path.join(cls.dir.name, "script.json")
        with open(script, "w") as f:
            json.dump(SCRIPT, f)
        config = os.path.join(cls.dir.name, "gateway.yaml")
        with open(config, "w") as f:
            f.write("upstreams:\n  local:\n    profile: scripted\n    script: %s\n"
                    "routes:\n  - model: \"*\"\n    upstreams: [local]\n"
                    "    turn_protocol: envelope\n" % json.dumps(script))
        cls.server = Server(BINARY, "--config", config)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.dir.cleanup()

    def test_say_device_call_send_chat_end_turn(self):
        async def go():
            d = await Device.connect(self.server.url)
            await d.start([tool("get_battery")])
            await d.send("transcript.final", {"text": "how is my battery?"})
            got = await d.until("tool.call")
            types = [e["type"] for e in got]
            # say ran first (priority 2) and is its own event, not the answer's text.
            self.assertIn("assistant.say", types)
            self.assertLess(types.index("assistant.say"), types.index("tool.call"))
            say = got[types.index("assistant.say")]["payload"]
            self.assertEqual(say, {"text": "Let me check"})
            self.assertNotIn("assistant.speech.partial", types)
            call = got[-1]["payload"]
            self.assertEqual(call["name"], "get_battery")
            self.assertEqual(call["callId"], "b1")
            await d.send("tool.result", {"callId": "b1", "result": "87%"})
            got = await d.until("assistant.speech.final")
            self.assertEqual(got[-1]["payload"]["text"], "Battery at 87%")
            partial = [e for e in got if e["type"] == "assistant.speech.partial"]
            self.assertEqual(partial[-1]["payload"]["text"], "Battery at 87%")
            idle = await d.until("state")
            self.assertEqual(idle[-1]["payload"]["state"], "idle")
            self.assertFalse([e for e in d.seen if e["type"] == "error"])
            await d.close()

        asyncio.run(asyncio.wait_for(go(), 30))


if __name__ == "__main__":
    BINARY = sys.argv[1]
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:])
