#!/usr/bin/env bash
# The attempt pipeline on the H100 (2026-11-24): optimize gemm_tc as before, the resume rules
# (a changed objective refused, more iterations applied and recorded), gate on the best kernel
# and a two-size sweep through the same stages. Run by the device tool with $OUT set; the binary
# is carried in .devcarry/swizzleperf (built on the dev machine).
set -u
B=.devcarry/swizzleperf
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > $OUT/gpu.txt 2>&1
start=$(date +%s)
$B optimize kernels/tc/gemm_tc.hip --proposer builtin --backend cuda --iterations 6 --run-dir $OUT/run --json > $OUT/optimize.json 2> $OUT/optimize.log; echo "optimize rc=$? wall=$(( $(date +%s)-start ))s" | tee $OUT/rc.txt
$B optimize --resume $OUT/run --objective l2 > $OUT/resume-l2.out 2> $OUT/resume-l2.err; echo "resume --objective l2 rc=$?" | tee -a $OUT/rc.txt
$B optimize --resume $OUT/run --iterations 7 --json > $OUT/resume-7.json 2> $OUT/resume-7.log; echo "resume --iterations 7 rc=$?" | tee -a $OUT/rc.txt
$B gate $OUT/run/best.hip --json --run-dir $OUT/gate > $OUT/gate.json 2> $OUT/gate.log; echo "gate rc=$?" | tee -a $OUT/rc.txt
$B sweep kernels/tc/gemm_tc.hip --run $OUT/run --sizes "4096,4096,1024;8192,8192,1024" --out $OUT/sweep > $OUT/sweep.out 2> $OUT/sweep.log; echo "sweep rc=$?" | tee -a $OUT/rc.txt
cp $OUT/run/history.json $OUT/history.json 2>/dev/null
rm -rf $OUT/run/iter-*/mapping $OUT/run/build-cache $OUT/gate/iter-*/mapping
python3 - <<'PY'
import json,os
o=os.environ['OUT']
def L(p):
    try: return json.load(open(os.path.join(o,p)))
    except Exception as e: return {"error":str(e)}
s=L('optimize.json'); h=L('history.json')
b=s.get('best') or {}
print("best:", b.get('label'), b.get('speedup'), b.get('speedup_ci_low'), b.get('speedup_ci_high'), b.get('significant'))
print("verdict:", s.get('verdict'))
print("config.changes:", h.get('config',{}).get('changes'))
print("schema:", h.get('schema_version'), "attempts:", len(h.get('attempts',[])))
g=L('gate.json'); print("gate:", g.get('verdict'), (g.get('committed') or {}).get('speedup'))
PY
cat $OUT/rc.txt; head -c 600 $OUT/resume-l2.err; tail -5 $OUT/sweep.out
