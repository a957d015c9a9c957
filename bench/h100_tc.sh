#!/usr/bin/env bash
# On the GPU machine: the tensor-core kernels (kernels/tc/) against their references, and
# (given a swizzleperf binary) the built-in proposer on each. Writes $OUT/tc.json and
# $OUT/tc.md (or bench/out/...), full logs beside them.
#   gemm_tc:       identity order at 8192^3 vs cuBLAS (bench/tc_reference/cublas_gemm.cu)
#   attention_fwd: identity order at its default size vs torch SDPA (bench/tc_reference/sdpa.py)
#   with a binary: swizzleperf optimize kernels/tc/<k>.hip --proposer builtin --backend cuda
# Usage: bench/h100_tc.sh [SWZIZZLEPERF_BINARY] [extra optimize arguments, e.g. --iterations 6]
# (the binary may also come as $SWZ_BIN). Run from anywhere; nvcc on PATH or /usr/local/cuda.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
BIN=${SWZ_BIN:-}
if [[ $# -gt 0 && $1 != --* ]]; then BIN=$1; shift; fi
B=$(mktemp -d)
# The cuda backend's flags (src/backend/cuda_backend.cpp), with the H100's 2 L2 sides.
NV=(nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I kernels/support/hip_on_cuda -I kernels/support -DSWZ_NUM_DIES=2)
"${NV[@]}" -o "$B/gemm_tc" kernels/tc/gemm_tc.hip > "$OUT/build.log" 2>&1 &
"${NV[@]}" -o "$B/attention_fwd" kernels/tc/attention_fwd.hip >> "$OUT/build.log" 2>&1 &
nvcc -O3 -arch=sm_90 -o "$B/cublas_gemm" bench/tc_reference/cublas_gemm.cu -lcublas >> "$OUT/build.log" 2>&1 &
wait
for p in gemm_tc attention_fwd cublas_gemm; do
  [[ -x $B/$p ]] || { echo "error: $p did not build (see $OUT/build.log)"; cat "$OUT/build.log"; exit 3; }
done
M=$OUT/measurements.jsonl; : > "$M"
rec() {  # name command... : runs it, keeps its last stdout line as {"name","command","result"}
  local name=$1; shift
  local line
  line=$("$@" 2>> "$OUT/measure.log" | tail -1)
  python3 -c 'import json,sys; print(json.dumps({"name":sys.argv[1],"command":sys.argv[2],"result":json.loads(sys.argv[3] or "null")}))' \
    "$name" "$*" "$line" >> "$M" || echo "{\"name\":\"$name\",\"command\":\"$*\",\"result\":null}" >> "$M"
  echo "$name: $line" | head -c 400; echo
}
rec gemm_verify "$B/gemm_tc" verify
rec gemm_identity_8192 "$B/gemm_tc" time --size 8192,8192,8192
rec cublas_8192 "$B/cublas_gemm" 8192 8192 8192
GSIZE=$("$B/gemm_tc" info | python3 -c 'import json,sys; print(",".join(map(str, json.loads(sys.stdin.readlines()[-1])["size"])))')
rec gemm_identity_default "$B/gemm_tc" time --size "$GSIZE"
rec cublas_default "$B/cublas_gemm" ${GSIZE//,/ }
rec attention_verify "$B/attention_fwd" verify
ASIZE=$("$B/attention_fwd" info | python3 -c 'import json,sys; print(",".join(map(str, json.loads(sys.stdin.readlines()[-1])["size"])))')
rec attention_identity_default "$B/attention_fwd" time --size "$ASIZE" --reps 10
rec sdpa_default python3 bench/tc_reference/sdpa.py ${ASIZE//,/ } 10
RUNS=()
if [[ -n $BIN ]]; then
  for k in gemm_tc attention_fwd; do
    RUN=${SWZ_RUNS:-runs}/bench-tc-$k
    rm -rf "$RUN"
    t0=$(date +%s.%N)
    "$BIN" optimize "kernels/tc/$k.hip" --proposer builtin --backend cuda --run-dir "$RUN" --json "$@" \
      > "$OUT/$k-summary.json" 2> "$OUT/$k-optimize.log"
    rc=$?
    wall=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
    echo "optimize $k: exit $rc, wall $wall s"; tail -5 "$OUT/$k-optimize.log"
    cp "$RUN/history.json" "$OUT/$k-history.json" 2>/dev/null
    RUNS+=(--run "$k=$RUN=$wall=swizzleperf optimize kernels/tc/$k.hip --proposer builtin --backend cuda $*")
  done
else
  echo "no swizzleperf binary given: skipping the optimize runs (pass it as the first argument)"
fi
python3 bench/tc_result.py "$M" "$OUT/tc" --gemm-size "$GSIZE" --attention-size "$ASIZE" "${RUNS[@]}"
cat "$OUT/tc.md"
