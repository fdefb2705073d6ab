#!/bin/bash
# Codec A/B in one run: base binaries (main at 04bfd1c, before issue 22's codec work) and
# the current build, alternating, 3 rounds; medians of cpu_time; new/base ratios.
NEW=${1:?new bench dir, e.g. build/bench}
BASE=${2:?base bench dir: a build of the commit to compare with}
for r in 1 2 3; do
  for side in base new; do
    dir=$BASE; [ $side = new ] && dir=$NEW
    for b in codec_bench bedrock_codec_bench gemini_codec_bench responses_codec_bench; do
      $dir/$b --benchmark_filter='Nlohmann|Crc32|SimdjsonParseOnly' --benchmark_filter='^BM_[A-Za-z_]*(Request|Stream|Response)_(Decode|Encode|Translate)' \
        --benchmark_min_time=0.3 --benchmark_format=json > /tmp/abx_${side}_${b}_$r.json 2>/dev/null
    done
  done
done
/usr/bin/python3 - <<'PY'
import json,statistics,glob
def load(side):
    d={}
    for f in glob.glob(f'/tmp/abx_{side}_*.json'):
        try: bs=json.load(open(f))['benchmarks']
        except Exception: continue
        for b in bs: d.setdefault(b['name'],[]).append(b['cpu_time'])
    return {k:statistics.median(v) for k,v in d.items()}
b,n=load('base'),load('new')
rs=[]
for k in sorted(b):
    if k in n:
        r=n[k]/b[k]; rs.append(r)
        print(f"{k:45s} base {b[k]:11.1f} new {n[k]:11.1f} new/base {r:.3f}")
print(f"geomean new/base over {len(rs)}: {statistics.geometric_mean(rs):.3f}; min {min(rs):.3f} max {max(rs):.3f}")
PY
