"""N concurrent conductor sessions, each completing a device-tool round trip.

usage: scale_test.py TOOLWIRE_BINARY [N]
All N connections are open (and their sessions started) before any turn
begins; every session must get its own call and its own answer back.
"""
import asyncio
import resource
import sys
import time

from conductor_client import Device, Server, tool


async def one(url, i, opened, go):
    d = await Device.connect(url)
    await d.start([tool("echo_id")], options={"uiCalls": False})
    opened.append(d)
    await asyncio.wait_for(go.wait(), 60)
    await d.send("transcript.final", {"text": "call echo_id"})
    call = (await d.until("tool.call", timeout=30))[-1]["payload"]
    assert call["name"] == "echo_id", call
    await d.send("tool.result", {"callId": call["callId"], "result": f"device-{i}"})
    final = (await d.until("assistant.speech.final", timeout=30))[-1]["payload"]["text"]
    assert f"device-{i}" in final, final
    await d.close()
    return True


async def main(url, n):
    opened, go = [], asyncio.Event()
    tasks = [asyncio.create_task(one(url, i, opened, go)) for i in range(n)]
    start = time.monotonic()
    deadline = start + 60
    while len(opened) < n and time.monotonic() < deadline:
        if any(t.done() for t in tasks):
            break
        await asyncio.sleep(0.05)  # polling a counter, bounded by the deadline
    assert len(opened) == n, f"only {len(opened)} of {n} sessions opened"
    t_open = time.monotonic() - start
    go.set()
    results = await asyncio.wait_for(asyncio.gather(*tasks), 90)
    assert all(results)
    print(f"{n} sessions: opened in {t_open:.2f}s, all round trips done in "
          f"{time.monotonic() - start:.2f}s")


if __name__ == "__main__":
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * n + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    server = Server(sys.argv[1])
    try:
        asyncio.run(main(server.url, n))
    finally:
        server.stop()
