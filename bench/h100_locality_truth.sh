#!/usr/bin/env bash
# On the GPU machine: Nsight Compute "ground truth" for many block orders of several kernels,
# to validate a locality model against later (the model is not here). For each kernel
# (arguments, default: gemm tc/gemm_tc tc/attention_fwd stencil_2d layernorm softmax transpose
# fdtd_2d, i.e. kernels/<k>.hip) at the program's default size it
#   1. writes the identity program with bench/locality_orders.py, builds it once as the tool's
#      cuda backend does (nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I kernels/support/hip_on_cuda
#      -I kernels/support -DSWZ_NUM_DIES=2) and runs `prog info`;
#   2. writes every order's program and region (locality_orders.py list/write; each order is
#      checked to be a bijection on the kernel's grid) and builds them all in parallel
#      (xargs -P $SWZ_TRUTH_JOBS, default 16);
#   3. profiles each variant with the loop's ncu flags (--cache-control all --clock-control base,
#      kernel replay) over the first L launches that match the program's kernel_regex, L = the
#      launches of one run() (info's "launches", 1 when absent) capped at 3.
# Metrics (the hit rate's parts: reads and writes, the other ops the profiler counts -- membar,
# atom, red -- and the requests by source: SMs, the other L2 side, the GPCs' constant caches):
# the candidates below that `ncu --query-metrics --chip gh100` lists (a name counts
# when its base name, the part before the first '.', is listed); names it does not list (the
# launch__ statistics, occupancy) are kept only if a probe pass on the first kernel returns a
# value for them. A set ncu refuses has the names its error names dropped, then is retried.
# Output under $OUT: truth.json (one object; see the end of this file), table.md (the short
# table, also printed last) and raw.tgz (logs, ncu CSVs, query-metrics, info JSONs and
# regions/<kernel>/<slug>.txt; no binaries, no programs: a program is the kernel file with
# its region replaced by that text).
# Environment: OUT (default bench/out), COMMIT (recorded when `git rev-parse HEAD` fails),
# SWZ_TRUTH_DEADLINE_S (default 520: no ncu pass starts after this many seconds from the
# start, so one device call stays under its limit; variants not profiled are recorded as
# "skipped: deadline"), SWZ_TRUTH_ONLY (a regex on order slugs: profile only those),
# SWZ_TRUTH_SKIP_DUPS=1 (do not profile an order whose mapping equals an earlier one's; it is
# recorded with same_mapping_as), SWZ_TRUTH_PART (a name recorded in truth.json),
# SWZ_TRUTH_EXTRA (more metrics, comma-separated, after the candidates below).
# Usage: OUT=... COMMIT=... bench/h100_locality_truth.sh [KERNEL...]
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s.%N)
OUT=${OUT:-bench/out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
ARGS=("$@"); [ ${#ARGS[@]} -eq 0 ] && ARGS=(gemm tc/gemm_tc tc/attention_fwd stencil_2d layernorm softmax transpose fdtd_2d)
declare -A ONLY_OF   # KERNEL:REGEX -> profile (and build) only the orders whose slug matches REGEX
KERNELS=()
for a in "${ARGS[@]}"; do
  k=${a%%:*}; KERNELS+=("$k")
  [ "$a" != "$k" ] && ONLY_OF[$(basename "$k")]=${a#*:}
done
DEADLINE=${SWZ_TRUTH_DEADLINE_S:-520}
JOBS=${SWZ_TRUTH_JOBS:-16}
ONLY=${SWZ_TRUTH_ONLY:-}
selected() {  # NAME SLUG: is this order to be built and profiled (NAME:REGEX, else SWZ_TRUTH_ONLY)?
  local re=${ONLY_OF[$1]:-$ONLY}
  [ -z "$re" ] && return 0
  [[ $2 =~ $re ]]
}
SKIP_DUPS=${SWZ_TRUTH_SKIP_DUPS:-0}
W=$(mktemp -d /tmp/locality-truth.XXXXXX)      # binaries and programs: never under $OUT
R=$W/raw; mkdir -p "$R/build" "$R/ncu" "$R/info" "$R/regions"
: > "$R/variants.jsonl"
elapsed() { python3 -c "import time; print(round(time.time()-$T0,1))"; }
log() { echo "[$(elapsed)s] $*"; }
NV=(nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I kernels/support/hip_on_cuda -I kernels/support -DSWZ_NUM_DIES=2)
export W R
printf '%s ' "${NV[@]}" > "$R/nvcc-argv.txt"

# ---- environment ----------------------------------------------------------------------------
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,clocks.max.mem --format=csv > "$R/nvidia-smi.txt" 2>&1
nvidia-smi > "$R/nvidia-smi-full.txt" 2>&1
ncu --version > "$R/ncu-version.txt" 2>&1
nvcc --version > "$R/nvcc-version.txt" 2>&1
GIT_COMMIT=$(git rev-parse HEAD 2>/dev/null || echo "${COMMIT:-unknown}")
sha256sum kernels/*.hip kernels/tc/*.hip kernels/support/*.h kernels/support/hip_on_cuda/*/*.h \
  bench/locality_orders.py bench/h100_locality_truth.sh > "$R/sources.sha256" 2>/dev/null
log "device: $(sed -n 2p "$R/nvidia-smi.txt"); ncu: $(tail -1 "$R/ncu-version.txt"); commit $GIT_COMMIT"

# ---- 1. identity programs, built once, and info ---------------------------------------------
build_one() {  # NAME SLUG: builds $W/prog/NAME/SLUG.hip into $W/bin/NAME/SLUG
  local k=$1 s=$2 t0 rc
  mkdir -p "$W/bin/$k"
  t0=$(date +%s.%N)
  "${NV[@]}" -o "$W/bin/$k/$s" "$W/prog/$k/$s.hip" > "$R/build/$k-$s.log" 2>&1
  rc=$?
  echo "$k $s $rc $(python3 -c "import time; print(round(time.time()-$t0,2))")" >> "$W/build-status.txt"
}
: > "$W/build-status.txt"
declare -A SRC
for k in "${KERNELS[@]}"; do
  n=$(basename "$k"); SRC[$n]=kernels/$k.hip
  mkdir -p "$W/prog/$n" "$R/regions/$n"
  python3 bench/locality_orders.py write "${SRC[$n]}" identity "$W/prog/$n/identity.hip" "$R/regions/$n/identity.txt" \
    || { echo "error: cannot write the identity program of $k"; continue; }
  build_one "$n" identity &
done
wait
NAMES=()
for k in "${KERNELS[@]}"; do
  n=$(basename "$k")
  if [ ! -x "$W/bin/$n/identity" ]; then log "$n: identity did not build (raw/build/$n-identity.log)"; continue; fi
  "$W/bin/$n/identity" info < /dev/null > "$R/info/$n.txt" 2> "$R/info/$n.err" || { log "$n: info failed"; continue; }
  tail -1 "$R/info/$n.txt" > "$R/info/$n.json"
  NAMES+=("$n")
done
log "identity builds + info done: ${NAMES[*]}"

# ---- 2. every order's program + region, built in parallel -----------------------------------
: > "$W/jobs.txt"
for n in "${NAMES[@]}"; do
  python3 bench/locality_orders.py list "$R/info/$n.json" --slugs > "$R/info/$n-orders.tsv" 2> "$R/info/$n-orders.err"
  while IFS=$'\t' read -r s label same; do
    [ "$s" = identity ] && continue
    if selected "$n" "$s"; then b=1; else b=0; fi
    printf '%s\t%s\t%s\t%s\n' "$n" "$s" "$label" "$b" >> "$W/jobs.txt"
  done < "$R/info/$n-orders.tsv"
done
write_and_build() {  # NAME SLUG LABEL SRC BUILD(1|0)
  python3 bench/locality_orders.py write "$4" "$3" "$W/prog/$1/$2.hip" "$R/regions/$1/$2.txt" --info "$R/info/$1.json" \
    > "$R/build/$1-$2.write.log" 2>&1 || { echo "$1 $2 write-failed 0" >> "$W/build-status.txt"; return; }
  [ "$5" = 1 ] && build_one "$1" "$2"
}
export -f build_one write_and_build
export NV_STR="${NV[*]}"
while IFS=$'\t' read -r n s label b; do printf '%s\0%s\0%s\0%s\0%s\0' "$n" "$s" "$label" "${SRC[$n]}" "$b"; done < "$W/jobs.txt" \
  | xargs -0 -n 5 -P "$JOBS" bash -c 'NV=($NV_STR); write_and_build "$@"' _
log "built $(awk '$3=="0"' "$W/build-status.txt" | wc -l) of $(wc -l < "$W/build-status.txt") programs"

# ---- metrics: query, then a probe pass ------------------------------------------------------
CANDIDATES=(lts__t_sector_hit_rate.pct lts__t_sectors.sum lts__t_sectors_lookup_hit.sum lts__t_sectors_lookup_miss.sum
  lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum lts__t_sectors_op_read_lookup_hit.sum
  lts__t_sectors_op_write_lookup_hit.sum lts__t_sectors_srcunit_ltcfabric.sum lts__t_sectors_srcunit_tex.sum
  dram__bytes_read.sum dram__bytes_write.sum gpu__time_duration.sum launch__registers_per_thread
  launch__shared_mem_per_block_static launch__shared_mem_per_block_dynamic launch__block_size launch__grid_size
  launch__occupancy_limit_registers launch__occupancy_limit_shared_mem launch__occupancy_limit_warps
  launch__occupancy_limit_blocks sm__warps_active.avg.pct_of_peak_sustained_active sm__maximum_warps_per_active_cycle_pct
  lts__t_sectors_op_membar.sum lts__t_sectors_op_membar_lookup_hit.sum lts__t_sectors_op_atom.sum lts__t_sectors_op_red.sum
  lts__t_sectors_srcunit_gcc.sum lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
  lts__t_sectors_srcunit_ltcfabric_op_read.sum lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum)
# SWZ_TRUTH_EXTRA: more metric names (comma-separated), e.g. to attribute the L2 work the
# candidates above leave in no class; they go through the same listing and probe as the rest.
[ -n "${SWZ_TRUTH_EXTRA:-}" ] && { IFS=, read -r -a EXTRA <<< "$SWZ_TRUTH_EXTRA"; CANDIDATES+=("${EXTRA[@]}"); }
ncu --query-metrics --chip gh100 > "$R/query-metrics.txt" 2>&1
printf '%s\n' "${CANDIDATES[@]}" > "$W/candidates.txt"
python3 - "$R/query-metrics.txt" "$W/candidates.txt" "$W/listed.txt" "$W/unlisted.txt" <<'PY'
import sys
q, cand, listed, unlisted = sys.argv[1:5]
names = {l.split()[0] for l in open(q, errors="replace") if l.strip()}
c = [l.strip() for l in open(cand) if l.strip()]
open(listed, "w").write("".join(n + "\n" for n in c if n.split(".")[0] in names or n in names))
open(unlisted, "w").write("".join(n + "\n" for n in c if not (n.split(".")[0] in names or n in names)))
PY
log "query-metrics lists $(wc -l < "$W/listed.txt") of ${#CANDIDATES[@]} candidates; not listed: $(tr '\n' ' ' < "$W/unlisted.txt")"
mapfile -t METRICS < <(cat "$W/listed.txt" "$W/unlisted.txt")
: > "$R/metrics-dropped.txt"
ncu_flags() { echo --csv --print-units base --cache-control all --clock-control base --target-processes all; }
PROBE=${NAMES[0]:-}
if [ -n "$PROBE" ]; then
  regex=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel_regex"])' "$R/info/$PROBE.json")
  for try in 1 2 3 4; do
    M=$(IFS=,; echo "${METRICS[*]}")
    t0=$(date +%s.%N)
    timeout 120 ncu $(ncu_flags) --kernel-name "regex:$regex" --launch-count 1 --metrics "$M" "$W/bin/$PROBE/identity" profile \
      < /dev/null > "$R/ncu/probe-$try.csv" 2> "$R/ncu/probe-$try.log"
    rc=$?
    log "probe $try on $PROBE: rc $rc, $(python3 -c "import time; print(round(time.time()-$t0,1))") s, ${#METRICS[@]} metrics"
    # Drops the names ncu's errors name; on success also the names with no value in the CSV.
    # Prints the metrics to keep, then a last line: "done" or "retry".
    mapfile -t NEXT < <(python3 - "$rc" "$R/ncu/probe-$try.csv" "$R/ncu/probe-$try.log" "$W/unlisted.txt" "$R/metrics-dropped.txt" "$try" "${METRICS[@]}" <<'PY'
import csv, re, sys
rc, csvp, logp, unl, dropped, tr = sys.argv[1:7]
ms = sys.argv[7:]
unlisted = {l.strip() for l in open(unl) if l.strip()}
text = open(logp, errors="replace").read() + "\n" + open(csvp, errors="replace").read()
errs = [l for l in text.splitlines() if "==ERROR==" in l or "rror:" in l]
tokens = {t.rstrip(".,;:'\"") for l in errs for t in re.findall(r"[A-Za-z0-9_]+__[A-Za-z0-9_.]+", l)}
bad = {m: "named in ncu's error (probe %s, rc %s)" % (tr, rc) for m in ms if m in tokens or m.split(".")[0] in tokens}
got = set()
if rc == "0":
    rows = [r for r in csv.reader(open(csvp, errors="replace")) if r]
    hdr = next((r for r in rows if r[0] == "ID"), None)
    if hdr:
        i, v = hdr.index("Metric Name"), hdr.index("Metric Value")
        got = {r[i] for r in rows if r[0].isdigit() and len(r) > v and r[v].strip() not in ("", "n/a")}
    if got:
        bad.update({m: "no value in the probe's CSV (probe %s)" % tr for m in ms if m not in got and m not in bad})
elif not bad:
    bad = {m: "ncu refused the set (probe %s, rc %s) naming no metric; not listed by --query-metrics" % (tr, rc)
           for m in ms if m in unlisted}
with open(dropped, "a") as f:
    for m, why in bad.items():
        f.write("%s: %s\n" % (m, why))
keep = [m for m in ms if m not in bad]
print("\n".join(keep + ["retry" if rc != "0" and bad else "done"]))
PY
)
    [ "${NEXT[-1]}" = done ] && { METRICS=("${NEXT[@]:0:${#NEXT[@]}-1}"); break; }
    METRICS=("${NEXT[@]:0:${#NEXT[@]}-1}")
  done
fi
M=$(IFS=,; echo "${METRICS[*]}")
printf '%s\n' "${METRICS[@]}" > "$R/metrics-used.txt"
log "metrics used (${#METRICS[@]}): $M"
[ -s "$R/metrics-dropped.txt" ] && log "dropped: $(tr '\n' ';' < "$R/metrics-dropped.txt")"

# ---- 3. profile every variant -----------------------------------------------------------------
# Two rounds: first every order whose mapping is new, then those with the same mapping as an
# earlier order of the kernel (a repeat measurement), so a deadline drops repeats first.
declare -A REGEX LC
for n in "${NAMES[@]}"; do
  REGEX[$n]=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel_regex"])' "$R/info/$n.json")
  LC[$n]=$(python3 -c 'import json,sys; print(min(int(json.load(open(sys.argv[1])).get("launches") or 1), 3))' "$R/info/$n.json")
  echo "${LC[$n]}" > "$R/info/$n-launch-count.txt"
  log "$n: kernel_regex ${REGEX[$n]}, launch-count ${LC[$n]}"
done
profile_one() {  # NAME SLUG LABEL SAME
  local n=$1 s=$2 label=$3 same=$4 status rc wall left t0 h
  status=profiled rc="" wall=""
  if ! selected "$n" "$s"; then status="skipped: not selected (SWZ_TRUTH_ONLY or KERNEL:REGEX)"
  elif [ "$SKIP_DUPS" = 1 ] && [ "$same" != - ]; then status="skipped: same mapping as $same"
  elif [ ! -x "$W/bin/$n/$s" ]; then status="skipped: not built"
  else
    left=$(python3 -c "import time; print(int($DEADLINE-(time.time()-$T0)))")
    if [ "$left" -lt 15 ]; then status="skipped: deadline"
    else
      t0=$(date +%s.%N)
      timeout $(( left < 150 ? left : 150 )) ncu $(ncu_flags) --kernel-name "regex:${REGEX[$n]}" --launch-count "${LC[$n]}" --metrics "$M" \
        "$W/bin/$n/$s" profile < /dev/null > "$R/ncu/$n-$s.csv" 2> "$R/ncu/$n-$s.log"
      rc=$?
      wall=$(python3 -c "import time; print(round(time.time()-$t0,2))")
    fi
  fi
  python3 - "$n" "$s" "$label" "$same" "$status" "$rc" "$wall" "${LC[$n]}" >> "$R/variants.jsonl" <<'PY'
import csv, json, os, sys
n, s, label, same, status, rc, wall, L = sys.argv[1:9]
R = os.environ["R"]
build = {}
for line in open(os.path.join(os.environ["W"], "build-status.txt")):
    k, sl, brc, bs = line.split()
    if k == n and sl == s:
        build = {"build_ok": brc == "0", "build_rc": brc, "build_s": float(bs)}
v = {"kernel": n, "label": label, "slug": s, "region_file": f"regions/{n}/{s}.txt",
     "same_mapping_as": None if same == "-" else same, **build, "status": status,
     "ncu_rc": int(rc) if rc else None, "ncu_wall_s": float(wall) if wall else None, "launch_count": int(L)}
csvp = os.path.join(R, "ncu", f"{n}-{s}.csv")
launches = {}
if os.path.exists(csvp):
    rows = [r for r in csv.reader(open(csvp, errors="replace")) if r]
    hdr = next((r for r in rows if r[0] == "ID"), None)
    if hdr:
        ik, im, iu, iv = (hdr.index(x) for x in ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value"))
        for r in rows:
            if not r[0].isdigit() or len(r) <= iv:
                continue
            lr = launches.setdefault(r[0], {"id": int(r[0]), "kernel": r[ik], "metrics": {}, "units": {}})
            raw = r[iv].strip()
            try:
                val = float(raw.replace(",", ""))
                val = int(val) if val.is_integer() and "." not in raw else val
            except ValueError:
                val = raw
            lr["metrics"][r[im]] = val
            lr["units"][r[im]] = r[iu]
v["launches"] = [launches[k] for k in sorted(launches, key=int)]
v["launches_profiled"] = len(v["launches"])
def total(name):
    vals = [l["metrics"].get(name) for l in v["launches"]]
    vals = [x for x in vals if isinstance(x, (int, float))]
    return sum(vals) if vals else None
summed = {m: total(m) for m in ("lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum",
                                "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum",
                                "lts__t_sectors_op_read_lookup_hit.sum", "lts__t_sectors_op_write_lookup_hit.sum",
                                "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_sectors_srcunit_tex.sum",
                                "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum")}
sec, hit, miss = summed["lts__t_sectors.sum"], summed["lts__t_sectors_lookup_hit.sum"], summed["lts__t_sectors_lookup_miss.sum"]
summed["hit_pct"] = 100.0 * hit / sec if sec and hit is not None else None           # 100 * lookup_hit / sectors
summed["hit_pct_lookups"] = 100.0 * hit / (hit + miss) if hit is not None and miss is not None and hit + miss else None
rd, rdh = summed["lts__t_sectors_op_read.sum"], summed["lts__t_sectors_op_read_lookup_hit.sum"]
summed["read_hit_pct"] = 100.0 * rdh / rd if rd and rdh is not None else None
v["summed"] = summed
print(json.dumps(v))
PY
  h=$(tail -1 "$R/variants.jsonl" | python3 -c 'import json,sys; v=json.load(sys.stdin); h=v["summed"]["hit_pct"]; print("%s launches %d hit %s" % (v["status"], v["launches_profiled"], "-" if h is None else "%.2f" % h))')
  [[ $status == "skipped: not selected"* ]] || log "$n $label: rc ${rc:--} ${wall:--} s: $h"
}
for round in new repeat; do
  for n in "${NAMES[@]}"; do
    while IFS=$'\t' read -r s label same; do
      if [ "$round" = new ] && [ "$same" = - ]; then profile_one "$n" "$s" "$label" "$same"
      elif [ "$round" = repeat ] && [ "$same" != - ]; then profile_one "$n" "$s" "$label" "$same"; fi
    done < "$R/info/$n-orders.tsv"
  done
done

# ---- truth.json, table, tarball ----------------------------------------------------------------
python3 - "$OUT" "$GIT_COMMIT" "$(elapsed)" "${NAMES[@]}" <<'PY'
import datetime, json, os, sys
out, commit, wall = sys.argv[1:4]
names = sys.argv[4:]
R = os.environ["R"]
rd = lambda p: open(os.path.join(R, p), errors="replace").read()
smi = [l for l in rd("nvidia-smi.txt").splitlines() if l.strip()]
variants = [json.loads(l) for l in open(os.path.join(R, "variants.jsonl"))]
truth = {
    "what": "Nsight Compute ground truth per block order (bench/h100_locality_truth.sh, bench/locality_orders.py)",
    "part": os.environ.get("SWZ_TRUTH_PART", ""),
    "device": smi[1].split(",")[0].strip() if len(smi) > 1 else "unknown",
    "nvidia_smi": smi[1] if len(smi) > 1 else "",
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "commit": commit,
    "sources_sha256": dict(reversed(l.split(None, 1)) for l in rd("sources.sha256").splitlines() if l.strip()),
    "ncu_version": rd("ncu-version.txt").strip().splitlines()[-1] if rd("ncu-version.txt").strip() else "",
    "nvcc_argv": rd("nvcc-argv.txt").strip() + " -o PROG PROGRAM.hip",
    "ncu_argv": "ncu --csv --print-units base --cache-control all --clock-control base --target-processes all "
                "--kernel-name regex:<kernel_regex> --launch-count <L> --metrics <metrics> ./prog profile",
    "metrics_used": [l for l in rd("metrics-used.txt").splitlines() if l],
    "metrics_dropped": [l for l in rd("metrics-dropped.txt").splitlines() if l],
    "summed_note": "summed.* = sum over the profiled launches of each counter; hit_pct = 100*lookup_hit/sectors of those sums, "
                   "hit_pct_lookups = 100*lookup_hit/(lookup_hit+lookup_miss), read_hit_pct = 100*op_read_lookup_hit/op_read; "
                   "percentages are never averaged (per-launch values are under launches[].metrics)",
    "wall_s": float(wall),
    "kernels": {},
}
for n in names:
    info = json.loads(rd(f"info/{n}.json"))
    order = {l.split("\t")[0]: i for i, l in enumerate(rd(f"info/{n}-orders.tsv").splitlines())}
    truth["kernels"][n] = {
        "size": info.get("size"), "grid": info.get("grid"), "num_pids": info.get("num_pids"),
        "info": info, "launches_per_run": info.get("launches"),
        "launch_count_profiled": int(rd(f"info/{n}-launch-count.txt").strip() or 0) if os.path.exists(os.path.join(R, f"info/{n}-launch-count.txt")) else None,
        "orders_refused": [l for l in rd(f"info/{n}-orders.err").splitlines() if l],
        "variants": sorted((v for v in variants if v["kernel"] == n), key=lambda v: order.get(v["slug"], 1 << 30)),
    }
json.dump(truth, open(os.path.join(out, "truth.json"), "w"), indent=1)
lines = ["| kernel | order | status | L2 hit % (summed) | DRAM read MB | DRAM write MB | fabric sectors | lts sectors | ncu s |",
         "|---|---|---|---:|---:|---:|---:|---:|---:|"]
f = lambda x, d=2: "-" if x is None else (f"{x:.{d}f}" if isinstance(x, float) else str(x))
for n in names:
    for v in truth["kernels"][n]["variants"]:
        if v["status"].startswith("skipped: not selected"):
            continue
        s = v["summed"]
        mb = lambda b: None if b is None else b / 1e6
        lines.append(f"| {n} | {v['label']} | {v['status'] if v['status'] != 'profiled' else 'rc ' + str(v['ncu_rc'])} | "
                     f"{f(s['hit_pct'])} | {f(mb(s['dram__bytes_read.sum']), 1)} | {f(mb(s['dram__bytes_write.sum']), 1)} | "
                     f"{f(s['lts__t_sectors_srcunit_ltcfabric.sum'])} | {f(s['lts__t_sectors.sum'])} | {f(v['ncu_wall_s'], 1)} |")
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
PY
tar -czf "$OUT/raw.tgz" -C "$R" . 2>/dev/null
log "wrote $OUT/truth.json, $OUT/table.md, $OUT/raw.tgz ($(du -h "$OUT/raw.tgz" | cut -f1))"
cat "$OUT/table.md"
rm -rf "$W"
