#!/usr/bin/env bash
# The speed judge on the GPU: `swizzleperf optimize FILE --json` with every default
# (objective time, regime both, built-in proposer, 10 iterations, the judge's tournament
# over the finalists), each run timed as a whole, its history kept.
# Usage (device tool, $OUT set, binary carried in .devcarry/swizzleperf, its commit in
# .devcarry/commit):
#   bash bench/h100_judge.sh NAME=FILE [NAME=FILE ...]
# e.g. gemm_tc_1=kernels/tc/gemm_tc.hip matmul=kernels/triton/matmul.py
# Writes $OUT/judge.txt (one line per run: name, file, exit code, wall seconds), and
# $OUT/judge-<first name>.tgz with each run's stdout JSON, log and history.json (rewritten
# after every run).
set -u
B=$PWD/.devcarry/swizzleperf
export PATH=/usr/local/cuda/bin:$PATH
J=$(mktemp -d)/j; mkdir -p "$J"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv,noheader \
  > "$J/device.txt" 2>&1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >> "$J/device.txt" 2>&1
first=""
for spec in "$@"; do
  name=${spec%%=*}; file=${spec#*=}
  [ -z "$first" ] && first=$name
  s=$(date +%s.%N)
  "$B" optimize "$file" --json --run-dir "runs/judge-$name" > "$J/$name.json" 2> "$J/$name.log"
  rc=$?
  wall=$(python3 -c "import time;print(round(time.time()-$s,1))")
  echo "$name $file rc=$rc wall=$wall" | tee -a "$OUT/judge.txt"
  cp "runs/judge-$name/history.json" "$J/$name.history.json" 2>/dev/null
  grep -E "judged|speed judge|best|error" "$J/$name.log" | tail -6
  # After every run: a call cut short by its time limit still brings back what finished.
  cp .devcarry/commit "$J/commit.txt" 2>/dev/null
  tar czf "$OUT/judge-$first.tgz" -C "$(dirname "$J")" j
done
