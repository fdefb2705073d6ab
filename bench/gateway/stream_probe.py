#!/usr/bin/env python3
"""Stream probes for the gateway benchmark (run.sh). Standard library only.

  stream_probe.py ttfb --port P --path /v1/chat/completions --body FILE [--header 'k: v']...
                       [--samples 2000] [--warmup 200]
      One keep-alive connection; for each streaming request, the time from the
      request's last byte to the response's first byte and to the first byte of
      its first SSE event (head and event may come in separate packets), read to
      the end of the stream. Prints one line: TTFB n=... head_p50_us=... event_p50_us=...

  stream_probe.py hold --port P --path ... --body FILE [--header ...] [--count 1000]
                       [--timeout 60]
      Opens COUNT connections, sends one streaming request on each, waits until
      each has its first event, prints "HOLDING n=COUNT" and keeps reading (the
      mock drips an event per interval) until SIGTERM. Every wait is bounded.
"""
import argparse
import resource
import selectors
import signal
import socket
import statistics
import sys
import time


def request_bytes(args):
    body = open(args.body, "rb").read()
    head = [f"POST {args.path} HTTP/1.1", f"Host: 127.0.0.1:{args.port}",
            "Content-Type: application/json", f"Content-Length: {len(body)}"]
    head += args.header
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def first_event_at(buf):
    """Offset of the first SSE byte after the head, or -1."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return -1
    for marker in (b"data:", b"event:"):
        i = buf.find(marker, end)
        if i >= 0:
            return i
    return -1


def ttfb(args):
    req = request_bytes(args)
    s = socket.create_connection(("127.0.0.1", args.port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    heads, events = [], []
    for i in range(args.warmup + args.samples):
        s.sendall(req)
        t0 = time.perf_counter_ns()
        buf = b""
        t_head = t_event = None
        while True:
            chunk = s.recv(65536)
            now = time.perf_counter_ns()
            if not chunk:
                sys.exit("ttfb: connection closed mid-stream")
            if t_head is None:
                t_head = now
            buf += chunk
            if t_event is None and first_event_at(buf) >= 0:
                t_event = now
            if buf.endswith(b"\r\n0\r\n\r\n"):
                break
        if not buf.startswith(b"HTTP/1.1 200"):
            sys.exit("ttfb: unexpected answer: " + buf[:200].decode(errors="replace"))
        if i >= args.warmup:
            heads.append((t_head - t0) / 1000)
            events.append((t_event - t0) / 1000)
    q = lambda xs, p: sorted(xs)[int(p * (len(xs) - 1))]
    print(f"TTFB n={len(heads)} head_p50_us={statistics.median(heads):.1f} "
          f"event_p50_us={statistics.median(events):.1f} event_p90_us={q(events, 0.9):.1f} "
          f"event_p99_us={q(events, 0.99):.1f}", flush=True)


def hold(args):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.count + 64)), hard))
    req = request_bytes(args)
    sel = selectors.DefaultSelector()
    state = {}
    for _ in range(args.count):
        s = socket.create_connection(("127.0.0.1", args.port), timeout=10)
        s.sendall(req)
        s.setblocking(False)
        state[s] = b""
        sel.register(s, selectors.EVENT_READ)
    opened = set()
    deadline = time.monotonic() + args.timeout
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    announced = False
    while not stop:
        if not announced and time.monotonic() > deadline:
            sys.exit(f"hold: only {len(opened)} of {args.count} streams opened in {args.timeout} s")
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            try:
                chunk = s.recv(65536)
            except BlockingIOError:
                continue
            if not chunk:
                sys.exit(f"hold: a stream ended early ({len(opened)} open): "
                         + state[s][:300].decode(errors="replace"))
            if s not in opened:
                state[s] += chunk
                if not state[s].startswith(b"HTTP/1.1 200") and len(state[s]) >= 12:
                    sys.exit("hold: unexpected answer: " + state[s][:300].decode(errors="replace"))
                if first_event_at(state[s]) >= 0:
                    opened.add(s)
                    state[s] = b""
        if not announced and len(opened) == args.count:
            print(f"HOLDING n={len(opened)}", flush=True)
            announced = True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["ttfb", "hold"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--body", required=True)
    p.add_argument("--header", action="append", default=[])
    p.add_argument("--samples", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--timeout", type=float, default=60)
    args = p.parse_args()
    ttfb(args) if args.mode == "ttfb" else hold(args)


if __name__ == "__main__":
    main()
