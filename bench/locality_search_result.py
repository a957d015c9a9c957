#!/usr/bin/env python3
"""The locality model's search vs an exhaustive search of the built-in families (H100).

Stdlib only. Two subcommands:

  locality_search_result.py orders INFO
      The exhaustive order list for one kernel (INFO: the output of `prog info`, a file or -),
      one line per order: slug<TAB>label<TAB>in_proposer<TAB>same_as.
      The list is the union of bench/locality_orders.py's family orders (reverse and scatter
      left out: they are not built-in families) and every (family, parameter) the built-in
      proposer can try on this kernel (BuiltinProposer::all_candidates: grouped_m and
      grouped_m_die G in 2..64, grouped_n G in 2..32, die_rr, die_chunk C in 2..32, and with
      program hints col_major, longest_first when causal, gqa_group when n_group > 1).
      in_proposer: 1 when the built-in proposer can try that label on this kernel.
      same_as: "-" for an order whose mapping (pid -> tile on the kernel's grid, computed by
      locality_orders.py's evaluators) is new, else the first earlier label with the same
      mapping (identity first, so an order that maps like the identity says "identity").

  locality_search_result.py summarize DIR [DIR...] [--out search.json] [--commit C] [--device D] [--meta M.json]
      Reads the unpacked archives of bench/h100_locality_search.sh (each DIR holds some of
      timing.jsonl, orders/*.tsv, opt-*.json, opt-*-history.json, stages.txt, gpu.txt) and
      writes search.json: per kernel the exhaustive table (per variant the median over rounds of
      its per-round median ms, gain = identity ms / variant ms, the interval = min and max over
      rounds of the per-round ratio identity_r / variant_r), the model run and the no-model run
      (best label, speedup and interval in burst, GPU attempts, wall s, per attempt predicted vs
      measured L2) and fraction = (model speedup - 1) / (exhaustive gain - 1). Prints a table.
      --meta: a JSON object whose keys are added to search.json (commands, device seconds, notes).
"""
import datetime
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import locality_orders as lo  # noqa: E402

# BuiltinProposer::params_of (src/proposer/builtin_proposer.cpp)
PARAMS = {"grouped_m": [8, 4, 16, 2, 32, 64], "grouped_m_die": [8, 4, 16, 2, 32, 64], "grouped_n": [8, 4, 16, 2, 32],
          "die_chunk": [4, 2, 8, 16, 32], "longest_first": [8, 1, 4, 16, 32]}
FAMILY_ORDER = ["identity", "col_major", "grouped_m", "grouped_m_die", "grouped_n", "die_rr", "die_chunk",
                "longest_first", "gqa_group"]


def proposer_labels(info):
    """Every label BuiltinProposer::all_candidates can produce for this kernel (2-D grid)."""
    hints = info.get("hints") if isinstance(info.get("hints"), dict) else {}
    m, n = int(info["grid"]["m"]), int(info["grid"]["n"])
    out = []
    if m > 1 and n > 1:  # is_2d
        out += ["grouped_m(G=%d)" % g for g in PARAMS["grouped_m"]]
        out += ["grouped_m_die(G=%d)" % g for g in PARAMS["grouped_m_die"]]
        out += ["grouped_n(G=%d)" % g for g in PARAMS["grouped_n"]]
        if hints:
            out.append("col_major")
            if hints.get("causal") is True:
                out += ["longest_first(G=%d)" % g for g in PARAMS["longest_first"]]
            g, s = hints.get("n_group"), hints.get("n_group_stride")
            if isinstance(g, int) and isinstance(s, int) and g > 1 and s >= 1 and n % (g * s) == 0:
                out.append("gqa_group(G=%d,S=%d)" % (g, s))
    if int(info.get("num_dies", 1) or 1) > 1:
        out.append("die_rr")
        out += ["die_chunk(C=%d)" % c for c in PARAMS["die_chunk"]]
    return out


def exhaustive_labels(info):
    base = [l for l in lo.labels_for(info) if not l.startswith(("reverse", "scatter"))]
    prop = proposer_labels(info)
    labels = list(dict.fromkeys(base + prop))

    def key(label):
        fam, p = lo.parse_label(label)
        return (FAMILY_ORDER.index(fam), sorted(p.items()))
    labels.sort(key=key)
    return labels, set(prop)


def cmd_orders(path):
    info = lo.read_info(path)
    num_pids, m, ncols, dies = lo.geometry(info)
    labels, prop = exhaustive_labels(info)
    first_of, bad = {}, 0
    for label in labels:
        vals = lo.mapping(label, num_pids, m, ncols, dies)
        prob = lo.bijection_problem(vals, num_pids)
        if prob:
            print("refused %s: not a bijection: %s" % (label, prob), file=sys.stderr)
            bad += 1
            continue
        same = first_of.setdefault(tuple(vals), label)
        print("%s\t%s\t%d\t%s" % (lo.slug(label), label, label in prop, same if same != label else "-"))
    return 1 if bad else 0


# ---- summarize ------------------------------------------------------------------------------
def read_json_prefix(path):
    try:
        return json.JSONDecoder().raw_decode(open(path).read().lstrip())[0]
    except Exception:
        return None


def opt_record(d, mode, kernel):
    """The optimize run `mode` (on|off) of `kernel` from DIR d, or None."""
    summ = read_json_prefix(os.path.join(d, "opt-%s-%s.json" % (mode, kernel)))
    hist = read_json_prefix(os.path.join(d, "opt-%s-%s-history.json" % (mode, kernel)))
    if summ is None and hist is None:
        return None
    stage = {}
    for line in open(os.path.join(d, "stages.txt")) if os.path.exists(os.path.join(d, "stages.txt")) else []:
        head, _, cmd = line.rstrip("\n").partition(" cmd=")
        parts = dict(kv.split("=", 1) for kv in head.split() if "=" in kv)
        parts["cmd"] = cmd
        if parts.get("stage") == "opt-%s-%s" % (mode, kernel):
            stage = parts
    rec = {"command": stage.get("cmd", ""), "rc": int(stage["rc"]) if "rc" in stage else None,
           "wall_s_outside": float(stage["wall"]) if "wall" in stage else None}
    if hist:
        rec["run_wall_s"] = hist.get("run_wall_seconds_last_session")
        rec["regime"] = (hist.get("config") or {}).get("regime")
        atts = hist.get("attempts") or []
        gpu = [a for a in atts if a.get("status") != "duplicate"]
        rec["gpu_attempts"] = len(gpu)
        rec["attempts_total"] = len(atts)
        base = hist.get("baseline") or {}
        rec["baseline"] = {"predicted_l2_hit_pct": (base.get("predicted") or {}).get("l2_hit_pct"),
                           "measured_l2_hit_pct": (base.get("metrics") or {}).get("l2_hit_pct"),
                           "median_ms": (base.get("timing") or {}).get("median_ms")}
        rec["attempts"] = [{"iteration": a.get("iteration"), "label": a.get("label"), "status": a.get("status"),
                            "predicted_l2_hit_pct": (a.get("predicted") or {}).get("l2_hit_pct"),
                            "measured_l2_hit_pct": (a.get("metrics") or {}).get("l2_hit_pct"),
                            "median_ms": (a.get("timing") or {}).get("median_ms"), "speedup": a.get("speedup"), "ci": [a.get("speedup_ci_low"), a.get("speedup_ci_high")],
                            "significant": a.get("significant"), "speedup_regime": a.get("speedup_regime"),
                            "wall_s": a.get("wall_seconds"), "reasoning": (a.get("proposal") or {}).get("reasoning")}
                           for a in atts]
        # the best measured attempt by speedup (whatever the verdict), for reference
        ok = [a for a in atts if a.get("status") == "ok" and isinstance(a.get("speedup"), (int, float))]
        if ok:
            top = max(ok, key=lambda a: a["speedup"])
            rec["max_attempt_speedup"] = {"label": top.get("label"), "speedup": top.get("speedup"),
                                          "ci": [top.get("speedup_ci_low"), top.get("speedup_ci_high")],
                                          "iteration": top.get("iteration")}
    if summ:
        b = summ.get("best") or {}
        burst = (b.get("regimes") or {}).get("burst") or {}
        rec["verdict"] = summ.get("verdict")
        rec["best"] = {"label": b.get("label"), "iteration": b.get("iteration"), "speedup": b.get("speedup"),
                       "ci": [b.get("speedup_ci_low"), b.get("speedup_ci_high")], "significant": b.get("significant"),
                       "speedup_regime": b.get("speedup_regime"), "median_ms": b.get("median_ms"),
                       "l2_hit_pct": b.get("l2_hit_pct"),
                       "burst": {k: burst.get(k) for k in ("speedup", "ci_low", "ci_high", "significant", "trusted",
                                                           "baseline_mhz_median", "candidate_mhz_median")} if burst else None}
    return rec


def summarize(dirs, out, commit, device, meta=None):
    rows = []
    for d in dirs:
        p = os.path.join(d, "timing.jsonl")
        if os.path.exists(p):
            rows += [json.loads(l) for l in open(p) if l.strip()]
    # a round is (call tag, round number); the probe runs are not rounds
    rows = [dict(r, round="%s:%s" % (r.get("tag", ""), r["round"])) for r in rows if r.get("round") != "probe"]
    orders = {}
    for d in dirs:
        for p in glob.glob(os.path.join(d, "orders", "*.tsv")):
            k = os.path.basename(p)[:-4]
            orders[k] = [l.rstrip("\n").split("\t") for l in open(p) if l.strip()]
    kernels = sorted(set(orders) | {r["kernel"] for r in rows})
    res = {"what": "the locality model's built-in search vs an exhaustive search of the built-in families "
                   "(bench/h100_locality_search.sh, bench/locality_search_result.py)",
           "device": device, "date": datetime.date.today().isoformat(), "commit": commit, "regime": "burst",
           "exhaustive_method": "every distinct family order (orders/<kernel>.tsv; an order mapping like an earlier one is "
                                "not timed, it is listed with same_as), each built with the cuda backend's nvcc line and "
                                "timed with `./prog time --reps 20 --warmup 3 --regime burst`, R rounds, each round every "
                                "variant of every kernel once in a shuffled order; per variant: median over rounds of the "
                                "per-round median ms; gain = identity ms / variant ms; interval = [min, max] over rounds of "
                                "the per-round ratio identity_r / variant_r (not a bootstrap)",
           "fraction_definition": "(model-run best speedup - 1) / (exhaustive best gain - 1); fraction_same_harness uses "
                                  "the exhaustive gain of the model run's best label instead of the tool's speedup",
           "kernels": {}}
    for d in dirs:
        for name in ("gpu.txt", "commands.txt"):
            p = os.path.join(d, name)
            if os.path.exists(p) and name == "gpu.txt" and "nvidia_smi" not in res:
                res["nvidia_smi"] = open(p).read().strip()
    for k in kernels:
        kr = [r for r in rows if r["kernel"] == k and r.get("ok")]
        rounds = sorted({r["round"] for r in kr})
        per = {}
        for r in kr:
            per.setdefault(r["slug"], {})[r["round"]] = r
        ident = per.get("identity", {})
        table = []
        for ent in orders.get(k, []):
            slug, label, inprop, same = ent[0], ent[1], ent[2] == "1", ent[3]
            row = {"label": label, "slug": slug, "in_proposer": inprop, "same_as": None if same == "-" else same}
            m = per.get(slug, {})
            if m:
                meds = [m[x]["median_ms"] for x in sorted(m)]
                row["median_ms"] = statistics.median(meds)
                row["round_medians_ms"] = meds
                row["rounds"] = len(meds)
                row["sm_mhz_median"] = statistics.median([m[x]["sm_mhz_median"] for x in m if m[x].get("sm_mhz_median")] or [0]) or None
                row["discarded"] = sum(m[x].get("discarded") or 0 for x in m)
                row["regime_reached"] = all(m[x].get("regime_reached", True) for x in m)
                if ident:
                    ratios = [ident[x]["median_ms"] / m[x]["median_ms"] for x in sorted(m) if x in ident]
                    row["gain"] = statistics.median([ident[x]["median_ms"] for x in ident]) / row["median_ms"]
                    row["round_ratios"] = ratios
                    row["interval"] = [min(ratios), max(ratios)] if ratios else None
            table.append(row)
        # an order listed with same_as is the same mapping as a timed one: its label resolves to that one
        canon = {t["label"]: (t["same_as"] or t["label"]) for t in table}
        for t in table:
            if t["same_as"] is None:
                t["also_as"] = [u["label"] for u in table if u["same_as"] == t["label"]]
                t["in_proposer_any_alias"] = t["in_proposer"] or any(u["in_proposer"] for u in table
                                                                     if u["same_as"] == t["label"])
        timed = [t for t in table if "gain" in t]
        best = max(timed, key=lambda t: t["gain"]) if timed else None
        best_prop = max((t for t in timed if t.get("in_proposer_any_alias")), key=lambda t: t["gain"], default=None)
        kd = {"rounds": len(rounds), "variants_timed": len(timed), "orders_listed": len(table),
              "exhaustive": table,
              "exhaustive_best": {k2: best[k2] for k2 in ("label", "also_as", "median_ms", "gain", "interval", "sm_mhz_median")} if best else None,
              "exhaustive_best_in_proposer": {k2: best_prop[k2] for k2 in ("label", "also_as", "median_ms", "gain", "interval")} if best_prop else None}
        gains = {t["label"]: t for t in timed}
        for mode in ("on", "off"):
            rec = None
            for d in dirs:
                rec = opt_record(d, mode, k) or rec
            if rec is None:
                continue
            sp = None
            if rec.get("best"):
                b = rec["best"]
                sp = (b.get("burst") or {}).get("speedup") or b.get("speedup")
                if sp is None and b.get("label") is None and "verdict" in rec:
                    sp = 1.0  # no winner named: best.hip is the original kernel
                    rec["fraction_note"] = "no winner named (the original kernel kept): speedup 1.0"
            if best and sp and best["gain"] > 1:
                rec["fraction"] = (sp - 1) / (best["gain"] - 1)
            g = lambda lab: gains.get(canon.get(lab, lab), {}).get("gain")
            frac = lambda x: None if x is None or not best or best["gain"] <= 1 else (x - 1) / (best["gain"] - 1)
            lab = (rec.get("best") or {}).get("label")
            if g(lab) is not None:
                rec["exhaustive_gain_of_best_label"] = g(lab)
                rec["fraction_same_harness"] = frac(g(lab))
            if rec.get("max_attempt_speedup"):
                rec["max_attempt_speedup"]["fraction"] = frac(rec["max_attempt_speedup"]["speedup"])
            # per attempt: the exhaustive gain of its order; the first attempt whose order reaches 95 % of the best
            reach, best_tried = None, None
            for a in rec.get("attempts", []):
                a["exhaustive_gain"] = g(a["label"])
                a["same_mapping_as"] = canon.get(a["label"]) if canon.get(a["label"]) != a["label"] else None
                if a["status"] == "duplicate" or a["exhaustive_gain"] is None:
                    continue
                if best_tried is None or a["exhaustive_gain"] > best_tried["gain"]:
                    best_tried = {"label": a["label"], "iteration": a["iteration"], "gain": a["exhaustive_gain"],
                                  "fraction": frac(a["exhaustive_gain"])}
                if reach is None and (frac(a["exhaustive_gain"]) or 0) >= 0.95:
                    reach = a["iteration"]
            rec["best_order_tried_exhaustive"] = best_tried
            rec["first_attempt_within_95pct"] = reach
            kd["model_run" if mode == "on" else "no_model_run"] = rec
        res["kernels"][k] = kd
    if meta:
        res.update(json.load(open(meta)))
    if out:
        json.dump(res, open(out, "w"), indent=1)
    # table
    f = lambda x, d=3: "-" if x is None else ("%.*f" % (d, x) if isinstance(x, float) else str(x))
    print("| kernel | exhaustive best (gain [min,max], rounds) | model run best (speedup [ci]) | GPU attempts | wall s | fraction | same-harness | no-model best | attempts | wall s | fraction |")
    print("|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for k, kd in res["kernels"].items():
        eb = kd.get("exhaustive_best") or {}
        cells = ["%s %s [%s, %s] R=%d" % (eb.get("label"), f(eb.get("gain")), f((eb.get("interval") or [None])[0]),
                                          f((eb.get("interval") or [None, None])[1]), kd["rounds"]) if eb else "-"]
        for key in ("model_run", "no_model_run"):
            r = kd.get(key)
            if not r:
                cells += ["-", "-", "-", "-"] + (["-"] if key == "model_run" else [])
                continue
            b = r.get("best") or {}
            cells.append("%s %s [%s, %s]" % (b.get("label"), f(b.get("speedup")), f((b.get("ci") or [None])[0]),
                                             f((b.get("ci") or [None, None])[1])))
            cells += [f(r.get("gpu_attempts")), f(r.get("run_wall_s"), 1), f(r.get("fraction"))]
            if key == "model_run":
                cells.append(f(r.get("fraction_same_harness")))
        print("| %s | %s |" % (k, " | ".join(cells)))
    for k, kd in res["kernels"].items():
        print("\n%s: %d of %d listed orders timed over %d rounds" % (k, kd["variants_timed"], kd["orders_listed"], kd["rounds"]))
        for t in sorted((t for t in kd["exhaustive"] if "gain" in t), key=lambda t: -t["gain"]):
            print("  %-22s %s  %8.4f ms  gain %.3f [%.3f, %.3f]  %s MHz%s" % (
                t["label"], "P" if t.get("in_proposer_any_alias") else " ", t["median_ms"], t["gain"],
                *(t["interval"] or [0, 0]), f(t.get("sm_mhz_median"), 0),
                ("  (= " + ", ".join(t["also_as"]) + ")") if t.get("also_as") else ""))
        for key in ("model_run", "no_model_run"):
            r = kd.get(key)
            if not r:
                continue
            print("  %s: rc %s, wall %s s, verdict: %s; best order tried: %s; first attempt within 95 %%: %s" % (
                key, r.get("rc"), f(r.get("run_wall_s"), 1), r.get("verdict"),
                r.get("best_order_tried_exhaustive"), r.get("first_attempt_within_95pct")))
            for a in r.get("attempts", []):
                print("    #%s %-20s %-10s pred L2 %s  meas L2 %s  speedup %s sig %s  exhaustive gain %s" % (
                    a["iteration"], a["label"], a["status"], f(a["predicted_l2_hit_pct"], 2),
                    f(a["measured_l2_hit_pct"], 2), f(a["speedup"]), a["significant"], f(a["exhaustive_gain"])))
    return 0


def main(argv):
    if len(argv) == 2 and argv[0] == "orders":
        return cmd_orders(argv[1])
    if len(argv) >= 2 and argv[0] == "summarize":
        args, opts, i = [], {}, 1
        while i < len(argv):
            if argv[i] in ("--out", "--commit", "--device", "--meta"):
                opts[argv[i]] = argv[i + 1]
                i += 2
            else:
                args.append(argv[i])
                i += 1
        return summarize(args, opts.get("--out"), opts.get("--commit", "unknown"), opts.get("--device", "unknown"),
                         opts.get("--meta"))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
