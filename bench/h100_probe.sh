#!/usr/bin/env bash
# On the GPU machine: `swizzleperf probe`, then the mapping check under the
# measured model, then GEMM optimize with the topology-derived family in play.
# Writes everything under $OUT (probe-hardware.json, logs, run histories).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
BIN=${SWZ_BIN:-build/swizzleperf}
export PATH=/usr/local/cuda/bin:$PATH
echo "== probe"
"$BIN" probe --backend cuda --out "$OUT/probe-hardware.json" > "$OUT/probe.log" 2>&1; echo "probe exit $?"
tail -25 "$OUT/probe.log"
echo "== check under the measured model"
"$BIN" check kernels/gemm.hip --probe "$OUT/probe-hardware.json" 2>&1 | tee "$OUT/check-gemm-probe.txt" | head -4
echo "== gemm with the topology family"
rm -rf runs/topo-gemm
"$BIN" optimize kernels/gemm.hip --proposer builtin --backend cuda --iterations ${SWZ_TOPO_ITERATIONS:-4} \
  --run-dir runs/topo-gemm --json > "$OUT/topo-gemm-summary.json" 2> "$OUT/topo-gemm.log"; echo "optimize exit $?"
tail -12 "$OUT/topo-gemm.log"
