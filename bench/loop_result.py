#!/usr/bin/env python3
"""Formats the loop-speed measurements as bench/results/<date>-h100-loop.{md,json}.

Every figure comes from history.json / loop.json files that swizzleperf and
bench/h100_loop.sh wrote on the GPU machine; this script only reads and reformats.
usage: loop_result.py --gemm RUN_DIR --serial RUN_DIR --suite SUITE_DIR --suite-wall S
         --commit C --serial-commit C --previous OLD_LOOP_JSON --out STEM
"""
import argparse, json, os, statistics as st

from resultfmt import attempt_medians, best_pattern


def walls(h):
    """Each attempt's wall (history's wall_seconds), duplicates left out, as in attempt_medians."""
    return [round(a.get("wall_seconds", 0), 2) for a in h["attempts"] if a.get("status") != "duplicate"]


def seq(h):
    return [(a["label"], a["status"]) for a in h["attempts"]]


def best(h):
    return best_pattern(h) or "original"


def main():
    ap = argparse.ArgumentParser()
    for k in ("gemm", "serial", "suite", "commit", "serial_commit", "previous", "out"):
        ap.add_argument("--" + k.replace("_", "-"), required=True)
    ap.add_argument("--suite-wall", type=float, required=True)
    ap.add_argument("--date", default="2026-11-23")
    ap.add_argument("--note", action="append", default=[], help="a sentence for the Notes section (repeatable)")
    a = ap.parse_args()
    old = json.load(open(a.previous))
    hg = json.load(open(os.path.join(a.gemm, "history.json")))
    hs = json.load(open(os.path.join(a.serial, "history.json")))
    S = json.load(open(os.path.join(a.suite, "suite-summary.json")))
    per, tot, kern = {}, {}, {}
    for r in S["kernels"]:
        h = json.load(open(os.path.join(a.suite, r["kernel"], "history.json")))
        ks = {}
        for x in [h["baseline"]] + h["attempts"]:
            for k, v in x.get("stage_seconds", {}).items():
                per.setdefault(k, []).append(v)
                tot[k] = tot.get(k, 0) + v
                ks[k] = round(ks.get(k, 0) + v, 1)
        bm = h["baseline"].get("metrics", {})
        kern[r["kernel"]] = {"state": h["state"], "attempts": len(h["attempts"]), "wall_s": round(r["wall_s"], 1),
                             "baseline_wall_s": round(sum(h["baseline"].get("stage_seconds", {}).values()), 1),
                             "attempt_wall_s_median": round(attempt_medians([h])[0], 3) if h["attempts"] else None,
                             "profiled_launches": bm.get("launches"),
                             "launches_total": bm.get("launches_total") or bm.get("launches"),
                             "stage_seconds_sum": ks}
    g_med, g_stages, _ = attempt_medians([hg])
    s_med, s_stages, _ = attempt_medians([hs])
    same = seq(hg) == seq(hs) and best(hg) == best(hs)
    res = {
        "date": a.date, "device": "NVIDIA H100 80GB HBM3", "driver": "580.159.04", "device_kind": "nvidia-h100-x1",
        "after": {"commit": a.commit, "command": "bench/h100_session.sh gemm: swizzleperf optimize kernels/gemm.hip --proposer builtin --backend cuda --iterations 10",
                  "state": hg["state"], "attempts_measured": len(hg["attempts"]),
                  "gemm_attempt_wall_s_median": round(g_med, 3), "gemm_attempt_wall_s": walls(hg),
                  "gemm_stage_seconds_median": g_stages, "labels": [x["label"] for x in hg["attempts"]],
                  "best_pattern": best(hg)},
        "serial": {"commit": a.serial_commit, "command": "the same optimize, SWZ_LOOP_SERIAL=1 bench/h100_session.sh gemm: first with the default --build-jobs, then --build-jobs 1",
                   "gemm_attempt_wall_s_median": round(s_med, 3), "gemm_attempt_wall_s": walls(hs),
                   "gemm_stage_seconds_median": s_stages, "best_pattern": best(hs)},
        "identical_to_serial": {"attempt_sequence_identical": seq(hg) == seq(hs), "best_pattern_identical": best(hg) == best(hs),
                                "attempts": [f"{l}: {s}" for l, s in seq(hg)]},
        "session_4": {"commit": "ef0f0eb", "gemm_attempt_wall_s_median": old["after"]["gemm_attempt_wall_s_median"],
                      "gemm_stage_seconds_median": old["after"].get("gemm_stage_seconds_median", {}),
                      "gemm_attempt_wall_s": old["after"]["gemm_attempt_wall_s"],
                      "suite_stage_seconds_total_9_kernels": old.get("suite_stage_seconds_total")},
        "before": old["before"],
        "suite_wall_s": a.suite_wall,
        "suite_command": "bench/h100_session.sh suite: timeout -s INT CAP swizzleperf suite --iterations 4 --proposer builtin --backend cuda --objective time, the ten kernels, one command",
        "suite_kernels_completed": sum(1 for k in kern.values() if k["state"] == "completed"),
        "suite_stage_seconds_median": {k: round(st.median(v), 3) for k, v in sorted(per.items())},
        "suite_stage_seconds_total": {k: round(v, 1) for k, v in sorted(tot.items())},
        "suite_kernels": kern,
        "notes": a.note,
        "targets": {"gemm_attempt_wall_s_median<=5": g_med <= 5, "suite_wall_s<=480_one_command": a.suite_wall <= 480,
                    "every_kernel_completed": all(k["state"] == "completed" for k in kern.values()),
                    "identical_best_patterns_to_serial": same},
    }
    json.dump(res, open(a.out + ".json", "w"), indent=1)
    open(a.out + ".md", "w").write(markdown(res))
    print(json.dumps(res["targets"]))


def markdown(d):
    af, se, s4, be, k = d["after"], d["serial"], d["session_4"], d["before"], d["suite_kernels"]
    tot = d["suite_stage_seconds_total"]
    T = sum(tot.values())
    ok = lambda b: "met" if b else "**not met**"
    t = d["targets"]
    j = lambda xs: " ".join(str(x) for x in xs)
    L = [f"# The loop's speed on the H100, {d['date']}", "",
         f"- device: {d['device']} ({d['device_kind']}), driver {d['driver']}; swizzleperf at **{af['commit']}**, built on the build machine and carried in.",
         f"- gemm: `{af['command']}`; serial: {se['command']} (commit {se['commit']}).",
         f"- suite: `{d['suite_command']}`.",
         f"- before: {be['source']} (commit {be['commit']}); earlier: swizzleperf at {s4['commit']}, as recorded in the version of this file in commit 0324d6e.",
         "- every figure: the .json beside this file, formatted by `bench/loop_result.py` from the run dirs the GPU machine returned.", "",
         "## Targets", "", "| target | result | |", "|---|---|---|",
         f"| gemm median attempt wall <= 5 s | **{af['gemm_attempt_wall_s_median']:.2f} s** | {ok(t['gemm_attempt_wall_s_median<=5'])} |",
         f"| ten kernels, 4 iterations, one `suite` command <= 480 s | **{d['suite_wall_s']} s**, exit 0 | {ok(t['suite_wall_s<=480_one_command'])} |",
         f"| every kernel completed (no `interrupted`) | {d['suite_kernels_completed']} of 10 | {ok(t['every_kernel_completed'])} |",
         f"| identical best patterns to a serial run on gemm | both `{af['best_pattern']}`; the same {len(af['labels'])} attempts, same order, same statuses | {ok(t['identical_best_patterns_to_serial'])} |", "",
         "## gemm: wall time per attempt (built-in proposer, 4096x32768x1024)", "",
         "| | commit | attempts | median s | per attempt (s) |", "|---|---|---:|---:|---|",
         f"| before | {be['commit']} | {len(be['gemm_attempt_wall_s'])} | {be['gemm_attempt_wall_s_median']:.2f} | {j(be['gemm_attempt_wall_s'])} |",
         f"| earlier | {s4['commit']} | {len(s4['gemm_attempt_wall_s'])} | {s4['gemm_attempt_wall_s_median']:.2f} | {j(s4['gemm_attempt_wall_s'])} |",
         f"| **after** | {af['commit']} | {af['attempts_measured']} | **{af['gemm_attempt_wall_s_median']:.2f}** | {j(af['gemm_attempt_wall_s'])} |",
         f"| serial (`--build-jobs 1`) | {se['commit']} | {len(se['gemm_attempt_wall_s'])} | {se['gemm_attempt_wall_s_median']:.2f} | {j(se['gemm_attempt_wall_s'])} |", "",
         "Median per stage, s (an attempt shows a stage only when it ran it):", "",
         f"| stage | before | {s4['commit']} | after | serial |", "|---|---:|---:|---:|---:|"]
    bs, ss, a_ = be["gemm_stage_seconds_median"], se["gemm_stage_seconds_median"], af["gemm_stage_seconds_median"]
    s4m = s4.get("gemm_stage_seconds_median", {})
    for stg in sorted(set(bs) | set(ss) | set(a_) | set(s4m)):
        if stg == "propose":
            continue
        L.append(f"| {stg} | {bs.get(stg, '—')} | {s4m.get(stg, '—')} | {a_.get(stg, '—')} | {ss.get(stg, '—')} |")
    L += ["", "An attempt's build is done ahead (`build_wait` 0) except the first; `before` ran verify, compare (a 4 GB dump) and time as three processes.", "",
          "## Suite: ten kernels in one command", "",
          f"**exit 0 in {d['suite_wall_s']} s, {d['suite_kernels_completed']} of 10 kernels completed** (bench/results/{d['date']}-h100-suite-time.md). "
          f"At {s4['commit']} the first command completed 5 kernels in 540 s; the 2026-11-22 run took 1661 s in four commands.", "",
          "| kernel | attempts | wall s | baseline s | attempt median s | profiled launches | profile s | evaluate s | recheck s |",
          "|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for n, x in k.items():
        ss_ = x["stage_seconds_sum"]
        pl = (f"{x['profiled_launches']} of {x['launches_total']}" if x["launches_total"] and x["profiled_launches"] != x["launches_total"]
              else f"{x['profiled_launches']}")
        L.append(f"| {n} | {x['attempts']} | {x['wall_s']} | {x['baseline_wall_s']} | {x['attempt_wall_s_median']} | {pl} | "
                 f"{ss_.get('profile', 0)} | {ss_.get('evaluate', 0)} | {ss_.get('recheck', 0)} |")
    s4t = s4.get("suite_stage_seconds_total_9_kernels") or {}
    L += ["", "Stage totals over the ten kernels (baseline stages included):", "",
          f"| stage | seconds | share | {s4['commit']} (9 kernels) |", "|---|---:|---:|---:|"]
    for stg in sorted(tot, key=lambda x: -tot[x]):
        if stg != "propose":
            L.append(f"| {stg} | {tot[stg]} | {100 * tot[stg] / T:.0f} % | {s4t.get(stg, '')} |")
    L += ["", "Per-stage medians over every attempt and baseline of the suite, s: " +
          ", ".join(f"{x} {v}" for x, v in d["suite_stage_seconds_median"].items() if x != "propose") + "."]
    if d.get("notes"):
        L += ["", "## Notes", ""] + [f"- {n}" for n in d["notes"]]
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    main()
