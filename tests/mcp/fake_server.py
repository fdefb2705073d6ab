#!/usr/bin/env python3
"""A small MCP server over stdio for toolwire's client tests.

Tools: echo (also pings the client and writes a malformed line first), crash
(exits mid-call), slow (answers only when cancelled... never), delayed_echo
(answers after `ms`, so concurrent calls come back out of order), huge (an
oversized line before its answer), media (image, audio, resource, structured
content), add_tool (lists one more tool and sends list_changed), cancelled
(the requestIds it was told to cancel). Six tools, listed two per page.
"""
import json
import os
import sys
import threading
import time

lock = threading.Lock()
cancelled = []
pings_answered = []
extra_tools = []
version = os.environ.get("FAKE_VERSION")


def send(obj):
    with lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def raw(line):
    with lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def tool(name, props=None, required=None, output=None):
    t = {"name": name, "description": "fake " + name,
         "inputSchema": {"type": "object", "properties": props or {}}}
    if required:
        t["inputSchema"]["required"] = required
    if output:
        t["outputSchema"] = output
    return t


def tools():
    base = [
        tool("echo", {"text": {"type": "string"}}, ["text"]),
        tool("crash"),
        tool("slow"),
        tool("delayed_echo", {"text": {"type": "string"}, "ms": {"type": "integer"}}, ["text", "ms"]),
        tool("huge"),
        tool("media", output={"type": "object", "properties": {"n": {"type": "integer"}},
                              "required": ["n"]}),
        tool("add_tool"),
        tool("cancelled"),
    ]
    return base + extra_tools


def text(s, is_error=False):
    return {"content": [{"type": "text", "text": s}], "isError": is_error}


def call(mid, name, args):
    if name == "echo":
        send({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})
        raw("this is not json")
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": "echoing"}})
        return text("echo: " + args["text"])
    if name == "crash":
        sys.stderr.write("fake server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "slow":
        return None  # never answered
    if name == "delayed_echo":
        def later():
            time.sleep(args["ms"] / 1000.0)
            send({"jsonrpc": "2.0", "id": mid, "result": text(args["text"])})
        threading.Thread(target=later, daemon=True).start()
        return None
    if name == "huge":
        raw('{"jsonrpc":"2.0","id":' + json.dumps(mid) + ',"result":"' + "x" * (2 << 20) + '"}')
        return text("after huge")
    if name == "media":
        return {"content": [
            {"type": "text", "text": "media follows"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello",
                                              "mimeType": "text/plain"}},
            {"type": "resource_link", "uri": "file:///b.txt", "name": "b.txt"}],
            "structuredContent": {"n": 7}}
    if name == "add_tool":
        if not extra_tools:
            extra_tools.append(tool("extra"))
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text("added")
    if name == "extra":
        return text("extra here")
    if name == "cancelled":
        return text(json.dumps({"cancelled": cancelled, "pings": pings_answered}))
    return None


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        mid = msg.get("id")
        method = msg.get("method")
        if method is None:  # a response to our ping
            if mid == "srv-ping" and "result" in msg:
                pings_answered.append(mid)
            continue
        params = msg.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": version or params["protocolVersion"],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "fake", "version": "1"}}})
        elif method == "notifications/cancelled":
            cancelled.append(params.get("requestId"))
        elif method.startswith("notifications/"):
            pass
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": mid, "result": {}})
        elif method == "tools/list":
            all_tools = tools()
            start = int(params.get("cursor", "0"))
            page = all_tools[start:start + 2]
            result = {"tools": page}
            if start + 2 < len(all_tools):
                result["nextCursor"] = str(start + 2)
            send({"jsonrpc": "2.0", "id": mid, "result": result})
        elif method == "tools/call":
            result = call(mid, params["name"], params.get("arguments") or {})
            if result is not None:
                send({"jsonrpc": "2.0", "id": mid, "result": result})
        else:
            send({"jsonrpc": "2.0", "id": mid,
                  "error": {"code": -32601, "message": "Method not found"}})


main()
