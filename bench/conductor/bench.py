#!/usr/bin/env python3
"""Conductor numbers: memory per idle session and per session waiting on a
device tool, sessions started per second, and the round trip from a
tool.result to the answer it unblocks.

usage: bench.py TOOLWIRE_BINARY [SESSIONS] [--churn-seconds S] [--churn-concurrency C]
                [--churn-procs P]                (Debian's python3-websockets)

Memory is the server's RSS growth (/proc/PID/status) divided by the number
of sessions, with the WebSocket connections included. The tool.result
latency is measured by the client: tool.result sent → assistant.speech.final
received, i.e. frame parse + submit_result + the next scripted model round +
the answer's frames + loopback both ways; it bounds the conductor's own
share from above. The server's own figure (GET /metrics,
toolwire_conductor_result_to_upstream_seconds) runs from the tool.result
frame's arrival (before parsing) to the provider call it unblocks.

Sessions per second ("churn"): P client processes keep C sessions in flight
between them for S seconds, each a whole life: connect, session.start, one
transcript.final, the tool.call, its tool.result, assistant.speech.final,
close. Reported with the server's CPU time per session (/proc/PID/stat),
which does not depend on how fast the client is.
"""
import argparse
import asyncio
import multiprocessing
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


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def churn_loop(url, stop_at, lat):
    done = 0
    while time.monotonic() < stop_at:
        t = time.perf_counter()
        d = await Device.connect(url)
        await d.start([tool("get_battery")], options={"uiCalls": False})
        await d.send("transcript.final", {"text": "call get_battery"})
        cid = (await d.until("tool.call"))[-1]["payload"]["callId"]
        await d.send("tool.result", {"callId": cid, "result": "87%"})
        await d.until("assistant.speech.final")
        await d.close()
        lat.append((time.perf_counter() - t) * 1e3)
        done += 1
    return done


def churn_worker(url, conc, seconds, out):
    lat = []

    async def run():
        stop_at = time.monotonic() + seconds
        counts = await asyncio.gather(*[churn_loop(url, stop_at, lat) for _ in range(conc)])
        return sum(counts)
    n = asyncio.run(run())
    out.put((n, lat))


def churn(url, pid, procs, conc, seconds):
    out = multiprocessing.Queue()
    per = [conc // procs + (1 if i < conc % procs else 0) for i in range(procs)]
    workers = [multiprocessing.Process(target=churn_worker, args=(url, c, seconds, out))
               for c in per if c > 0]
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    for w in workers:
        w.start()
    results = [out.get(timeout=seconds + 120) for _ in workers]
    wall, cpu = time.monotonic() - t0, cpu_seconds(pid) - cpu0
    for w in workers:
        w.join(timeout=30)
    n = sum(r[0] for r in results)
    lat = sorted(x for r in results for x in r[1])
    print(f"churn: {len(workers)} client processes, {conc} sessions in flight, {seconds} s")
    print(f"sessions per second (connect, session.start, one tool round trip, close): "
          f"{n / wall:.0f} ({n} sessions)")
    print(f"  one session's life, client-side: p50 {lat[len(lat) // 2]:.1f} ms, "
          f"p99 {lat[int(len(lat) * 0.99) - 1]:.1f} ms")
    print(f"  server CPU per session: {cpu / n * 1e6:.0f} us "
          f"(server at {cpu / wall * 100:.0f}% of one core)")


async def main(server, n):
    pid = server.proc.pid
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


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("sessions", type=int, nargs="?", default=2000)
    ap.add_argument("--churn-seconds", type=float, default=10, help="0: no churn run")
    ap.add_argument("--churn-concurrency", type=int, default=64)
    ap.add_argument("--churn-procs", type=int, default=2)
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4 * max(args.sessions, args.churn_concurrency) + 256
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, want)), hard))
    server = Server(args.binary)
    try:
        if args.sessions > 0:
            asyncio.run(main(server, args.sessions))
        if args.churn_seconds > 0:
            churn(server.url, server.proc.pid, args.churn_procs, args.churn_concurrency,
                  args.churn_seconds)
    finally:
        server.stop()
