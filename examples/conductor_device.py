#!/usr/bin/env python3
"""A small device for toolwire's WebSocket conductor (docs/conductor.md).

It connects, declares two tools it runs itself, speaks one turn, executes
every tool.call it gets and prints the answer. Offline, against the default
scripted model:

    toolwire serve --listen 127.0.0.1:8080 &
    python3 examples/conductor_device.py ws://127.0.0.1:8080/v1/conductor

Needs Debian's python3-websockets.
"""
import asyncio
import json
import sys
import time

import websockets

TOOLS = [
    {"name": "get_battery", "description": "The phone's battery level.",
     "parameters": {"type": "object", "properties": {}}},
    {"name": "get_location", "description": "The city the phone is in.",
     "parameters": {"type": "object", "properties": {}}},
]


def run_tool(name, arguments):
    if name == "get_battery":
        return "battery at 87%"
    if name == "get_location":
        return {"city": "Lyon", "country": "FR"}
    raise ValueError(f"no tool {name}")


def envelope(n, type_, payload, session_id=None):
    e = {"id": f"dev-{n}", "type": type_, "payload": payload,
         "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if session_id:
        e["sessionId"] = session_id
    return json.dumps(e)


async def main(url, utterance):
    n = 0
    async with websockets.connect(url) as ws:
        n += 1
        await ws.send(envelope(n, "session.start", {"tools": TOOLS}))
        session = None
        while True:
            ev = json.loads(await asyncio.wait_for(ws.recv(), 30))
            kind, p = ev["type"], ev["payload"]
            if kind == "session.ready":
                session = p["sessionId"]
                print(f"session {session}, tools {p['tools']}")
                print(f"> {utterance}")
                n += 1
                await ws.send(envelope(n, "transcript.final", {"text": utterance}, session))
            elif kind == "tool.call":
                args = json.loads(p["arguments"])
                print(f"  tool.call {p['name']}({args})")
                try:
                    payload = {"callId": p["callId"], "result": run_tool(p["name"], args)}
                except Exception as e:  # the model gets the error as the result
                    payload = {"callId": p["callId"], "error": str(e)}
                n += 1
                await ws.send(envelope(n, "tool.result", payload, session))
            elif kind == "assistant.speech.final":
                print(f"< {p['text']}")
            elif kind == "error":
                print(f"  error {p['code']}: {p['message']}")
            elif kind == "state" and p["state"] == "idle":
                return


if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8080/v1/conductor"
    text = sys.argv[2] if len(sys.argv) > 2 else "call get_battery and get_location"
    asyncio.run(main(url, text))
