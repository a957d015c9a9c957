#!/usr/bin/env bash
# `swizzleperf tune` on the GPU with its defaults, each run timed as a whole, then what it is
# measured against (bench/tune_baselines.py: cuBLAS, the original and the tuned program, Triton's
# autotuner over the same space; all by do_bench) for a Triton program.
# Usage (device tool, $OUT set, binary carried in .devcarry/swizzleperf, its commit in
# .devcarry/commit):
#   bash bench/h100_tune.sh NAME=FILE@M,N,K [NAME=FILE@M,N,K ...]
# e.g. matmul_a=kernels/triton/matmul.py@4096,32768,1024 gemm_tc=kernels/tc/gemm_tc.hip@4096,32768,1024
# TUNE_BASELINES=0 skips the baselines (run bench/tune_baselines.py on its own later).
# Writes $OUT/tune.txt (one line per run: name, file, size, exit code, wall seconds) and
# $OUT/tune-<first name>.tgz with each run's stdout JSON, log, history.json, best program and
# baselines JSON (rewritten after every run).
set -u
B=$PWD/.devcarry/swizzleperf
export PATH=/usr/local/cuda/bin:$PATH
J=$(mktemp -d)/t; mkdir -p "$J"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv,noheader \
  > "$J/device.txt" 2>&1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >> "$J/device.txt" 2>&1
first=""
for spec in "$@"; do
  name=${spec%%=*}; rest=${spec#*=}; file=${rest%@*}; size=${rest#*@}
  [ -z "$first" ] && first=$name
  s=$(date +%s.%N)
  "$B" tune "$file" --size "$size" --json --run-dir "runs/tune-$name" > "$J/$name.json" 2> "$J/$name.log"
  rc=$?
  wall=$(python3 -c "import time;print(round(time.time()-$s,1))")
  echo "$name $file $size rc=$rc wall=$wall" | tee -a "$OUT/tune.txt"
  cp "runs/tune-$name/history.json" "$J/$name.history.json" 2>/dev/null
  cp "runs/tune-$name/tune.md" "$J/$name.tune.md" 2>/dev/null
  best=$(ls runs/tune-$name/best.* 2>/dev/null | head -1)
  [ -n "$best" ] && cp "$best" "$J/$name.best${best##*/best}"
  tail -4 "$J/$name.log"
  case "${TUNE_BASELINES:-1}:$file" in
    1:*.py)
      IFS=, read -r M N K <<< "$size"
      timeout 400 python3 bench/tune_baselines.py "$M" "$N" "$K" "$file" ${best:+"$best"} \
        > "$J/$name.baselines.json" 2> "$J/$name.baselines.log"
      echo "baselines rc=$?"; cat "$J/$name.baselines.json" ;;
  esac
  cp .devcarry/commit "$J/commit.txt" 2>/dev/null
  tar czf "$OUT/tune-$first.tgz" -C "$(dirname "$J")" t
done
