#!/usr/bin/env bash
# One device call's worth of measurements on the GPU machine, by part, with a
# swizzleperf binary built on the build machine and carried in (the GPU machine has no
# curl headers and reaches no package registry):
#   tc     kernels/tc: identity vs cuBLAS / SDPA, `optimize` with the built-in
#          proposer on both (bench/h100_tc.sh), then `gate` on gemm_tc's best.hip
#   suite  the paper's ten kernels, 4 iterations, --objective time, in one `suite`
#          command under a wall-clock cap (SWZ_SUITE_CAP_S, default 560 s); a kernel
#          the cap cut short is named, and `suite KERNELS...` runs the rest later
#   gemm   `optimize kernels/gemm.hip` 10 iterations (bench/h100_loop.sh's gemm part);
#          SWZ_LOOP_SERIAL=1 adds the same run with --build-jobs 1 and compares best patterns
#   profile  ncu's cost per variant on the many-launch kernels (bench/h100_profile_variants.sh)
#   fuzz   the carried libFuzzer targets (.devcarry/fuzz/) on the machine's cores
# Everything lands in $OUT: logs, a tgz of the run dirs (no binaries, no dumps).
# Usage: bench/h100_session.sh PART [args...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
BIN=${SWZ_BIN:-.devcarry/swizzleperf}
export PATH=/usr/local/cuda/bin:$PATH
PART=${1:?usage: h100_session.sh tc|suite|gemm|profile|fuzz}; shift
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
pack() { tar czf "$OUT/$1.tgz" --exclude='*.bin' --exclude='*/kernel' --exclude='*/device_query' \
           --exclude='*/mapping' --exclude='*.emu.cpp' --exclude='*/build-cache' "${@:2}" 2>/dev/null; }
case $PART in
  tc)
    SWZ_RUNS=runs bench/h100_tc.sh "$BIN" --iterations 6 "$@"
    best=runs/bench-tc-gemm_tc/best.hip
    if [ -f "$best" ]; then
      cp "$best" runs/gemm_tc_committed.hip
      t0=$(date +%s.%N)
      "$BIN" gate runs/gemm_tc_committed.hip --backend cuda --min-speedup 1.0 --run-dir runs/gate-gemm_tc \
        --json --junit "$OUT/gate.xml" > "$OUT/gate.json" 2> "$OUT/gate.log"
      echo "gate exit $? wall $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"; tail -2 "$OUT/gate.log"
    fi
    pack tc runs/bench-tc-* runs/gate-gemm_tc runs/gemm_tc_committed.hip
    ;;
  suite)
    CAP=${SWZ_SUITE_CAP_S:-560}
    DIR=runs/suite-time-${SWZ_SUITE_TAG:-a}
    t0=$(date +%s.%N)
    timeout -s INT "$CAP" "$BIN" suite --iterations 4 --proposer builtin --backend cuda --objective time \
      --out "$DIR" "$@" > "$OUT/suite.log" 2>&1
    rc=$?
    echo "suite exit $rc wall $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s (cap $CAP s)"
    tail -15 "$OUT/suite.log"; cat "$DIR/suite-summary.md" 2>/dev/null | head -30
    pack suite "$DIR"
    ;;
  gemm)
    # "Before" for the loop's speed: a binary of an earlier commit carried as
    # .devcarry/swizzleperf-before (its commit in .devcarry/before-commit), run first.
    if [ -x .devcarry/swizzleperf-before ]; then
      mkdir -p "$OUT/before"
      OUT="$OUT/before" SWZ_LOOP_PART=gemm SWZ_BIN=.devcarry/swizzleperf-before SWZ_RUNS=runs/before \
        bench/h100_loop.sh "$@"
      cp .devcarry/before-commit "$OUT/before/" 2>/dev/null
      pack gemm-before runs/before/loop-gemm
    fi
    SWZ_LOOP_PART=gemm SWZ_BIN=$BIN bench/h100_loop.sh "$@"
    # SWZ_LOOP_SERIAL=1: the same run with --build-jobs 1 (the serial loop), for the
    # target "identical best patterns to a serial run" (its loop.json lands in $OUT/serial).
    if [ "${SWZ_LOOP_SERIAL:-0}" = 1 ]; then
      mkdir -p "$OUT/serial"
      OUT="$OUT/serial" SWZ_LOOP_PART=gemm SWZ_BIN=$BIN SWZ_RUNS=runs/serial bench/h100_loop.sh --build-jobs 1 "$@"
      python3 -c 'import json,sys; a,b=(json.load(open(p)).get("gemm_best_pattern") for p in sys.argv[1:]); print("best pattern: parallel", a, "serial", b, "identical" if a==b else "DIFFERENT")' \
        "$OUT/loop.json" "$OUT/serial/loop.json"
      pack gemm-serial runs/serial/loop-gemm
    fi
    pack gemm runs/loop-gemm
    ;;
  profile)
    bench/h100_profile_variants.sh "$@"
    ;;
  fuzz)
    SECS=${SWZ_FUZZ_SECONDS:-120}
    J=$(( $(nproc) / 7 )); [ "$J" -lt 1 ] && J=1
    for f in .devcarry/fuzz/fuzz_*; do
      name=$(basename "$f")
      mkdir -p "/tmp/corpus/$name"; cp -r "tests/fuzz/corpus/$name/." "/tmp/corpus/$name/" 2>/dev/null
      for j in $(seq 1 "$J"); do
        "$f" "/tmp/corpus/$name" -max_total_time="$SECS" -print_final_stats=1 -detect_leaks=1 -seed="$j" \
          -artifact_prefix="$OUT/crash-$name-" > "/tmp/$name-$j.log" 2>&1 &
      done
    done
    wait
    python3 - "$OUT/fuzz.json" /tmp "$SECS" "$J" <<'PY'
import glob, json, os, re, sys
out, logs, secs, jobs = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
res = {}
for p in sorted(glob.glob(os.path.join(logs, "fuzz_*-*.log"))):
    name = os.path.basename(p).rsplit("-", 1)[0]
    t = open(p, errors="replace").read()
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", t)
    r = res.setdefault(name, {"execs": 0, "crashes": 0, "leaks": 0, "seconds": secs, "processes": 0})
    r["execs"] += int(m.group(1)) if m else 0
    r["processes"] += 1
    r["crashes"] += len(re.findall(r"ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer: deadly signal|libFuzzer: timeout|libFuzzer: out-of-memory)", t))
    r["leaks"] += len(re.findall(r"ERROR: LeakSanitizer", t))
json.dump({"jobs_per_target": jobs, "targets": res, "execs_total": sum(r["execs"] for r in res.values())}, open(out, "w"), indent=2)
for k, v in res.items(): print(f"{k}: {v}")
print("total execs:", sum(r["execs"] for r in res.values()))
PY
    ;;
  *) echo "unknown part $PART"; exit 2 ;;
esac
