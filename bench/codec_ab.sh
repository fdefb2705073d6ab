#!/bin/bash
# A/B in one run: bench binaries of two builds (NEW, BASE dirs), alternating
# base/new, ROUNDS rounds (default 3); per benchmark the ratio of medians and of
# minima of cpu_time over all rounds and repetitions, and their geometric means.
# SUITE picks the binaries and benchmarks: codec (default; the four codec benches,
# alternating per binary) or textformats (textformats_bench, every benchmark,
# alternating per benchmark; REPS repetitions per round, default 3). MIN_TIME per
# repetition, default 0.3.
#   bench/codec_ab.sh build/bench /path/to/base/build/bench
#   SUITE=textformats ROUNDS=5 bench/codec_ab.sh build/bench /path/to/base/build/bench
NEW=${1:?new bench dir, e.g. build/bench}
BASE=${2:?base bench dir: a build of the commit to compare with}
SUITE=${SUITE:-codec}
ROUNDS=${ROUNDS:-3}
MIN_TIME=${MIN_TIME:-0.3}
case $SUITE in
  codec)
    BENCHES="codec_bench bedrock_codec_bench gemini_codec_bench responses_codec_bench"
    FILTER='^BM_[A-Za-z_]*(Request|Stream|Response)_(Decode|Encode|Translate)'
    REPS=${REPS:-1} ;;
  textformats)
    BENCHES="textformats_bench"
    FILTER='.'
    REPS=${REPS:-3} ;;
  *) echo "SUITE: codec or textformats" >&2; exit 2 ;;
esac
export ABX_PREFIX=abx_${SUITE}
rm -f ${TMPDIR:-/tmp}/${ABX_PREFIX}_*.json
# textformats: base and new alternate per benchmark (a load that comes and goes
# on a shared host then falls on both sides alike); codec: per binary.
for r in $(seq 1 "$ROUNDS"); do
  for b in $BENCHES; do
    if [ "$SUITE" = textformats ]; then
      items=$($NEW/$b --benchmark_list_tests=true --benchmark_filter="$FILTER")
    else
      items=$FILTER
    fi
    n=0
    for item in $items; do
      n=$((n + 1))
      f=$item; [ "$SUITE" = textformats ] && f="^$item\$"
      sides="base new"; [ $((r % 2)) = 0 ] && sides="new base"  # each goes first half the time
      for side in $sides; do
        dir=$BASE; [ $side = new ] && dir=$NEW
        $dir/$b --benchmark_filter="$f" --benchmark_repetitions="$REPS" \
          --benchmark_min_time="$MIN_TIME" --benchmark_format=json \
          > ${TMPDIR:-/tmp}/${ABX_PREFIX}_${side}_${b}_${r}_$n.json 2>/dev/null
      done
    done
  done
done
/usr/bin/python3 - <<'PY'
import glob, json, os, statistics
tmp = os.environ.get('TMPDIR', '/tmp')
prefix = os.environ['ABX_PREFIX']
units = {}
def load(side):
    d = {}
    for f in glob.glob(f'{tmp}/{prefix}_{side}_*.json'):
        try:
            bs = json.load(open(f))['benchmarks']
        except Exception:
            continue
        for b in bs:
            if b.get('run_type', 'iteration') != 'iteration':
                continue
            name = b.get('run_name', b['name'])
            units[name] = b.get('time_unit', 'ns')
            d.setdefault(name, []).append(b['cpu_time'])
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
    print(f"{k:45s} base {statistics.median(b[k]):11.1f} new {statistics.median(n[k]):11.1f} {units[k]}"
          f" (median cpu, {len(n[k])} runs) new/base median {rm:.3f} min {rn:.3f}")
g = statistics.geometric_mean
print(f"{len(med)} benchmarks: geomean new/base of medians {g(med):.3f}, of minima {g(mins):.3f}")
PY
