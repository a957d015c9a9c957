#!/usr/bin/env python3
"""MI300X predictions for the paper's ten kernels, made on a machine without a GPU:
`swizzleperf check kernels/*.hip --predict --arch gfx942 --no-build --json`, timed, written as
bench/results/DATE-mi300x-predictions.{md,json}. These are the locality model's PREDICTIONS
for an AMD Instinct MI300X (8 XCDs, 4 MB L2 each, 256 MB Infinity Cache): nothing here was
measured on AMD hardware, which this project has never run on.
Usage: mi300x_predictions.py [--binary build/swizzleperf]"""
import argparse, datetime, glob, json, os, platform, subprocess, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("--binary", default=os.path.join(ROOT, "build", "swizzleperf"))
a = ap.parse_args()
kernels = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "kernels", "*.hip")))
argv = [a.binary, "check"] + kernels + ["--predict", "--arch", "gfx942", "--no-build", "--json"]
t0 = time.time()
p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
wall = time.time() - t0
j = json.loads(p.stdout)
date = datetime.date.today().isoformat()
out = os.path.join(ROOT, "bench", "results", date + "-mi300x-predictions")
commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
res = {"what": "locality-model PREDICTIONS for an AMD Instinct MI300X (never measured: no AMD GPU here)",
       "kind": "prediction", "device": "none (host-only prediction for gfx942)", "host": platform.machine() + ", " + str(os.cpu_count()) + " cores",
       "command": "swizzleperf check kernels/*.hip --predict --arch gfx942 --no-build --json", "commit": commit, "date": date,
       "regime": "not applicable (a prediction of cold-cache L2 behaviour per launch)", "wall_s": round(wall, 1),
       "exit_code": p.returncode, "kernels": []}
lines = ["# MI300X locality predictions for the paper's ten kernels (%s)" % date, "",
         "**Predictions, not measurements**: the locality model (docs/locality-model.md) run on a machine without a GPU for an "
         "AMD Instinct MI300X (gfx942: 8 XCDs, 4 MB L2 each, round-robin dispatch, 256 MB Infinity Cache). No AMD GPU was used; "
         "the model's error was measured on the H100 only (2026-11-24-h100-locality.md).", "",
         "Command: `%s` (%.1f s wall on %s; commit %s). L2 requests are counted in 128-byte lines, as rocprofv3's TCC counters do. "
         "Candidates: the built-in proposer's seed order for gfx942, and the kernel's own region." % (res["command"], wall, res["host"], commit[:7]), ""]
for k in j["kernels"]:
    preds = k.get("predictions", [])
    res["kernels"].append({"kernel": k["kernel"], "note": k.get("predict_note"), "predictions": preds})
    lines += ["## %s" % k["kernel"], "", k.get("predict_note", ""), "",
              "| order | L2 hit % | per-XCD L2 hit % | DRAM read | cross-XCD |", "|---|--:|---|--:|--:|"]
    for q in preds:
        if "error" in q:
            lines.append("| %s | - | %s | | |" % (q["order"], q["error"]))
            continue
        lines.append("| %s | %.2f | %s | %.1f MB | %.1f MB |" % (q["order"], q["l2_hit_pct"], " ".join("%.1f" % x for x in q["die_l2_hit_pct"]),
                                                            q["dram_read_bytes"] / 1e6, q["cross_die_bytes"] / 1e6))
    lines.append("")
json.dump(res, open(out + ".json", "w"), indent=1)
open(out + ".md", "w").write("\n".join(lines) + "\n")
print("wrote %s.{md,json} in %.1f s (exit %d)" % (out, wall, p.returncode))
