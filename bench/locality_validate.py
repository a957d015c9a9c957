#!/usr/bin/env python3
"""Validates the locality model against Nsight Compute truth collected on the GPU.

For every order measured by bench/h100_locality_truth.sh (truth-*.json and the region files
in raw-*.tgz), runs `swizzleperf predict KERNEL --region REGION --arch sm_90 --probe PROBE
--launches L --launch-window first --json` (L = the launches the truth profiled), and
reports per kernel:
  - Spearman rank correlation of predicted vs measured L2 hit rate across orders (ties get
    average ranks), and the median / largest absolute error in points;
  - the same for DRAM read bytes (median relative error);
  - measured repeat noise where the truth has repeats (truth-C*-repeat: parts whose name starts
    with C are repeats of orders measured in the main parts; where a kernel is in several main
    parts, the one with the most orders is its main part and the others count as repeats);
  - pairwise agreement on distinguishable pairs: of the pairs of orders whose measured hit
    rates differ by more than the kernel's largest repeat difference (the noise), the share the
    model orders the same way (ties in the prediction count half). Where the orders sit within
    the noise, Spearman ranks the noise; this asks only what the measurement can tell apart.
Measured hit rate = 100 * sum(lts__t_sectors_lookup_hit) / sum(lts__t_sectors), summed over
the profiled launches, as the tool's own profiler parser computes it. Where a truth part has the
read lookups split by source (srcunit_tex / srcunit_ltcfabric), the report adds them against the
model's read_hits, fabric_read_requests and fabric_read_hits (COMPONENTS below); where it has
the op split, the hit rate of the read, write and membar sectors alone (modelled_classes_hit_pct).

Usage: locality_validate.py [--binary build/swizzleperf] [--out bench/results/DATE-h100-locality]
                            [--probe bench/results/2026-11-22-h100-probe.json] [--jobs N]
                            [--notes bench/results/raw-locality/notes.md]   (the text under the
                            tables of bench/results/2026-11-24-h100-locality.md)
Writes OUT.json (machines) and OUT.md (people). Needs no GPU: predictions run here.
"""
import argparse
import concurrent.futures as cf
import datetime
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RAW = os.path.join(HERE, "results", "raw-locality")


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        avg = (i + j) / 2.0 + 1
        for k in range(i, j + 1):
            r[order[k]] = avg
        i = j + 1
    return r


def spearman(a, b):
    if len(a) < 3:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den else None


# Where the truth has them (the parts profiled with the source split, e.g. truth-C3-ops-repeat),
# the read lookups and hits by source: the SMs' own side (srcunit_tex) and across the fabric
# from the other side (srcunit_ltcfabric), against the model's counts of the same.
COMPONENTS = [
    ("sm_read_hits", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", lambda t: t["read_hits"] - t["fabric_read_hits"]),
    ("fabric_reads", "lts__t_sectors_srcunit_ltcfabric_op_read.sum", lambda t: t["fabric_read_requests"]),
    ("fabric_read_hits", "lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum", lambda t: t["fabric_read_hits"]),
]


def measured_components(variant):
    out = {}
    for name, metric, _ in COMPONENTS:
        vals = [L.get("metrics", {}).get(metric) for L in variant.get("launches", [])]
        if vals and all(isinstance(x, (int, float)) for x in vals):
            out[name] = sum(vals)
    return out


# Where the truth has them (parts profiled with SWZ_TRUTH_EXTRA's attribution metrics, e.g.
# truth-C4-attrib-repeat), the L2 work in no op class, per launch: lts__t_sectors less the
# read, write, membar, atom and red sectors; how much of it comes from no source unit (neither
# the GPCs nor the fabric: work the L2 makes itself) and how much across the fabric; the hits
# outside the op classes; and the misses Nsight Compute books as "sector-promoted data". The
# model simulates none of these; the table says how much of each launch's spread they carry.
# Nsight Compute collects these counters over several replay passes, each a separate run, and
# the differences above mix passes; so a kernel is in the table only where two profiles of the
# same orders agree within ATTRIB_MAX_NOISE points (its repeat noise), and otherwise named as
# left out.
ATTRIB_MAX_NOISE = 0.25
ATTRIB_NEEDS = ("lts__t_sectors_srcnode_gpc.sum", "lts__t_sectors_lookup_miss_data_promoted.sum",
                "lts__t_sectors_srcunit_ltcfabric_op_write.sum", "lts__t_sectors_srcunit_ltcfabric_op_membar.sum")


def unclassified_counts(m):
    """The L2 work outside the op classes in one launch's metrics (absent counters count 0):
    sectors (lts__t_sectors less its read, write, membar, atom and red sectors), their hits, and
    the part that came across the fabric. Also bench/page_walk_result.py's."""
    g = lambda k: m.get(k) if isinstance(m.get(k), (int, float)) else 0
    ops = ("read", "write", "membar", "atom", "red")
    return {"sectors": g("lts__t_sectors.sum") - sum(g("lts__t_sectors_op_%s.sum" % o) for o in ops),
            "hits": g("lts__t_sectors_lookup_hit.sum") - sum(g("lts__t_sectors_op_%s_lookup_hit.sum" % o) for o in ops[:3]),
            "fabric": g("lts__t_sectors_srcunit_ltcfabric.sum") - sum(
                g("lts__t_sectors_srcunit_ltcfabric_op_%s.sum" % o) for o in ops[:3])}


def unclassified_work(launch):
    m = launch.get("metrics", {})
    if not all(isinstance(m.get(x), (int, float)) for x in ATTRIB_NEEDS + ("lts__t_sectors.sum",)):
        return None
    sec, hit = m["lts__t_sectors.sum"], m.get("lts__t_sectors_lookup_hit.sum") or 0
    return dict(unclassified_counts(m), hit_pct=100.0 * hit / sec if sec else None,
                no_source=sec - m["lts__t_sectors_srcnode_gpc.sum"] - (m.get("lts__t_sectors_srcunit_ltcfabric.sum") or 0),
                promoted_misses=m["lts__t_sectors_lookup_miss_data_promoted.sum"],
                duration_ns=m.get("gpu__time_duration.sum"))


# The hit rate of the sectors the model simulates -- reads, writes and memory barriers (the
# model books barriers nowhere, but they are ~43 K sectors a launch whatever the order) -- over
# those sectors plus atomics and reductions, summed over the profiled launches; None where the
# truth lacks the op split. Set against the measured hit rate, it says how much of a kernel's
# order effect lies in work the model simulates, and against the prediction, how well the model
# ranks that work.
def modelled_classes_hit_pct(variant):
    ops = ("read", "write", "membar")
    hits = sectors = 0
    for L in variant.get("launches", []):
        m = L.get("metrics", {})
        need = ["lts__t_sectors_op_%s.sum" % o for o in ops + ("atom", "red")] + ["lts__t_sectors_op_%s_lookup_hit.sum" % o for o in ops]
        if not all(isinstance(m.get(k), (int, float)) for k in need):
            return None
        hits += sum(m["lts__t_sectors_op_%s_lookup_hit.sum" % o] for o in ops)
        sectors += sum(m["lts__t_sectors_op_%s.sum" % o] for o in ops + ("atom", "red"))
    return 100.0 * hits / sectors if sectors else None


# The L2 work the model does not simulate, summed over the profiled launches: every sector and
# hit outside the read and write op classes (memory barriers and the unclassified work); None
# where the truth lacks the op split. Added to a prediction's own requests and hits, it gives
# the hit rate the model would predict if it knew that work exactly: how far the model's ranking
# of a kernel is held back by what it leaves out, against how far by what it simulates.
def unsimulated_work(variant):
    sectors = hits = 0
    for L in variant.get("launches", []):
        m = L.get("metrics", {})
        need = ["lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum"] + [
            "lts__t_sectors_op_%s%s.sum" % (o, h) for o in ("read", "write") for h in ("", "_lookup_hit")]
        if not all(isinstance(m.get(k), (int, float)) for k in need):
            return None
        sectors += m["lts__t_sectors.sum"] - m["lts__t_sectors_op_read.sum"] - m["lts__t_sectors_op_write.sum"]
        hits += m["lts__t_sectors_lookup_hit.sum"] - m["lts__t_sectors_op_read_lookup_hit.sum"] - m[
            "lts__t_sectors_op_write_lookup_hit.sum"]
    return {"sectors": sectors, "hits": hits}


def main_parts(truth):
    """Per kernel, the truth part its predictions are scored against: of the parts not named as
    repeats (a name starting with C), the one with the most profiled orders (the first in name
    order on a tie). The kernel's other parts count as repeats of the same orders."""
    count = {}
    for part, t in truth.items():
        if part.startswith("C"):
            continue
        for kname, k in t["kernels"].items():
            n = sum(1 for v in k["variants"] if v.get("status") == "profiled" and v.get("summed"))
            count.setdefault(kname.split("/")[-1], []).append((-n, part))
    return {k: min(v)[1] for k, v in count.items()}


def one_part_per_kernel(table, main_part):
    """{(kernel, label): {part: value}} -> {(kernel, label): (part, *value)} with one part per
    kernel, so that no figure mixes profiles: the kernel's main part where it has every label
    the table has for the kernel, else the part with the most labels (first in name order)."""
    by_kernel = {}
    for (k, label), parts in table.items():
        by_kernel.setdefault(k, {})[label] = parts
    out = {}
    for k, labels in by_kernel.items():
        count = {}
        for parts in labels.values():
            for p in parts:
                count[p] = count.get(p, 0) + 1
        best = main_part.get(k)
        if count.get(best) != len(labels):
            best = min(count, key=lambda p: (-count[p], p))
        for label, parts in labels.items():
            if best in parts:
                out[(k, label)] = (best,) + tuple(parts[best])
    return out


def load_truth():
    parts = {}
    for name in sorted(os.listdir(RAW)):
        if name.startswith("truth-") and name.endswith(".json"):
            part = name[len("truth-"):-len(".json")]
            parts[part] = json.load(open(os.path.join(RAW, name)))
    return parts


def predict(binary, kernel_path, region, launches, probe, extra):
    argv = [binary, "predict", kernel_path, "--region", region, "--arch", "sm_90", "--launches", str(launches),
            "--launch-window", "first", "--json"] + extra
    if probe:
        argv += ["--probe", probe]
    t0 = time.time()
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1], "argv": argv}
    j = json.loads(p.stdout)
    j["wall_s"] = round(time.time() - t0, 3)
    return j


def md_table(intro, header, align, rows):
    """The lines of a paragraph and the Markdown table under it (rows: lists of cell text)."""
    return [intro, "", "| %s |" % " | ".join(header), "|%s|" % "|".join(align)] + [
        "| %s |" % " | ".join(r) for r in rows] + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "swizzleperf"))
    ap.add_argument("--probe", default=os.path.join(HERE, "results", "2026-11-22-h100-probe.json"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", datetime.date.today().isoformat() + "-h100-locality"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--kernels", default="", help="comma-separated subset")
    ap.add_argument("--extra", default="", help="extra predict options, space-separated")
    ap.add_argument("--notes", default="", help="a Markdown file put under the summary table (what the numbers say)")
    a = ap.parse_args()
    truth = load_truth()
    tmp = tempfile.mkdtemp(prefix="swz-locality-")
    for part in truth:
        with tarfile.open(os.path.join(RAW, "raw-%s.tgz" % part)) as t:
            t.extractall(os.path.join(tmp, part), filter="data") if sys.version_info >= (3, 12) else t.extractall(os.path.join(tmp, part))
    wanted = set(filter(None, a.kernels.split(",")))
    jobs, components, attrib, attrib_left_out, modelled = [], {}, {}, {}, {}
    profiles, unsimulated = {}, {}
    main_part = main_parts(truth)
    for part, t in truth.items():
        for kname, k in t["kernels"].items():
            short = kname.split("/")[-1]
            if wanted and short not in wanted:
                continue
            for v in k["variants"]:
                if v.get("status") != "profiled" or not v.get("summed"):
                    continue
                s = v["summed"]
                measured = {"l2_hit_pct": 100.0 * s["lts__t_sectors_lookup_hit.sum"] / s["lts__t_sectors.sum"],
                            "dram_read_bytes": s["dram__bytes_read.sum"], "dram_write_bytes": s["dram__bytes_write.sum"],
                            "fabric_sectors": s.get("lts__t_sectors_srcunit_ltcfabric.sum"),
                            "lts_sectors": s["lts__t_sectors.sum"],
                            "launch_hit_pct": [100.0 * L["metrics"]["lts__t_sectors_lookup_hit.sum"] / L["metrics"]["lts__t_sectors.sum"]
                                               for L in v.get("launches", []) if L.get("metrics", {}).get("lts__t_sectors.sum")]}
                work = [unclassified_work(L) for L in v.get("launches", [])]
                if work and all(work):
                    attrib.setdefault(short, {}).setdefault(part, []).append((v["label"], work))
                profiles.setdefault((short, v["label"]), {})[part] = measured["l2_hit_pct"]
                other = unsimulated_work(v)
                if other is not None:
                    unsimulated.setdefault((short, v["label"]), {})[part] = (other, measured["l2_hit_pct"])
                mc_hit = modelled_classes_hit_pct(v)
                if mc_hit is not None:
                    modelled.setdefault((short, v["label"]), {})[part] = (mc_hit, measured["l2_hit_pct"])
                comp = measured_components(v)
                if comp:
                    components.setdefault((short, v["label"]), {})[part] = (comp,)
                if part != main_part.get(short):
                    continue
                kernel_path = next(p for p in (os.path.join(ROOT, "kernels", kname + ".hip"),
                                               os.path.join(ROOT, "kernels", "tc", kname + ".hip")) if os.path.exists(p))
                region = os.path.join(tmp, part, v["region_file"])
                jobs.append((short, kname, v["label"], v.get("same_mapping_as"), kernel_path, region,
                             v.get("launches_profiled") or k.get("launch_count_profiled") or 1, measured))
    modelled, components, unsimulated = (one_part_per_kernel(t, main_part) for t in (modelled, components, unsimulated))
    # Each order's hit rate in the kernel's other parts: its repeats.
    repeats = {key: [hit for part, hit in by_part.items() if part != main_part.get(key[0])]
               for key, by_part in profiles.items()}
    extra = a.extra.split()
    results = {}
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(predict, a.binary, j[4], j[5], j[6], a.probe, extra): j for j in jobs}
        for f in cf.as_completed(futs):
            j = futs[f]
            results.setdefault(j[0], []).append((j, f.result()))
    report = {"what": "locality model validation: predicted vs Nsight Compute L2 hit rate and DRAM bytes, per order",
              "device": "NVIDIA H100 80GB HBM3 (truth); predictions on the host",
              "date": datetime.date.today().isoformat(), "regime": "ncu replay: --cache-control all --clock-control base",
              "truth_files": sorted("raw-locality/truth-%s.json" % p for p in truth),
              "predict_argv": "swizzleperf predict KERNEL --region REGION --arch sm_90 --probe PROBE --launches L "
                              "--launch-window first --json " + a.extra,
              "commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip(),
              "predict_wall_s": round(time.time() - t0, 1), "kernels": {}}
    for kernel, rows in sorted(results.items()):
        rows.sort(key=lambda r: r[0][2])
        ok = [(j, r) for j, r in rows if "error" not in r]
        ph = [r["l2_hit_pct"] for j, r in ok]
        mh = [j[7]["l2_hit_pct"] for j, r in ok]
        pd = [r["dram_read_bytes"] for j, r in ok]
        md = [j[7]["dram_read_bytes"] for j, r in ok]
        err = [abs(p - m) for p, m in zip(ph, mh)]
        rel = [abs(p - m) / m * 100 for p, m in zip(pd, md) if m]
        rep = [max(v) - min(v) for (k, _), v in repeats.items() if k == kernel and len(v) > 1]
        rep_vs_main = []
        for (k, label), vals in repeats.items():
            if k != kernel:
                continue
            main_hit = next((j[7]["l2_hit_pct"] for j, r in rows if j[2] == label), None)
            if main_hit is not None:
                rep_vs_main += [abs(v - main_hit) for v in vals]
        noise = max(rep_vs_main) if rep_vs_main else None
        pairs = agree = 0.0
        if noise is not None:
            for i in range(len(mh)):
                for j in range(i + 1, len(mh)):
                    if abs(mh[i] - mh[j]) <= noise:
                        continue
                    pairs += 1
                    d = (ph[i] - ph[j]) * (mh[i] - mh[j])
                    agree += 1.0 if d > 0 else 0.5 if d == 0 else 0.0
        # Per launch (the profiled launches are the first L, as predicted): which launch the
        # model ranks and which it does not.
        per_launch = []
        nl = min([len(j[7]["launch_hit_pct"]) for j, r in ok] + [len(r.get("launches", [])) for j, r in ok]) if ok else 0
        for li in range(nl if nl > 1 else 0):
            per_launch.append(spearman([r["launches"][li]["l2_hit_pct"] for j, r in ok], [j[7]["launch_hit_pct"][li] for j, r in ok]))
        comp_rows = [(j, r, components[(kernel, j[2])]) for j, r in ok if (kernel, j[2]) in components and "total" in r]
        comp_report = {}
        for name, _, pred_of in COMPONENTS:
            pairs_c = [(c[1][name], pred_of(r["total"])) for j, r, c in comp_rows if name in c[1]]
            if len(pairs_c) < 3:
                continue
            mc, pc = [x for x, _ in pairs_c], [y for _, y in pairs_c]
            comp_report[name] = {
                "orders": len(pairs_c), "truth_part": sorted({c[0] for _, _, c in comp_rows}),
                "spearman": spearman(pc, mc),
                "median_rel_err_pct": statistics.median(abs(y - x) / x * 100 for x, y in pairs_c if x) if any(mc) else None,
                "measured_min": min(mc), "measured_max": max(mc), "predicted_min": min(pc), "predicted_max": max(pc)}
        mod_rows = [(r["l2_hit_pct"], modelled[(kernel, j[2])]) for j, r in ok if (kernel, j[2]) in modelled]
        modelled_report = None
        if len(mod_rows) >= 3:
            pc, cls, tot = [x for x, _ in mod_rows], [c[1] for _, c in mod_rows], [c[2] for _, c in mod_rows]
            modelled_report = {"truth_part": sorted({c[0] for _, c in mod_rows}), "orders": len(mod_rows),
                               "spearman_predicted": spearman(pc, cls), "spearman_measured_total": spearman(tot, cls),
                               "range_pts": max(cls) - min(cls), "total_range_pts": max(tot) - min(tot)}
        # The same prediction against each profile of all the orders (the truth's main part and its
        # repeats), and against their mean: how much the ranking moves with the measurement alone.
        labels = [j[2] for j, r in ok]
        parts_all = sorted(set.intersection(*[set(profiles.get((kernel, l), {})) for l in labels])) if labels else []
        by_profile = {part: spearman(ph, [profiles[(kernel, l)][part] for l in labels]) for part in parts_all}
        mean_profiles = [statistics.mean(profiles[(kernel, l)].values()) for l in labels]
        # (prediction, part, unsimulated work, measured hit rate); one part per kernel (one_part_per_kernel)
        uns_rows = [(r["total"],) + unsimulated[(kernel, j[2])] for j, r in ok if (kernel, j[2]) in unsimulated and "total" in r]
        with_unsimulated = None
        if len(uns_rows) >= 3:
            meas = [hit for _, _, _, hit in uns_rows]
            with_unsimulated = {
                "truth_part": uns_rows[0][1], "orders": len(uns_rows),
                "spearman_model": spearman([100.0 * t["hits"] / t["requests"] for t, _, _, _ in uns_rows], meas),
                "spearman_with_measured_unsimulated": spearman(
                    [100.0 * (t["hits"] + u["hits"]) / (t["requests"] + u["sectors"]) for t, _, u, _ in uns_rows], meas)}
        unclassified = []
        if kernel in attrib and (noise is None or noise > ATTRIB_MAX_NOISE):
            attrib_left_out[kernel] = noise
        elif kernel in attrib:
            part = sorted(attrib[kernel])[0]
            per_order = attrib[kernel][part]
            for li in range(min(len(w) for _, w in per_order)):
                col = lambda key: [w[li][key] for _, w in per_order]
                row = {"truth_part": part, "launch": li, "orders": len(per_order),
                       "spearman_hits_vs_hit_pct": spearman(col("hits"), col("hit_pct")),
                       "spearman_sectors_vs_duration": spearman(col("sectors"), col("duration_ns"))
                       if all(isinstance(x, (int, float)) for x in col("duration_ns")) else None}
                for key in ("sectors", "no_source", "fabric", "hits", "promoted_misses"):
                    row[key + "_min"], row[key + "_max"] = min(col(key)), max(col(key))
                unclassified.append(row)
        report["kernels"][kernel] = {
            "spearman_hit_by_profile": by_profile,
            "spearman_hit_mean_of_profiles": spearman(ph, mean_profiles) if len(parts_all) > 1 else None,
            "with_measured_unsimulated_work": with_unsimulated,
            "unclassified_l2_work": unclassified,
            "modelled_classes": modelled_report,
            "read_components": comp_report,
            "unclassified_l2_work_left_out": kernel in attrib_left_out,  # measured, but the repeat noise is too high
            "spearman_hit_per_launch": per_launch,
            "orders": len(rows), "predicted": len(ok),
            "spearman_hit": spearman(ph, mh), "median_abs_err_hit_pts": statistics.median(err) if err else None,
            "max_abs_err_hit_pts": max(err) if err else None,
            "spearman_dram_read": spearman(pd, md), "median_rel_err_dram_read_pct": statistics.median(rel) if rel else None,
            "measured_hit_range_pts": (max(mh) - min(mh)) if mh else None,
            "repeat_abs_diff_hit_pts_median": statistics.median(rep_vs_main) if rep_vs_main else None,
            "repeat_abs_diff_hit_pts_max": max(rep_vs_main) if rep_vs_main else None,
            "distinguishable_pairs": int(pairs) if noise is not None else None,
            "distinguishable_pairs_agreement": (agree / pairs) if pairs else None,
            "rows": [{"order": j[2], "same_mapping_as": j[3], "measured": j[7],
                      "predicted": None if "error" in r else {x: r[x] for x in ("l2_hit_pct", "dram_read_bytes", "dram_write_bytes", "cross_die_bytes")},
                      "predict_seconds": r.get("seconds"), "error": r.get("error"),
                      "measured_read_components": components.get((kernel, j[2]), (None, None))[1],
                      "predicted_read_components": {n: f(r["total"]) for n, _, f in COMPONENTS} if "total" in r else None}
                     for j, r in rows]}
    with open(a.out + ".json", "w") as f:
        json.dump(report, f, indent=1)
    lines = ["# Locality model vs Nsight Compute on the H100 (%s)" % report["date"], "",
             "Truth: `bench/h100_locality_truth.sh` on an NVIDIA H100 80GB HBM3 (ncu 2025.3.1, `--cache-control all "
             "--clock-control base`, the program's default size, the first launches of one run). Predictions: `%s`, "
             "run on a machine without a GPU. Measured hit rate = lookup hits / sectors summed over the profiled "
             "launches. Raw data: `raw-locality/`; machine-readable: `%s`." % (report["predict_argv"].strip(), os.path.basename(a.out) + ".json"), "",
             "| kernel | orders | Spearman (hit %) | median abs err (pts) | max abs err (pts) | measured range (pts) | Spearman (DRAM read) | median DRAM read err | repeat noise (median / max pts) | distinguishable pairs ordered right |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    fmt = lambda x, f="%.2f": "-" if x is None else f % x
    for kernel, k in report["kernels"].items():
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s / %s | %s |" % (
            kernel, k["predicted"], fmt(k["spearman_hit"]), fmt(k["median_abs_err_hit_pts"]), fmt(k["max_abs_err_hit_pts"]),
            fmt(k["measured_hit_range_pts"], "%.1f"), fmt(k["spearman_dram_read"]), fmt(k["median_rel_err_dram_read_pct"], "%.1f %%"),
            fmt(k["repeat_abs_diff_hit_pts_median"]), fmt(k["repeat_abs_diff_hit_pts_max"]),
            "-" if k["distinguishable_pairs_agreement"] is None
            else "%.0f %% of %d" % (100 * k["distinguishable_pairs_agreement"], k["distinguishable_pairs"])))
    lines.append("")
    multi = [(kernel, k) for kernel, k in report["kernels"].items() if k["spearman_hit_per_launch"]]
    if multi:
        lines.append("Spearman per profiled launch (kernels with more than one): " + "; ".join(
            "%s %s" % (kernel, " / ".join(fmt(x) for x in k["spearman_hit_per_launch"])) for kernel, k in multi) + ".")
        lines.append("")
    multi_p = [(kernel, k) for kernel, k in report["kernels"].items() if len(k["spearman_hit_by_profile"]) > 1]
    if multi_p:
        lines.append("The same predictions against each profile of all the orders (the main truth and its repeats) and "
                     "against their mean: " + "; ".join("%s %s (mean %s)" % (
                         kernel, " / ".join("%s %s" % (p, fmt(x)) for p, x in k["spearman_hit_by_profile"].items()),
                         fmt(k["spearman_hit_mean_of_profiles"])) for kernel, k in multi_p) + ".")
        lines.append("")
    with_uns = [(kernel, k) for kernel, k in report["kernels"].items() if k["with_measured_unsimulated_work"]]
    if with_uns:
        lines += md_table(
            "The L2 work the model does not simulate (every sector and hit outside the read and write op "
            "classes: memory barriers and the work in no op class), taken as measured and added to each "
            "prediction: the ranking the model would give if it knew that work, against the model's own, both "
            "against the same profile:",
            ["kernel", "part", "orders", "Spearman: model", "Spearman: model + measured unsimulated work"],
            ["---", "---", "--:", "--:", "--:"],
            [[kernel, w["truth_part"], "%d" % w["orders"], fmt(w["spearman_model"]), fmt(w["spearman_with_measured_unsimulated"])]
             for kernel, w in ((kernel, k["with_measured_unsimulated_work"]) for kernel, k in with_uns)])
    with_mod = [(kernel, k) for kernel, k in report["kernels"].items() if k["modelled_classes"]]
    if with_mod:
        lines += md_table(
            "The hit rate of the read, write and memory-barrier sectors alone (the work the model simulates; "
            "Nsight Compute counts more), where the truth has the op split: its spread over the orders beside "
            "the whole hit rate's in the same profile, its Spearman against the whole hit rate (how much of the "
            "order effect it carries) and against the prediction (how well the model ranks it):",
            ["kernel", "part", "orders", "spread (pts): these sectors / all", "Spearman vs all sectors' hit rate",
             "Spearman vs predicted"],
            ["---", "---", "--:", "---", "--:", "--:"],
            [[kernel, ",".join(c["truth_part"]), "%d" % c["orders"], "%.2f / %.2f" % (c["range_pts"], c["total_range_pts"]),
              fmt(c["spearman_measured_total"]), fmt(c["spearman_predicted"])]
             for kernel, c in ((kernel, k["modelled_classes"]) for kernel, k in with_mod)])
    with_comp = [(kernel, k) for kernel, k in report["kernels"].items() if k["read_components"]]
    if with_comp:
        lines += ["Read lookups and hits by source, where the truth has them (summed over the profiled launches, "
                  "millions of sectors, measured range against predicted range over the orders):", "",
                  "| kernel | part | SM-side read hits: measured / predicted (Spearman) | fabric reads (Spearman) | fabric read hits (Spearman) |",
                  "|---|---|---|---|---|"]
        for kernel, k in with_comp:
            cells = []
            for name, _, _ in COMPONENTS:
                c = k["read_components"].get(name)
                cells.append("-" if not c else "%.2f-%.2f / %.2f-%.2f (%s)" % (
                    c["measured_min"] / 1e6, c["measured_max"] / 1e6, c["predicted_min"] / 1e6, c["predicted_max"] / 1e6, fmt(c["spearman"])))
            part = ",".join(next(iter(k["read_components"].values()))["truth_part"])
            lines.append("| %s | %s | %s |" % (kernel, part, " | ".join(cells)))
        lines.append("")
    with_attrib = [(kernel, k) for kernel, k in report["kernels"].items() if k["unclassified_l2_work"]]
    if with_attrib:
        lines += ["L2 work in no op class, per profiled launch, where the truth has the attribution metrics (millions of "
                  "sectors, range over the orders; \"no source\": neither the GPCs nor the fabric sent it; last column: "
                  "Spearman of the unclassified hits against the launch's measured hit rate, and of its sectors against "
                  "the launch's duration):", "",
                  "| kernel | part | launch | sectors | from no source | from the fabric | hits | promoted misses | hits vs hit rate | sectors vs duration |",
                  "|---|---|--:|---|---|---|---|---|--:|--:|"]
        for kernel, k in with_attrib:
            for r in k["unclassified_l2_work"]:
                rng = lambda key: "%.2f-%.2f" % (r[key + "_min"] / 1e6, r[key + "_max"] / 1e6)
                lines.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                    kernel, r["truth_part"], r["launch"], rng("sectors"), rng("no_source"), rng("fabric"), rng("hits"),
                    rng("promoted_misses"), fmt(r["spearman_hits_vs_hit_pct"]), fmt(r["spearman_sectors_vs_duration"])))
        if attrib_left_out:
            lines.append("")
            lines.append("Left out, their counters from separate replay passes not comparable (repeat noise above %.2f "
                         "points): %s." % (ATTRIB_MAX_NOISE, ", ".join(
                             "%s (%s)" % (k, "no repeat" if n is None else "%.2f" % n) for k, n in sorted(attrib_left_out.items()))))
        lines.append("")
    if a.notes:
        lines += [open(a.notes).read().rstrip(), ""]
    for kernel, k in report["kernels"].items():
        lines += ["## %s" % kernel, "", "| order | measured hit % | predicted hit % | measured DRAM read | predicted DRAM read |", "|---|--:|--:|--:|--:|"]
        for r in k["rows"]:
            p = r["predicted"]
            lines.append("| %s%s | %.2f | %s | %.3g | %s |" % (
                r["order"], " (= %s)" % r["same_mapping_as"] if r["same_mapping_as"] else "", r["measured"]["l2_hit_pct"],
                "%.2f" % p["l2_hit_pct"] if p else "error: " + str(r["error"]), r["measured"]["dram_read_bytes"],
                "%.3g" % p["dram_read_bytes"] if p else "-"))
        lines.append("")
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    for kernel, k in report["kernels"].items():
        print("%-14s n=%2d spearman=%s mae=%s max=%s dram_rho=%s dram_err=%s" % (
            kernel, k["predicted"], fmt(k["spearman_hit"]), fmt(k["median_abs_err_hit_pts"]), fmt(k["max_abs_err_hit_pts"]),
            fmt(k["spearman_dram_read"]), fmt(k["median_rel_err_dram_read_pct"], "%.1f%%")))
    print("predictions took %.1f s wall" % report["predict_wall_s"])


if __name__ == "__main__":
    main()
