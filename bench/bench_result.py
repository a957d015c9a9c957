#!/usr/bin/env python3
"""Turns a swizzleperf run directory into bench/results/<date>-<device>-<name>.{md,json}.

Every figure comes from the run's history.json (written by the tool on the GPU
machine); this script only reformats. Standard library only.
usage: bench_result.py RUN_DIR NAME OUT_DIR --command "..." [--wall SECONDS]
"""
import argparse, datetime, json, os, sys

from resultfmt import cell, write_result


def brief(a):
    if not a:
        return None
    m = a.get("metrics") or {}
    t = a.get("timing") or {}
    return {
        "iteration": a.get("iteration"), "label": a.get("label"), "status": a.get("status"),
        "l2_hit_pct": m.get("l2_hit_pct"), "l2_sectors": m.get("l2_sectors"),
        "dram_read_bytes": m.get("dram_read_bytes"), "dram_write_bytes": m.get("dram_write_bytes"),
        "fabric_sectors": m.get("fabric_sectors"), "median_ms": t.get("median_ms"),
        "min_ms": t.get("min_ms"), "max_ms": t.get("max_ms"), "speedup": a.get("speedup"),
        "stage_seconds": a.get("stage_seconds"), "reason": a.get("reason"),
    }


def best(h):
    ok = [a for a in h["attempts"] if a["status"] == "ok"]
    def key(a):
        m = a.get("metrics") or {}
        t = a.get("timing") or {}
        return (-(m.get("l2_hit_pct") or -1), t.get("median_ms") or 1e300, a["iteration"])
    return sorted(ok, key=key)[0] if ok else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir"); ap.add_argument("name"); ap.add_argument("out_dir")
    ap.add_argument("--command", required=True); ap.add_argument("--wall", type=float)
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    args = ap.parse_args()
    h = json.load(open(os.path.join(args.run_dir, "history.json")))
    b = best(h)
    base = h.get("baseline")
    stage_totals = {}
    for a in ([base] if base else []) + h["attempts"]:
        for k, v in (a.get("stage_seconds") or {}).items():
            stage_totals[k] = stage_totals.get(k, 0.0) + v
    device = h["hardware"].get("name", "?")
    res = {
        "device": device, "arch": h["hardware"].get("arch"), "command": args.command,
        "date": args.date, "kernel": h["kernel_name"], "size": h["config"].get("program_info", {}).get("size"),
        "validated": b is not None, "state": h["state"],
        "baseline": brief(base), "best": brief(b),
        "baseline_l2_hit_pct": brief(base)["l2_hit_pct"] if base else None,
        "best_l2_hit_pct": brief(b)["l2_hit_pct"] if b else None,
        "baseline_ms": brief(base)["median_ms"] if base else None,
        "best_ms": brief(b)["median_ms"] if b else None,
        "speedup": b.get("speedup") if b else None,
        "best_pattern": b["label"] if b else None, "best_iteration": b["iteration"] if b else None,
        "run_wall_s": args.wall, "seconds_per_stage": stage_totals,
        "attempts": [brief(a) for a in h["attempts"]],
    }
    stem = os.path.join(args.out_dir, f"{args.date}-h100-{args.name}")
    f = cell
    lines = [f"# {args.name} on {device} ({args.date})", "", f"Command: `{args.command}`", "",
             f"Whole run wall time: {f(args.wall, '{:.1f}')} s. Validated best: {res['validated']}.", "",
             "| | L2 hit % | median ms | DRAM read B | DRAM write B | fabric sectors | pattern |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for name, a in (("baseline", res["baseline"]), ("best", res["best"])):
        if a:
            lines.append(f"| {name} | {f(a['l2_hit_pct'])} | {f(a['median_ms'], '{:.4f}')} | {f(a['dram_read_bytes'], '{:.4g}')} | "
                         f"{f(a['dram_write_bytes'], '{:.4g}')} | {f(a['fabric_sectors'], '{:.4g}')} | {a['label']} |")
    lines += ["", f"Speedup (baseline median / best median, same run): {f(res['speedup'], '{:.3f}')}x", "",
              "## Every attempt", "", "| iter | pattern | status | L2 hit % | median ms | speedup | fabric sectors |",
              "|---:|---|---|---:|---:|---:|---:|"]
    for a in res["attempts"]:
        lines.append(f"| {a['iteration']} | {a['label']} | {a['status']} | {f(a['l2_hit_pct'])} | {f(a['median_ms'], '{:.4f}')} | "
                     f"{f(a['speedup'], '{:.3f}')} | {f(a['fabric_sectors'], '{:.4g}')} |")
    lines += ["", "## Seconds per stage (all attempts)", ""] + [f"- {k}: {v:.1f}" for k, v in sorted(stage_totals.items())]
    print(write_result(stem, res, lines))


if __name__ == "__main__":
    sys.exit(main())
