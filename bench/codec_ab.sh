#!/bin/bash
# Codec A/B in one run: bench binaries of two builds (NEW, BASE dirs), alternating,
# 3 rounds; per benchmark the ratio of medians and of minima of cpu_time, and their
# geometric means. Usage: bench/codec_ab.sh build/bench /path/to/base/build/bench
NEW=${1:?new bench dir, e.g. build/bench}
BASE=${2:?base bench dir: a build of the commit to compare with}
for r in 1 2 3; do
  for side in base new; do
    dir=$BASE; [ $side = new ] && dir=$NEW
    for b in codec_bench bedrock_codec_bench gemini_codec_bench responses_codec_bench; do
      $dir/$b --benchmark_filter='^BM_[A-Za-z_]*(Request|Stream|Response)_(Decode|Encode|Translate)' \
        --benchmark_min_time=0.3 --benchmark_format=json > ${TMPDIR:-/tmp}/abx_${side}_${b}_$r.json 2>/dev/null
    done
  done
done
/usr/bin/python3 - <<'PY'
import glob, json, os, statistics
tmp = os.environ.get('TMPDIR', '/tmp')
def load(side):
    d = {}
    for f in glob.glob(f'{tmp}/abx_{side}_*.json'):
        try:
            bs = json.load(open(f))['benchmarks']
        except Exception:
            continue
        for b in bs:
            d.setdefault(b['name'], []).append(b['cpu_time'])
    return d
b, n = load('base'), load('new')
med, mins = [], []
for k in sorted(b):
    if k not in n:
        continue
    rm = statistics.median(n[k]) / statistics.median(b[k])
    rn = min(n[k]) / min(b[k])
    med.append(rm)
    mins.append(rn)
    print(f"{k:45s} new/base median {rm:.3f} min {rn:.3f}")
g = statistics.geometric_mean
print(f"{len(med)} benchmarks: geomean new/base of medians {g(med):.3f}, of minima {g(mins):.3f}")
PY
