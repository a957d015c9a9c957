#!/usr/bin/env bash
# On the GPU machine: runs `swizzleperf optimize kernels/gemm.hip --proposer builtin`
# and writes bench/results/<date>-h100-gemm.{md,json}. Full logs go to $OUT (or
# bench/out). Expects a built binary at $SWZ_BIN (default build/swizzleperf).
# Extra arguments are passed to optimize (e.g. --size 4096,32768,1024).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
BIN=${SWZ_BIN:-build/swizzleperf}
export PATH=/usr/local/cuda/bin:$PATH
NAME=${SWZ_BENCH_NAME:-gemm}
RUN="${SWZ_RUNS:-runs}/bench-$NAME"
rm -rf "$RUN"
cmd=("$BIN" optimize kernels/gemm.hip --proposer builtin --backend cuda --run-dir "$RUN" --json "$@")
t0=$(date +%s.%N)
"${cmd[@]}" > "$OUT/$NAME-summary.json" 2> "$OUT/$NAME.log"
rc=$?
t1=$(date +%s.%N)
wall=$(python3 -c "print(round($t1-$t0,1))")
echo "optimize exit $rc, wall $wall s"
tail -8 "$OUT/$NAME.log"
python3 bench/bench_result.py "$RUN" "$NAME" bench/results --wall "$wall" \
  --command "swizzleperf optimize kernels/gemm.hip --proposer builtin --backend cuda $*" || true
cp bench/results/*-h100-"$NAME".* "$OUT/" 2>/dev/null
exit $rc
