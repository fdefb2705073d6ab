#!/usr/bin/env python3
"""Summarizes a codec_bench JSON run: median CPU time per benchmark, input rate,
each translation's speed-up over its nlohmann baseline from the same run,
request decoding's speed as a fraction of simdjson's bare DOM parse, and the
heap allocations one operation makes (request benchmarks).

    build/bench/codec_bench --benchmark_repetitions=12 --benchmark_enable_random_interleaving=true \\
        --benchmark_min_time=0.2 --benchmark_format=json > run.json
    python3 bench/codec_ratios.py run.json
"""
import collections
import json
import statistics
import sys

data = json.load(open(sys.argv[1]))
runs = collections.defaultdict(list)
size = {}
allocs = {}
for b in data["benchmarks"]:
    if b.get("run_type") != "iteration":
        continue
    runs[b["run_name"]].append(b["cpu_time"] / 1000.0)  # µs
    size[b["run_name"]] = b.get("payload_bytes", 0)
    if "allocs" in b:
        allocs[b["run_name"]] = int(b["allocs"])

med = {name: statistics.median(ts) for name, ts in runs.items()}
print(f"{'benchmark':44s} {'median µs':>10s} {'min µs':>9s} {'GB/s':>6s} {'allocs':>7s}  speed-up vs nlohmann (medians)")
for name in sorted(med):
    gbps = size[name] / (med[name] * 1000.0) if size[name] else 0.0
    kind, arg = name.rsplit("/", 1)
    base = None
    if kind == "BM_Request_Translate":
        base = f"BM_Request_NlohmannRoundTrip/{arg}"
    elif kind == "BM_Stream_Translate":
        base = f"BM_Stream_NlohmannRoundTrip/{arg}"
    elif kind == "BM_Request_Decode":
        base = f"BM_Request_SimdjsonParseOnly/{arg}"  # printed as "x" of the bare parse's speed below
    elif kind == "BM_Request_Translate_BumpAllocator":
        base = f"BM_Request_NlohmannRoundTrip_BumpAllocator/{arg}"
    ratio = ""
    if base in med:
        r = med[base] / med[name]
        ratio = f"{r:.2f}x the bare simdjson parse's speed" if kind == "BM_Request_Decode" else f"{r:.1f}x"
        glibc_base = f"BM_Request_NlohmannRoundTrip/{arg}"
        if kind == "BM_Request_Translate_BumpAllocator" and glibc_base in med:
            ratio += f" (both allocation-free); {med[glibc_base] / med[name]:.1f}x vs the usual baseline"
    n_allocs = str(allocs[name]) if name in allocs else ""
    print(f"{name:44s} {med[name]:10.1f} {min(runs[name]):9.1f} {gbps:6.2f} {n_allocs:>7s}  {ratio}")
