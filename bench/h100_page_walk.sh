#!/usr/bin/env bash
# On the GPU machine: what is the L2 work Nsight Compute puts in no op class (and that no SM
# sends)? Address translation would grow with the pages the running blocks touch; write
# traffic with the bytes written. Two parts, one device call:
#   1. bench/page_walk_probe.cu under ncu: the same 64 MiB per launch, read, written, or read
#      and written to a second buffer (SWZ_PW_OPS, default "read write copy"), spread over
#      more and more pages (gap and span sweeps; see the probe's header), with the op, source
#      and aperture split of lts__t_sectors. (The share of L2 sectors the HUB sends, where the
#      MMU is, lts__average_t_sector_srcnode_hub.ratio, is listed by ncu 2025.3 for gh100 but
#      came back "n/a" on every launch on the H100, so it is not asked for.)
#   2. unless SWZ_PW_TRUTH=0: bench/h100_locality_truth.sh on fdtd_2d and stencil_2d, a few
#      orders (SWZ_TRUTH_ONLY), with the attribution metrics of the earlier profiles.
# SWZ_PW_OPS="" skips the main sweeps (e.g. with only SWZ_PW_BLOCKS set).
# Output under $OUT: probe-OP.csv and probe-OP.json (the configs, the probe's JSON line) per
# op, logs, and the truth script's truth.json and raw.tgz as truth-E.json and raw-E.tgz.
# Usage: OUT=... bench/h100_page_walk.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
W=$(mktemp -d /tmp/page-walk.XXXXXX)
nvcc -O2 -arch=sm_90 -o "$W/probe" bench/page_walk_probe.cu > "$OUT/probe-build.log" 2>&1 || { cat "$OUT/probe-build.log"; exit 1; }
BASE=lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_write_lookup_hit.sum,lts__t_sectors_op_membar.sum,lts__t_sectors_op_membar_lookup_hit.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_sectors_srcnode_gpc.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_write.sum,lts__t_sectors_srcunit_ltcfabric_op_membar.sum,lts__t_sectors_aperture_sysmem.sum,lts__t_sectors_aperture_device.sum,lts__t_sectors_lookup_miss.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
FLAGS=(--csv --print-units base --cache-control all --clock-control base --kernel-name touch)
for op in ${SWZ_PW_OPS-read write copy}; do
  "$W/probe" --max-gib 36 --op "$op" > "$OUT/probe-$op.json" 2> "$OUT/probe-$op-run.log"; log "probe $op plain run rc $?"
  timeout 240 ncu "${FLAGS[@]}" --metrics "$BASE" "$W/probe" --max-gib 36 --op "$op" > "$OUT/probe-$op.csv" 2> "$OUT/probe-$op-ncu.log"
  log "probe $op under ncu rc $?"
done
# SWZ_PW_BLOCKS="N ...": the write and copy sweeps again with N blocks a launch (N * 4 KiB
# written), as probe-OP-bN.{csv,json}: does the work need more written than the L2 holds?
for n in ${SWZ_PW_BLOCKS:-}; do
  for op in write copy; do
    "$W/probe" --max-gib 36 --op "$op" --blocks "$n" > "$OUT/probe-$op-b$n.json" 2>> "$OUT/probe-blocks-run.log"
    timeout 240 ncu "${FLAGS[@]}" --metrics "$BASE" "$W/probe" --max-gib 36 --op "$op" --blocks "$n" \
      > "$OUT/probe-$op-b$n.csv" 2>> "$OUT/probe-blocks-ncu.log"
    log "probe $op, $n blocks, under ncu rc $?"
  done
done
[ "${SWZ_PW_TRUTH:-1}" = 1 ] || { log done; exit 0; }
EXTRA=lts__t_sectors_srcnode_gpc.sum,lts__t_sectors_lookup_miss_data_promoted.sum,lts__t_sectors_srcunit_ltcfabric_op_write.sum,lts__t_sectors_srcunit_ltcfabric_op_membar.sum,lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric_op_write_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum,lts__t_sectors_aperture_sysmem.sum,lts__t_sectors_aperture_device.sum
mkdir -p "$W/truth"
OUT=$W/truth SWZ_TRUTH_EXTRA=$EXTRA SWZ_TRUTH_PART=E SWZ_TRUTH_DEADLINE_S=${SWZ_PW_DEADLINE_S:-300} \
  SWZ_TRUTH_ONLY=${SWZ_TRUTH_ONLY:-'^(identity|col_major|scatter_P_1000003|grouped_m_G_64|grouped_n_G_2|die_rr|reverse|grouped_m_G_8)$'} \
  bench/h100_locality_truth.sh fdtd_2d stencil_2d > "$OUT/truth.log" 2>&1
log "truth rc $?"
cp "$W/truth/truth.json" "$OUT/truth-E.json" 2>/dev/null
cp "$W/truth/raw.tgz" "$OUT/raw-E.tgz" 2>/dev/null
tail -30 "$OUT/truth.log"
log done
