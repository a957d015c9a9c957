#!/usr/bin/env python3
"""On the GPU machine: does the speed re-check's way of timing change the ratio?

On the H100 (2026-11-23, commit 0f0de51) gemm_tc's best order measured 1.31x in one-shot
time processes but 1.21x in the serve-mode re-check (both programs alive, A B A B back
to back). This times the same two binaries (kernels/tc/gemm_tc.hip and the committed
best) four ways, N rounds each, and records the SM clock, power and throttle reasons
after every request:
  processes   one `time` process per run, A B A B (the re-check before serve mode)
  served      both programs in serve mode, requests A B A B (the re-check at 0f0de51)
  served_gap  the same with a pause between requests (SWZ_GAPS seconds, default 1.0)
  alone       each program served alone, N requests in a row
Writes $OUT/recheck-modes.json and prints a table. Usage: h100_recheck_modes.py [ROUNDS]
"""
import json, os, statistics, subprocess, sys, time

OUT = os.environ.get("OUT", "bench/out")
N = int(sys.argv[1]) if len(sys.argv) > 1 else 8
os.makedirs(OUT, exist_ok=True)
NV = ["nvcc", "-x", "cu", "-std=c++17", "-O3", "-arch=sm_90", "-I", "kernels/support/hip_on_cuda",
      "-I", "kernels/support", "-DSWZ_NUM_DIES=2"]
srcs = {"base": "kernels/tc/gemm_tc.hip", "cand": "bench/results/2026-11-23-h100-gemm_tc-best.hip"}
procs = [subprocess.Popen(NV + ["-o", f"/tmp/rm-{k}", s]) for k, s in srcs.items()]
assert all(p.wait() == 0 for p in procs), "build failed"
TIME = ["--reps", "30", "--warmup", "3"]


def gpu():
    q = "clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active"
    out = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.strip()
    return out


def one_process(k):
    r = subprocess.run([f"/tmp/rm-{k}", "time"] + TIME, capture_output=True, text=True)
    return json.loads(r.stdout.strip().splitlines()[-1])["median_ms"]


class Served:
    def __init__(self, k):
        self.p = subprocess.Popen([f"/tmp/rm-{k}", "serve"] + TIME, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        assert json.loads(self.p.stdout.readline())["ready"]

    def time(self):
        self.p.stdin.write("time\n"); self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())["median_ms"]

    def close(self):
        self.p.stdin.write("quit\n"); self.p.stdin.flush(); self.p.wait()


res = {}
def record(mode, pairs):
    ratios = [b / c for b, c, _ in pairs]
    res[mode] = {"base_ms": [p[0] for p in pairs], "cand_ms": [p[1] for p in pairs], "gpu_after_round": [p[2] for p in pairs],
                 "ratio_median": statistics.median(ratios), "ratios": ratios}
    print(f"{mode:11s} ratio median {statistics.median(ratios):.3f}  base {statistics.median(res[mode]['base_ms']):.4f}"
          f"  cand {statistics.median(res[mode]['cand_ms']):.4f}  gpu(last) {pairs[-1][2]}", flush=True)

if os.environ.get("SWZ_SKIP_PROCESSES") != "1":
    record("processes", [(one_process("base"), one_process("cand"), gpu()) for _ in range(N)])
time.sleep(5)
a, b = Served("base"), Served("cand")
record("served", [(a.time(), b.time(), gpu()) for _ in range(N)])
time.sleep(5)
for gap in [float(g) for g in os.environ.get("SWZ_GAPS", "1.0").split(",")]:
    rows = []
    for _ in range(N):
        x = a.time(); time.sleep(gap); y = b.time(); rows.append((x, y, gpu())); time.sleep(gap)
    record(f"served_gap_{gap:g}s", rows)
    time.sleep(5)
a.close(); b.close()
time.sleep(5)
a = Served("base"); xs = [(a.time(), gpu()) for _ in range(N)]; a.close()
b = Served("cand"); ys = [(b.time(), gpu()) for _ in range(N)]; b.close()
record("alone", [(x[0], y[0], y[1]) for x, y in zip(xs, ys)])
json.dump({"rounds": N, "time_args": TIME, "gpu_fields": "clocks.sm MHz, power W, temp C, throttle reasons",
           "modes": res}, open(os.path.join(OUT, "recheck-modes.json"), "w"), indent=1)
