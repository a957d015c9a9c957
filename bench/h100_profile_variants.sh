#!/usr/bin/env bash
# On the GPU machine (profile, the loop's largest stage): what one ncu pass costs on the
# many-launch kernels, and what the cheaper ncu settings would change. For each
# kernel (default: smith_waterman fdtd_2d gemm) it builds the identity program as the
# cuda backend does, then times ncu with the loop's exact flags and with variants:
#   loop       --cache-control all --clock-control base, kernel replay (what the loop runs)
#   app        the same with --replay-mode application (the program re-run per pass,
#              no per-launch save/restore)
#   nocache    --cache-control none (no flush before each replayed pass)
#   passes     the loop's flags with --print-summary none and --metrics of one pass only
#              (lts__t_sectors.sum), to read the per-launch floor
#   first16    the loop's flags with --launch-count 16 (the first 16 matching launches)
#   every10     the loop's flags, launches chosen by --kernel-id with an invocation regex
#              (invocations 1, 10, 20, ...), to see whether ncu can sample a launch sequence
# SWZ_PROFILE_VARIANTS picks variants (default: all of them). `ncu --help`'s
# launch-selection lines go to $OUT/ncu-help.txt.
# and records wall seconds, launches profiled and the summed hit rate of each, so the
# next change can be chosen by numbers. Everything under $OUT: profile-variants.json,
# logs. Usage: bench/h100_profile_variants.sh [KERNEL...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
KERNELS=("$@"); [ ${#KERNELS[@]} -eq 0 ] && KERNELS=(smith_waterman fdtd_2d gemm)
B=$(mktemp -d)
NV=(nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I kernels/support/hip_on_cuda -I kernels/support -DSWZ_NUM_DIES=2)
for k in "${KERNELS[@]}"; do "${NV[@]}" -o "$B/$k" "kernels/$k.hip" > "$OUT/build-$k.log" 2>&1 & done
wait
METRICS=lts__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
: > "$OUT/profile-variants.jsonl"
ncu --help 2>&1 | grep -A14 -E -- '--(kernel-id|launch-count|launch-skip|kernel-name) ' > "$OUT/ncu-help.txt"
read -r -a VARIANTS <<< "${SWZ_PROFILE_VARIANTS:-loop app nocache passes first16 every10}"
for k in "${KERNELS[@]}"; do
  [ -x "$B/$k" ] || { echo "$k did not build (see $OUT/build-$k.log)"; continue; }
  regex=$("$B/$k" info | python3 -c 'import json,sys; print(json.loads(sys.stdin.readlines()[-1])["kernel_regex"])')
  for v in "${VARIANTS[@]}"; do
    sel=(--kernel-name "regex:$regex")
    flags=(--csv --print-units base --cache-control all --clock-control base --target-processes all --metrics "$METRICS")
    case $v in
      app) flags+=(--replay-mode application) ;;
      nocache) flags=(--csv --print-units base --cache-control none --clock-control base --target-processes all --metrics "$METRICS") ;;
      passes) flags=(--csv --print-units base --cache-control all --clock-control base --target-processes all --metrics lts__t_sectors.sum) ;;
      first16) flags+=(--launch-count 16) ;;
      every10) sel=(--kernel-id "::regex:$regex:regex:^(1|[0-9]*0)$") ;;
    esac
    t0=$(date +%s.%N)
    timeout 300 ncu "${flags[@]}" "${sel[@]}" "$B/$k" profile > "$OUT/ncu-$k-$v.csv" 2> "$OUT/ncu-$k-$v.log"
    rc=$?
    wall=$(python3 -c "print(round($(date +%s.%N)-$t0,2))")
    python3 - "$k" "$v" "$wall" "$rc" "$OUT/ncu-$k-$v.csv" >> "$OUT/profile-variants.jsonl" <<'PY'
import csv, json, sys
k, v, wall, rc, path = sys.argv[1:6]
rows = [r for r in csv.reader(open(path, errors="replace")) if r]
hdr = next((r for r in rows if r[0] == "ID"), None)
ids, hits, sectors = set(), 0.0, 0.0
if hdr:
    i_name, i_val = hdr.index("Metric Name"), hdr.index("Metric Value")
    for r in rows:
        if r[0].isdigit() and len(r) > i_val:
            ids.add(r[0])
            val = float(r[i_val].replace(",", "") or 0)
            if r[i_name] == "lts__t_sectors_lookup_hit.sum": hits += val
            if r[i_name] == "lts__t_sectors.sum": sectors += val
print(json.dumps({"kernel": k, "variant": v, "wall_s": float(wall), "exit": int(rc), "launches": len(ids),
                  "hit_pct_summed": round(100 * hits / sectors, 3) if sectors and hits else None}))
PY
    tail -1 "$OUT/profile-variants.jsonl"
  done
done
python3 - "$OUT/profile-variants.jsonl" "$OUT/profile-variants.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
json.dump(rows, open(sys.argv[2], "w"), indent=2)
print("| kernel | variant | wall s | launches | L2 hit % (summed) |")
print("|---|---|---:|---:|---:|")
for r in rows:
    print(f"| {r['kernel']} | {r['variant']} | {r['wall_s']} | {r['launches']} | {r['hit_pct_summed']} |")
PY
