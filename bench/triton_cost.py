"""Where a Triton program's process time goes (the per-candidate floor of the triton backend).

Usage on the GPU machine, from the repository root:
    python3 bench/triton_cost.py kernels/triton/matmul.py > cost.txt
Each line: what ran, its wall seconds (median of 3 where it says so). Measures a fresh
interpreter's imports and first CUDA call, the program's verify mode with a cold and a warm
Triton cache, and the same work in a child forked from a parent that has imported torch and
triton (no CUDA in the parent).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

PROG = sys.argv[1] if len(sys.argv) > 1 else "kernels/triton/matmul.py"
SUPPORT = os.path.abspath("kernels/support")
ENV = dict(os.environ, PYTHONPATH=SUPPORT)


def wall(argv, env=ENV, reps=3):
    out = []
    for _ in range(reps):
        t0 = time.time()
        r = subprocess.run(argv, env=env, capture_output=True, text=True)
        out.append(time.time() - t0)
        if r.returncode != 0:
            print("  failed:", argv, r.stderr[-400:])
    return statistics.median(out), out


def line(what, m):
    print(f"{what:60s} {m[0]:7.3f}  {' '.join(f'{x:.3f}' for x in m[1])}", flush=True)


py = sys.executable
line("python -c pass", wall([py, "-c", "pass"]))
line("import torch", wall([py, "-c", "import torch"]))
line("import torch, triton", wall([py, "-c", "import torch, triton"]))
line("import torch, triton; first CUDA call", wall([py, "-c", "import torch, triton; torch.zeros(1, device='cuda'); torch.cuda.synchronize()"]))
line("program info", wall([py, PROG, "info"]))
cache = tempfile.mkdtemp()
env = dict(ENV, TRITON_CACHE_DIR=cache)
line("program verify, cold Triton cache (first) then warm", wall([py, PROG, "verify"], env=env))
line("program time, warm cache", wall([py, PROG, "time"], env=env))
cold = tempfile.mkdtemp()
line("program time, cold cache", wall([py, PROG, "time"], env=dict(ENV, TRITON_CACHE_DIR=cold), reps=1))

# The same verify in a child forked from a warm parent (torch and triton imported, no CUDA).
FORK = r'''
import os, sys, time, runpy
sys.path.insert(0, os.environ["PYTHONPATH"])
import torch, triton
import swz_triton  # the harness, imported once
times = []
for i in range(3):
    t0 = time.time()
    pid = os.fork()
    if pid == 0:
        sys.argv = [sys.argv[1], "verify"]
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
        except SystemExit as e:
            os._exit(e.code if isinstance(e.code, int) else 1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    times.append(time.time() - t0)
print(" ".join(f"{t:.3f}" for t in times), os.waitstatus_to_exitcode(status))
'''
t0 = time.time()
r = subprocess.run([py, "-c", FORK, PROG], env=env, capture_output=True, text=True)
print(f"{'forked verify x3 from a warm parent (warm cache):':60s} {r.stdout.strip()}  parent total {time.time()-t0:.3f}")
if r.returncode:
    print(r.stderr[-800:])
