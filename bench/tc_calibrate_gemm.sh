#!/usr/bin/env bash
# On the GPU machine (bench only): builds kernels/tc/gemm_tc.hip in several pipeline
# configurations and block orders, verifies, and times them next to cuBLAS. Full logs and
# one JSON line per measurement go to $OUT (or bench/out); a table is printed last.
# Usage: bench/tc_calibrate_gemm.sh   (from the repository root; nvcc on PATH or /usr/local/cuda)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=$(mktemp -d)
NV=(nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I kernels/support/hip_on_cuda -I kernels/support -DSWZ_NUM_DIES=2)
CONFIGS=${CONFIGS:-"32:4 64:3 64:4 32:3"}
GROUPS_=${GROUPS_:-"4 8 16 32"}
SIZES=${SIZES:-"8192,8192,8192 4096,32768,1024 16384,16384,4096"}
REPS=${REPS:-20}
for c in $CONFIGS; do
  bk=${c%:*}; st=${c#*:}
  "${NV[@]}" -DGEMM_TC_BK=$bk -DGEMM_TC_STAGES=$st kernels/tc/gemm_tc.hip -o $B/id_${bk}_${st} &
done
for g in $GROUPS_; do
  python3 bench/tc_region.py kernels/tc/gemm_tc.hip $B/g$g.hip grouped:$g
  "${NV[@]}" -o $B/g$g $B/g$g.hip &
done
nvcc -O3 -arch=sm_90 -o $B/cublas_gemm bench/tc_reference/cublas_gemm.cu -lcublas &
wait
ls $B
LOG=$OUT/gemm_calib.jsonl; : > $LOG
rec() { echo "{\"variant\":\"$1\",\"cmd\":\"$2\",\"result\":$3}" >> $LOG; }
for c in $CONFIGS; do
  bk=${c%:*}; st=${c#*:}
  r=$($B/id_${bk}_${st} verify | tail -1); rec "id_${bk}_${st}" verify "$r"
  echo "verify id_${bk}_${st}: $(echo "$r" | head -c 300)"
done
for s in $SIZES; do
  IFS=, read m n k <<< "$s"
  r=$($B/cublas_gemm $m $n $k $REPS | tail -1); rec cublas "cublas_gemm $m $n $k $REPS" "$r"
  for c in $CONFIGS; do
    bk=${c%:*}; st=${c#*:}
    [[ $s == 8192,8192,8192 || $c == "${CONFIGS%% *}" ]] || continue
    r=$($B/id_${bk}_${st} time --size $s --reps $REPS | tail -1); rec "id_${bk}_${st}" "time --size $s --reps $REPS" "$r"
  done
  for g in $GROUPS_; do
    r=$($B/g$g time --size $s --reps $REPS | tail -1); rec "grouped$g" "time --size $s --reps $REPS" "$r"
  done
done
# Bit-exactness across orders at a mid size.
$B/id_32_4 dump $B/d_id --size 2048,4096,1024 > /dev/null && $B/g8 dump $B/d_g8 --size 2048,4096,1024 > /dev/null &&
  cmp $B/d_id $B/d_g8 && echo "dump identity vs grouped8 at 2048,4096,1024: identical bytes"
python3 - "$LOG" <<'PY'
import json, sys
print(f"{'variant':12} {'what':34} {'median_ms':>10} {'TFLOP/s':>8}")
for line in open(sys.argv[1]):
    d = json.loads(line); r = d["result"]
    if "median_ms" not in r: continue
    m, n, k = r["size"]; ms = r["median_ms"]
    print(f"{d['variant']:12} {d['cmd'][:34]:34} {ms:10.4f} {2*m*n*k/ms/1e9:8.1f}")
PY
