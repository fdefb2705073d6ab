#!/usr/bin/env python3
"""A Streamable HTTP MCP server that cuts its SSE streams, for toolwire's client.

Listens on 127.0.0.1 (a port the kernel picks) and prints "LISTENING <port>"
on stderr; exits when stdin closes. What it does:

- initialize: answers the version asked for when it is one of VERSIONS (else
  2025-11-25) and assigns a session id.
- tools/list: four tools, and `fresh` after `grow` was called.
- tools/call `slow`: an SSE answer with a priming event (an ID, `retry: 50`,
  no data) and one progress notification, then the connection is closed
  before the answer. A GET carrying Last-Event-ID of that stream replays what
  came after: a second progress notification and the answer.
- tools/call `cut`: an SSE stream closed at once, with no event ID: the
  client cannot resume it.
- tools/call `grow`: adds a tool and sends notifications/tools/list_changed on
  the GET stream (the session's stream of server messages), which it then
  closes (the client reopens it).
- tools/call `report`: what the server saw (Last-Event-ID values, the
  MCP-Protocol-Version header of each request after initialize, GETs opened).
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"]
state = {
    "session": "resume-session-1",
    "last_event_ids": [],
    "versions": [],
    "gets": 0,
    "grown": False,
    "listeners": [],
    "pending": {},  # stream id -> (events after the priming one)
    "streams": 0,
}
lock = threading.Lock()


def tools():
    t = [
        {"name": "slow", "inputSchema": {"type": "object"}},
        {"name": "report", "inputSchema": {"type": "object"}},
        {"name": "cut", "inputSchema": {"type": "object"}},
        {"name": "grow", "inputSchema": {"type": "object"}},
    ]
    if state["grown"]:
        t.append({"name": "fresh", "inputSchema": {"type": "object"}})
    return t


def event(eid, msg):
    data = "" if msg is None else json.dumps(msg)
    out = "id: %s\n" % eid if eid else ""
    return (out + "data: %s\n\n" % data).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # every answer ends with the connection

    def log_message(self, *args):
        pass

    def head(self, status, ctype, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Mcp-Session-Id", state["session"])
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()

    def json_answer(self, msg):
        self.head(200, "application/json")
        self.wfile.write(json.dumps(msg).encode())

    def do_DELETE(self):
        self.head(200, "application/json")

    def do_GET(self):
        last = self.headers.get("Last-Event-ID")
        with lock:
            state["gets"] += 1
            if last:
                state["last_event_ids"].append(last)
        self.head(200, "text/event-stream", {"Cache-Control": "no-cache"})
        if last and "/" in last and not last.startswith("get/"):
            stream = last.split("/")[0]
            with lock:
                rest = state["pending"].pop(stream, [])
            for i, msg in enumerate(rest):
                self.wfile.write(event("%s/%d" % (stream, i + 2), msg))
            self.wfile.flush()
            return  # replayed: this stream ends
        # The session's stream: held until a notification is due.
        ev = threading.Event()
        box = []
        with lock:
            state["listeners"].append((ev, box))
        self.wfile.write(event("get/0", None))
        self.wfile.flush()
        if ev.wait(30) and box:
            self.wfile.write(event("get/1", box[0]))
            self.wfile.flush()

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        msg = json.loads(self.rfile.read(n))
        method = msg.get("method")
        if method != "initialize":
            with lock:
                state["versions"].append(self.headers.get("MCP-Protocol-Version", ""))
        if "id" not in msg:
            self.head(202, "application/json")
            return
        rid = msg["id"]
        if method == "initialize":
            asked = msg["params"].get("protocolVersion")
            v = asked if asked in VERSIONS else "2025-11-25"
            return self.json_answer({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": v, "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "resume", "version": "1"}}})
        if method == "tools/list":
            return self.json_answer({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools()}})
        if method == "ping":
            return self.json_answer({"jsonrpc": "2.0", "id": rid, "result": {}})
        if method != "tools/call":
            return self.json_answer({"jsonrpc": "2.0", "id": rid,
                                     "error": {"code": -32601, "message": "no " + method}})
        name = msg["params"]["name"]
        token = msg["params"].get("_meta", {}).get("progressToken")
        if name == "slow":
            with lock:
                state["streams"] += 1
                stream = "s%d" % state["streams"]
                state["pending"][stream] = [
                    {"jsonrpc": "2.0", "method": "notifications/progress",
                     "params": {"progressToken": token, "progress": 2, "total": 2}},
                    {"jsonrpc": "2.0", "id": rid, "result": {
                        "content": [{"type": "text", "text": "slow done"}]}},
                ]
            self.head(200, "text/event-stream")
            self.wfile.write(b"id: %s/0\nretry: 50\ndata: \n\n" % stream.encode())
            self.wfile.write(event("%s/1" % stream, {
                "jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1, "total": 2}}))
            self.wfile.flush()
            return  # closed before the answer
        if name == "cut":
            self.head(200, "text/event-stream")
            return
        if name == "grow":
            with lock:
                state["grown"] = True
                listeners = state["listeners"]
                state["listeners"] = []
            for ev, box in listeners:
                box.append({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                ev.set()
            return self.json_answer({"jsonrpc": "2.0", "id": rid, "result": {
                "content": [{"type": "text", "text": "grown (%d listening)" % len(listeners)}]}})
        if name == "report":
            with lock:
                seen = {k: state[k] for k in ("last_event_ids", "versions", "gets")}
                seen["listening"] = len(state["listeners"])
            return self.json_answer({"jsonrpc": "2.0", "id": rid, "result": {
                "content": [{"type": "text", "text": json.dumps(seen)}]}})
        self.json_answer({"jsonrpc": "2.0", "id": rid,
                          "error": {"code": -32602, "message": "unknown tool " + name}})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stderr.write("LISTENING %d\n" % server.server_address[1])
    sys.stderr.flush()
    sys.stdin.read()  # until the test closes our stdin
    with lock:
        for ev, _ in state["listeners"]:
            ev.set()
    server.shutdown()


if __name__ == "__main__":
    main()
