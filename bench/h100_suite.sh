#!/usr/bin/env bash
# On the GPU machine: `swizzleperf suite` over kernels/*.hip with the built-in
# proposer. Usage: bench/h100_suite.sh [SHARD i/n] [extra suite options...]
# Each shard writes runs/suite-<i>-of-<n>/ and packs its summaries and histories
# (no binaries, no output dumps) into $OUT/suite-<i>-of-<n>.tgz. With no shard
# (1/1) it also writes bench/results/<date>-h100-suite-<objective>.{md,json}
# (pass --objective l2 for the paper's ranking; the default is time). The whole suite
# takes longer than one 10-minute device command, so it is usually run as shards
# and merged with `swizzleperf suite --merge` + bench/suite_result.py.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
BIN=${SWZ_BIN:-build/swizzleperf}
export PATH=/usr/local/cuda/bin:$PATH
SHARD=${1:-1/1}; shift || true
TAG=$(echo "$SHARD" | sed 's|/|-of-|')
DIR=runs/suite-$TAG
ITER=${SWZ_SUITE_ITERATIONS:-4}
cmd=("$BIN" suite --shard "$SHARD" --iterations "$ITER" --reps 20 --proposer builtin --backend cuda --out "$DIR" "$@")
echo "+ ${cmd[*]}"
"${cmd[@]}" > "$OUT/suite-$TAG.log" 2>&1
rc=$?
echo "suite exit $rc"
cat "$DIR/suite-summary.md" 2>/dev/null
tar czf "$OUT/suite-$TAG.tgz" --exclude='*.bin' --exclude='*/kernel' --exclude='*/device_query' \
  --exclude='mapping_eval' --exclude='*.emu.cpp' "$DIR"
if [ "$SHARD" = "1/1" ]; then
  python3 bench/suite_result.py "$DIR" bench/results --command "bench/h100_suite.sh (${cmd[*]})" && cp bench/results/*-h100-suite* "$OUT/"
fi
exit $rc
