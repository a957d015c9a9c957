#!/usr/bin/env python3
"""The L2 work outside Nsight Compute's op classes on the H100: what makes it, and how much of
fdtd_2d's order effect it carries. Standard library only; no GPU.

Two sources, both already measured:
  - bench/results/raw-page-walk/probe-*.tgz: bench/h100_page_walk.sh's probe
    (bench/page_walk_probe.cu under ncu): 64 MiB per launch read, written, or read and written
    ("copy"), spread over 4 KiB..2 MiB gaps and 8 MiB..32 GiB scattered spans. probe-B is the
    main run (all three ops); probe-A1 and probe-A2 are two earlier runs of the same configs
    (read; read and copy), kept as repeats.
  - bench/results/raw-locality/truth-C4-attrib-repeat.json: fdtd_2d's 20 orders with the
    attribution counters. Per order: the measured hit rate, and the hit rate of the read, write
    and membar sectors alone (the work the model simulates), so it says how much of the order
    effect lies outside them.

"Unclassified" below is lts__t_sectors less its op_read, op_write, op_membar, op_atom and op_red
sectors; its hits likewise from lookup_hit.
usage: page_walk_result.py [--out STEM]   (default bench/results/2026-11-27-h100-unclassified-l2)
"""
import argparse
import csv
import io
import json
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from locality_validate import modelled_classes_hit_pct, spearman, unclassified_counts as unclassified  # noqa: E402
from resultfmt import write_result  # noqa: E402

RAW = os.path.join(HERE, "results", "raw-page-walk")
def members(tgz):
    """name (basename) -> text, for every file in the archive (nested raw-*.tgz left out)."""
    out = {}
    with tarfile.open(tgz) as t:
        for m in t.getmembers():
            if m.isfile() and not m.name.endswith(".tgz"):
                out[os.path.basename(m.name)] = t.extractfile(m).read().decode("utf-8", "replace")
    return out


def ncu_rows(text):
    """Nsight Compute's --csv output -> one dict of metric -> number per profiled launch, by ID."""
    rows = {}
    for r in csv.DictReader(io.StringIO("".join(l + "\n" for l in text.splitlines() if l.startswith('"')))):
        try:
            v = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            v = None
        rows.setdefault(int(r["ID"]), {})[r["Metric Name"]] = v
    return [rows[k] for k in sorted(rows)]


def probe_table(files, op):
    cfg = json.loads([l for l in files["probe-%s.json" % op].splitlines() if l.startswith("{")][-1])
    rows = ncu_rows(files["probe-%s.csv" % op])
    if len(rows) != len(cfg["configs"]):
        raise SystemExit("probe-%s: %d launches profiled, %d configs" % (op, len(rows), len(cfg["configs"])))
    out = []
    for c, m in zip(cfg["configs"], rows):
        u = unclassified(m)
        out.append({"op": op, "kind": c["kind"], "size": c.get("kib", c.get("mib")),
                    "unit": "KiB" if c["kind"] == "gap" else "MiB", "span_bytes": c["span_bytes"],
                    "lts_sectors": m.get("lts__t_sectors.sum"), "read_sectors": m.get("lts__t_sectors_op_read.sum"),
                    "write_sectors": m.get("lts__t_sectors_op_write.sum"),
                    "unclassified_sectors": u["sectors"], "unclassified_hits": u["hits"],
                    "unclassified_from_fabric": u["fabric"],
                    "sysmem_aperture_sectors": m.get("lts__t_sectors_aperture_sysmem.sum"),
                    "duration_ns": m.get("gpu__time_duration.sum")})
    return out


def fdtd_split():
    t = json.load(open(os.path.join(HERE, "results", "raw-locality", "truth-C4-attrib-repeat.json")))
    rows = []
    for v in t["kernels"]["fdtd_2d"]["variants"]:
        s = h = us = uh = 0
        per = []
        for L in v["launches"]:
            m = L["metrics"]
            u = unclassified(m)
            s += m["lts__t_sectors.sum"]
            h += m["lts__t_sectors_lookup_hit.sum"]
            us += u["sectors"]
            uh += u["hits"]
            per.append({"unclassified_sectors": u["sectors"], "unclassified_hits": u["hits"],
                        "duration_ns": m.get("gpu__time_duration.sum")})
        rows.append({"order": v["label"], "hit_pct": 100.0 * h / s, "classified_hit_pct": modelled_classes_hit_pct(v),
                     "unclassified_sectors": us, "unclassified_hits": uh, "launches": per})
    non_scatter = [r for r in rows if not r["order"].startswith("scatter")]
    span = lambda rs, k: max(r[k] for r in rs) - min(r[k] for r in rs)
    return {"source": "raw-locality/truth-C4-attrib-repeat.json", "orders": rows,
            "spearman_hit_vs_classified": spearman([r["hit_pct"] for r in rows], [r["classified_hit_pct"] for r in rows]),
            "non_scatter_hit_range_pts": span(non_scatter, "hit_pct"),
            "non_scatter_classified_range_pts": span(non_scatter, "classified_hit_pct")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "results", "2026-11-27-h100-unclassified-l2"))
    a = ap.parse_args()
    b = members(os.path.join(RAW, "probe-B.tgz"))
    a2 = members(os.path.join(RAW, "probe-A2.tgz"))
    a1 = members(os.path.join(RAW, "probe-A1.tgz"))
    a1["probe-read.json"], a1["probe-read.csv"] = a1["probe.json"], a1["probe.csv"]
    # probe-A2's device call brought back 8 files, not its read run's config line; the read
    # configs are the same list in every run (same --max-gib), so probe-B's is used.
    a2.setdefault("probe-read.json", b["probe-read.json"])
    main_rows = [r for op in ("read", "write", "copy") for r in probe_table(b, op)]
    repeats = {"A1-read": probe_table(a1, "read"), "A2-read": probe_table(a2, "read"), "A2-copy": probe_table(a2, "copy")}
    hub_values = sorted({l.split('","')[-1].strip('"') for l in a1["probe-hub.csv"].splitlines() if "srcnode_hub" in l})
    c = members(os.path.join(RAW, "probe-C.tgz"))
    by_blocks = {}
    for n in (1024, 2048, 4096, 8192, 16384, 32768, 65536):
        for op in ("write", "copy"):
            src = (b, op) if n == 16384 else (dict(c, **{"probe-%s.json" % op: c.get("probe-%s-b%d.json" % (op, n), ""),
                                                           "probe-%s.csv" % op: c.get("probe-%s-b%d.csv" % (op, n), "")}), op)
            if src[0]["probe-%s.json" % op]:
                by_blocks.setdefault(n, {})[op] = probe_table(*src)
    fd = fdtd_split()
    data = {"what": "L2 work outside Nsight Compute's op classes on the H100: a probe of what makes it, and its share "
                    "of fdtd_2d's order effect",
            "device": "NVIDIA H100 80GB HBM3 (driver 580.159.04; ncu 2025.3.1), nvidia-h100-x1",
            "date": "2026-11-27", "commit": "8472af6 with bench/page_walk_probe.cu and bench/h100_page_walk.sh added",
            "command": "OUT=... bench/h100_page_walk.sh (SWZ_PW_TRUTH=0 for probe-A2 and probe-B); "
                       "python3 bench/page_walk_result.py",
            "regime": "ncu replay: --cache-control all --clock-control base",
            "blocks_per_launch": 16384, "bytes_per_block": 4096,
            "hub_share_metric": {"name": "lts__average_t_sector_srcnode_hub.ratio", "values_returned": hub_values},
            "probe": main_rows, "probe_repeats": repeats,
            "probe_by_blocks": {str(n): v for n, v in by_blocks.items()}, "fdtd_2d": fd}
    mx = lambda op, kind: max(r["unclassified_sectors"] for r in main_rows if r["op"] == op and r["kind"] == kind)
    lines = ["# L2 work in no op class on the H100 (2026-11-27)", "",
             "Device: NVIDIA H100 80GB HBM3, ncu 2025.3.1 (`--cache-control all --clock-control base`). "
             "Command: `OUT=... bench/h100_page_walk.sh` on the GPU machine, then "
             "`python3 bench/page_walk_result.py` here. Raw data: `raw-page-walk/`; machine-readable: "
             "`2026-11-27-h100-unclassified-l2.json`.", "",
             "The probe (`bench/page_walk_probe.cu`) moves 64 MiB per launch: 16384 blocks, each one 4 KiB chunk, "
             "read, written, or read from one buffer and written to the same place of another (copy). `gap G`: "
             "block b takes chunk b, chunks G KiB apart, so the blocks that run together touch more pages as G "
             "grows; `span S`: block b takes chunk (b * P) mod (S / 4 KiB), scattered over S MiB (below 64 MiB "
             "chunks are taken more than once). Unclassified = `lts__t_sectors` less its read, write, membar, "
             "atom and red sectors (thousands of sectors per launch):", "",
             "| config | read | write | copy | copy (repeat) |", "|---|--:|--:|--:|--:|"]
    by = {(r["op"], r["kind"], r["size"]): r for r in main_rows}
    rep = {(r["kind"], r["size"]): r for r in repeats["A2-copy"]}
    for r in [x for x in main_rows if x["op"] == "read"]:
        k = (r["kind"], r["size"])
        c = lambda op: by.get((op,) + k)
        f = lambda x: "%.1f" % (x["unclassified_sectors"] / 1e3) if x else "-"
        lines.append("| %s %d %s | %s | %s | %s | %s |" % (r["kind"], r["size"], r["unit"], f(c("read")), f(c("write")),
                                                          f(c("copy")), f(rep.get(k))))
    spread = lambda op: [r["unclassified_sectors"] / 1e3 for r in main_rows if r["op"] == op and
                         ((r["kind"] == "gap" and r["size"] >= 128) or (r["kind"] == "span" and r["size"] >= 1024))]
    lo, hi = (lambda op: min(spread(op))), (lambda op: max(spread(op)))
    side = lambda op: by[(op, "gap", 4)]["unclassified_sectors"] / 1e3
    lines += ["", "What the probe shows:", "",
              "- Reads alone make almost none of it: at most %.1f K sectors per launch against 3.1 M read sectors, "
              "however many pages the reads cover (up to 32 GiB). So it is not the translation of the addresses "
              "read." % (max(mx("read", "gap"), mx("read", "span")) / 1e3),
              "- Writes make it: %.0f K sectors per launch with the written chunks side by side (gap 4 KiB) and "
              "%.0f K to %.0f K with them spread out (gaps of 128 KiB or more, or scattered over 1 GiB or more), write "
              "only; %.0f K and %.0f K to %.0f K when each block also reads (copy). It grows with how far apart the "
              "written chunks lie, between gaps of 16 and 128 KiB and between scattered spans of 128 MiB and 1 GiB. "
              "Writing the same lines several times makes it too (write only, scattered over 8 MiB, each chunk "
              "written 8 times: %.0f K, and as many sectors outside the op classes came across the fabric, %.0f K)."
              % (side("write"), lo("write"), hi("write"), side("copy"), lo("copy"), hi("copy"),
                 by[("write", "span", 8)]["unclassified_sectors"] / 1e3,
                 by[("write", "span", 8)]["unclassified_from_fabric"] / 1e3),
              "- It is not the order as such: copy scattered over 32 or 64 MiB makes %.0f K, less than the same "
              "chunks side by side (%.0f K)." % (by[("copy", "span", 64)]["unclassified_sectors"] / 1e3,
                                                 by[("copy", "gap", 4)]["unclassified_sectors"] / 1e3),
              "- The share of L2 sectors the HUB sends (`lts__average_t_sector_srcnode_hub.ratio`, listed by this "
              "ncu for gh100) came back %s on every launch, so which unit sends this work is still unknown. "
              "`lts__t_sectors_aperture_sysmem` is %.1f K sectors on every launch of every op, read or write." %
              (", ".join(repr(v) for v in hub_values) or "nothing",
               sum(r["sysmem_aperture_sectors"] for r in main_rows) / len(main_rows) / 1e3), "",
              "", "By how much is written (probe-C; write and copy with 1024 to 65536 blocks a launch, 16384 from the "
              "main run): unclassified sectors per block, chunks side by side (gap 4 KiB) / the most over the gaps of "
              "128 KiB and more:", "",
              "| blocks (MiB written) | write | copy |", "|---|--:|--:|"]
    for n, v in sorted(by_blocks.items()):
        cellv = lambda rows: "%.1f / %.1f" % (
            next(r for r in rows if r["kind"] == "gap" and r["size"] == 4)["unclassified_sectors"] / n,
            max(r["unclassified_sectors"] for r in rows if r["kind"] == "gap" and r["size"] >= 128) / n)
        lines.append("| %d (%d) | %s | %s |" % (n, n * 4096 >> 20, cellv(v["write"]), cellv(v["copy"])))
    per = lambda op: [r["unclassified_sectors"] / n for n, v in by_blocks.items() for r in v[op]
                      if r["kind"] == "gap" and (r["size"] == 4 or r["size"] >= 128)]
    lines += ["", "It needs no eviction: %d blocks (%d MiB written, a small part of the 50 MB L2) make it too, "
              "and per 4 KiB block written it is of the same order at every size, %.1f to %.1f sectors (write) and "
              "%.1f to %.1f (copy). No rule the model could take from this was found: it is recorded, not modelled."
              % (min(by_blocks), min(by_blocks) * 4096 >> 20, min(per("write")), max(per("write")),
                 min(per("copy")), max(per("copy"))), "",
              "fdtd_2d (its 20 orders, the attribution profile `truth-C4-attrib-repeat`, three launches summed): "
              "the hit rate of the read, write and membar sectors alone, the work the locality model simulates, "
              "spans %.2f points over the 18 orders that are not scatters, where the measured hit rate spans %.2f; "
              "Spearman between the two over all 20 orders: %.2f. So among those 18 orders the order effect is in "
              "the unclassified work: it is what the model would have to predict to rank them." %
              (fd["non_scatter_classified_range_pts"], fd["non_scatter_hit_range_pts"], fd["spearman_hit_vs_classified"]), "",
              "| order | hit % | read+write+membar hit % | unclassified sectors (M) | unclassified hits (M) |",
              "|---|--:|--:|--:|--:|"]
    for r in sorted(fd["orders"], key=lambda r: r["hit_pct"]):
        lines.append("| %s | %.2f | %.2f | %.3f | %.3f |" % (r["order"], r["hit_pct"], r["classified_hit_pct"],
                                                            r["unclassified_sectors"] / 1e6, r["unclassified_hits"] / 1e6))
    print(write_result(a.out, data, lines))


if __name__ == "__main__":
    main()
