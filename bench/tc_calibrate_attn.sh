#!/usr/bin/env bash
# On the GPU machine (bench only): builds kernels/tc/attention_fwd.hip in several block
# orders, verifies, checks bit-exactness across orders, and times them next to torch SDPA.
# One JSON line per measurement in $OUT/attn_calib.jsonl (or bench/out); a table last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=$(mktemp -d)
NV=(nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I kernels/support/hip_on_cuda -I kernels/support -DSWZ_NUM_DIES=2)
ORDERS=${ORDERS:-"identity colmajor colgrouped:8 colgrouped:32"}  # tc_region.py orders
SIZES=${SIZES:-"4,32,32,8192,1 4,32,8,8192,1 4,32,32,8192,2"}
REPS=${REPS:-10}
for o in $ORDERS; do
  f=${o//:/_}
  python3 bench/tc_region.py kernels/tc/attention_fwd.hip $B/$f.hip $o
  "${NV[@]}" -o $B/$f $B/$f.hip &
done
wait
LOG=$OUT/attn_calib.jsonl; : > $LOG
rec() { echo "{\"variant\":\"$1\",\"cmd\":\"$2\",\"result\":$3}" >> $LOG; }
r=$($B/identity verify | tail -1); rec identity verify "$r"; echo "verify identity: $r"
r=$($B/colmajor verify | tail -1); rec colmajor verify "$r"; echo "verify colmajor: $(echo $r | head -c 120)"
$B/identity dump $B/d1 --size 2,8,2,1000,2 > /dev/null && $B/colmajor dump $B/d2 --size 2,8,2,1000,2 > /dev/null &&
  cmp $B/d1 $B/d2 && echo "dump identity vs colmajor at 2,8,2,1000,2: identical bytes"
for s in $SIZES; do
  IFS=, read b h kvh sq mk <<< "$s"
  r=$(python3 bench/tc_reference/sdpa.py $b $h $kvh $sq $mk $REPS | tail -1); rec sdpa "sdpa.py $b $h $kvh $sq $mk $REPS" "$r"
  for o in $ORDERS; do
    f=${o//:/_}
    r=$($B/$f time --size $s --reps $REPS | tail -1); rec "$f" "time --size $s --reps $REPS" "$r"
  done
done
python3 - "$LOG" <<'PY'
import json, sys
print(f"{'variant':14} {'what':34} {'median_ms':>10} {'TFLOP/s':>8}")
for line in open(sys.argv[1]):
    d = json.loads(line); r = d["result"]
    if "median_ms" not in r: continue
    b, h, kvh, s, mk = r["size"]; ms = r["median_ms"]
    fl = 4.0 * b * h * s * s * 128 * (0.5 if mk == 2 else 1.0)
    print(f"{d['variant']:14} {d['cmd'][:34]:34} {ms:10.4f} {fl/ms/1e9:8.1f}")
PY
