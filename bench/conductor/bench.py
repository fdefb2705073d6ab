#!/usr/bin/env python3
"""Conductor numbers: memory per idle session and per session waiting on a
device tool, sessions started per second, and the round trip from a
tool.result to the answer it unblocks.

usage: bench.py TOOLWIRE_BINARY [SESSIONS]      (Debian's python3-websockets)

Memory is the server's RSS growth (/proc/PID/status) divided by the number
of sessions, with the WebSocket connections included. The tool.result
latency is measured by the client: tool.result sent → assistant.speech.final
received, i.e. frame parse + submit_result + the next scripted model round +
the answer's frames + loopback both ways; it bounds the conductor's own
share from above. The server's own figure (GET /metrics,
toolwire_conductor_result_to_upstream_seconds) runs from the tool.result
frame's arrival (before parsing) to the provider call it unblocks.
"""
import asyncio
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "conductor"))
from conductor_client import Device, Server, tool  # noqa: E402


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def settle(pid):
    # RSS after the server has processed everything sent so far.
    await asyncio.sleep(0.5)
    return rss_kb(pid)


async def main(binary, n):
    server = Server(binary)
    pid = server.proc.pid
    try:
        base = await settle(pid)
        t0 = time.monotonic()
        devices = await asyncio.gather(*[Device.connect(server.url) for _ in range(n)])
        await asyncio.gather(*[d.start([tool("get_battery"), tool("get_location")],
                                       options={"uiCalls": False}) for d in devices])
        rate = n / (time.monotonic() - t0)
        idle = await settle(pid)

        async def call(d):
            await d.send("transcript.final", {"text": "call get_battery"})
            return (await d.until("tool.call"))[-1]["payload"]["callId"]
        calls = await asyncio.gather(*[call(d) for d in devices])
        waiting = await settle(pid)

        # Latency, one session at a time (no queueing in the numbers).
        lat = []
        for d, cid in zip(devices, calls):
            t = time.perf_counter()
            await d.send("tool.result", {"callId": cid, "result": "87%"})
            await d.until("assistant.speech.final")
            lat.append((time.perf_counter() - t) * 1e6)
        lat.sort()
        import urllib.request
        metrics = urllib.request.urlopen(server.url.replace("ws://", "http://").replace(
            "/v1/conductor", "/metrics"), timeout=10).read().decode()
        server_side = {}
        for line in metrics.splitlines():
            if line.startswith("toolwire_conductor_result_to_upstream_seconds{"):
                q = line.split('"')[1]
                server_side[q] = float(line.split()[-1]) * 1e6
        print(f"sessions: {n}")
        print(f"sessions started per second (connect + session.start, concurrent): {rate:.0f}")
        print(f"memory per idle session (incl. its connection): {(idle - base) / n:.1f} KB")
        print(f"memory per session waiting on a device tool: {(waiting - base) / n:.1f} KB")
        print(f"tool.result -> assistant.speech.final (client-side) p50 {lat[len(lat) // 2]:.0f} us,"
              f" p99 {lat[int(len(lat) * 0.99) - 1]:.0f} us, mean {statistics.mean(lat):.0f} us")
        print("tool.result frame arrival -> next model request (server-side, GET /metrics): "
              + ", ".join(f"p{float(q) * 100:g} {v:.1f} us" for q, v in server_side.items()))
        await asyncio.gather(*[d.close() for d in devices])
    finally:
        server.stop()


if __name__ == "__main__":
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * n + 256)), hard))
    asyncio.run(main(sys.argv[1], n))
