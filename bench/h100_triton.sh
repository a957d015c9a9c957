#!/usr/bin/env bash
# Triton programs on the H100: `swizzleperf optimize` on kernels/triton/matmul.py and
# kernels/triton/attention.py with the built-in proposer (burst regime, the tool's own
# interleaved re-check), each timed as a whole; torch's own kernels (cuBLAS through
# torch.mm / torch.matmul, and SDPA) timed on the same inputs by each program's
# baseline_throughput(); and `swizzleperf check` over both programs with torch + triton
# present (the info build).
# Usage (device tool, $OUT set, binary carried in .devcarry/swizzleperf):
#   bash bench/h100_triton.sh [matmul|attention|check|all]
set -u
B=$PWD/.devcarry/swizzleperf
export PATH=/usr/local/cuda/bin:$PATH
part=${1:-all}
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" > $OUT/versions.txt 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
t() { local name=$1; shift; local s=$(date +%s.%N); "$@"; local rc=$?; echo "$name rc=$rc wall=$(python3 -c "import time;print(round(time.time()-$s,1))")s" >> $OUT/rc.txt; }
opt() {  # kernel iterations [optimize options...]
  local k=$1 it=$2; shift 2
  t optimize-$k $B optimize kernels/triton/$k.py --proposer builtin --iterations $it "$@" \
      --run-dir $OUT/run-$k --json > $OUT/$k-optimize.json 2> $OUT/$k-optimize.log
  cp $OUT/run-$k/history.json $OUT/$k-history.json 2>/dev/null
  cp $OUT/run-$k/best.py $OUT/$k-best.py 2>/dev/null
  # torch's kernel on the same inputs (the program's own baseline_throughput)
  PYTHONPATH=kernels/support python3 - $k > $OUT/$k-torch.json 2> $OUT/$k-torch.err <<'PY'
import importlib.util, json, sys
k = sys.argv[1]
spec = importlib.util.spec_from_file_location("prog_" + k, f"kernels/triton/{k}.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
prog = m.MatmulProgram() if k == "matmul" else m.AttentionProgram()
size = prog.default_size()
out = prog.baseline_throughput(size); out["flops"] = prog.flops(size); out["size"] = list(size)
print(json.dumps(out))
PY
  tar czf $OUT/run-$k.tgz -C $OUT run-$k 2>/dev/null; rm -rf $OUT/run-$k
}
# matmul: burst (its clocks stay at 1980 MHz in both orders); attention: sustained, with a
# longer settle (in short bursts its row-major order draws more power than the grouped one,
# so the pair's clocks differ and burst verdicts are untrusted: docs/timing.md).
MATMUL="matmul 1 --regime burst"
ATTN="attention 1 --regime sustained --reps 10 --warmup 3 --settle-seconds 5"
CHECK="check kernels/triton/matmul.py kernels/triton/attention.py --arch sm_90"
case $part in
  matmul) opt $MATMUL ;;
  attention) opt $ATTN ;;
  check) t check $B $CHECK > $OUT/check.txt 2>&1 ;;
  all) opt $MATMUL; opt $ATTN; t check $B $CHECK > $OUT/check.txt 2>&1 ;;
esac
cat $OUT/versions.txt $OUT/rc.txt; cat $OUT/check.txt 2>/dev/null
for k in matmul attention; do
  [ -f $OUT/$k-optimize.json ] || continue
  python3 - $k <<'PY'
import json, os, sys
o = os.environ['OUT']; k = sys.argv[1]
try:
    s = json.JSONDecoder().raw_decode(open(os.path.join(o, f'{k}-optimize.json')).read())[0]
except Exception as e:
    print(k, 'no summary', e); sys.exit()
b = s.get('best') or {}; base = s.get('baseline') or {}
print(k, 'verdict', s.get('verdict'), '| best', b.get('label'), 'base ms', base.get('median_ms'), 'best ms', b.get('median_ms'))
for r, v in (b.get('regimes') or {}).items():
    print('   ', r, v.get('speedup'), [v.get('ci_low'), v.get('ci_high')], 'sig', v.get('significant'), 'trusted', v.get('trusted'),
          'MHz', v.get('baseline_mhz_median'), '->', v.get('candidate_mhz_median'), 'energy', v.get('energy_ratio'))
try:
    tj = json.loads(open(os.path.join(o, f'{k}-torch.json')).read().strip().splitlines()[-1])
    print(k, 'torch', tj.get('call', tj.get('name')), tj.get('ms'), 'ms', tj.get('tflops'), 'TFLOP/s')
except Exception as e:
    print(k, 'torch: none', e)
PY
done
# Everything in one archive (the device tool brings back a handful of files per call).
( cd $OUT && tar czf ../triton-$part.tgz . && rm -rf ./* && mv ../triton-$part.tgz . )
