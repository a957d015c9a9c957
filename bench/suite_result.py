#!/usr/bin/env python3
"""Formats a (merged) suite directory as bench/results/<date>-h100-suite[-<objective>].{md,json}.

Every figure comes from suite-summary.json and the per-kernel history.json files
written by swizzleperf on the GPU machine; this script only reformats.
usage: suite_result.py SUITE_DIR OUT_DIR --command "..." [--date YYYY-MM-DD]
"""
import argparse, datetime, json, os

from resultfmt import cell, write_result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite_dir"); ap.add_argument("out_dir")
    ap.add_argument("--command", required=True)
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    a = ap.parse_args()
    s = json.load(open(os.path.join(a.suite_dir, "suite-summary.json")))
    rows = s["kernels"]
    device = s.get("device") or next((r.get("device") for r in rows if r.get("device")), "NVIDIA H100")
    for r in rows:
        hist = os.path.join(a.suite_dir, r["kernel"], "history.json")
        if os.path.exists(hist):
            h = json.load(open(hist))
            device = h.get("hardware", {}).get("name", device)
            r["size"] = h.get("config", {}).get("program_info", {}).get("size")
            r["grid"] = h.get("config", {}).get("program_info", {}).get("grid")
            r["statuses"] = [x["status"] for x in h.get("attempts", [])]
            r["state"] = h.get("state")
            # Which launches the profiles covered (a window of a many-launch pass, or all).
            bm = (h.get("baseline") or {}).get("metrics") or {}
            r["profiled_launches"] = bm.get("launches")
            r["launches_total"] = bm.get("launches_total") or bm.get("launches")
            # What the interleaved re-check cost: attempts re-checked, their extra runs and seconds.
            rc = [x for x in h.get("attempts", []) if "rounds" in x.get("recheck", {})]
            r["rechecked_attempts"] = len(rc)
            r["recheck_runs"] = sum(x["recheck"].get("runs", 0) for x in rc)
            r["recheck_s"] = sum(x.get("stage_seconds", {}).get("recheck", 0) for x in h.get("attempts", []))
            r["attempts_s"] = sum(x.get("wall_seconds", 0) for x in h.get("attempts", []))
    total = sum(r.get("wall_s") or 0 for r in rows)
    res = {"device": device, "date": a.date, "command": a.command, "total_wall_s": total, "kernels": rows}
    objective = s.get("objective") or next((r.get("objective") for r in rows if r.get("objective")), None)
    stem = os.path.join(a.out_dir, f"{a.date}-h100-suite" + (f"-{objective}" if objective else ""))
    f = lambda v, p="{:.2f}": cell(v, p, missing="")
    L = [f"# Kernel suite on {device} ({a.date})", "", f"Command: `{a.command}`", "",
         f"Total wall time of the suite: {total:.0f} s (sum over kernels).", "",
         "L2 hit = ncu lts__t_sector_hit_rate from summed counters over the profiled launches, cold caches; "
         "ideal = 1 - unique sectors / sector requests (compulsory misses only); headroom captured = "
         "(best - baseline) / (ideal - baseline); time = event-timed median, baseline and best in the same run.", "",
         "| kernel | size | validated | L2 % base | L2 % best | ideal % | headroom captured | DRAM B base | DRAM B best | fabric base | fabric best | ms base | ms best | speedup | best pattern | iters to best | wall s |",
         "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in rows:
        hc = r.get("headroom_captured")
        L.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r["kernel"], ",".join(map(str, r.get("size") or [])),
            "yes" if r["validated"] else ("failed: " + r["error"][:60] if r.get("error") else "no"),
            f(r.get("baseline_l2_hit_pct")), f(r.get("best_l2_hit_pct")), f(r.get("ideal_l2_hit_pct")),
            "" if hc is None else f"{100*hc:.0f}%", f(r.get("baseline_dram_bytes"), "{:.3g}"), f(r.get("best_dram_bytes"), "{:.3g}"),
            f(r.get("baseline_fabric_sectors"), "{:.3g}"), f(r.get("best_fabric_sectors"), "{:.3g}"),
            f(r.get("baseline_ms"), "{:.4f}"), f(r.get("best_ms"), "{:.4f}"), f(r.get("speedup"), "{:.3f}"),
            r.get("best_pattern", ""), r.get("iterations_to_best", ""), f(r.get("wall_s"), "{:.0f}")))
    L += ["", "Attempt outcomes per kernel (run state in brackets; 'interrupted' = cut short by the device command's time limit): " +
          "; ".join(f"{r['kernel']} [{r.get('state')}]: {', '.join(r.get('statuses', []))}" for r in rows),
          ""]
    below = [r["kernel"] for r in rows if r.get("ideal_l2_hit_pct") is not None and r.get("baseline_l2_hit_pct") is not None
             and r["ideal_l2_hit_pct"] < r["baseline_l2_hit_pct"]]
    if below:
        L += [f"Where the ideal is below the baseline ({', '.join(below)}) the compulsory-miss estimate (unique bytes / 32 "
              "over the sector requests) does not bound the measured rate, so no headroom fraction is shown; ncu counts write "
              "sectors as L2 hits, which that estimate does not model.", ""]
    windowed = [r for r in rows if r.get("launches_total") and r.get("profiled_launches") and r["profiled_launches"] < r["launches_total"]]
    if windowed:
        L += ["Profile window: " + "; ".join(f"{r['kernel']} profiled over {r['profiled_launches']} of its {r['launches_total']} launches per pass"
                                              for r in windowed) +
              " (the middle ones, baseline and candidates alike: `--profile-launches`, docs/architecture.md); every other kernel over all its launches."]
    if objective:
        L += ["", f"Objective: {objective}. Speedup = median over interleaved rounds of baseline/candidate time, "
              "95 % sign-test interval; significant = the interval excludes 1.0. A kernel with nothing significant "
              "keeps its original (best pattern blank).", "",
              "| kernel | speedup | 95 % interval | significant | verdict | best pattern | best-L2 pattern | best-L2 speedup | headroom note |",
              "|---|---:|---|---|---|---|---|---:|---|"]
        for r in rows:
            lo, hi = r.get("speedup_ci_low"), r.get("speedup_ci_high")
            sig = r.get("significant")
            L.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                r["kernel"], f(r.get("speedup"), "{:.3f}"), "" if lo is None else f"[{lo:.3f}, {hi:.3f}]",
                "" if sig is None else ("yes" if sig else "no"), r.get("verdict", ""), r.get("best_pattern", ""),
                r.get("best_l2_pattern", ""), f(r.get("best_l2_speedup"), "{:.3f}"), r.get("headroom_note", "")))
        rs, at = sum(r.get("recheck_s") or 0 for r in rows), sum(r.get("attempts_s") or 0 for r in rows)
        L += ["", "Re-check cost: {} attempts re-checked, {} extra time-mode runs, {:.0f} s of {:.0f} s spent in attempts ({:.1f} %).".format(
            sum(r.get("rechecked_attempts") or 0 for r in rows), sum(r.get("recheck_runs") or 0 for r in rows), rs, at,
            100 * rs / at if at else 0)]
    print(write_result(stem, res, L))


if __name__ == "__main__":
    main()
