"""Helpers for the conductor tests: start `toolwire serve`, speak the protocol.

Every wait is bounded (asyncio.wait_for); the server is stopped by its PID.
"""
import asyncio
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time

import websockets

WAIT = 10.0  # seconds any single expected event may take
_ids = itertools.count(1)


class Server:
    def __init__(self, binary, *extra):
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0", "--quiet", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        line = ""
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            m = re.search(r"listening on http://([\d.]+):(\d+)", line)
            if m:
                self.url = f"ws://{m.group(1)}:{m.group(2)}/v1/conductor"
                return
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise RuntimeError("toolwire serve did not start: " + line)

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe:
                pipe.close()


def frame(type_, payload=None, session_id=None):
    f = {"id": f"d{next(_ids)}", "type": type_,
         "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
         "payload": payload if payload is not None else {}}
    if session_id:
        f["sessionId"] = session_id
    return json.dumps(f)


class Device:
    """One WebSocket connection; events are read in order, with a bound."""

    def __init__(self, ws):
        self.ws = ws
        self.seen = []
        self.session_id = None
        self.token = None

    @classmethod
    async def connect(cls, url, **kw):
        ws = await asyncio.wait_for(websockets.connect(url, max_size=None, **kw), WAIT)
        return cls(ws)

    async def send(self, type_, payload=None):
        await self.ws.send(frame(type_, payload, self.session_id))

    async def next(self, timeout=WAIT):
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        ev = json.loads(raw)
        self.seen.append(ev)
        return ev

    async def until(self, type_, timeout=WAIT, pred=None):
        """Events up to and including the first of `type_` (matching pred)."""
        got = []
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {type_} within {timeout}s; got {[e['type'] for e in got]}")
            ev = await self.next(left)
            got.append(ev)
            if ev["type"] == type_ and (pred is None or pred(ev)):
                return got

    async def start(self, tools, **payload):
        payload = dict(payload)
        payload["tools"] = tools
        await self.send("session.start", payload)
        ready = (await self.until("session.ready"))[-1]
        self.session_id = ready["payload"]["sessionId"]
        self.token = ready["payload"]["resumeToken"]
        return ready

    async def close(self):
        await asyncio.wait_for(self.ws.close(), WAIT)


def tool(name, description="a device tool"):
    return {"name": name, "description": description,
            "parameters": {"type": "object", "properties": {}}}
