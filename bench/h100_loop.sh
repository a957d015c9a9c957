#!/usr/bin/env bash
# On the GPU machine: how long the loop takes (targets: a gemm attempt's median wall
# <= 5 s, the ten-kernel suite in one command <= 480 s). Runs
#   1. `optimize kernels/gemm.hip` with the built-in proposer, 10 iterations, and
#   2. the paper's ten-kernel suite, 4 iterations each, in ONE `suite` command,
# then writes $OUT/loop.json: gemm_attempt_wall_s_median, gemm per-stage medians,
# suite_wall_s, suite-wide per-stage medians, and per kernel its state (completed,
# never interrupted, is the target), attempt-wall median and best pattern.
# Expects a swizzleperf binary at $SWZ_BIN (default build/swizzleperf), e.g. carried in.
# SWZ_LOOP_PART=gemm|suite runs one part; extra arguments go to both commands
# (e.g. --build-jobs 1 for the serial baseline of the same build).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
BIN=${SWZ_BIN:-build/swizzleperf}
export PATH=/usr/local/cuda/bin:$PATH
PART=${SWZ_LOOP_PART:-all}
RUNS=${SWZ_RUNS:-runs}
GEMM_RUN="$RUNS/loop-gemm"; SUITE_DIR="$RUNS/loop-suite"
now() { date +%s.%N; }
gemm_wall=null; suite_wall=null; gemm_rc=null; suite_rc=null
if [ "$PART" = all ] || [ "$PART" = gemm ]; then
  rm -rf "$GEMM_RUN"
  t0=$(now)
  "$BIN" optimize kernels/gemm.hip --proposer builtin --backend cuda --iterations 10 --run-dir "$GEMM_RUN" --json "$@" \
    > "$OUT/loop-gemm-summary.json" 2> "$OUT/loop-gemm.log"
  gemm_rc=$?
  gemm_wall=$(python3 -c "print(round($(now)-$t0,1))")
  echo "gemm optimize exit $gemm_rc, wall $gemm_wall s"; tail -8 "$OUT/loop-gemm.log"
fi
if [ "$PART" = all ] || [ "$PART" = suite ]; then
  rm -rf "$SUITE_DIR"
  t0=$(now)
  "$BIN" suite --iterations 4 --proposer builtin --backend cuda --out "$SUITE_DIR" "$@" > "$OUT/loop-suite.log" 2>&1
  suite_rc=$?
  suite_wall=$(python3 -c "print(round($(now)-$t0,1))")
  echo "suite exit $suite_rc, wall $suite_wall s"; cat "$SUITE_DIR/suite-summary.md" 2>/dev/null
fi
python3 - "$GEMM_RUN" "$SUITE_DIR" "$OUT/loop.json" "$gemm_wall" "$suite_wall" "$gemm_rc" "$suite_rc" "$*" <<'PY'
import glob, json, os, subprocess, sys
sys.path.insert(0, "bench")
from resultfmt import attempt_medians as medians, best_pattern
gemm_run, suite_dir, out, gemm_wall, suite_wall, gemm_rc, suite_rc, extra = sys.argv[1:9]
num = lambda s: None if s == "null" else float(s)

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

r = {"device": None, "extra_args": extra, "commit": None}
try:
    r["commit"] = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or None
except OSError:
    pass
g = load(os.path.join(gemm_run, "history.json"))
if g:
    med, stages, n = medians([g])
    r["device"] = g.get("hardware", {}).get("name")
    r.update({"gemm_attempt_wall_s_median": med, "gemm_stage_seconds_median": stages, "gemm_attempts": n,
              "gemm_state": g.get("state"), "gemm_best_pattern": best_pattern(g),
              "gemm_wall_s": num(gemm_wall), "gemm_exit": num(gemm_rc)})
hs = {}
for p in sorted(glob.glob(os.path.join(suite_dir, "*", "history.json"))):
    h = load(p)
    if h:
        hs[os.path.basename(os.path.dirname(p))] = h
if hs or suite_wall != "null":
    med, stages, n = medians(hs.values())
    r.update({"suite_wall_s": num(suite_wall), "suite_exit": num(suite_rc), "suite_attempt_wall_s_median": med,
              "suite_stage_seconds_median": stages, "suite_attempts": n,
              "suite_kernels": {k: {"state": h.get("state"), "best_pattern": best_pattern(h),
                                    "attempt_wall_s_median": medians([h])[0]} for k, h in hs.items()},
              "suite_all_completed": bool(hs) and all(h.get("state") == "completed" for h in hs.values())})
with open(out, "w") as f:
    json.dump(r, f, indent=2)
print(json.dumps(r, indent=2))
PY
