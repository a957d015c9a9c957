"""`swizzleperf tune` GPU results (bench/h100_tune.sh's runs, bench/tune_baselines.py's
baselines) as bench/results/<date>-<device>-tune.{md,json}: per kernel and shape the tool's best
point and order, its throughput, where it sits against cuBLAS and Triton's autotuner over the
same space, what the best order at the program's own tile gives, the evaluations, the space and
the wall time.
Reads from RAW_DIR: runs.txt (one "NAME FILE M,N,K ORDER_ONLY_HISTORY..." per tune run: the
order-only histories are default `optimize` runs of the same program and size), calls.txt (one
"CALL_FILE COMMIT" per device call: the script's tune.txt), device.txt, NAME.history.json,
NAME.log, NAME.baselines.json (Triton programs), notes.md.
Usage: python3 bench/tune_result.py RAW_DIR STEM"""
import json, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resultfmt import cell, write_result  # noqa: E402

if len(sys.argv) != 3:
    sys.exit("usage: tune_result.py RAW_DIR STEM")
RAW, STEM = sys.argv[1], sys.argv[2]


def lines(name):
    return [l.split() for l in open(os.path.join(RAW, name)) if l.strip() and not l.startswith("#")]


def load(path):
    with open(path) as f:
        return json.load(f)


def ms_of(a):
    t = a.get("timing") or {}
    return t.get("median_ms") if a.get("status") == "ok" else None


walls, commits = {}, []
for call, commit in lines("calls.txt"):
    commits.append(commit)
    for l in open(os.path.join(RAW, call)):
        m = re.match(r"(\S+) \S+ \S+ rc=(\d+) wall=([\d.]+)", l)
        if m:
            walls[m.group(1)] = (int(m.group(2)), float(m.group(3)))
device = open(os.path.join(RAW, "device.txt")).read().strip().splitlines()

shapes, md_rows = [], []
for row in lines("runs.txt"):
    name, file, size = row[:3]
    M, N, K = (int(x) for x in size.split(","))
    flops = 2 * M * N * K
    tf = lambda ms: None if ms is None else round(flops / (ms * 1e-3) / 1e12, 1)  # noqa: E731
    h = load(os.path.join(RAW, name + ".history.json"))
    base_ms = ms_of(h["baseline"]) or (h["baseline"].get("timing") or {}).get("median_ms")
    atts = [a for a in h["attempts"] if a.get("status") != "duplicate"]
    ok = [a for a in atts if ms_of(a) is not None]
    best = min(ok, key=ms_of)
    own = [a for a in ok if not a.get("defines")]
    log = open(os.path.join(RAW, name + ".log")).read()
    m = re.search(r"tune: (\d+) of (\d+) points fit this device .*?(\d+) orders .*?, (\d+) trials", log)
    points_fit, points_all, orders, trials = (int(m.group(i)) for i in (1, 2, 3, 4)) if m else (None,) * 4
    order_only = []
    for p in row[3:]:
        oh = load(p)
        oo = [ms_of(a) for a in oh["attempts"] if ms_of(a) is not None]
        if oo:
            order_only.append(min(oo))
    out = {
        "kernel": file, "shape": [M, N, K], "command": f"swizzleperf tune {file} --size {size} --json",
        "wall_s": walls.get(name, (None, None))[1], "exit_code": walls.get(name, (None, None))[0],
        "evaluations": len(h["attempts"]), "failed": sum(1 for a in atts if ms_of(a) is None),
        "space_size": points_fit, "space_declared": points_all, "orders": orders, "trials": trials,
        "best_params": best.get("defines") or "the program's own",
        "best_order": best["label"].split(" @ ")[0],
        "best_ms": round(ms_of(best), 4), "baseline_ms": round(base_ms, 4),
        "best_tflops": tf(ms_of(best)), "baseline_tflops": tf(base_ms),
        "order_only_tflops": tf(min(order_only)) if order_only else None,
        "order_only_in_tune_tflops": tf(min(ms_of(a) for a in own)) if own else None,
        "judged": None,
    }
    # The named winner, as bench/judge_result.py reads it: significant, faster, the largest speedup.
    won = [a for a in h["attempts"] if a.get("significant") and a.get("speedup", 0) > 1
           and ((a.get("recheck") or {}).get("regimes"))]
    won.sort(key=lambda a: -a["speedup"])
    if won:
        rr = won[0]["recheck"]["regimes"]
        out["judged"] = {"label": won[0]["label"], **{k: {"speedup": v.get("speedup"), "ci_low": v.get("ci_low"),
                         "ci_high": v.get("ci_high"), "significant": v.get("significant")} for k, v in rr.items()}}
    bpath = os.path.join(RAW, name + ".baselines.json")
    if os.path.exists(bpath):
        b = load(bpath)
        progs = list(b["programs"].values())
        out.update({
            "timed_by": "triton.testing.do_bench (cublas, autotune and the do_bench_* figures)",
            "cublas_tflops": b["cublas_tflops"], "cublas_f32out_tflops": b.get("cublas_f32out_tflops"),
            "do_bench_original_tflops": progs[0], "do_bench_best_tflops": progs[1] if len(progs) > 1 else None,
            "autotune_tflops": b["autotune_tflops"], "autotune_wall_s": b["autotune_wall_s"],
            "autotune_best": b["autotune_best"], "autotune_configs": b["autotune_configs"],
        })
        if out["do_bench_best_tflops"]:
            out["share_of_cublas"] = round(out["do_bench_best_tflops"] / b["cublas_tflops"], 3)
            if b.get("cublas_f32out_tflops"):
                out["share_of_cublas_f32out"] = round(out["do_bench_best_tflops"] / b["cublas_f32out_tflops"], 3)
    shapes.append(out)
    md_rows.append(out)

data = {"device": device, "commits": commits, "date": "2026-11-28",
        "regime": "screening: one-shot timings of the program's time mode (default regime, burst); the judge: both",
        "command": "bash bench/h100_tune.sh NAME=FILE@M,N,K; python3 bench/tune_baselines.py M N K FILE BEST",
        "shapes": shapes}
md = [f"# `swizzleperf tune` with its defaults (2026-11-28, {device[0].split(',')[0] if device else '?'})", "",
      f"Device: {'; '.join(device)}. Commits: {', '.join(commits)}. Commands: `bash bench/h100_tune.sh NAME=FILE@M,N,K` "
      "(`swizzleperf tune FILE --size M,N,K --json`, every default: guided search, budget 60 evaluations, the judge "
      "in both regimes), `python3 bench/tune_baselines.py M N K FILE BEST` for a Triton program; the table: "
      f"`python3 bench/tune_result.py {RAW} {STEM}`.", "",
      "TF/s from the tool's own screening (median of the program's `time` mode): baseline, best, order only "
      "(a default `optimize` run's best order at the program's own tile). do_bench columns: all timed by "
      "`triton.testing.do_bench` in one process (cuBLAS = `torch.matmul` on the program's fp16 inputs, fp16 out; "
      "in brackets with an fp32 out like the program's).", "",
      "| kernel | shape | wall s | evaluations / points x orders | best point | best order | baseline TF/s | order only TF/s | best TF/s | judged (burst / sustained) | do_bench: original / best / autotune (wall) / cuBLAS | best / cuBLAS |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|"]
for o in md_rows:
    jd = o["judged"]
    judged = "none" if not jd else " / ".join(f"{jd[k]['speedup']:.3f}x [{jd[k]['ci_low']:.3f}, {jd[k]['ci_high']:.3f}]" for k in ("burst", "sustained") if k in jd)
    params = o["best_params"] if isinstance(o["best_params"], str) else " ".join(f"{k}={v}" for k, v in o["best_params"].items())
    db = "n/a" if "cublas_tflops" not in o else (
        f"{cell(o['do_bench_original_tflops'], '{:.1f}')} / {cell(o['do_bench_best_tflops'], '{:.1f}')} / "
        f"{cell(o['autotune_tflops'], '{:.1f}')} ({o['autotune_wall_s']} s, {o['autotune_configs']} configs) / "
        f"{o['cublas_tflops']:.1f} ({cell(o['cublas_f32out_tflops'], '{:.1f}')})")
    share = "n/a" if "share_of_cublas" not in o else f"{o['share_of_cublas']:.3f} ({cell(o.get('share_of_cublas_f32out'), '{:.3f}')})"
    judged = (jd["label"].split(" @ ")[0] + ": " + judged) if jd else judged
    md.append(f"| {o['kernel']} | {'x'.join(map(str, o['shape']))} | {o['wall_s']} | {o['evaluations']} / {o['space_size']} x {o['orders']} "
              f"| {params} | {o['best_order']} | {cell(o['baseline_tflops'], '{:.1f}')} | {cell(o['order_only_tflops'], '{:.1f}')} "
              f"| {cell(o['best_tflops'], '{:.1f}')} | {judged} | {db} | {share} |")
notes = os.path.join(RAW, "notes.md")
if os.path.exists(notes):
    md += ["", open(notes).read().strip()]
print(write_result(STEM, data, md))
