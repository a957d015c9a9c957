"""The speed judge's GPU results (bench/h100_judge.sh's runs) as
bench/results/<date>-<device>-judge.{md,json}: per kernel the command, wall seconds,
attempts, the named winner (or none) and, in each regime, the winner's (else the judge's
leader's) speedup, 95 % interval, significance and the members' median SM clocks; the
judge's own record (finalists, rounds, why it stopped, seconds); and gemm_tc's
repeatability over its runs. Reads from RAW_DIR: runs.txt (one "NAME FILE" per run),
calls.txt (one "CALL_FILE COMMIT" per device call: the script's judge.txt of that call),
device.txt, each run's NAME.history.json (or, for a run whose history did not come back, its
console lines NAME.console.txt), and notes.md (paragraphs appended to the .md: what the
reader needs to know about those runs).
Usage: python3 bench/judge_result.py RAW_DIR STEM
e.g.   python3 bench/judge_result.py bench/results/raw-judge bench/results/2026-11-28-h200-judge"""
import json, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resultfmt import cell, write_result  # noqa: E402

if len(sys.argv) != 3:
    sys.exit("usage: judge_result.py RAW_DIR STEM")
RAW, STEM = sys.argv[1], sys.argv[2]


def pairs(name):
    return [tuple(l.split()) for l in open(os.path.join(RAW, name)) if l.strip() and not l.startswith("#")]


RUNS = pairs("runs.txt")
CALLS = pairs("calls.txt")


def walls():
    out = {}
    for call, commit in CALLS:
        for line in open(os.path.join(RAW, call)):
            m = re.match(r"(\S+) (\S+) rc=(\d+) wall=([\d.]+)", line)
            if m:
                out[m.group(1)] = {"wall_s": float(m.group(4)), "exit_code": int(m.group(3)), "commit": commit}
    return out


def regime_of(a, regime):
    r = a.get("recheck", {}).get("regimes", {}).get(regime)
    if not r:
        return None
    return {"speedup": r["speedup"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
            "significant": bool(r["significant"] and r.get("trusted", True)),
            "baseline_mhz": r.get("baseline_mhz_median"), "candidate_mhz": r.get("candidate_mhz_median"),
            "energy_ratio": r.get("energy_ratio"), "trusted": r.get("trusted", True),
            "untrusted": r.get("untrusted"), "clock_note": r.get("clock_note"), "rounds": r.get("rounds")}


def from_history(name, path):
    h = json.load(open(path))
    judged = [a for a in h["attempts"] if a.get("recheck", {}).get("regimes")]
    winner = [a for a in judged if a.get("significant") and a.get("speedup", 0) > 1]
    winner.sort(key=lambda a: -a["speedup"])
    lead = winner[0] if winner else max(judged, key=lambda a: a["speedup"], default=None)
    j = h.get("judge", {})
    tours = [{"regime": t["regime"], "members": [m["label"] for m in t["members"]], "rounds": t["rounds"],
              "stop": t["stop"], "seconds": round(t["seconds"], 1)} for t in j.get("tournaments", [])]
    return {"attempts": sum(a["status"] != "duplicate" for a in h["attempts"]),
            "winner": winner[0]["label"] if winner else None,
            "leader": lead["label"] if lead else None,
            "burst": regime_of(lead, "burst") if lead else None,
            "sustained": regime_of(lead, "sustained") if lead else None,
            "judge": {"finalists": [f["label"] for f in j.get("finalists", [])], "seconds": round(j.get("seconds", 0), 1),
                      "tournaments": tours},
            "source": os.path.basename(path)}


def from_console(path):
    """A run whose history did not come back: its `judged` and `best:` console lines."""
    text = open(path).read()
    num = r"([\d.]+)x \[([\d.]+), ([\d.]+)\], (significant|not significant), SM clock (\d+) -> (\d+) MHz"
    best = re.search(r"best: iteration \d+ \(([^)]+\))\)", text)
    label = best.group(1) if best else None
    line = next((l for l in text.splitlines() if label and l.startswith("judged " + label + ":")), "")
    out = {"attempts": None, "winner": label, "leader": label, "source": os.path.basename(path)}
    for regime in ("burst", "sustained"):
        m = re.search(regime + " " + num, line)
        out[regime] = None if not m else {
            "speedup": float(m.group(1)), "ci_low": float(m.group(2)), "ci_high": float(m.group(3)),
            "significant": m.group(4) == "significant", "baseline_mhz": float(m.group(5)),
            "candidate_mhz": float(m.group(6))}
    out["judge"] = {"finalists": re.findall(r"^judged ([^:]+):", text, re.M)}
    return out


def main():
    w = walls()
    device = open(os.path.join(RAW, "device.txt")).read().strip().splitlines()
    kernels = []
    for name, file in RUNS:
        hist = os.path.join(RAW, name + ".history.json")
        k = from_history(name, hist) if os.path.exists(hist) else from_console(os.path.join(RAW, name + ".console.txt"))
        k = {"kernel": name, "command": "swizzleperf optimize " + file + " --json --run-dir runs/judge-" + name,
             **w.get(name, {}), **k}
        kernels.append(k)
    g = [k for k in kernels if k["kernel"].startswith("gemm_tc")]
    rep = {}
    for regime in ("burst", "sustained"):
        v = [k[regime]["speedup"] for k in g if k[regime]]
        mid = sorted(v)[len(v) // 2]
        rep[regime] = {"speedups": v, "spread_pct_of_median": round(100 * (max(v) - min(v)) / mid, 2)}
    data = {"device": device[0], "software": device[1] if len(device) > 1 else None,
            "date": "2026-11-28", "regime": "both (burst and sustained, the default), every other option the default",
            "script": "bench/h100_judge.sh (device tool, binary built here and carried)",
            "kernels": kernels, "gemm_tc_repeatability": rep}
    md = ["# The speed judge with default options (2026-11-28, " + device[0].split(",")[0] + ")", "",
          "Each row is one `swizzleperf optimize FILE --json` with every default: objective time, regime both, the",
          "built-in proposer, 10 iterations, then the judge's tournament over the finalists. Device: " + device[0] + "; " +
          (device[1] if len(device) > 1 else "") + ". Commands: `bash bench/h100_judge.sh NAME=FILE ...` in " +
          str(len(CALLS)) + " device call(s) (commits " + ", ".join(c for _, c in CALLS) + "); the table: `python3",
          "bench/judge_result.py " + RAW + " " + STEM + "`. Speedups are baseline/candidate, 95 %",
          "sign-test intervals, for the named winner (else the judge's leader); MHz are median SM clocks, baseline ->",
          "candidate.", "",
          "| kernel | wall s | attempts | winner | burst | sustained | judge |",
          "|---|---|---|---|---|---|---|"]

    def rcell(r):
        if not r:
            return "n/a"
        s = "{:.3f}x [{:.3f}, {:.3f}] {}, {:.0f} -> {:.0f} MHz".format(
            r["speedup"], r["ci_low"], r["ci_high"], "significant" if r["significant"] else "not significant",
            r["baseline_mhz"] or 0, r["candidate_mhz"] or 0)
        return s

    for k in kernels:
        j = k.get("judge", {})
        tours = "; ".join("{} {} rounds, {} s".format(t["regime"], t["rounds"], t["seconds"]) for t in j.get("tournaments", []))
        md.append("| {} | {} | {} | {} | {} | {} | {} finalists{} |".format(
            k["kernel"], cell(k.get("wall_s"), "{:.1f}"), cell(k.get("attempts"), "{}"), k["winner"] or "none",
            rcell(k.get("burst")), rcell(k.get("sustained")), len(j.get("finalists", [])),
            (": " + tours) if tours else ""))
    md += ["", "gemm_tc over its {} runs: burst {} (spread {} % of the median), sustained {} (spread {} %).".format(
        len(g), ", ".join("{:.3f}".format(x) for x in rep["burst"]["speedups"]), rep["burst"]["spread_pct_of_median"],
        ", ".join("{:.3f}".format(x) for x in rep["sustained"]["speedups"]), rep["sustained"]["spread_pct_of_median"])]
    notes = os.path.join(RAW, "notes.md")
    if os.path.exists(notes):
        md += [""] + open(notes).read().rstrip("\n").split("\n")
    print(write_result(STEM, data, md))


main()
