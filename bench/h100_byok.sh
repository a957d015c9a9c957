#!/usr/bin/env bash
# Bring your own kernel on the H100: the three programs made with `swizzleperf init` from
# examples/byok/ (plain CUDA/HIP kernels) and filled in by hand, each built and verified
# against its CPU reference on the GPU, then `optimize` on the SGEMM to a verdict.
# Usage (device tool, $OUT set, binary carried in .devcarry/swizzleperf):
#   bash bench/h100_byok.sh verify        # build + verify all three
#   bash bench/h100_byok.sh gemm|blur     # optimize examples/byok/<k>_swz.* to a verdict
set -u
B=.devcarry/swizzleperf
export PATH=/usr/local/cuda/bin:$PATH
part=${1:-verify}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/gpu-$part.txt 2>&1
t() { local name=$1; shift; local s=$(date +%s.%N); "$@"; local rc=$?; echo "$name rc=$rc wall=$(python3 -c "import time;print(round(time.time()-$s,1))")s" >> $OUT/rc-$part.txt; }
if [ "$part" = verify ]; then
  for f in blur_swz.cu transpose_swz.hip gemm_swz.cu; do
    k=${f%%_swz*}
    t build-$k $B build examples/byok/$f --backend cuda --arch sm_90 -o $OUT/$k.bin > $OUT/build-$k.log 2>&1
    t verify-$k $OUT/$k.bin verify > $OUT/verify-$k.json 2> $OUT/verify-$k.err
    t time-$k $OUT/$k.bin time > $OUT/time-$k.json 2> $OUT/time-$k.err
    rm -f $OUT/$k.bin
  done
else
  f=$(ls examples/byok/${part}_swz.* | head -1)
  t optimize-$part $B optimize $f --proposer builtin --backend cuda --iterations 4 --regime both \
      --run-dir $OUT/$part --json > $OUT/$part-optimize.json 2> $OUT/$part-optimize.log
  cp $OUT/$part/history.json $OUT/$part-history.json 2>/dev/null
  cp $OUT/$part/best.hip $OUT/$part-best.cu 2>/dev/null
  rm -rf $OUT/$part
fi
cat $OUT/rc-$part.txt
python3 - "$part" <<'PY'
import json, os, sys
o = os.environ['OUT']; part = sys.argv[1]
def L(p):
    try: return json.JSONDecoder().raw_decode(open(os.path.join(o, p)).read().strip().splitlines()[-1])[0]
    except Exception as e: return {"error": str(e)}
if part == 'verify':
    for k in ('blur', 'transpose', 'gemm'):
        v = L(f'verify-{k}.json'); tm = L(f'time-{k}.json')
        print(k, 'verify ok' if v.get('ok') else f"verify FAILED {v}", [ (c['size'], c['max_abs_err'], c['tol']) for c in v.get('cases', [])][:3],
              'time median_ms', tm.get('median_ms'))
else:
    s = json.JSONDecoder().raw_decode(open(os.path.join(o, f'{part}-optimize.json')).read())[0]
    print("verdict:", s.get('verdict')); b = s.get('best') or {}
    print(f"best {b.get('label')} speedup {b.get('speedup')} [{b.get('speedup_ci_low')}, {b.get('speedup_ci_high')}] {b.get('speedup_regime')} sig={b.get('significant')}")
    for r, v in (b.get('regimes') or {}).items():
        print(f"   {r}: {v.get('speedup')} [{v.get('ci_low')}, {v.get('ci_high')}] sig={v.get('significant')} MHz {v.get('baseline_mhz_median')} -> {v.get('candidate_mhz_median')}")
PY
