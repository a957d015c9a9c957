#!/usr/bin/env bash
# The locality model's search vs an exhaustive search of the built-in families, on the H100.
# For kernels/tc/gemm_tc.hip, kernels/tc/attention_fwd.hip and kernels/gemm.hip at their
# default sizes:
#   opt-on:K   swizzleperf optimize K --proposer builtin --backend cuda --iterations 6 $OPT_EXTRA
#              --json --run-dir RUN            (the locality model on: the default)
#   opt-off:K  the same with --locality-model off
#   build      every order of bench/locality_search_result.py's `orders` list (the built-in
#              families and every parameter the proposer can try, plus locality_orders.py's
#              family orders; an order whose mapping equals an earlier one's is not built)
#              written with bench/locality_orders.py and built as the cuda backend builds
#              (nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I kernels/support/hip_on_cuda
#              -I kernels/support -DSWZ_NUM_DIES=2), xargs -P $SEARCH_JOBS, under nice
#   build-bg   the same in the background (the next stages run meanwhile; `time` waits for it)
#   time       interleaved timing: rounds until $SEARCH_ROUNDS are done or the next would
#              not fit before the deadline; each round times every built variant of every
#              kernel once, in a shuffled order: ./prog time --reps 20 --warmup 3 --regime burst
#              (the last stdout line is JSON: median_ms, sm_mhz_median, discarded, ...)
#   time:N     the same with at most N rounds
# Stages run in the order given; a stage that would not fit before the deadline is skipped
# (opt-*: skipped unless the time left exceeds $SEARCH_EST_<stage> or 60 s).
# Environment: OUT (results; default bench/out), SEARCH_DEADLINE_S (540: seconds from the
# start; no stage starts after it and optimize runs get a timeout that ends before it),
# SEARCH_ROUNDS (3), SEARCH_JOBS (16), SEARCH_WORK (runs/search-work: programs and binaries,
# never under $OUT; runs/ is git-ignored, so a warm device keeps it between calls),
# OPT_EXTRA (extra optimize options, e.g. "--regime burst"), OPT_CAP_S (240: timeout cap per
# optimize run), SEARCH_TAG (archive name suffix), SEARCH_KERNELS (default
# "tc/gemm_tc tc/attention_fwd gemm"), SEARCH_NVCC (nvcc), SWZ_BIN (.devcarry/swizzleperf),
# SEARCH_EST_opt_<on|off>_<name> (seconds an optimize run is expected to take; an opt-off run
# after the opt-on run of the same kernel in one call: 1.1 x its wall), SEARCH_EST_ROUND (seconds
# a timing round is expected to take; the first round of a call starts only if it fits),
# SEARCH_SEED. Stage `probe`: each kernel's identity timed once (logged, not a round).
# Output: $OUT/search-$SEARCH_TAG.tgz (everything: optimize JSON, histories, logs, reports,
# timing.jsonl, orders, build status; no binaries) and the summary table printed last.
# Usage (device tool): OUT=$OUT bash bench/h100_locality_search.sh build-bg opt-on:tc/gemm_tc time
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s.%N)
OUT=${OUT:-bench/out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
B=${SWZ_BIN:-$PWD/.devcarry/swizzleperf}
DEADLINE=${SEARCH_DEADLINE_S:-540}
ROUNDS=${SEARCH_ROUNDS:-3}
JOBS=${SEARCH_JOBS:-16}
W=${SEARCH_WORK:-runs/search-work}; mkdir -p "$W"; W=$(cd "$W" && pwd)
TAG=${SEARCH_TAG:-$(date +%H%M%S)}
OPT_EXTRA=${OPT_EXTRA:-}
OPT_CAP=${OPT_CAP_S:-240}
KERNELS=(${SEARCH_KERNELS:-tc/gemm_tc tc/attention_fwd gemm})
R=$OUT/raw; mkdir -p "$R/orders" "$R/build" "$R/time"
elapsed() { python3 -c "import time; print(round(time.time()-$T0,1))"; }
left() { python3 -c "import time; print(int($DEADLINE-(time.time()-$T0)))"; }
log() { echo "[$(elapsed)s] $*" | tee -a "$R/log.txt"; }
NV=(${SEARCH_NVCC:-nvcc} -x cu -std=c++17 -O3 -arch=sm_90 -I kernels/support/hip_on_cuda -I kernels/support -DSWZ_NUM_DIES=2)
printf '%s ' "${NV[@]}" > "$R/nvcc-argv.txt"
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > "$R/gpu.txt" 2>&1
git rev-parse HEAD > "$R/commit.txt" 2>/dev/null || cat .devcarry/commit > "$R/commit.txt" 2>/dev/null
sha256sum "$B" kernels/gemm.hip kernels/tc/*.hip bench/locality_orders.py bench/locality_search_result.py "$0" > "$R/sources.sha256" 2>/dev/null
log "device $(sed -n 2p "$R/gpu.txt"); work $W; deadline ${DEADLINE}s; stages: $*"

# ---- orders + programs + builds ----------------------------------------------------------------
info_of() {  # NAME -> path of its info JSON (carried, else from the identity build)
  local n=$1 k=$2
  local carried=bench/results/raw-locality-search/info/$n.json
  if [ -s "$carried" ]; then echo "$carried"; return; fi
  mkdir -p "$W/prog/$n" "$W/bin/$n"
  python3 bench/locality_orders.py write "kernels/$k.hip" identity "$W/prog/$n/identity.hip" "$W/prog/$n/identity.txt" >&2
  "${NV[@]}" -o "$W/bin/$n/identity" "$W/prog/$n/identity.hip" > "$R/build/$n-identity.log" 2>&1
  "$W/bin/$n/identity" info < /dev/null | tail -1 > "$W/$n-info.json"; echo "$W/$n-info.json"
}
build_one() {  # NAME SLUG LABEL SRC INFO
  local n=$1 s=$2 label=$3 src=$4 info=$5 t0 rc
  mkdir -p "$W/prog/$n" "$W/bin/$n" "$R/regions/$n"
  if [ -x "$W/bin/$n/$s" ] && grep -q "^$n $s 0 " "$W/build-status.txt" 2>/dev/null; then return; fi  # built in an earlier call
  python3 bench/locality_orders.py write "$src" "$label" "$W/prog/$n/$s.hip" "$R/regions/$n/$s.txt" --info "$info" \
    > "$R/build/$n-$s.write.log" 2>&1 || { echo "$n $s write-failed 0" >> "$W/build-status.txt"; return; }
  t0=$(date +%s.%N)
  "${NV[@]}" -o "$W/bin/$n/$s.tmp" "$W/prog/$n/$s.hip" > "$R/build/$n-$s.log" 2>&1
  rc=$?
  [ $rc = 0 ] && mv "$W/bin/$n/$s.tmp" "$W/bin/$n/$s"
  echo "$n $s $rc $(python3 -c "import time; print(round(time.time()-$t0,2))")" >> "$W/build-status.txt"
}
export -f build_one
export W R
export NV_STR="${NV[*]}"
do_build() {
  : > "$W/jobs.txt"
  for k in "${KERNELS[@]}"; do
    n=$(basename "$k")
    info=$(info_of "$n" "$k")
    cp "$info" "$R/orders/$n-info.json"
    python3 bench/locality_search_result.py orders "$info" > "$R/orders/$n.tsv" 2> "$R/orders/$n.err"
    while IFS=$'\t' read -r s label inprop same; do
      [ "$same" = - ] && printf '%s\0%s\0%s\0%s\0%s\0' "$n" "$s" "$label" "kernels/$k.hip" "$info" >> "$W/jobs.txt"
    done < "$R/orders/$n.tsv"
  done
  log "build: $(tr -cd '\0' < "$W/jobs.txt" | wc -c | awk '{print $1/5}') variants, -P $JOBS"
  xargs -0 -n 5 -P "$JOBS" nice -n 15 bash -c 'NV=($NV_STR); build_one "$@"' _ < "$W/jobs.txt"
  cp "$W/build-status.txt" "$R/build-status.txt"
  log "build done: $(awk '$3=="0"' "$W/build-status.txt" | sort -u | wc -l) ok, $(awk '$3!="0"' "$W/build-status.txt" | wc -l) failed"
}
BUILD_PID=""

# ---- optimize runs -------------------------------------------------------------------------------
opt() {  # on|off KERNEL
  local mode=$1 k=$2 n to est l s rc wall run
  n=$(basename "$k")
  l=$(left)
  est=$(eval echo "\${SEARCH_EST_opt_${mode}_${n}:-60}")
  if [ "$l" -lt "$est" ] || [ "$l" -lt 60 ]; then log "skip opt-$mode-$n: ${l}s left, needs ~${est}s"; echo "stage=opt-$mode-$n skipped=deadline" >> "$R/stages.txt"; return; fi
  to=$(( l - 10 < OPT_CAP ? l - 10 : OPT_CAP ))
  run=$W/run-$mode-$n-$TAG
  local extra=""; [ "$mode" = off ] && extra="--locality-model off"
  local cmd="$B optimize kernels/$k.hip --proposer builtin --backend cuda --iterations 6 $OPT_EXTRA $extra --json --run-dir $run"
  log "opt-$mode-$n (timeout ${to}s): $cmd"
  s=$(date +%s.%N)
  timeout -s INT -k 20 "$to" $cmd > "$R/opt-$mode-$n.json" 2> "$R/opt-$mode-$n.log"
  rc=$?
  wall=$(python3 -c "import time; print(round(time.time()-$s,1))")
  echo "stage=opt-$mode-$n rc=$rc wall=$wall timeout=$to cmd=$(echo "$cmd" | sed "s#$B#swizzleperf#; s#$W/##; s#  *# #g")" >> "$R/stages.txt"
  log "opt-$mode-$n rc=$rc wall=${wall}s"
  # an opt-off run of this kernel later in this call is expected to take about as long
  [ "$mode" = on ] && [ -z "$(eval echo "\${SEARCH_EST_opt_off_${n}:-}")" ] && export "SEARCH_EST_opt_off_${n}=$(python3 -c "print(int($wall*1.1))")"
  cp "$run/history.json" "$R/opt-$mode-$n-history.json" 2>/dev/null
  mkdir -p "$R/run-$mode-$n"
  (cd "$run" && find . -type f \( -name '*.md' -o -name '*.json' -o -name '*.log' -o -name '*.diff' -o -name '*.csv' -o -name '*.txt' -o -name 'best.hip' \) -size -2M \
     | tar -cf - -T - 2>/dev/null) | tar -xf - -C "$R/run-$mode-$n" 2>/dev/null
}

# ---- interleaved timing -----------------------------------------------------------------------------
do_time() {  # MAXROUNDS
  local maxr=$1 r l est=0 rs
  if [ -n "$BUILD_PID" ]; then log "waiting for the builds"; wait "$BUILD_PID"; BUILD_PID=""; log "builds finished"; fi
  # every variant built? (a cold machine lost the earlier call's binaries: build them now)
  local missing=0
  for k in "${KERNELS[@]}"; do
    n=$(basename "$k")
    [ -s "$R/orders/$n.tsv" ] || { missing=1; break; }
    while IFS=$'\t' read -r s label inprop same; do
      [ "$same" = - ] && [ ! -x "$W/bin/$n/$s" ] && missing=1
    done < "$R/orders/$n.tsv"
  done
  [ $missing = 1 ] && { log "some variants not built here: building"; do_build; }
  : > "$W/variants.txt"
  for k in "${KERNELS[@]}"; do
    n=$(basename "$k")
    while IFS=$'\t' read -r s label inprop same; do
      [ "$same" = - ] && [ -x "$W/bin/$n/$s" ] && printf '%s\t%s\t%s\n' "$n" "$s" "$label" >> "$W/variants.txt"
    done < "$R/orders/$n.tsv"
  done
  log "timing $(wc -l < "$W/variants.txt") variants, up to $maxr rounds"
  for r in $(seq 1 "$maxr"); do
    l=$(left)
    if [ "$est" = 0 ] && [ "${SEARCH_EST_ROUND:-0}" -gt 0 ] && [ "$l" -lt "$SEARCH_EST_ROUND" ]; then log "round $r not started: ${l}s left, a round is expected to take ${SEARCH_EST_ROUND}s"; break; fi
    if [ "$est" != 0 ] && [ "$l" -lt $(( est * 105 / 100 + 5 )) ]; then log "round $r not started: ${l}s left, a round took ${est}s"; break; fi
    if [ "$l" -lt 30 ]; then log "round $r not started: ${l}s left"; break; fi
    rs=$(date +%s)
    python3 -c "import random,sys; L=open(sys.argv[1]).read().splitlines(); random.Random(int(sys.argv[2])*7919+${SEARCH_SEED:-0}).shuffle(L); print('\n'.join(L))" \
      "$W/variants.txt" "$r" > "$W/round-$r.txt"
    local pos=0
    while IFS=$'\t' read -r n s label; do
      pos=$((pos+1))
      if [ "$(left)" -lt 8 ]; then log "round $r cut at position $pos (deadline)"; break; fi
      local t0=$(date +%s.%N)
      timeout 60 "$W/bin/$n/$s" time --reps 20 --warmup 3 --regime burst < /dev/null > "$R/time/r$r-$n-$s.out" 2> "$R/time/r$r-$n-$s.err"
      local rc=$?
      python3 - "$r" "$pos" "$n" "$s" "$label" "$rc" "$t0" "$R/time/r$r-$n-$s.out" "$TAG" >> "$R/timing.jsonl" <<'PY'
import json, sys, time
r, pos, n, s, label, rc, t0, out, tag = sys.argv[1:10]
rec = {"round": int(r), "tag": tag, "pos": int(pos), "kernel": n, "slug": s, "label": label, "rc": int(rc),
       "wall_s": round(time.time() - float(t0), 2), "ok": False}
try:
    line = [l for l in open(out).read().splitlines() if l.strip()][-1]
    j = json.loads(line)
    rec.update({k: j.get(k) for k in ("median_ms", "min_ms", "max_ms", "mean_ms", "reps", "warmup", "regime", "sm_mhz_min",
                                      "sm_mhz_median", "sm_mhz_reference", "clock_reasons", "discarded", "regime_reached",
                                      "times_ms")})
    rec["ok"] = rc == "0" and isinstance(j.get("median_ms"), (int, float))
except Exception as e:
    rec["error"] = str(e)
print(json.dumps(rec))
PY
    done < "$W/round-$r.txt"
    est=$(( $(date +%s) - rs ))
    log "round $r: ${est}s"
    echo "stage=time-round-$r wall=$est" >> "$R/stages.txt"
  done
}

# ---- probe: each kernel's identity timed once (the cost of one timing, for planning) -----------------
do_probe() {
  if [ -n "$BUILD_PID" ]; then wait "$BUILD_PID"; BUILD_PID=""; fi
  for k in "${KERNELS[@]}"; do
    n=$(basename "$k")
    [ -x "$W/bin/$n/identity" ] || continue
    [ "$(left)" -lt 15 ] && break
    local t0=$(date +%s.%N)
    timeout 60 "$W/bin/$n/identity" time --reps 20 --warmup 3 --regime burst < /dev/null > "$R/time/probe-$n.out" 2>&1
    log "probe $n identity: rc $? $(python3 -c "import time; print(round(time.time()-$t0,2))")s: $(tail -1 "$R/time/probe-$n.out" | cut -c1-160)"
  done
}

for st in "$@"; do
  case $st in
    build) do_build ;;
    build-bg) do_build > "$R/build-bg.log" 2>&1 & BUILD_PID=$! ;;
    opt-on:*|opt-off:*) m=${st%%:*}; opt "${m#opt-}" "${st#*:}" ;;
    probe) do_probe ;;
    time) do_time "$ROUNDS" ;;
    time:*) do_time "${st#time:}" ;;
    *) log "unknown stage $st" ;;
  esac
done
[ -n "$BUILD_PID" ] && { log "waiting for the background builds"; wait "$BUILD_PID"; }
cp "$W/build-status.txt" "$R/build-status.txt" 2>/dev/null
log "done"
python3 bench/locality_search_result.py summarize "$R" --commit "$(cat "$R/commit.txt")" --device "$(sed -n 2p "$R/gpu.txt" | cut -d, -f1)" > "$R/table.txt" 2>&1
( cd "$R" && tar czf "$OUT/search-$TAG.tgz" . ) && rm -rf "$R"
ls -la "$OUT"
tar xzf "$OUT/search-$TAG.tgz" -O ./table.txt 2>/dev/null | head -60
tar xzf "$OUT/search-$TAG.tgz" -O ./stages.txt 2>/dev/null | cut -c1-200
