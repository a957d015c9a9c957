#!/usr/bin/env bash
# Power regimes on the H100: the tool's own `optimize --regime both` on gemm_tc and
# attention_fwd at their default sizes (burst and sustained speedups with intervals, each
# member's median SM clock, discarded samples, energy per run and the energy ratio); the
# burst speedup of gemm_tc's best in three separate `gate --regime burst` runs; and a run
# with throttling forced (long burst requests, a tight threshold) to show the discard rule.
# Usage (device tool, $OUT set, binary carried in .devcarry/swizzleperf):
#   bash bench/h100_regime.sh gemm     # gemm_tc: optimize --regime both, three burst gates, forced throttling
#   bash bench/h100_regime.sh attn     # attention_fwd: optimize --regime both
set -u
B=.devcarry/swizzleperf
export PATH=/usr/local/cuda/bin:$PATH
part=${1:-gemm}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/gpu-$part.txt 2>&1
t() { local name=$1; shift; local s=$(date +%s); "$@"; echo "$name rc=$? wall=$(( $(date +%s)-s ))s" >> $OUT/rc-$part.txt; }
if [ "$part" = gemm ]; then
  t optimize-gemm $B optimize kernels/tc/gemm_tc.hip --proposer builtin --backend cuda --iterations 3 --regime both \
      --run-dir $OUT/gemm --json > $OUT/gemm-optimize.json 2> $OUT/gemm-optimize.log
  cp $OUT/gemm/best.hip $OUT/gemm-best.hip
  cp $OUT/gemm/history.json $OUT/gemm-history.json 2>/dev/null
  best=$OUT/gemm-best.hip
  if [ "${GATES:-1}" = 1 ]; then  # GATES=0: the optimize run alone
  for i in 1 2 3; do
    t gate-burst-$i $B gate $best --regime burst --json --run-dir $OUT/gate-$i > $OUT/gate-burst-$i.json 2> $OUT/gate-burst-$i.log
  done
  # Forced throttling: 2000-rep burst requests (about 3 s each) reach the power cap, and a 0.9
  # threshold (1782 MHz) then discards samples; each discard waits the recovery delay.
  t gate-forced $B gate $best --regime burst --reps 2000 --warmup 20 --rounds 6 --throttle-threshold 0.9 \
      --max-discards 200 --json --run-dir $OUT/gate-forced > $OUT/gate-forced.json 2> $OUT/gate-forced.log
  cp $OUT/gate-forced/history.json $OUT/gate-forced-history.json 2>/dev/null
  fi
else
  t optimize-attn $B optimize kernels/tc/attention_fwd.hip --proposer builtin --backend cuda --iterations 4 --regime both \
      --run-dir $OUT/attn --json > $OUT/attn-optimize.json 2> $OUT/attn-optimize.log
  cp $OUT/attn/history.json $OUT/attn-history.json 2>/dev/null
fi
# Only the top-level files come back (the device tool returns a limited count): the run
# dirs go once their history and best kernel are copied.
rm -rf $OUT/gemm $OUT/attn $OUT/gate-1 $OUT/gate-2 $OUT/gate-3 $OUT/gate-forced 2>/dev/null
python3 - "$part" <<'PY'
import json, os, sys
o = os.environ['OUT']; part = sys.argv[1]
def L(p):
    try: return json.JSONDecoder().raw_decode(open(os.path.join(o, p)).read())[0]
    except Exception as e: return {"error": str(e)}
def show(name, brief):
    b = brief or {}
    print(f"{name}: {b.get('label')} speedup {b.get('speedup')} [{b.get('speedup_ci_low')}, {b.get('speedup_ci_high')}] "
          f"{b.get('speedup_regime')} sig={b.get('significant')} energy={b.get('energy_ratio')} untrusted={b.get('untrusted')}")
    for r, v in (b.get('regimes') or {}).items():
        print(f"   {r}: {v.get('speedup'):.4f} [{v.get('ci_low'):.4f}, {v.get('ci_high'):.4f}] sig={v.get('significant')} "
              f"MHz {v.get('baseline_mhz_median')} -> {v.get('candidate_mhz_median')} discarded={v.get('discarded')} "
              f"energy={v.get('energy_ratio')} [{v.get('energy_ci_low')}, {v.get('energy_ci_high')}]")
if part == 'gemm' and os.environ.get('GATES', '1') == '0':
    s = L('gemm-optimize.json'); print("verdict:", s.get('verdict')); show("best", s.get('best'))
elif part == 'gemm':
    s = L('gemm-optimize.json'); print("verdict:", s.get('verdict')); show("best", s.get('best'))
    for i in (1, 2, 3):
        g = L(f'gate-burst-{i}.json'); show(f"gate{i} {g.get('verdict')}", g.get('committed'))
    g = L('gate-forced.json'); show(f"forced {g.get('verdict')} {g.get('reasons')}", g.get('committed'))
else:
    s = L('attn-optimize.json'); print("verdict:", s.get('verdict')); show("best", s.get('best'))
PY
cat $OUT/rc-$part.txt
